"""Running `atbench` through its real entry point, in this process."""

from __future__ import annotations

import sys

import pytest

from pipeline.cli import main


def atbench(
    args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[int, str]:
    """Exit status and stderr of `atbench ARGS`, as `pipeline.cli.main` ends it."""
    monkeypatch.setattr(sys, "argv", ["atbench", *args])
    with pytest.raises(SystemExit) as exited:
        main()
    code = exited.value.code
    return code if isinstance(code, int) else 1, capsys.readouterr().err
