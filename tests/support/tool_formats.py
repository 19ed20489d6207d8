"""One small, importable file of each tool format `atbench tools import` reads, for the tests
that import a file under the wrong `--format`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pipeline.core.tools.importers.shapes import Format

_OPERATION = {"get": {"description": "Returns the ledger balance of one account.", "responses": {}}}

SAMPLES: dict[Format, Any] = {
    "toolbench": [
        {
            "query": "What is my balance?",
            "api_list": [
                {
                    "category_name": "Finance",
                    "tool_name": "Ledger",
                    "api_name": "balance",
                    "api_description": "Returns the ledger balance of one account.",
                    "required_parameters": [],
                    "optional_parameters": [],
                    "method": "GET",
                }
            ],
        }
    ],
    "toolalpaca": [
        {
            "Name": "Ledger",
            "Description": "Account balances.",
            "Category": "Finance",
            "Documentation": json.dumps({"openapi": "3.0.0", "paths": {"/balance": _OPERATION}}),
        }
    ],
    "openai": [
        {
            "type": "function",
            "function": {
                "name": "getBalance",
                "description": "Returns the ledger balance of one account.",
                "parameters": {"type": "object", "properties": {}},
            },
        }
    ],
    "openapi": {
        "openapi": "3.0.0",
        "info": {"title": "Ledger", "x-providerName": "ledger.example"},
        "paths": {"/balance": _OPERATION},
    },
}


def write_sample(folder: Path, fmt: Format) -> Path:
    path = folder / f"{fmt}.json"
    path.write_text(json.dumps(SAMPLES[fmt]), encoding="utf-8")
    return path
