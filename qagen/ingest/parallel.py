"""Run one function per task in worker processes, each task with a time limit.

pebble's process pool kills a worker whose task overruns its time limit (or that dies) and
starts a fresh one, so a parser that hangs or crashes costs one task, never the build.
Results come back in task order whatever the number of workers.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures import as_completed
from dataclasses import dataclass
from typing import Any

_TASKS_PER_WORKER = 50  # recycle workers now and then: pdfminer holds on to memory


@dataclass(frozen=True)
class Outcome:
    """What became of one task: ``ok`` with its value, or ``timeout``/``crashed``/``error``."""

    status: str
    value: Any = None
    detail: str = ""


def default_workers(requested: int, n_tasks: int) -> int:
    """``requested`` workers, or one per usable core when 0; never more than tasks."""
    if requested <= 0:
        try:
            requested = len(os.sched_getaffinity(0))
        except AttributeError:  # pragma: no cover - not on Linux
            requested = os.cpu_count() or 1
    return max(1, min(requested, n_tasks))


def run_isolated(
    fn: Callable[..., Any],
    tasks: Sequence[tuple[Any, ...]],
    workers: int,
    timeout_s: float,
    on_result: Callable[[int, Outcome], None] | None = None,
) -> list[Outcome]:
    """Run ``fn(*task)`` for every task in a process pool; one :class:`Outcome` per task.

    ``on_result(index, outcome)`` is called in this process as each task finishes (in
    completion order), so a caller can keep every finished result before the others are done.
    When it raises (or on Ctrl-C) the pool is stopped at once: pending tasks are dropped and
    running workers killed, then the exception propagates.
    """
    from pebble import ProcessPool

    if not tasks:
        return []
    outcomes: list[Outcome | None] = [None] * len(tasks)
    n_workers = default_workers(workers, len(tasks))
    pool = ProcessPool(max_workers=n_workers, max_tasks=_TASKS_PER_WORKER)
    try:
        futures = {pool.schedule(fn, args=task, timeout=timeout_s): i for i, task in enumerate(tasks)}
        for future in as_completed(futures):
            i = futures[future]
            outcomes[i] = _outcome(future, timeout_s)
            if on_result is not None:
                on_result(i, outcomes[i])
    except BaseException:
        pool.stop()
        pool.join()
        raise
    pool.close()
    pool.join()
    return [o if o is not None else Outcome("error", detail="no result") for o in outcomes]


def _outcome(future: Any, timeout_s: float) -> Outcome:
    from pebble import ProcessExpired

    try:
        return Outcome("ok", future.result())
    except FutureTimeout:
        return Outcome("timeout", detail=f"took longer than {timeout_s:g} s; the worker was stopped")
    except ProcessExpired as exc:
        return Outcome("crashed", detail=f"the worker process died (exit code {exc.exitcode})")
    except Exception as exc:
        return Outcome("error", detail=f"{type(exc).__name__}: {str(exc)[:200]}")
