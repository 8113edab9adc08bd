"""LLM backends and the engine that calls them.

::

    from qagen.llm import get_llm, LLMEngine, LLMRequest, Message

    llm = get_llm("openai:gpt-4o-mini@http://127.0.0.1:8000/v1", config.llm)
    engine = LLMEngine(llm, config.llm, cache_path=out / "cache" / "llm.sqlite")
    results = engine.run(requests, response_model=MyReply)   # order kept
    engine.stats.to_dict()                                   # into the manifest

Importing this package never imports openai or LangChain; backends load them on first use.
"""

from __future__ import annotations

from qagen.llm.base import (
    LLM,
    AuthLLMError,
    BadRequestLLMError,
    Completion,
    LLMError,
    LLMRequest,
    LLMResult,
    LLMStats,
    Message,
    QuotaLLMError,
    TransientLLMError,
    Usage,
)
from qagen.llm.engine import LLMEngine
from qagen.llm.registry import LLMSpecError, get_llm, register_backend

__all__ = [
    "LLM",
    "AuthLLMError",
    "BadRequestLLMError",
    "Completion",
    "LLMEngine",
    "LLMError",
    "LLMRequest",
    "LLMResult",
    "LLMSpecError",
    "LLMStats",
    "Message",
    "QuotaLLMError",
    "TransientLLMError",
    "Usage",
    "get_llm",
    "register_backend",
]
