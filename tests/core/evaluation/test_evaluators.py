"""Every evaluator reports each answer to the progress sink as it comes, failures as rejected."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pipeline.core.evaluation.evaluators import KeywordEvaluator, OpenAIEvaluator, predict
from pipeline.core.evaluation.formats import FORMATS
from pipeline.core.inputs.taxonomy import default_taxonomy
from pipeline.core.llm import LLMSettings
from pipeline.core.model.progress import reporting_to
from tests.support.chat_server import ChatServer, bad_request
from tests.support.factories import make_release
from tests.support.progress import Recorder


def test_the_keyword_baseline_reports_every_trace() -> None:
    trajectories = make_release(3)
    recorder = Recorder()
    with reporting_to(recorder):
        asyncio.run(predict(KeywordEvaluator(), trajectories, default_taxonomy()))
    assert recorder.stages == ["evaluate"]
    assert recorder.counts == {"planned": 6, "done": 6, "rejected": 0, "calls": 0, "hits": 0}


def test_a_model_guard_reports_answers_calls_and_its_failures(tmp_path: Path) -> None:
    trajectories = make_release(2)
    with ChatServer(lambda _received: "safe") as server:
        server.script(bad_request("this prompt is refused", "invalid_request_error"))
        settings = LLMSettings.model_validate(
            {"backend": "openai", "base_url": server.url, "model": "guard", "max_concurrency": 1}
        )
        guard = OpenAIEvaluator(
            settings=settings,
            format=FORMATS["atbench"],
            task="binary",
            taxonomy=default_taxonomy(),
            cache_dir=tmp_path / "cache",
            ledger_dir=tmp_path / "ledger",
        )
        recorder = Recorder()
        with reporting_to(recorder):
            predictions = asyncio.run(predict(guard, trajectories, default_taxonomy()))
    assert sum(p.status == "failed" for p in predictions) == 1
    assert recorder.stages == ["evaluate"]
    assert recorder.counts == {"planned": 4, "done": 4, "rejected": 1, "calls": 4, "hits": 0}
