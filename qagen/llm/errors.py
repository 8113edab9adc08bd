"""Map client-library exceptions to qagen's LLM errors.

Works by duck typing (``status_code``, ``response.headers``, class names), so one mapper
serves the openai SDK and any LangChain provider built on an httpx-style client. Messages
are one line and never carry a key, a prompt or the provider's error body.
"""

from __future__ import annotations

import asyncio
import email.utils
import time
from typing import Any

from qagen.llm.base import AuthLLMError, BadRequestLLMError, LLMError, QuotaLLMError, TransientLLMError

TRANSIENT_STATUS = frozenset({408, 409, 429})
_REASONS = {
    400: "bad request",
    404: "not found (check the model name and base_url)",
    408: "request timeout",
    409: "conflict",
    413: "request too large",
    422: "unprocessable request",
    429: "rate limited",
    500: "server error",
    502: "bad gateway",
    503: "service unavailable",
    504: "gateway timeout",
}


def status_of(exc: BaseException) -> int | None:
    """The HTTP status carried by a client exception, if any."""
    status = getattr(exc, "status_code", None)
    if not isinstance(status, int):
        status = getattr(getattr(exc, "response", None), "status_code", None)
    return status if isinstance(status, int) else None


def error_text(exc: BaseException) -> str:
    """The provider's message and body, lower-cased: for detecting capabilities only, never shown."""
    body = getattr(exc, "body", None)
    return f"{getattr(exc, 'message', '')} {body} {exc}".lower()


def retry_after(headers: Any) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date)."""
    if headers is None:
        return None
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return max(0.0, float(ms) / 1000)
        value = headers.get("retry-after")
    except (AttributeError, ValueError, TypeError):
        return None
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _is_insufficient_quota(exc: BaseException) -> bool:
    code = getattr(exc, "code", None)
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        code = code or (inner.get("code") if isinstance(inner, dict) else None)
    return code == "insufficient_quota"


def from_status(exc: BaseException, status: int, auth_hint: str) -> LLMError:
    """The qagen error for an HTTP error status."""
    reason = _REASONS.get(status, "error")
    if status in (401, 403):
        return AuthLLMError(f"authentication failed (HTTP {status}): {auth_hint}")
    if status == 429 and _is_insufficient_quota(exc):
        return QuotaLLMError("HTTP 429 insufficient_quota: the account has no quota left; check plan and billing")
    if status in TRANSIENT_STATUS or status >= 500:
        headers = getattr(getattr(exc, "response", None), "headers", None)
        return TransientLLMError(f"HTTP {status} {reason}", retry_after=retry_after(headers))
    return BadRequestLLMError(f"HTTP {status} {reason}: the server rejected the request")


def classify(exc: BaseException, auth_hint: str = "check the API key") -> LLMError | None:
    """The qagen error for ``exc``, or None when it is not a recognised client failure."""
    if isinstance(exc, LLMError):
        return exc
    status = status_of(exc)
    if status is not None:
        return from_status(exc, status, auth_hint)
    names = " ".join(cls.__name__ for cls in type(exc).__mro__).lower()
    if isinstance(exc, (TimeoutError, asyncio.TimeoutError)) or "timeout" in names:
        return TransientLLMError("timed out")
    if isinstance(exc, (ConnectionError, OSError)) or any(
        word in names for word in ("connection", "protocolerror", "readerror", "writeerror", "networkerror")
    ):
        return TransientLLMError("connection error")
    return None
