"""How the benchmark scripts measure: the machine, one call in this process, one command in a child.

Shared by every timing script, so that "wall", "CPU" and "peak RSS" mean the same in each result:

* :func:`machine` — cores, RAM, Python, qagen's version, the commit and its modified files, the
  load average at the start;
* :func:`measure_call` — wall and CPU seconds of a call in this process, and the process's peak
  RSS before and after it (``ru_maxrss``: a peak, it never goes down);
* :func:`run_child` — a command in a child process: exit code, wall seconds, CPU seconds of the
  child and everything it waited for (``os.wait4``), its peak RSS, the load average before and
  after; killed with its process group after ``timeout`` seconds (exit code -9);
* :class:`Launcher` — commands started from a minimal Python process (so that a child's peak RSS
  is its own), with the peak proportional set size of the child's whole process tree.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parents[1]
T = TypeVar("T")


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout


def machine(load_start: tuple[float, ...] | None = None) -> dict[str, Any]:
    """Where a result was measured; ``load_start`` is the load average taken when the run began (default: now)."""
    mem = next(
        (ln.split()[1] for ln in Path("/proc/meminfo").read_text().splitlines() if ln.startswith("MemTotal")), "0"
    )
    from qagen import __version__

    return {
        "nproc": len(os.sched_getaffinity(0)),
        "cpu_count": os.cpu_count(),
        "machine": platform.machine(),
        "ram_gb": round(int(mem) / 2**20, 1),
        "python": platform.python_version(),
        "qagen": __version__,
        "commit": _git("rev-parse", "--short", "HEAD").strip(),
        "modified_files": [ln[3:] for ln in _git("status", "--porcelain", "--untracked-files=no").splitlines()],
        "loadavg_start": [round(x, 2) for x in (load_start if load_start is not None else os.getloadavg())],
    }


def peak_rss_mb() -> float:
    """This process's peak resident set so far, in MB."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure_call(fn: Callable[[], T]) -> tuple[T, dict[str, float]]:
    """``fn()`` and its wall and CPU seconds, with the peak RSS before and after (MB)."""
    before = peak_rss_mb()
    wall0, cpu0 = time.perf_counter(), time.process_time()
    value = fn()
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    return value, {
        "wall_s": round(wall, 3),
        "cpu_s": round(cpu, 3),
        "rss_before_mb": round(before, 1),
        "peak_rss_mb": round(peak_rss_mb(), 1),
    }


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)


def run_child(
    cmd: list[str],
    *,
    cwd: Path = ROOT,
    env: Mapping[str, str] | None = None,
    log: Path | None = None,
    timeout: float | None = None,
) -> dict[str, Any]:
    """Run ``cmd`` in its own process group; stdout and stderr go to ``log``, or stdout is returned as ``output``.

    The CPU seconds and peak RSS are the child's own and those of the processes it waited for
    (``os.wait4``); the peak RSS starts at this process's, which Linux carries across fork and
    exec (start children from a small process when that matters).
    """
    load0 = os.getloadavg()[0]
    sink = log.open("wb") if log is not None else subprocess.PIPE
    t0 = time.perf_counter()
    try:
        errors = subprocess.STDOUT if log is not None else None  # without a log, stderr stays on the terminal
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=sink, stderr=errors, start_new_session=True)
        timer = None
        if timeout is not None:
            timer = threading.Timer(timeout, _kill_group, (proc.pid,))
            timer.start()
        output = proc.stdout.read() if proc.stdout is not None else b""
        _, status, usage = os.wait4(proc.pid, 0)
        if timer is not None:
            timer.cancel()
    finally:
        if log is not None:
            sink.close()  # type: ignore[union-attr]
    wall = time.perf_counter() - t0
    code = os.waitstatus_to_exitcode(status)
    result: dict[str, Any] = {
        "rc": code,
        "wall_s": round(wall, 3),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 3),
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
        "load": [round(load0, 2), round(os.getloadavg()[0], 2)],
    }
    if log is None:
        result["output"] = output.decode("utf-8", "replace")
    proc.returncode = code
    return result


def tree_pss(root: int) -> int:
    """Proportional set size (shared pages split among their users) of ``root`` and all its
    descendants, in bytes: the memory the process tree holds, forked workers counted once."""
    parents: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as f:
                    stat = f.read()
                parents[int(entry.name)] = int(stat[stat.rindex(b")") + 2 :].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    family, frontier = {root}, [root]
    while frontier:
        pid = frontier.pop()
        kids = [p for p, pp in parents.items() if pp == pid and p not in family]
        family.update(kids)
        frontier += kids
    total = 0
    for pid in family:
        try:
            with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
                pss = next(ln for ln in f if ln.startswith(b"Pss:"))
            total += int(pss.split()[1]) * 1024
        except (OSError, ValueError, IndexError, StopIteration):
            continue
    return total


# The children are started by a small launcher process, not by this one: a child's ru_maxrss
# starts at the RSS of the process that forked it (Linux carries it across fork and exec), and
# this process grows as it loads qagen's config and the fake server's module.
LAUNCHER_CODE = r"""
import json, os, subprocess, sys, time
for line in sys.stdin:
    req = json.loads(line)
    with open(req["log"], "ab") as fh:
        t0 = time.perf_counter()
        proc = subprocess.Popen(req["cmd"], stdout=fh, stderr=fh, cwd=req["cwd"], start_new_session=True)
    print(json.dumps({"pid": proc.pid}), flush=True)
    _, status, ru = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    done = {"rc": proc.returncode, "wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "maxrss_kb": ru.ru_maxrss}
    print(json.dumps(done), flush=True)
"""


class Launcher:
    """Starts commands from a minimal Python process and reports their ``os.wait4`` usage."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-S", "-c", LAUNCHER_CODE], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self._buf = b""

    def _line(self, timeout: float | None) -> dict | None:
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buf:
            if not select.select([fd], [], [], timeout)[0]:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                raise RuntimeError("the launcher process stopped unexpectedly")
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return json.loads(line)

    def run(self, cmd: list[str], log: Path, poll_s: float = 0.2) -> tuple[dict, int]:
        """Run ``cmd`` (output appended to ``log``); its usage, and its tree's peak PSS sampled every ``poll_s``."""
        self.proc.stdin.write(json.dumps({"cmd": cmd, "log": str(log), "cwd": str(ROOT)}).encode() + b"\n")
        self.proc.stdin.flush()
        pid = self._line(None)["pid"]
        peak = 0
        try:
            while (done := self._line(poll_s)) is None:
                peak = max(peak, tree_pss(pid))
        except BaseException:  # interrupted: stop the child and its workers (its own process group)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
            raise
        return done, peak

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=10)
