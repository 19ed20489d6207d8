"""Every option of a build checked in one place, before any run starts.

The messages speak the command line's words (`--model`, `ATBENCH_MODEL`), because that is
where the user can fix them; a pydantic error from inside a Dagster step never can be read
that way. `atbench build` (through `BuildConfig.from_options`) and `atbench plan` pass
through here.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pipeline.core.model.errors import AtbenchError
from pipeline.core.release.publish import check_release_target

BACKENDS = ("procedural", "openai")
STRUCTURED_OUTPUTS = ("json_schema", "json_object", "ollama", "prompt", "auto")
MIN_SIZE = 2
"""One safe/unsafe pair: the smallest release the planner can make."""


def check_size(size: int) -> int:
    if size < MIN_SIZE:
        raise AtbenchError(f"--size must be at least {MIN_SIZE} (one safe/unsafe pair), got {size}")
    return size


def parse_domains(text: str, known: Sequence[str]) -> list[str]:
    """The domains of `--domains a,b` (spaces and empty items tolerated, repeats dropped);
    empty means every known domain. Unknown names are refused with the closest known ones."""
    selected = list(dict.fromkeys(d.strip() for d in text.split(",") if d.strip()))
    unknown = [d for d in selected if d not in known]
    if unknown:
        hints = [
            f"{name!r} (did you mean {close[0]!r}?)" if close else repr(name)
            for name in unknown
            for close in [difflib.get_close_matches(name, known, n=1)]
        ]
        raise AtbenchError(
            f"--domains: unknown domains {', '.join(hints)}; seeds define: {', '.join(known)}"
        )
    return selected or list(known)


def check_build_options(
    *,
    size: int,
    seed: int,
    backend: str,
    domains: str,
    known_domains: Sequence[str],
    out: Path,
    model: str = "",
    base_url: str = "",
    structured_output: str = "",
    concurrency: int = 32,
    timeout: float = 0,
    max_tokens: int = 0,
) -> dict[str, Any]:
    """The settings of a build, or an `AtbenchError` naming the option to fix."""
    check_size(size)
    if backend not in BACKENDS:
        raise AtbenchError(f"--backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    selected = parse_domains(domains, known_domains)
    if structured_output and structured_output not in STRUCTURED_OUTPUTS:
        raise AtbenchError(
            f"--structured-output must be one of {', '.join(STRUCTURED_OUTPUTS)}, "
            f"got {structured_output!r}"
        )
    if backend == "openai":
        _check_endpoint(model, base_url)
    else:
        given = [name for name, value in (("--model", model), ("--base-url", base_url)) if value]
        if given:
            verb = "applies" if len(given) == 1 else "apply"
            raise AtbenchError(
                f"{' and '.join(given)} {verb} only to --backend openai; the procedural backend "
                "uses no model (drop the option, or add --backend openai)"
            )
    if concurrency < 1:
        raise AtbenchError(f"--concurrency must be at least 1, got {concurrency}")
    if timeout < 0:
        raise AtbenchError(f"--timeout must be 0 (the default) or more seconds, got {timeout:g}")
    if max_tokens < 0:
        raise AtbenchError(f"--max-tokens must be 0 (the server's cap) or more, got {max_tokens}")
    check_output_dir(out)
    return {
        "size": size,
        "seed": seed,
        "backend": backend,
        "domains": ",".join(selected),
        "model": model,
        "base_url": base_url,
        "structured_output": structured_output,
        "max_concurrency": concurrency,
        "timeout_s": timeout,
        "max_tokens": max_tokens,
    }


def _check_endpoint(model: str, base_url: str) -> None:
    if not (model or os.environ.get("ATBENCH_MODEL")):
        raise AtbenchError(
            "the openai backend needs a model name: pass --model NAME or set ATBENCH_MODEL "
            "(e.g. the name your server lists at /v1/models)"
        )
    url = base_url or os.environ.get("OPENAI_BASE_URL", "")
    if url and not url.startswith(("http://", "https://")):
        source = "--base-url" if base_url else "OPENAI_BASE_URL"
        raise AtbenchError(
            f"{source} must be an http(s) URL such as http://127.0.0.1:8000/v1, got {url!r}"
        )


def check_output_dir(out: Path) -> None:
    """`--out` must be a release directory, an empty one, or a path that can become one."""
    existing = next(p for p in (out, *out.parents) if p.exists())
    if existing != out and not existing.is_dir():
        raise AtbenchError(f"--out {out}: {existing} is a file, so no directory can go there")
    try:
        check_release_target(out)
    except AtbenchError as err:
        raise AtbenchError(f"--out: {err}") from None
