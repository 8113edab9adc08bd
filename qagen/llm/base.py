"""The LLM protocol and the typed values that cross it.

A backend implements one async method, ``complete(request) -> Completion``, and raises
:class:`TransientLLMError` (retry), :class:`AuthLLMError` or :class:`BadRequestLLMError`
(fail fast). Retries, repair, concurrency, rate limits, caching and accounting live in
the engine (``qagen.llm.engine``), so every backend gets them for free.

Optional backend members the engine uses when present:

- ``structured_mode: str`` — how a request's schema reaches the model (``json_schema``,
  ``json_object`` or ``prompt``); a backend may lower it once when the server rejects a mode.
- ``prepare()`` — import client libraries and check settings (such as the key); the engine
  calls it once per run before any request, outside every timeout.
- ``async aclose()`` — release clients bound to the current event loop.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from qagen.errors import QagenError


@dataclass(frozen=True)
class Message:
    role: str
    content: str


@dataclass(frozen=True)
class LLMRequest:
    """Everything that defines one request (and so its cache key)."""

    messages: tuple[Message, ...]
    schema: dict[str, Any] | None = None
    schema_name: str = "reply"
    temperature: float = 0.7
    max_tokens: int = 1024
    seed: int | None = None
    sample_index: int = 0
    tag: str = field(default="", compare=False)


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.prompt_tokens + other.prompt_tokens, self.completion_tokens + other.completion_tokens)


@dataclass(frozen=True)
class Completion:
    text: str
    usage: Usage = Usage()
    model: str = ""
    finish_reason: str | None = None
    refusal: str | None = None
    usage_reported: bool = True


class LLMSpecError(QagenError, ValueError):
    """A spec string that names no usable LLM backend (``openai:<model>``, ``local``, ...)."""


class LLMError(QagenError):
    """Base class for backend errors. Messages never contain keys, prompts or provider bodies."""


class TransientLLMError(LLMError):
    """Worth retrying: timeouts, connection errors, 408/409/429/5xx."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class AuthLLMError(LLMError):
    """Authentication or permission failure: retrying cannot help."""


class QuotaLLMError(AuthLLMError):
    """The account has no quota left (HTTP 429 ``insufficient_quota``): retrying cannot help."""


class BadRequestLLMError(LLMError):
    """The server rejected the request itself (400, 404, 422): retrying cannot help."""


@runtime_checkable
class LLM(Protocol):
    """A chat model. ``id`` names backend and model and is part of every cache key.

    A backend may also set ``max_concurrency``: the requests it can serve at once (an in-process
    model serves one); the engine then keeps no more than that in flight, whatever
    ``llm.max_concurrency`` says, so requests never wait out their time limit in its queue.
    """

    id: str
    model: str

    async def complete(self, request: LLMRequest) -> Completion: ...


@dataclass(frozen=True)
class LLMResult:
    """The outcome of one request after retries and repairs.

    Attributes:
        request: The request as given to the engine.
        value: The validated reply (a pydantic model instance), or None.
        text: The raw final reply text, or None when no reply came.
        error: A one-line reason when the request failed, else None.
        cached: True when the reply came from the request cache (nothing was paid).
        usage: Tokens of every call made for this request (the original usage when cached).
        attempts: API calls made for this request, retries and repairs included (0 when cached).
        data: The parsed JSON reply (dict or list) when the request had a schema.
    """

    request: LLMRequest
    value: Any = None
    text: str | None = None
    error: str | None = None
    cached: bool = False
    usage: Usage = Usage()
    attempts: int = 0
    data: Any = None

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass
class LLMStats:
    """Counts of an engine's runs; ``to_dict()`` goes into the manifest.

    ``requests`` asked = ``cache_hits`` + ``succeeded`` + ``failures`` + ``not_run``.
    ``requests_sent`` counts API calls (retries and repairs included); tokens and
    ``cost_usd`` are what those calls used, from the API's ``usage`` (estimated when a server
    sends none), priced with ``llm.prices`` (``cost_known`` is False without a price).
    ``errors`` counts failures by kind (``http_500``, ``timeout``, ``invalid_json``,
    ``wrong_schema``, ``truncated``, ``refusal``, ``backend_error``, ``check_error`` when
    checking a reply crashed, ``auth`` or ``quota`` for the call that stopped the run, ...).
    ``structured_mode`` is how schemas reached the model; ``stopped_reason`` says why a run
    stopped early (budget, a streak of failures, authentication), else None.
    ``client_cpu_s`` is the CPU time the run's own thread spent (cache lookups, request
    building, the SDK and HTTP client, parsing and validating replies), the one-off import
    of the backend's SDK excluded: the client's overhead, which ``client_cpu_s /
    requests_sent`` puts per request.

    ``cached_prompt_tokens``, ``cached_completion_tokens`` and ``cached_cost_usd`` are what
    the replies replayed from the request cache cost when they were first paid for (valid
    replies and cached failures alike; from the usage stored with each reply, priced with
    today's ``llm.prices``). A run resumed after a kill pays ``cost_usd`` and replays the
    rest, so the whole dataset cost ``cost_usd + cached_cost_usd``. Calls whose reply never
    reached the cache (a kill mid-call, a transient failure) are not in the cached figures.
    """

    backend: str = ""
    model: str = ""
    requests: int = 0
    requests_sent: int = 0
    cache_hits: int = 0
    succeeded: int = 0
    retries: int = 0
    repairs: int = 0
    repairs_cut: int = 0  # repair requests that quoted an oversized reply cut to its bound
    failures: int = 0
    not_run: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    cached_prompt_tokens: int = 0
    cached_completion_tokens: int = 0
    cached_cost_usd: float = 0.0
    cost_known: bool = True
    structured_mode: str | None = None
    stopped_reason: str | None = None
    elapsed_s: float = 0.0
    client_cpu_s: float = 0.0
    errors: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from dataclasses import asdict

        data = asdict(self)
        data["cost_usd"] = round(self.cost_usd, 6)
        data["cached_cost_usd"] = round(self.cached_cost_usd, 6)
        data["elapsed_s"] = round(self.elapsed_s, 3)
        data["client_cpu_s"] = round(self.client_cpu_s, 3)
        return data

    def __add__(self, other: LLMStats) -> LLMStats:
        """Totals of two runs (for example two calls within one stage)."""
        summed = {
            k: getattr(self, k) + getattr(other, k)
            for k in (
                "requests", "requests_sent", "cache_hits", "succeeded", "retries", "repairs", "repairs_cut", "failures",
                "not_run", "prompt_tokens", "completion_tokens", "cost_usd", "cached_prompt_tokens",
                "cached_completion_tokens", "cached_cost_usd", "elapsed_s", "client_cpu_s",
            )
        }  # fmt: skip
        errors = dict(self.errors)
        for k, v in other.errors.items():
            errors[k] = errors.get(k, 0) + v
        return LLMStats(
            backend=self.backend or other.backend,
            model=self.model or other.model,
            cost_known=self.cost_known and other.cost_known,
            structured_mode=other.structured_mode or self.structured_mode,
            stopped_reason=other.stopped_reason or self.stopped_reason,
            errors=errors,
            **summed,
        )


_USERINFO = re.compile(r"(?<=://)[^/@\s]*@")
_QUERY = re.compile(r"\?[^\s#]*")


def public_id(backend_id: str) -> str:
    """``backend_id`` fit for logs and the manifest: a URL's user:password and query are removed."""
    return _QUERY.sub("", _USERINFO.sub("", backend_id)) if "://" in backend_id else backend_id
