"""Reading an LLM run's statistics: what is left to do, and what is left to spend."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from qagen.config import LLMConfig


def unfinished_reason(stats: dict[str, Any], cache_failures: bool) -> str | None:
    """Why an LLM run (``LLMStats.to_dict()``) left work that a rerun would do, else None.

    A rerun resends requests that were not run (budget, stop) and those that failed after
    their retries (timeouts, 5xx, connection errors); a reply still invalid after its
    repairs is settled when failures are cached (the rerun replays it, paying nothing).
    """
    from qagen.llm.structured import REPLY_ERROR_KINDS

    settled = REPLY_ERROR_KINDS if cache_failures else frozenset()
    unsettled = sum(n for kind, n in stats.get("errors", {}).items() if kind not in settled)
    parts = []
    if stats.get("stopped_reason"):
        parts.append(f"stopped: {stats['stopped_reason']}")
    if stats.get("not_run"):
        parts.append(f"{stats['not_run']} request(s) not run")
    if unsettled:
        parts.append(f"{unsettled} request(s) failed and will be sent again")
    if not parts:
        return None
    return "; ".join(parts) + "; rerun the same command to finish (completed requests are cached)"


def remaining_budget(llm: LLMConfig, spent: dict[str, Any]) -> tuple[LLMConfig | None, str | None]:
    """``llm`` with what is left of ``max_requests`` / ``max_cost_usd`` after a run that used ``spent``.

    The budgets bound a whole build: a later step (the answerability judge) may spend only what
    generation left. Returns ``(None, key)`` when the budget named by ``key`` is used up.
    """
    update: dict[str, Any] = {}
    if llm.max_requests is not None:
        left = llm.max_requests - int(spent.get("requests_sent", 0))
        if left <= 0:
            return None, "llm.max_requests"
        update["max_requests"] = left
    if llm.max_cost_usd is not None:
        left_usd = llm.max_cost_usd - float(spent.get("cost_usd") or 0.0)
        if left_usd <= 0:
            return None, "llm.max_cost_usd"
        update["max_cost_usd"] = left_usd
    return (llm.model_copy(update=update) if update else llm), None
