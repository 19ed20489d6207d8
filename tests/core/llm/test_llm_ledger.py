"""A damaged ledger is reported, naming the file, not silently summed without its lines."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from pipeline.core.llm import LLMClient
from pipeline.core.llm.ledger import read_ledger
from tests.core.llm.llm_helpers import Answer, ClientFactory, make_request


def test_truncated_and_foreign_lines_are_reported(
    tmp_path: Path, procedural_client: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    async def ask(client: LLMClient) -> None:
        async with client:
            await client.ask_all([(make_request(str(i)), Answer) for i in range(3)])

    asyncio.run(ask(procedural_client()))
    (segment,) = (tmp_path / "ledger").glob("calls-*.jsonl")
    lines = segment.read_text().splitlines()
    damaged = json.loads(lines[0])
    del damaged["attempts"]
    segment.write_text("\n".join([json.dumps(damaged), lines[1], lines[2][:40]]))

    assert len(read_ledger([tmp_path / "ledger"])) == 1
    assert f"skipping torn last line of {segment}" in caplog.text
    assert f"skipping 1 ledger line(s) in {segment}" in caplog.text
