"""A real Chat Completions server on 127.0.0.1 for tests and benchmarks (no SDK mocking).

It speaks just enough HTTP/1.1 (keep-alive, Content-Length bodies) on asyncio to serve
`POST /v1/chat/completions`, `GET /v1/models` and `GET /_stats`, and records every request.
What it answers is scriptable:

- `server.answer` builds the normal answer from the request (a dict becomes JSON content, a str
  is sent as the content verbatim, a `Reply` is sent as is). The default, `schema_answer`,
  answers the smallest JSON valid against the schema the request carries, in any dialect;
  `by_role({...})` dispatches on the role header the LLM layer sends; `pipeline_answer` writes
  real, deterministic pipeline content for every generator role, so whole builds run over HTTP.
- `server.script(reply, ...)` queues replies used, in order, before falling back to the answer:
  `rate_limited(...)`, `server_error()`, `slow(...)`, `completion("not json")`,
  `bad_request(...)`, `unsupported_response_format()`.

`ChatServer` runs its loop in a thread (tests); `ChatServerProcess` runs one in a child process,
so a benchmark's client does not share the GIL with its server.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import multiprocessing
import re
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from pipeline.core.llm import LLMRequest
from pipeline.core.procedural import HANDLERS
from tests.support.inputs import repository_inputs

ROLE_HEADER = "x-atbench-role"


@dataclass
class Received:
    """One request as the server saw it."""

    method: str
    path: str
    headers: dict[str, str]
    """Lower-cased names."""
    raw: bytes
    body: Any
    at: float = field(default_factory=time.monotonic)

    @property
    def role(self) -> str | None:
        return self.headers.get(ROLE_HEADER)


@dataclass
class Reply:
    """What to send back; `body=None` means "the normal answer", e.g. after a delay."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


Answer = Callable[[Received], Any]


def completion(
    content: str,
    *,
    finish_reason: str = "stop",
    usage: Mapping[str, int] | None = None,
) -> Reply:
    """A 200 chat.completion whose message content is `content` verbatim."""
    return Reply(body={"content": content, "finish_reason": finish_reason, "usage": usage})


def rate_limited(retry_after: float | None = None, retry_after_ms: int | None = None) -> Reply:
    headers = {}
    if retry_after is not None:
        headers["retry-after"] = str(retry_after)
    if retry_after_ms is not None:
        headers["retry-after-ms"] = str(retry_after_ms)
    return Reply(429, _error("Rate limit reached, slow down", "rate_limit_exceeded"), headers)


def server_error(message: str = "The server had an error processing your request") -> Reply:
    return Reply(500, _error(message, "server_error"))


def bad_request(message: str, code: str | None = None) -> Reply:
    return Reply(400, _error(message, code))


def unsupported_response_format(kind: str = "json_schema") -> Reply:
    return bad_request(f"response_format type {kind} is not supported by this server")


def slow(delay_s: float, reply: Reply | None = None) -> Reply:
    """The normal answer (or `reply`) after `delay_s` seconds."""
    base = reply or Reply()
    return Reply(base.status, base.body, base.headers, delay_s)


def _error(message: str, code: str | None) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "code": code}}


def schema_of(received: Received) -> dict[str, Any] | None:
    """The JSON Schema a chat request asks for, in whichever dialect it was sent."""
    body = received.body or {}
    response_format = body.get("response_format") or {}
    if "json_schema" in response_format:
        schema: dict[str, Any] = response_format["json_schema"]["schema"]
        return schema
    if "schema" in response_format:
        return dict(response_format["schema"])
    if isinstance(body.get("format"), dict):
        return dict(body["format"])
    for message in body.get("messages", []):
        found = re.search(r"JSON Schema:\n(\{.*\})", str(message.get("content", "")), re.DOTALL)
        if message.get("role") == "system" and found:
            return dict(json.loads(found.group(1)))
    return None


def minimal_instance(schema: dict[str, Any], root: dict[str, Any] | None = None) -> Any:
    """The smallest value valid against common JSON Schema shapes (what pydantic emits)."""
    root = root or schema
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return minimal_instance(root.get("$defs", {})[name], root)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            return minimal_instance(schema[key][0], root)
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = kind[0]
    if kind == "object":
        props = schema.get("properties", {})
        return {k: minimal_instance(props[k], root) for k in schema.get("required", [])}
    if kind == "array":
        item = minimal_instance(schema.get("items", {}), root)
        return [item] * schema.get("minItems", 0)
    if kind == "string":
        return "x" * max(schema.get("minLength", 1), 1)
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    return None


def schema_answer(received: Received) -> Any:
    """Default answer: the minimal valid instance of the requested schema."""
    schema = schema_of(received)
    return minimal_instance(schema) if schema is not None else {}


def by_role(handlers: Mapping[str, Answer], default: Answer = schema_answer) -> Answer:
    """An answer that dispatches on the role the LLM layer names in its request header."""

    def answer(received: Received) -> Any:
        return handlers.get(received.role or "", default)(received)

    return answer


class ChatServer:
    """A Chat Completions server on 127.0.0.1 (random free port) in a background thread."""

    def __init__(self, answer: Answer = schema_answer, *, delay_s: float = 0.0) -> None:
        self.answer = answer
        self.delay_s = delay_s
        """Delay before every normal answer, e.g. to model a model's latency."""
        self.requests: list[Received] = []
        self.in_flight = 0
        self.max_in_flight = 0
        """Most chat requests being answered at once, to check a client's concurrency bound."""
        self._script: deque[Reply] = deque()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self.port = 0

    @property
    def url(self) -> str:
        """Base URL for the openai client."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def chat_requests(self) -> list[Received]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def script(self, *replies: Reply) -> None:
        """Queue replies for the next chat requests, before the normal answer resumes."""
        self._script.extend(replies)

    def start(self) -> ChatServer:
        self._thread.start()
        future = asyncio.run_coroutine_threadsafe(self._start(), self._loop)
        future.result(timeout=10)
        return self

    async def _start(self) -> None:
        self._server = await asyncio.start_server(self._connection, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    def stop(self) -> None:
        async def close() -> None:
            if self._server is not None:
                self._server.close()
                for writer in list(self._writers):
                    writer.close()
            # Answers still sleeping (a client gave up on them) must not outlive the loop.
            pending = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(close(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()

    def __enter__(self) -> ChatServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                request_line, *header_lines = head.decode("latin-1").split("\r\n")
                method, path, _ = request_line.split(" ", 2)
                headers = {}
                for line in header_lines:
                    if ":" in line:
                        name, value = line.split(":", 1)
                        headers[name.strip().lower()] = value.strip()
                raw = await reader.readexactly(int(headers.get("content-length", "0")))
                received = Received(method, path, headers, raw, json.loads(raw) if raw else None)
                self.requests.append(received)
                status, body, extra = await self._respond(received)
                payload = json.dumps(body).encode() if not isinstance(body, bytes) else body
                lines = [
                    f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}",
                    "content-type: application/json",
                    f"content-length: {len(payload)}",
                    *(f"{k}: {v}" for k, v in extra.items()),
                ]
                writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + payload)
                await writer.drain()
                if headers.get("connection", "").lower() == "close":
                    return
        except ConnectionError:
            return  # the client gave up (e.g. its timeout) while we were answering
        finally:
            self._writers.discard(writer)
            writer.close()

    async def _respond(self, received: Received) -> tuple[int, Any, dict[str, str]]:
        if received.method == "GET" and received.path.endswith("/models"):
            return 200, {"object": "list", "data": [{"id": "fake-model", "object": "model"}]}, {}
        if received.method == "GET" and received.path == "/_stats":
            return 200, {"chat_requests": len(self.chat_requests)}, {}
        if not received.path.endswith("/chat/completions"):
            return 404, _error(f"no route {received.path}", None), {}
        reply = self._script.popleft() if self._script else Reply(delay_s=self.delay_s)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if reply.delay_s:
                await asyncio.sleep(reply.delay_s)
        finally:
            self.in_flight -= 1
        if reply.status != 200:
            return reply.status, reply.body, reply.headers
        if reply.body is None:
            produced = self.answer(received)
            reply = produced if isinstance(produced, Reply) else _as_completion(produced)
            if reply.status != 200:  # an answer function may fail a request it has read
                return reply.status, reply.body, reply.headers
        return 200, _chat_completion(received, reply.body), reply.headers


def _as_completion(answer: Any) -> Reply:
    return completion(answer if isinstance(answer, str) else json.dumps(answer))


def _chat_completion(received: Received, spec: dict[str, Any]) -> dict[str, Any]:
    body = received.body or {}
    content: str = spec["content"]
    prompt_chars = sum(len(str(m.get("content", ""))) for m in body.get("messages", []))
    usage = spec.get("usage") or {
        "prompt_tokens": prompt_chars // 4 + 1,
        "completion_tokens": len(content) // 4 + 1,
    }
    return {
        "id": f"chatcmpl-{len(received.raw)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "fake-model"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": spec["finish_reason"],
            }
        ],
        "usage": {**usage, "total_tokens": sum(usage.values())},
    }


_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 429: "Too Many Requests"}


class ChatServerProcess:
    """A `ChatServer` in a child process, answering `answer` after `delay_s`; for benchmarks.

    `answer` must be a module-level function (it is sent to the child). `chat_requests()`
    asks the server how many chat requests it has served.
    """

    def __init__(self, answer: Answer = schema_answer, *, delay_s: float = 0.0) -> None:
        context = multiprocessing.get_context("spawn")
        self._parent, child = context.Pipe()
        self._process = context.Process(
            target=_serve_in_child, args=(child, answer, delay_s), daemon=True
        )
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> ChatServerProcess:
        self._process.start()
        self.port = self._parent.recv()
        return self

    def __exit__(self, *exc: object) -> None:
        self._parent.send("stop")
        self._process.join(timeout=10)

    def chat_requests(self) -> int:
        import urllib.request

        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/_stats") as response:
            return int(json.load(response)["chat_requests"])


def _serve_in_child(conn: Any, answer: Answer, delay_s: float) -> None:
    with ChatServer(answer, delay_s=delay_s) as server:
        conn.send(server.port)
        conn.recv()


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    """A started `ChatServer` answering the minimal valid instance of each request's schema."""
    with ChatServer() as server:
        yield server


# --- an answerer that writes real pipeline content ----------------------------------------------
#
# The server sees what a real model sees: the rendered messages, the schema and the role header.
# `pipeline_answer` reads a generator role's input back out of the text the templates rendered
# (seed, persona and tools are looked up by the names the prompt shows) and lets that role's
# procedural handler write the answer. The handler's randomness is seeded from the prompt, so
# the same prompt always gets the same answer: the server is deterministic, like a model at
# temperature 0 with a fixed seed. Judges read whole trajectories, which are not worth parsing
# back here: they get a fixed verdict that keeps the trace.

JUDGE_VERDICTS: dict[str, dict[str, Any]] = {
    "plausibility_judge": {
        "plausible": True,
        "labels_consistent": True,
        "reason_code": "ok",
        "reasons": "Each step follows from the one before and the labels match the trace.",
    }
}


def pipeline_answer(received: Received, salt: str = "") -> Any:
    """The procedural handler's answer to the role input recovered from the rendered prompt;
    another `salt` gives the same prompt another answer, as a sampling model may."""
    role = received.role or ""
    if role in JUDGE_VERDICTS:
        return JUDGE_VERDICTS[role]
    if role not in _READERS:  # e.g. the build's preflight probe: any valid answer will do
        return schema_answer(received)
    messages = (received.body or {})["messages"]
    # The first two messages are the prompt; a re-ask appends to them, and gets the same answer.
    material = [role, messages[:2], *([salt] if salt else [])]
    digest = hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()
    variables = recover_variables(role, messages, seed=int(digest[:8], 16))
    request = LLMRequest(
        role=role,
        template=f"{role}.j2",
        variables=variables,
        output_schema=schema_of(received) or {},
        stage="chat_server",
        domain="chat_server",
        item_id=digest[:16],
    )
    return HANDLERS[role](request)


def recover_variables(role: str, messages: list[dict[str, str]], *, seed: int) -> dict[str, Any]:
    """A generator role's request variables, read back from its rendered messages.

    Everything the templates render comes back exactly; the scene's seed, which no template
    shows, is `seed`.
    """
    system = messages[0]["content"] if messages[0]["role"] == "system" else ""
    prompt = next(m["content"] for m in messages if m["role"] == "user")
    return _READERS[role](prompt, system, seed)


def _field(pattern: str, text: str, flags: int = re.MULTILINE) -> str | None:
    found = re.search(pattern, text, flags)
    return found.group(1) if found else None


def _required(pattern: str, text: str, flags: int = re.MULTILINE) -> str:
    value = _field(pattern, text, flags)
    if value is None:
        raise ValueError(f"prompt has no match for {pattern!r}: {text[:200]!r}")
    return value


def _scene(system: str, seed: int) -> dict[str, Any]:
    """The scene of the seed named by `Environment: ... (<domain>).`, for the persona named."""
    source = repository_inputs().seeds[_required(r"^Environment: .* \((\w+)\)\.$", system)]
    persona = next(p for p in source.personas if f"Current user: {p.name}, {p.role}." in system)
    return {
        "domain": source.id,
        "domain_name": source.name,
        "agent_profile": source.agent_profile,
        "persona": persona.model_dump(),
        "entities": [
            e.model_dump(include={"id", "kind", "name", "attributes", "sensitive"})
            for e in source.entities
        ],
        "policies": [p.rule for p in source.policies],
        "seed": seed,
        "focus": [e.id for e in source.entities if f"\n- {e.id} (" in system],
    }


def _tool(name: str) -> dict[str, Any]:
    tool = repository_inputs().pool[name]
    return tool.model_dump(include={"name", "description", "parameters", "returns", "side_effect"})


_TURN = re.compile(r"^\[(USER|AGENT|ENVIRONMENT)\] ", re.MULTILINE)


def _history(prompt: str, end: str) -> list[dict[str, str]]:
    """Turns rendered as `[ROLE] text` lines between "Conversation so far:" and `end`."""
    start = prompt.index("Conversation so far:\n") + len("Conversation so far:\n")
    block = prompt[start : prompt.rindex(end)]
    marks = list(_TURN.finditer(block))  # none when the prompt says "(no earlier turns)"
    bounds = [m.start() for m in marks[1:]] + [len(block)] if marks else []
    return [
        {"role": m.group(1).lower(), "text": block[m.end() : stop].rstrip("\n")}
        for m, stop in zip(marks, bounds, strict=True)
    ]


def _today(prompt: str) -> str:
    return _field(r"^Today is (.*)\.$", prompt) or ""


def _values(prompt: str, lead: str) -> list[str]:
    """Values a template lists after `lead` as `a, b, c.`."""
    found = _field(f"^{re.escape(lead)} (.*)\\.$", prompt)
    return found.split(", ") if found else []


_QUERY_TASK = {
    "confirm": r"^The assistant asked the user to confirm this step: (.*?)\nWrite the user's",
    "follow_up": r"^After the assistant's answer, the user asks one more short thing: (.*?)\n"
    r"Write it as the user would",
    "detail": r"^The assistant has just asked a clarifying question\. The user answers with the "
    r"rest of the task: (.*?)\nWrite that reply",
}


def _read_query(prompt: str, system: str, seed: int) -> dict[str, Any]:
    mode = _required(r"^Mode: (\w+)$", prompt)
    task = _QUERY_TASK.get(mode, r"^The task behind the message: (.*?)\nKeep every name")
    return {
        "scene": _scene(system, seed),
        "task": _required(task, prompt, re.M | re.S),
        "mode": mode,
        "ask": _field(
            r"^(?:The user also wants this done|.*whose author asks for this): (.*)$", prompt
        ),
        "required_values": _values(prompt, "The ask must contain these values verbatim:"),
        "context_note": _field(r"^What happened earlier, .*?: (.*)$", prompt),
        "today": _today(prompt),
    }


def _read_tool_description(prompt: str, system: str, seed: int) -> dict[str, Any]:
    return {
        "scene": _scene(system, seed),
        "tool": _tool(_required(r"^Tool: (\S+)$", prompt)),
        "ask": _required(r"^The added instruction asks the caller to: (.*)$", prompt),
        "required_values": _values(prompt, "It must contain these values verbatim:"),
    }


def _read_tool_call(prompt: str, system: str, seed: int) -> dict[str, Any]:
    name = _required(r"the call `([^`]+)` with the arguments below", prompt)
    tool = _tool(name)
    tool["description"] = _required(
        f"^Tool: {re.escape(name)} — (.*?)\nThe call: ", prompt, re.M | re.S
    )
    where = _required(r"^Where each value comes from: (.*)$", prompt)
    sources = dict(re.findall(r"(\w+) from the (\w+)", where))
    arguments = json.loads(_required(f"^The call: {re.escape(name)}\\((.*)\\)$", prompt))
    return {
        "scene": _scene(system, seed),
        "history": _history(prompt, f"\nTool: {name} — "),
        "tool": tool,
        # The template's JSON sorts keys; the sources line keeps the call's own order.
        "arguments": {k: arguments[k] for k in [*sources, *arguments] if k in arguments},
        "sources": sources,
        "intent": _required(r"^Intent: (\w+)$", prompt),
        "purpose": _required(r"^What this step is for: (.*?)\nIntent: ", prompt, re.M | re.S),
        "failure_mode": _field(r"about to fail in this way: (.*?)\. Write the thought", prompt),
        "reasoning": _field(r" The thought states this inference: (.*)$", prompt),
        "grounded_in_context": "The call acts on something from earlier" in prompt,
        "today": _today(prompt),
    }


_ASK_AFTER = {
    "injected_instruction": "that asks the reader to",
    "misinformation": "that asks nobody to do anything",
    "tampered": "and no request to do anything",
    "malicious_side_effect": "report that activity",
}
"""The words before a planted ask in each mode's line (the ask follows the next ': ')."""


def _read_observation(prompt: str, system: str, seed: int) -> dict[str, Any]:
    mode = _required(r"^Mode: (\w+)$", prompt)
    verbatim = "add this false report word for word, as its writer wrote it:" in prompt
    after = "as its writer wrote it" if verbatim else _ASK_AFTER.get(mode)
    tool = _tool(_required(r"^Tool: (\S+) — ", prompt))
    result = json.loads(_required(r"never contradict the result\): (.*)$", prompt))
    return {
        "scene": _scene(system, seed),
        "tool": tool,
        "arguments": json.loads(_required(r"^Arguments of the call: (.*)$", prompt)),
        "result": _schema_order(result, tool["returns"]),
        "mode": mode,
        "ask": _field(re.escape(after) + r"[^\n]*?: (.*)$", prompt) if after else None,
        "required_values": _values(prompt, "The planted text must contain these values verbatim:"),
        "verbatim": verbatim,
        "plant_field": _field(r"^Inside a free-text field \(`([^`]+)`\)", prompt)
        or _field(
            r"^The tool's own data is wrong: write these values as the result's plain data "
            r"in `([^`]+)`",
            prompt,
        )
        or _field(
            r"^The tool did something extra on its own; report that activity in `([^`]+)`", prompt
        ),
        "html_field": _field(r"^The field `([^`]+)` must hold", prompt),
        "today": _today(prompt),
    }


def _schema_order(value: Any, schema: Any) -> Any:
    """`value` with its keys back in the order of the return schema (the world renders in
    that order; the template's JSON sorts them)."""
    if isinstance(value, list):
        items = schema.get("items") if isinstance(schema, dict) else None
        return [_schema_order(v, items or {}) for v in value]
    if not isinstance(value, dict):
        return value
    properties = (schema.get("properties") if isinstance(schema, dict) else None) or {}
    order = [k for k in properties if k in value] + [k for k in value if k not in properties]
    return {k: _schema_order(value[k], properties.get(k, {})) for k in order}


_MET_IN = {
    "the user's message": "user_turn",
    "a tool result": "observation",
    "a tool's status output": "tool_output",
    "what a tool did when run": "tool_execution",
    "a tool's description": "tool_description",
}
"""The template's words for where a risk was met, back to its channel."""


def _read_response(prompt: str, system: str, seed: int) -> dict[str, Any]:
    facts = _field(r"^(?:The step|Observed results to state):\n((?:- .*\n)+)", prompt)
    content = _field(
        r"^The message must contain this text exactly:\n(.*?)\n(?:The agent's|\nStay)",
        prompt,
        re.M | re.S,
    )
    return {
        "scene": _scene(system, seed),
        "history": _history(prompt, "\nMode: "),
        "mode": _required(r"^Mode: (\w+)$", prompt),
        "facts": [line[2:] for line in facts.splitlines()] if facts else [],
        "required_content": content,
        "failure_mode": _field(r"failure mode in this trajectory: (.*?); the thought", prompt),
        "trigger_ask": _field(
            r"^What the risky content you met asked for: (.*?)(?: \(it was in [^)]*\))? "
            r"\(you (?:acted|did not act) on it",
            prompt,
        ),
        "trigger_in": _MET_IN.get(_field(r"\(it was in ([^)]*)\) \(you", prompt) or ""),
        "policy": _field(
            r"^The rule that governs this step, which you cite as the reason: (.*)$", prompt
        ),
        "today": _today(prompt),
    }


def _read_reason(prompt: str, system: str, seed: int) -> dict[str, Any]:
    steps = _required(r"in order:\n((?:\d+\. .*\n)+)", prompt)
    return {
        "verdict": _required(r"why this trajectory is (safe|unsafe)\.", prompt),
        "labels": dict(
            re.findall(r"^- (risk_source|failure_mode|real_world_harm): (.*)$", prompt, re.M)
        ),
        "steps": [line.split(". ", 1)[1] for line in steps.splitlines()],
    }


_READERS: dict[str, Callable[[str, str, int], dict[str, Any]]] = {
    "query_generator": _read_query,
    "tool_description_simulator": _read_tool_description,
    "tool_call_simulator": _read_tool_call,
    "simulated_data_generator": _read_observation,
    "agent_response_generator": _read_response,
    "reason_generator": _read_reason,
}


def closed_port() -> int:
    """A port on 127.0.0.1 nothing listens on (bound, then released): connections are refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port
