"""`atbench llm serve-local` pieces that need no model: the answer cap and the system fold."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from pipeline.cli.llm import DefaultMaxTokens, Message, Scope, env_for, fold_system


class EchoApp:
    """An ASGI app that records the scope and the body it was given."""

    def __init__(self) -> None:
        self.scope: Scope = {}
        self.body = b""

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        self.scope = scope
        more = True
        while more:
            message = await receive()
            self.body += message["body"]
            more = message.get("more_body", False)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})


def post(app: Any, path: str, body: dict[str, Any]) -> EchoApp:
    """Send one POST through `app` (a DefaultMaxTokens around an EchoApp) in two body chunks."""
    raw = json.dumps(body).encode()
    chunks = [
        {"type": "http.request", "body": raw[:5], "more_body": True},
        {"type": "http.request", "body": raw[5:], "more_body": False},
    ]

    async def receive() -> Message:
        return chunks.pop(0)

    async def send(message: Message) -> None:
        return None

    scope = {
        "type": "http",
        "method": "POST",
        "path": path,
        "headers": [(b"content-length", str(len(raw)).encode())],
    }
    asyncio.run(app(scope, receive, send))
    echo: EchoApp = app.app
    return echo


def test_chat_requests_without_max_tokens_get_the_cap() -> None:
    echo = post(DefaultMaxTokens(EchoApp(), 321), "/v1/chat/completions", {"model": "m"})
    assert json.loads(echo.body) == {"model": "m", "max_tokens": 321}
    assert dict(echo.scope["headers"])[b"content-length"] == str(len(echo.body)).encode()


def test_a_max_tokens_the_request_sets_is_kept() -> None:
    body = {"model": "m", "max_tokens": 12}
    echo = post(DefaultMaxTokens(EchoApp(), 321), "/v1/chat/completions", body)
    assert json.loads(echo.body) == body


def test_other_routes_pass_through_untouched() -> None:
    echo = post(DefaultMaxTokens(EchoApp(), 321), "/v1/embeddings", {"input": "x"})
    assert json.loads(echo.body) == {"input": "x"}


def test_system_text_is_folded_into_the_first_user_turn() -> None:
    messages = [
        {"role": "system", "content": "You write benchmark data."},
        {"role": "user", "content": "Write a query."},
        {"role": "assistant", "content": "{}"},
    ]
    assert fold_system(messages) == [
        {"role": "user", "content": "You write benchmark data.\n\nWrite a query."},
        {"role": "assistant", "content": "{}"},
    ]


def test_messages_without_system_text_are_unchanged() -> None:
    messages = [{"role": "user", "content": "Write a query."}]
    assert fold_system(messages) == messages


def test_printed_environment_points_the_openai_backend_at_the_port() -> None:
    env = env_for(9123)
    assert env["OPENAI_BASE_URL"] == "http://127.0.0.1:9123/v1"
    assert env["ATBENCH_STRUCTURED_OUTPUT"] == "json_object"
