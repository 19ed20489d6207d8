"""The single-file importers by format name, as the CLI offers them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Literal

from pipeline.core.tool_import.common import ImportResult
from pipeline.core.tool_import.openai_functions import import_openai
from pipeline.core.tool_import.toolalpaca import import_toolalpaca
from pipeline.core.tool_import.toolbench import import_toolbench

ImportFormat = Literal["toolbench", "toolalpaca", "openai"]

IMPORTERS: dict[ImportFormat, Callable[[Path], ImportResult]] = {
    "toolbench": import_toolbench,
    "toolalpaca": import_toolalpaca,
    "openai": import_openai,
}
