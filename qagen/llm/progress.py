"""What an engine run shows while it works: calls done of the total, cost so far and the budget,
repairs, retries, failures and the time left.

On a terminal it is a tqdm bar whose total grows when a repair adds a call. Elsewhere (a log
file, CI) a bar would print a line per refresh, so it writes one plain line every ``every_s``
seconds and one at the end. Disabled (``-q``), it writes nothing.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from qagen.formatting import format_cost, format_duration
from qagen.llm.base import LLMStats


class LLMProgress:
    """Progress of one engine run over ``total`` requests (see the module docs).

    Args:
        total: Requests of the run; each needs a call or a cache hit. Repairs add calls.
        stats: The engine's stats, read at each refresh (cost, retries, repairs, failures).
        budget_usd: ``llm.max_cost_usd``, shown beside the cost; None when unset.
        enabled: False writes nothing.
        stream: Where to write (stderr).
        every_s: Seconds between plain lines when ``stream`` is not a terminal.
        clock: Monotonic seconds (injectable for tests).
        priced: Whether the model has a price; without one the cost is not shown.
    """

    def __init__(
        self,
        total: int,
        stats: LLMStats,
        budget_usd: float | None = None,
        *,
        enabled: bool = True,
        stream: TextIO | None = None,
        every_s: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
        priced: bool = True,
        desc: str = "llm",
    ) -> None:
        self.total = total
        self.done = 0
        self.stats = stats
        self.budget = budget_usd
        self.enabled = enabled and total > 0
        self.stream = stream if stream is not None else sys.stderr
        self.every_s = every_s
        self.clock = clock
        self.priced = priced
        self.desc = desc
        self.started = clock()
        self._last_line = self.started
        self._last_done = self.started  # when a call last finished (or the run started)
        self._base = self._snapshot()
        self.terminal = self.enabled and _isatty(self.stream)
        self._bar: Any = None
        if self.terminal:
            from tqdm.auto import tqdm

            self._bar = tqdm(total=total, desc=desc, unit="call", file=self.stream, leave=False, mininterval=0.5)

    def _snapshot(self) -> tuple[float, int, int, int]:
        s = self.stats
        return (s.cost_usd, s.retries, s.repairs, s.failures)

    def add_calls(self, n: int = 1) -> None:
        """A repair request will be sent: the total grows."""
        self.total += n
        if self._bar is not None:
            self._bar.total = self.total
            self._bar.refresh()

    def advance(self, n: int = 1) -> None:
        """``n`` calls (or cache hits) finished."""
        self.done += n
        self._last_done = self.clock()
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.set_postfix_str(self.postfix(), refresh=False)
            self._bar.update(n)
        elif self.clock() - self._last_line >= self.every_s:
            self._write_line()

    def waiting(self, timeout_s: float, attempts: int) -> None:
        """Say so when no call has finished for ``every_s`` seconds (a server that accepts the connection and
        never answers kept a run silent for timeout x attempts): a line, or the bar's text on a terminal."""
        if not self.enabled or self.done >= self.total:
            return
        quiet = self.clock() - self._last_done
        if quiet < self.every_s:
            return
        note = (
            f"no reply for {format_duration(quiet)} (each call waits up to {format_duration(timeout_s)}"
            f" (llm.timeout_s), {attempts} attempt{'s' if attempts != 1 else ''})"
        )
        if self._bar is not None:
            self._bar.set_postfix_str(f"{self.postfix()}; {note}")
            return
        if self.clock() - self._last_line >= self.every_s:
            self._last_line = self.clock()
            print(f"{self.line()}; {note}", file=self.stream, flush=True)

    def postfix(self) -> str:
        """``$0.0123 of $0.50, 3 repairs, 1 retry, 0 failed`` (what this run added)."""
        cost, retries, repairs, failures = (a - b for a, b in zip(self._snapshot(), self._base, strict=True))
        parts = []
        if self.priced:
            parts.append(format_cost(cost) + (f" of {format_cost(self.budget)}" if self.budget is not None else ""))
        parts.append(f"{repairs} repair{'s' if repairs != 1 else ''}")
        parts.append(f"{retries} retr{'ies' if retries != 1 else 'y'}")
        parts.append(f"{failures} failed")
        return ", ".join(parts)

    def line(self) -> str:
        """The plain progress line: ``llm: 120/285 calls (42%), $0.0310 of $0.50, ..., 1 min 20 s left``."""
        share = f" ({100 * self.done / self.total:.0f}%)" if self.total else ""
        elapsed = self.clock() - self.started
        if 0 < self.done < self.total:
            left = f", about {format_duration(elapsed / self.done * (self.total - self.done))} left"
        else:
            left = f", {format_duration(elapsed)}"
        return f"{self.desc}: {self.done}/{self.total} calls{share}, {self.postfix()}{left}"

    def _write_line(self) -> None:
        self._last_line = self.clock()
        print(self.line(), file=self.stream, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        elif self.enabled and self.done:
            self._write_line()
        self.enabled = False


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
