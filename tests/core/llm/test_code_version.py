"""The procedural backend's cache keys change with any code it runs, in any package."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.core.llm.code_version import code_version, covered_modules
from pipeline.core.procedural import MODEL_NAME

FILES = {
    "__init__.py": "",
    "backend/__init__.py": "from cvpkg.shared import value\nfrom .handler import run\n",
    "backend/handler.py": "from ..judge import verdict\n\ndef run() -> str:\n    return verdict\n",
    "shared.py": "value = 1\n",
    "judge.py": "verdict = 'ok'\n",
    "unrelated.py": "other = 0\n",
}


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A package `cvpkg` whose `backend` imports a sibling absolutely and, from a submodule,
    another relatively; forgotten by the import system afterwards (each test has its own)."""
    for name, text in FILES.items():
        (tmp_path / "cvpkg" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "cvpkg" / name).write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path / "cvpkg"
    for name in [m for m in sys.modules if m.partition(".")[0] == "cvpkg"]:
        del sys.modules[name]


@pytest.mark.parametrize(
    ("edited", "changes"),
    [
        ("backend/handler.py", True),
        ("shared.py", True),  # imported by the backend's __init__
        ("judge.py", True),  # imported relatively by a submodule
        ("unrelated.py", False),
    ],
)
def test_editing_a_module_the_backend_runs_changes_its_version(
    package: Path, edited: str, changes: bool
) -> None:
    before = code_version("cvpkg.backend")
    with (package / edited).open("a") as handle:
        handle.write("# edited\n")
    assert (code_version("cvpkg.backend") != before) is changes


def test_the_procedural_backend_covers_the_code_it_reads_outside_its_package() -> None:
    covered = covered_modules("pipeline.core.procedural")
    for module in (
        "pipeline.core.procedural.judge",
        "pipeline.core.filtering.judge",  # the judge's shared definitions
        "pipeline.core.generation.roles",  # every role's input and answer
        "pipeline.core.model.seeding",  # the seeded randomness of every answer
        "pipeline.core.generation.prose_phrases",  # phrase banks of in-world text
        "pipeline.core.generation.prose_threads",
        "pipeline.core.generation.content",  # what each failure mode's content says
    ):
        assert module in covered
    assert f"procedural-{code_version('pipeline.core.procedural')}" == MODEL_NAME
