"""Document ingestion: files → sections (parse stage) → emulated pages (pages stage).

``import qagen.ingest`` is light: pdfplumber, BeautifulSoup and markdown-it load only when a
document of that kind is parsed, inside worker processes.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from qagen.ingest.run import ParseResult as _ParseResult


class IngestError(ValueError):
    """Documents cannot be read as asked; the message names the problem and the fix."""


class NoUsableDocumentsError(IngestError):
    """Every document failed to parse; ``result`` holds the documents and their problems."""

    def __init__(self, message: str, result: _ParseResult) -> None:
        super().__init__(message)
        self.result = result


# Imported after the errors they raise are defined.
from qagen.ingest.detect import EXTENSIONS  # noqa: E402
from qagen.ingest.pages import build_pages  # noqa: E402
from qagen.ingest.run import ParseResult, parse_documents  # noqa: E402
from qagen.ingest.tokens import count_tokens  # noqa: E402


def discover(docs_dir: Path, formats: list[str]) -> list[Path]:
    """The documents under ``docs_dir`` with a supported extension, sorted, hidden ones skipped.

    Args:
        docs_dir: Folder searched recursively.
        formats: Formats to include (``pdf``, ``txt``, ``md``, ``html``).

    Returns:
        Paths sorted by their path relative to ``docs_dir``.

    Raises:
        IngestError: When the folder is missing, empty or holds no supported file.
    """
    docs_dir = Path(docs_dir)
    unknown = sorted(set(formats) - set(EXTENSIONS))
    if unknown or not formats:
        raise IngestError(
            f"parse.formats must be a non-empty list of {', '.join(sorted(EXTENSIONS))}; got {list(formats)}"
        )
    if not docs_dir.exists():
        raise IngestError(f"documents folder not found: {docs_dir}; pass the folder that holds your documents")
    if not docs_dir.is_dir():
        raise IngestError(f"{docs_dir} is a file, not a folder; pass the folder that holds your documents")
    wanted = {ext for fmt in formats for ext in EXTENSIONS[fmt]}
    files = [
        p
        for p in docs_dir.rglob("*")
        if not any(part.startswith(".") for part in p.relative_to(docs_dir).parts) and p.is_file()
    ]
    found = sorted((p for p in files if p.suffix.lower() in wanted), key=lambda p: p.relative_to(docs_dir).as_posix())
    if found:
        return found
    if not files:
        raise IngestError(f"documents folder is empty: {docs_dir}; add PDF, TXT, Markdown or HTML files to it")
    seen = Counter(p.suffix.lower() or "(no extension)" for p in files)
    listed = ", ".join(f"{ext} ×{n}" for ext, n in seen.most_common(5))
    raise IngestError(
        f"no supported documents in {docs_dir}: found {len(files)} file(s) ({listed}) "
        f"but parse.formats={list(formats)} reads only {', '.join(sorted(wanted))}; "
        "convert the files or change parse.formats"
    )


__all__ = [
    "IngestError",
    "NoUsableDocumentsError",
    "ParseResult",
    "build_pages",
    "count_tokens",
    "discover",
    "parse_documents",
]
