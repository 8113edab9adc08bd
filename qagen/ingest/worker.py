"""The per-document task run in worker processes: detect, parse, report.

Time limit: ``parse.timeout_s`` plus ``parse.timeout_per_page_s`` for every page, so a
300-page manual on a slow machine is not mistaken for a hung parser. It is enforced with
SIGALRM inside the worker (the page count is known as soon as the PDF is open); the pool's
own limit (see :func:`hard_limit`) stops a worker stuck where no signal reaches it.
"""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from types import FrameType
from typing import Any

from qagen.config import ParseConfig
from qagen.ingest.detect import detect_format
from qagen.ingest.model import DocumentError, ParsedDoc


class _OutOfTime(BaseException):
    """Raised by the alarm; a BaseException so that parsers' ``except Exception`` let it through."""


class Deadline:
    """A SIGALRM timer for this process that can be extended (a no-op without SIGALRM)."""

    def __init__(self, seconds: float) -> None:
        self.budget = seconds
        self.rang = False
        self.enabled = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
        if self.enabled:
            self._previous = signal.signal(signal.SIGALRM, self._ring)
            signal.setitimer(signal.ITIMER_REAL, seconds)

    def _ring(self, signum: int, frame: FrameType | None) -> None:
        # Remembered as well as raised: an alarm that lands in a __del__ or a callback is printed
        # and swallowed by Python, and the parse then runs on to the end (seen under load).
        self.rang = True
        raise _OutOfTime

    def extend(self, seconds: float) -> None:
        self.budget += seconds
        if self.enabled:
            remaining = signal.getitimer(signal.ITIMER_REAL)[0]
            if remaining > 0:
                signal.setitimer(signal.ITIMER_REAL, remaining + seconds)

    def cancel(self) -> None:
        if self.enabled:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._previous)


def hard_limit(config: ParseConfig) -> float:
    """The pool's backstop time limit for one document: the largest budget a document can get."""
    return config.timeout_s + config.timeout_per_page_s * config.max_pages + 60


def parse_file(path: str, config_data: dict[str, Any], parse: Any = None) -> dict[str, Any]:
    """Parse one file; return plain data (picklable): the parse, or the reason it failed.

    ``parse`` replaces :func:`parse_path` (tests hand in parsers that misbehave).
    """
    parse = parse or parse_path
    config = ParseConfig.model_validate(config_data)
    page_errors: list[tuple[int, str]] = []
    deadline = Deadline(config.timeout_s)
    pages = 0

    def on_page_count(n: int) -> None:
        nonlocal pages
        pages = n
        deadline.extend(config.timeout_per_page_s * n)

    try:
        doc = parse(Path(path), config, lambda n, err: page_errors.append((n, err)), on_page_count)
    except _OutOfTime:
        return {"ok": False, "reason": "timeout", "detail": _timeout_detail(deadline.budget, pages)}
    except DocumentError as exc:
        return {"ok": False, "reason": exc.reason, "detail": exc.detail}
    except RecursionError:
        return {"ok": False, "reason": "parser-error", "detail": "the parser recursed too deeply (a malformed file?)"}
    except Exception as exc:  # a parser bug or a file it cannot handle: report, do not crash the build
        return {"ok": False, "reason": "parser-error", "detail": f"{type(exc).__name__}: {str(exc)[:200]}"}
    finally:
        deadline.cancel()
    if deadline.rang:
        return {"ok": False, "reason": "timeout", "detail": _timeout_detail(deadline.budget, pages)}
    return {"ok": True, "doc": doc, "page_errors": page_errors}


def _timeout_detail(budget: float, pages: int) -> str:
    # stopped before the page count was known: no per-page time was added yet
    limit = "parse.timeout_s; pages not counted yet"
    if pages:
        limit = f"parse.timeout_s + parse.timeout_per_page_s x {pages} pages"
    return (
        f"parsing took longer than {budget:g} s ({limit}); "
        "the file may be malformed, or raise those limits on a slow machine"
    )


def parse_path(path: Path, config: ParseConfig, on_page_error: Any = None, on_page_count: Any = None) -> ParsedDoc:
    """Parse one file in this process (no time limit), whatever its format."""
    fmt = detect_format(path)
    if fmt == "pdf":
        from qagen.ingest.pdf import parse_pdf

        return parse_pdf(path, config, on_page_error, on_page_count)
    if fmt == "html":
        from qagen.ingest.html import parse_html_file

        return parse_html_file(path, config.max_section_tokens)
    from qagen.ingest.text import parse_text_file

    return parse_text_file(path, fmt, config.max_section_tokens)
