"""The single-file importers by format name, as the CLI offers them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Literal

from pipeline.core.tools.importers.common import ImportResult
from pipeline.core.tools.importers.openai_functions import import_openai
from pipeline.core.tools.importers.toolalpaca import import_toolalpaca
from pipeline.core.tools.importers.toolbench import import_toolbench

ImportFormat = Literal["toolbench", "toolalpaca", "openai"]

IMPORTERS: dict[ImportFormat, Callable[[Path], ImportResult]] = {
    "toolbench": import_toolbench,
    "toolalpaca": import_toolalpaca,
    "openai": import_openai,
}
