"""The retry policy: transient failures only, exponential backoff with jitter, Retry-After honoured."""

from __future__ import annotations

import logging
import random
from collections.abc import Callable

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, stop_after_attempt

from qagen.config import LLMConfig
from qagen.llm.base import TransientLLMError

log = logging.getLogger("qagen.llm")


def retry_after(state: RetryCallState) -> float | None:
    """The Retry-After of the last failure, if it had one."""
    exc = state.outcome.exception() if state.outcome else None
    return getattr(exc, "retry_after", None)


def retrying(config: LLMConfig, on_retry: Callable[[float | None], None]) -> AsyncRetrying:
    """A tenacity controller for one API call.

    Retries :class:`TransientLLMError` up to ``config.max_retries`` times, waiting
    ``min(backoff_max_s, backoff_base_s * 2**k) + U(0, backoff_base_s)`` or the server's
    Retry-After, whichever is longer; a Retry-After above ``max_retry_after_s`` ends the
    retries. ``on_retry(retry_after)`` runs before each wait. Other errors pass through.
    """

    def wait(state: RetryCallState) -> float:
        base = config.backoff_base_s
        backoff = min(config.backoff_max_s, base * 2 ** (state.attempt_number - 1)) + random.uniform(0, base)
        return max(backoff, retry_after(state) or 0.0)

    def too_long(state: RetryCallState) -> bool:
        return (retry_after(state) or 0.0) > config.max_retry_after_s

    def before_sleep(state: RetryCallState) -> None:
        on_retry(retry_after(state))
        exc = state.outcome.exception() if state.outcome else None
        log.debug("retrying after %s (attempt %d)", exc, state.attempt_number)

    return AsyncRetrying(
        retry=retry_if_exception_type(TransientLLMError),
        stop=stop_after_attempt(config.max_retries + 1) | too_long,
        wait=wait,
        before_sleep=before_sleep,
        reraise=True,
    )


def give_up(exc: TransientLLMError, attempts: int, config: LLMConfig) -> tuple[str, str]:
    """The error kind and one-line message of a transient failure that ran out of retries."""
    text = str(exc)
    kind = (
        "http_" + text.split()[1] if text.startswith("HTTP ") else ("timeout" if "timed out" in text else "connection")
    )
    after = exc.retry_after or 0.0
    if after > config.max_retry_after_s:
        return kind, f"{exc}: the server asks to wait {after:.0f} s, more than llm.max_retry_after_s"
    return kind, f"{exc}; gave up after {attempts} attempt{'s' if attempts != 1 else ''}"
