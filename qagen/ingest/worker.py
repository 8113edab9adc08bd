"""The per-document task run in worker processes: detect, parse, report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from qagen.config import ParseConfig
from qagen.ingest.detect import detect_format
from qagen.ingest.model import DocumentError, ParsedDoc


def parse_file(path: str, config_data: dict[str, Any]) -> dict[str, Any]:
    """Parse one file; return plain data (picklable): the parse, or the reason it failed."""
    config = ParseConfig.model_validate(config_data)
    page_errors: list[tuple[int, str]] = []
    try:
        doc = parse_path(Path(path), config, lambda n, err: page_errors.append((n, err)))
    except DocumentError as exc:
        return {"ok": False, "reason": exc.reason, "detail": exc.detail}
    except RecursionError:
        return {"ok": False, "reason": "parser-error", "detail": "the parser recursed too deeply (a malformed file?)"}
    except Exception as exc:  # a parser bug or a file it cannot handle: report, do not crash the build
        return {"ok": False, "reason": "parser-error", "detail": f"{type(exc).__name__}: {str(exc)[:200]}"}
    return {"ok": True, "doc": doc, "page_errors": page_errors}


def parse_path(path: Path, config: ParseConfig, on_page_error: Any = None) -> ParsedDoc:
    """Parse one file in this process (no time limit), whatever its format."""
    fmt = detect_format(path)
    if fmt == "pdf":
        from qagen.ingest.pdf import parse_pdf

        return parse_pdf(path, config, on_page_error)
    if fmt == "html":
        from qagen.ingest.html import parse_html_file

        return parse_html_file(path, config.max_section_tokens)
    from qagen.ingest.text import parse_text_file

    return parse_text_file(path, fmt, config.max_section_tokens)
