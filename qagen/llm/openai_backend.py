"""OpenAI and OpenAI-compatible servers (vLLM, Ollama, llama.cpp server, Azure) via the openai SDK.

The SDK's own retries are off (``max_retries=0``): the engine retries. A schema is sent as
``response_format`` ``json_schema``; a server that rejects that gets ``json_object`` (with
the schema in the prompt, and as ``schema``, which llama-cpp-python's server enforces with a
grammar; reduced by :func:`~qagen.llm.structured.grammar_schema`, since long length bounds
crash that server), and then the schema in the prompt alone. The mode is detected once
per backend instance, kept, and reported in the engine's stats.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import weakref
from typing import Any
from urllib.parse import urlparse

from qagen.llm.base import AuthLLMError, Completion, LLMRequest, TransientLLMError, Usage
from qagen.llm.errors import classify, error_text, status_of
from qagen.llm.structured import grammar_schema, with_schema_in_prompt

log = logging.getLogger("qagen.llm")

MODES = ("json_schema", "json_object", "prompt")
_LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "0.0.0.0", "host.docker.internal"}
_MODE_WORDS = ("response_format", "json_schema", "json_object", "input should be 'text'")
NO_KEY = "sk-no-key-required"


def next_mode(mode: str) -> str | None:
    """The structured output mode to try after ``mode`` was rejected."""
    i = MODES.index(mode)
    return MODES[i + 1] if i + 1 < len(MODES) else None


def rejects_mode(exc: BaseException, mode: str) -> bool:
    """True when the server refused the request because of its ``response_format``."""
    if mode == "prompt" or status_of(exc) not in (400, 415, 422, 500, 501):
        return False
    text = error_text(exc)
    return any(word in text for word in _MODE_WORDS)


def schema_payload(request: LLMRequest, mode: str) -> tuple[list[dict[str, str]], dict[str, Any] | None]:
    """The messages and ``response_format`` for ``request`` in structured output ``mode``."""
    messages = request.messages
    response_format: dict[str, Any] | None = None
    if request.schema is not None:
        if mode == "json_schema":
            response_format = {
                "type": "json_schema",
                "json_schema": {"name": request.schema_name, "schema": request.schema, "strict": False},
            }
        else:
            messages = with_schema_in_prompt(messages, request.schema)
            if mode == "json_object":
                # llama-cpp-python's server turns "schema" into a grammar (others ignore it);
                # the full schema's long maxLength bounds would crash it, so send the reduced one.
                response_format = {"type": "json_object", "schema": grammar_schema(request.schema)}
    return [{"role": m.role, "content": m.content} for m in messages], response_format


class OpenAIBackend:
    """Chat completions through the official ``openai`` async client.

    Args:
        model: Model name sent to the server.
        base_url: Server URL (``http://127.0.0.1:8000/v1``); None for api.openai.com.
        api_key: The key; None reads the environment variable ``api_key_env``. Servers on
            this machine get a placeholder when no key is set.
        api_key_env: Environment variable holding the key.
        timeout_s: HTTP timeout (the engine applies its own per-request timeout too).
        structured_output: ``auto`` (json_schema with fallback), or one fixed mode.
    """

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        timeout_s: float = 60.0,
        structured_output: str = "auto",
    ) -> None:
        if not model:
            raise ValueError("the openai backend needs a model: openai:<model>[@<base_url>]")
        self.model = model
        self.base_url = base_url.rstrip("/") if base_url else None
        self.id = f"openai:{model}" + (f"@{self.base_url}" if self.base_url else "")
        self.structured_mode = "json_schema" if structured_output == "auto" else structured_output
        self._auto = structured_output == "auto"
        self._api_key = api_key
        self._api_key_env = api_key_env
        self._timeout_s = timeout_s
        self._token_param = "max_tokens"
        self._client: Any = None
        self._client_loop: asyncio.AbstractEventLoop | None = None

    def __repr__(self) -> str:
        return f"OpenAIBackend({self.id!r}, structured_mode={self.structured_mode!r})"

    @property
    def auth_hint(self) -> str:
        # host and port only: a URL's user:password must never reach a message
        where = urlparse(self.base_url).netloc.rpartition("@")[2] if self.base_url else "api.openai.com"
        return f"set {self._api_key_env} to a valid key for {where} (or check the key)"

    def _key(self) -> str:
        key = self._api_key or os.environ.get(self._api_key_env)
        if key:
            return key
        host = urlparse(self.base_url).hostname if self.base_url else None
        if host in _LOCAL_HOSTS:
            return NO_KEY
        raise AuthLLMError(
            f"no API key: set {self._api_key_env} (any value for a server without authentication)"
            " or use --llm extractive"
        )

    def prepare(self) -> None:
        """Import the SDK and check the key before the first request (outside any timeout)."""
        import openai  # noqa: F401

        self._key()

    def _get_client(self) -> Any:
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            shared = _shared_client(loop)
            self._client = shared.with_options(
                api_key=self._key(), base_url=self.base_url or shared.base_url, max_retries=0,
                timeout=self._timeout_s + 5.0,
            )  # fmt: skip
            self._client_loop = loop
        return self._client

    async def aclose(self) -> None:
        """Forget this backend's client (the connection pool is shared and stays open)."""
        self._client = None
        self._client_loop = None

    async def complete(self, request: LLMRequest) -> Completion:
        client = self._get_client()
        while True:
            mode, token_param = self.structured_mode, self._token_param
            messages, response_format = schema_payload(request, mode)
            kwargs: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": request.temperature}
            kwargs[token_param] = request.max_tokens
            if request.seed is not None:
                kwargs["seed"] = request.seed
            if response_format is not None:
                kwargs["response_format"] = response_format
            try:
                # The SDK's documented low-level call: its auth, pooling, timeouts and error classes,
                # without building typed request/response objects (a third of its CPU time per request).
                raw = await client.post("/chat/completions", body=kwargs, cast_to=str)
            except Exception as exc:
                if self._adapt(exc, mode, token_param, request.schema is not None):
                    continue
                raise (classify(exc, self.auth_hint) or exc) from None
            try:
                return completion_from(json.loads(raw))
            except (ValueError, TypeError, AttributeError, KeyError, IndexError):
                raise TransientLLMError("malformed response from server (not a chat completion)") from None

    def _adapt(self, exc: BaseException, mode: str, token_param: str, has_schema: bool) -> bool:
        """Learn from a rejected request (once per instance); True when it is worth resending."""
        if has_schema and self._auto and rejects_mode(exc, mode):
            lower = next_mode(mode)
            if lower is not None:
                if self.structured_mode == mode:
                    self.structured_mode = lower
                    log.info("%s rejected response_format %s; using %s from now on", self.id, mode, lower)
                return True
        if status_of(exc) == 400 and token_param == "max_tokens" and "max_completion_tokens" in error_text(exc):
            self._token_param = "max_completion_tokens"
            return True
        return False


_SHARED: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = weakref.WeakKeyDictionary()


def _shared_client(loop: asyncio.AbstractEventLoop) -> Any:
    """One SDK client (and so one connection pool and TLS context) per event loop.

    Backends derive their client with ``with_options``, which reuses the pool: loading the
    TLS certificates takes ~0.1 s per client, and pooled connections are reused across backends.
    """
    client = _SHARED.get(loop)
    if client is None:
        from openai import AsyncOpenAI

        client = AsyncOpenAI(api_key=NO_KEY, max_retries=0)
        _SHARED[loop] = client
    return client


def completion_from(response: Any) -> Completion:
    """A :class:`Completion` from a chat completion (parsed JSON dict or SDK object)."""
    choices = _get(response, "choices")
    if choices is None:
        raise TypeError("no choices")
    usage = _get(response, "usage")
    model = str(_get(response, "model") or "")
    if not choices:
        return Completion("", usage=_usage(usage), model=model, usage_reported=usage is not None)
    choice = choices[0]
    message = _get(choice, "message") or {}
    return Completion(
        text=_get(message, "content") or "",
        usage=_usage(usage),
        model=model,
        finish_reason=_get(choice, "finish_reason"),
        refusal=_get(message, "refusal") or None,
        usage_reported=usage is not None,
    )


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


_MAX_TOKENS_REPORTED = 10**9  # more than any model reads or writes in one request


def _usage(usage: Any) -> Usage:
    if usage is None:
        return Usage()
    return Usage(_tokens(_get(usage, "prompt_tokens")), _tokens(_get(usage, "completion_tokens")))


def _tokens(value: Any) -> int:
    """A reported token count, or 0 when it is none a server could mean: not a whole number, negative (which
    would pay back the budget), or beyond any request (10**30 overflowed the request cache)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        return 0
    if not 0 <= value <= _MAX_TOKENS_REPORTED:
        return 0
    return int(value)
