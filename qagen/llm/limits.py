"""Client-side limits: request pacing (requests/min, tokens/min, 429 cool-down) and budgets."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from qagen.formatting import format_cost


class Pacer:
    """Spaces request starts so that no window exceeds the configured rates.

    Starts are at least ``60 / rpm`` seconds apart, and a request booking ``tokens`` holds the
    next one back for ``tokens * 60 / tpm`` seconds (pacing without bursts), so in any window
    of W seconds at most ``W * rpm / 60 + 1`` requests start.
    A 429 with Retry-After pauses every request, not only the one that got it.
    """

    def __init__(
        self,
        requests_per_minute: float | None = None,
        tokens_per_minute: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.rpm = requests_per_minute
        self.tpm = tokens_per_minute
        self._clock = clock
        self._next_request = 0.0
        self._next_tokens = 0.0
        self._pause_until = 0.0

    async def acquire(self, tokens: int) -> None:
        """Wait for this request's slot; ``tokens`` is its prompt estimate plus ``max_tokens``.

        The slot is booked at the moment the request may start (not when it began waiting),
        so a late wake-up never lets two starts come closer than the interval.
        """
        while (wait := max(self._next_request, self._next_tokens, self._pause_until) - self._clock()) > 0:
            await asyncio.sleep(wait)
        now = self._clock()
        if self.rpm:
            self._next_request = now + 60.0 / self.rpm
        if self.tpm:
            self._next_tokens = now + tokens * 60.0 / self.tpm

    def pause(self, seconds: float) -> None:
        """Hold every request that has not started for ``seconds`` (after a 429 Retry-After)."""
        self._pause_until = max(self._pause_until, self._clock() + seconds)


class BudgetExceeded(Exception):
    """Raised before a request that would break the budget; the message is the stop reason."""


class Budget:
    """Stops before ``max_requests`` calls or ``max_cost_usd`` would be exceeded.

    Each call reserves its worst case (conservative prompt estimate plus ``max_tokens`` of
    completion) before it starts and settles to the real cost when it ends, so calls in
    flight together can never overshoot the limit.
    """

    def __init__(self, max_requests: int | None, max_cost_usd: float | None) -> None:
        self.max_requests = max_requests
        self.max_cost_usd = max_cost_usd
        self.sent = 0
        self.spent = 0.0
        self.reserved = 0.0

    def reserve(self, worst_cost: float) -> None:
        if self.max_requests is not None and self.sent >= self.max_requests:
            raise BudgetExceeded(f"budget: llm.max_requests={self.max_requests} reached")
        if self.max_cost_usd is not None and self.spent + self.reserved + worst_cost > self.max_cost_usd:
            raise BudgetExceeded(
                f"budget: the next request could exceed llm.max_cost_usd={self.max_cost_usd}"
                f" ({format_cost(self.spent)} paid by then; the requests in flight add theirs to the total)"
            )
        self.sent += 1
        self.reserved += worst_cost

    def settle(self, worst_cost: float, actual_cost: float) -> None:
        self.reserved = max(0.0, self.reserved - worst_cost)
        self.spent += actual_cost
