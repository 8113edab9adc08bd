"""One background event loop per process, so sync code can run async LLM work.

Running every engine call on the same long-lived loop keeps HTTP clients (which bind to a
loop) valid across calls, and works even when the caller already runs a loop (notebooks).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_thread: threading.Thread | None = None


def _get_loop() -> asyncio.AbstractEventLoop:
    global _loop, _thread
    with _lock:
        if _loop is None or _thread is None or not _thread.is_alive():
            _loop = asyncio.new_event_loop()
            _thread = threading.Thread(target=_loop.run_forever, name="qagen-llm-loop", daemon=True)
            _thread.start()
        return _loop


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` on the background loop and wait for its result (Ctrl-C cancels it)."""
    if threading.current_thread() is _thread:
        coro.close()
        raise RuntimeError("run() called from inside qagen's LLM event loop; use 'await engine.arun(...)' instead")
    future = asyncio.run_coroutine_threadsafe(coro, _get_loop())
    try:
        return future.result()
    except BaseException:
        future.cancel()
        concurrent.futures.wait([future], timeout=5.0)
        raise
