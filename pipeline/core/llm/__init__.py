"""LLM layer: one `ask` for every generator role and judge, over a procedural or an
OpenAI-compatible backend, behind a crash-safe response cache and a ledger of calls."""

from pipeline.core.llm.backends import OpenAIBackend, ProceduralBackend
from pipeline.core.llm.cache import ResponseCache
from pipeline.core.llm.client import LLMClient, make_client
from pipeline.core.llm.ledger import Ledger, LedgerEntry, summarise_ledger
from pipeline.core.llm.templates import TemplateRenderer
from pipeline.core.llm.types import LLMFailure, LLMRequest, LLMSettings

__all__ = [
    "LLMClient",
    "LLMFailure",
    "LLMRequest",
    "LLMSettings",
    "Ledger",
    "LedgerEntry",
    "OpenAIBackend",
    "ProceduralBackend",
    "ResponseCache",
    "TemplateRenderer",
    "make_client",
    "summarise_ledger",
]
