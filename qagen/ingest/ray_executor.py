"""The per-document work of a build as Ray tasks (``executor = "ray"`` or ``"ray:ADDRESS"``).

The same function and arguments as the local process pool (:func:`qagen.ingest.parallel.run_isolated`),
the same :class:`~qagen.ingest.parallel.Outcome` per task, in task order, so the artifacts are the
ones a local build writes. Ray runs each task on a worker of the cluster at ADDRESS (``ray start
--head`` on one machine, ``ray start --address=...`` on the others), or on a Ray started for the
build when no address is given:

- a worker that dies mid-task is retried by Ray (``max_retries``); a task that still cannot finish
  is a ``crashed`` outcome, as a dead process-pool worker is;
- at most as many tasks are in flight as the cluster has CPUs, so a task's time limit counts from
  when it starts; a task over its limit is cancelled (its worker killed) and is a ``timeout``;
- ``on_result`` runs on the driver as each task finishes, so the per-document parse cache keeps
  every finished document: an interrupted driver resumes from it, as a local build does;
- ``on_status`` hears what the cluster is doing (alive nodes, CPUs, tasks running), refreshed every
  few seconds, so a node that joins during the build gets work and the progress bar says so.

Ray is imported only here (``pip install "qagen[ray]"``); ``import qagen`` and the local path never
import it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from qagen.ingest.parallel import Outcome

MAX_RETRIES = 3  # Ray re-runs a task whose worker died this many times
REFRESH_S = 5.0  # how often the cluster's size is read again (nodes may join or leave)


def parse_address(executor: str) -> str | None:
    """``"ray"`` -> None (a Ray started for the build, or the one ``RAY_ADDRESS`` names); ``"ray:HOST:PORT"``
    -> ``"HOST:PORT"``; ``"ray:auto"`` -> ``"auto"`` (a cluster already running on this machine)."""
    name, _, address = executor.partition(":")
    if name != "ray":
        raise ValueError(f"not a Ray executor: {executor!r}")
    return address or None


def run_on_ray(
    fn: Callable[..., Any],
    tasks: Sequence[tuple[Any, ...]],
    address: str | None,
    timeout_s: float,
    on_result: Callable[[int, Outcome], None] | None = None,
    on_status: Callable[[str], None] | None = None,
) -> list[Outcome]:
    """Run ``fn(*task)`` for every task as Ray tasks; one :class:`Outcome` per task, in task order."""
    if not tasks:
        return []
    ray = connect(address)
    remote = ray.remote(max_retries=MAX_RETRIES, retry_exceptions=False, num_cpus=1)(fn)
    outcomes: list[Outcome | None] = [None] * len(tasks)
    pending: dict[Any, tuple[int, float]] = {}
    queue = list(range(len(tasks)))
    slots, nodes, read_at = 1, 0, -REFRESH_S
    try:
        while queue or pending:
            if time.monotonic() - read_at >= REFRESH_S:
                slots, nodes, read_at = *cluster_size(ray), time.monotonic()
            if on_status is not None:
                on_status(f"{nodes} node{'s' * (nodes != 1)}, {slots} CPU{'s' * (slots != 1)}, {len(pending)} running")
            while queue and len(pending) < slots:
                i = queue.pop(0)
                pending[remote.remote(*tasks[i])] = (i, time.monotonic())
            done, _ = ray.wait(list(pending), num_returns=1, timeout=0.5)
            for ref in done:
                i, _ = pending.pop(ref)
                outcomes[i] = _outcome(ray, ref)
                if on_result is not None:
                    on_result(i, outcomes[i])
            now = time.monotonic()
            for ref, (i, started) in list(pending.items()):
                if now - started > timeout_s:
                    ray.cancel(ref, force=True, recursive=True)
                    del pending[ref]
                    outcomes[i] = Outcome("timeout", detail=f"took longer than {timeout_s:g} s; the task was cancelled")
                    if on_result is not None:
                        on_result(i, outcomes[i])
    except BaseException:
        for ref in pending:
            ray.cancel(ref, force=True)
        raise
    return [o if o is not None else Outcome("error", detail="no result") for o in outcomes]


def cluster_size(ray: Any) -> tuple[int, int]:
    """(CPUs, alive nodes) of the cluster now: the tasks in flight, and what the progress bar shows."""
    cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    return cpus, sum(1 for node in ray.nodes() if node.get("Alive"))


def _outcome(ray: Any, ref: Any) -> Outcome:
    from ray.exceptions import NodeDiedError, RayTaskError, TaskCancelledError, WorkerCrashedError

    try:
        return Outcome("ok", ray.get(ref))
    except (WorkerCrashedError, NodeDiedError) as exc:
        return Outcome("crashed", detail=f"the Ray worker died {MAX_RETRIES + 1} times ({type(exc).__name__})")
    except TaskCancelledError:
        return Outcome("timeout", detail="the task was cancelled")
    except RayTaskError as exc:
        cause = exc.cause if getattr(exc, "cause", None) is not None else exc
        return Outcome("error", detail=f"{type(cause).__name__}: {str(cause)[:200]}")


def connect(address: str | None) -> Any:
    """The ``ray`` module, connected to the cluster at ``address`` (or a Ray started for the build) once."""
    try:
        import ray
    except ImportError as exc:  # pragma: no cover - depends on the extra
        from qagen.errors import UsageError

        raise UsageError('executor = "ray" needs Ray: pip install "qagen[ray]"') from exc
    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False, configure_logging=False)
    return ray


class RayChunks:
    """Runs a function over chunks of work as Ray tasks, with arguments all chunks share put in Ray's
    object store once (the leakage check's search of the other fold's pages: ``chunk_pages`` pages
    a task, :func:`qagen.splits.build_splits`). A chunk whose task still fails after Ray's retries
    is computed here, so the check never loses a page.

    Args:
        address: The cluster (see :func:`parse_address`); None: a Ray started for the build.
        chunk_pages: Pages per task; fewer pages than this in all are searched here.
        timeout_s: Limit per task.
    """

    def __init__(self, address: str | None, chunk_pages: int = 2000, timeout_s: float = 600.0) -> None:
        self.address = address
        self.chunk_pages = chunk_pages
        self.timeout_s = timeout_s

    def __call__(self, fn: Callable[..., Any], shared: tuple[Any, ...], chunks: list[tuple[Any, ...]]) -> list[Any]:
        ray = connect(self.address)
        refs = tuple(ray.put(value) for value in shared)
        outcomes = run_on_ray(fn, [(*refs, *chunk) for chunk in chunks], self.address, self.timeout_s)
        return [o.value if o.status == "ok" else fn(*shared, *chunk) for o, chunk in zip(outcomes, chunks, strict=True)]
