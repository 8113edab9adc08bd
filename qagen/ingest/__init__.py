"""Document ingestion: files → sections (parse stage) → emulated pages (pages stage).

``import qagen.ingest`` is light: pdfplumber, BeautifulSoup and markdown-it load only when a
document of that kind is parsed, inside worker processes.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from qagen.ingest.detect import EXTENSIONS
from qagen.ingest.discover import Discovery, scan, supported_extensions
from qagen.ingest.errors import IngestError, NoUsableDocumentsError
from qagen.ingest.model import ParseResult
from qagen.ingest.pages import build_pages
from qagen.ingest.run import parse_documents
from qagen.ingest.tokens import count_tokens
from qagen.io import display_name


def discover(docs_dir: Path, formats: list[str], exclude: Iterable[Path] = (), symlinks: str = "inside") -> list[Path]:
    """The documents under ``docs_dir``, sorted; see :func:`scan_documents` for what is skipped.

    A file with a supported extension is a document; one with an unknown or no extension is
    taken by its content when that is a PDF or HTML.

    Args:
        docs_dir: Folder searched recursively.
        formats: Formats to include (``pdf``, ``txt``, ``md``, ``html``).
        exclude: Folders to leave out (the build's output folder; qagen output folders are
            recognised by their lock file or manifest anyway).
        symlinks: ``inside`` (follow links that stay in the folder), ``follow`` or ``skip``.

    Returns:
        Paths sorted by their path relative to ``docs_dir``.

    Raises:
        IngestError: When the folder is missing, empty or holds no supported file.
    """
    return scan_documents(docs_dir, formats, exclude, symlinks).paths


def scan_documents(
    docs_dir: Path, formats: list[str], exclude: Iterable[Path] = (), symlinks: str = "inside"
) -> Discovery:
    """The documents under ``docs_dir`` and the files skipped, each with its reason.

    Hidden files and folders and qagen output folders are neither documents nor listed;
    symbolic links are followed as ``symlinks`` says (see :func:`discover`).

    Raises:
        IngestError: When the folder is missing, empty or holds no supported file, or when
            it is one of the ``exclude`` folders (a build writing into its own documents).
    """
    docs_dir = Path(docs_dir)
    unknown = sorted(set(formats) - set(EXTENSIONS))
    if unknown or not formats:
        raise IngestError(
            f"parse.formats must be a non-empty list of {', '.join(sorted(EXTENSIONS))}; got {list(formats)}"
        )
    shown = display_name(docs_dir)
    if not docs_dir.exists():
        raise IngestError(f"documents folder not found: {shown}; pass the folder that holds your documents")
    if not docs_dir.is_dir():
        raise IngestError(f"{shown} is a file, not a folder; pass the folder that holds your documents")
    for folder in exclude:
        if os.path.realpath(folder) == os.path.realpath(docs_dir):
            raise IngestError(
                f"the output folder is the documents folder ({shown}): each build would read "
                "its own report and datasets as documents; pass another -o (e.g. a sibling folder)"
            )
    found = scan(docs_dir, formats, exclude, symlinks)
    if found.paths:
        return found
    if not found.skipped:
        raise IngestError(f"documents folder is empty: {shown}; add PDF, TXT, Markdown or HTML files to it")
    seen = Counter(PurePosixPath(rel).suffix.lower() or "(no extension)" for rel, _ in found.skipped)
    listed = ", ".join(f"{ext} ×{n}" for ext, n in seen.most_common(5))
    readable = supported_extensions(formats)
    other = [(rel, why) for rel, why in found.skipped if PurePosixPath(rel).suffix.lower() in readable]
    if other:  # files of a supported kind left out for another reason: a link out of the folder, unreadable
        rel, why = other[0]
        more = f" (and {len(other) - 1} more like it)" if len(other) > 1 else ""
        raise IngestError(
            f"no usable documents in {shown}: found {len(found.skipped)} file(s) ({listed}), none read; "
            f"{rel}: {why}{more}"
        )
    raise IngestError(
        f"no supported documents in {shown}: found {len(found.skipped)} file(s) ({listed}) "
        f"but parse.formats={list(formats)} reads only {', '.join(readable)} "
        "(or PDF and HTML content under another name); convert the files or change parse.formats"
    )


__all__ = [
    "Discovery",
    "IngestError",
    "NoUsableDocumentsError",
    "ParseResult",
    "build_pages",
    "count_tokens",
    "discover",
    "parse_documents",
    "scan_documents",
]
