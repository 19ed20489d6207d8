"""Markup-looking input is printed literally by the CLI: errors, tables and file names."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from pipeline.core.inputs.paths import project_root


def atbench(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from pipeline.cli import main; main()", *args],
        cwd=project_root(),
        env={**os.environ, "COLUMNS": "200", **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_markup_in_an_option_is_reported_literally(tmp_path: Path) -> None:
    result = atbench(
        "build",
        "--domains",
        "[/x],[red]x",
        "--out",
        str(tmp_path / "release"),
        env={"ATBENCH_OUTPUTS": str(tmp_path / "outputs"), "DAGSTER_HOME": str(tmp_path / "dg")},
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "[/x]" in result.stderr and "[red]x" in result.stderr


def test_a_pattern_in_an_input_error_keeps_its_brackets(tmp_path: Path) -> None:
    for folder in ("taxonomy", "templates", "seeds"):
        shutil.copytree(project_root() / folder, tmp_path / folder)
    shutil.copytree(project_root() / "tool_pool", tmp_path / "tool_pool")
    seed = next((tmp_path / "seeds").glob("*.yaml"))
    seed.write_text(seed.read_text().replace(f"id: {seed.stem}", "id: Not_Snake", 1))
    result = atbench("validate", env={"ATBENCH_ROOT": str(tmp_path)})
    assert result.returncode == 1
    assert "'^[a-z][a-z0-9]*(_[a-z0-9]+)*$'" in result.stderr


def test_releases_lists_markup_named_folders_and_fields_literally(tmp_path: Path) -> None:
    for name, backend in (("[/x]", "[/evil]"), ("[red]plain", "procedural")):
        folder = tmp_path / name  # "[/x]" is a folder "x]" in a folder "["
        folder.mkdir(parents=True)
        manifest = {"version": 1, "backend": backend, "counts": {}, "files": {}}
        (folder / "manifest.json").write_text(json.dumps(manifest))
    result = atbench("releases", "--root", str(tmp_path))
    assert result.returncode == 0, result.stderr
    for literal in ("[/x]", "[/evil]", "[red]plain"):
        assert literal in result.stdout
