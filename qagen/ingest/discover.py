"""Finding the documents in a folder: by extension, else by content; what is left out and why.

A file with a supported extension is a document. A file whose extension is unknown or
missing is read (its first 4 KiB) and taken by its content when that is a PDF or an HTML
page. Every other file is skipped with a reason. Text without a text extension is skipped
too, with a hint to rename it: a docs folder's ``LICENSE``, ``README`` or ``Makefile`` is no
document to ask questions about. Hidden files and folders, and qagen output folders (a ``.qagen.lock`` or a qagen
``manifest.json`` in them), are not documents and are not listed.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from qagen.ingest.detect import EXTENSIONS, describe, format_of_extension

_HEAD_BYTES = 4096


@dataclass(frozen=True)
class Discovery:
    """What a folder holds: the documents to parse and the files left out, with the reason.

    Attributes:
        paths: Documents, sorted by their path relative to the folder.
        skipped: ``(relative path, reason)`` of every other file that is not hidden and not
            in a qagen output folder, sorted by path.
    """

    paths: list[Path]
    skipped: list[tuple[str, str]] = field(default_factory=list)


def scan(docs_dir: Path, formats: Iterable[str], exclude: Iterable[Path] = ()) -> Discovery:
    """Sort the files under ``docs_dir`` into documents and skipped files (see the module docs).

    Args:
        docs_dir: An existing folder, searched recursively (symbolic links followed).
        formats: Formats to include (``pdf``, ``txt``, ``md``, ``html``).
        exclude: Folders left out entirely (the build's own output folder).
    """
    root = Path(docs_dir)
    wanted = set(formats)
    found: list[tuple[str, Path]] = []
    skipped: list[tuple[str, str]] = []
    for path in _files(root, {Path(p).resolve() for p in exclude}):
        rel = path.relative_to(root).as_posix()
        fmt, reason = classify(path, wanted)
        if fmt is not None:
            found.append((rel, path))
        else:
            skipped.append((rel, reason))
    return Discovery([p for _, p in sorted(found)], sorted(skipped))


def classify(path: Path, formats: set[str]) -> tuple[str | None, str]:
    """``(format, "")`` when ``path`` is a document of one of ``formats``, else ``(None, reason)``."""
    claimed = format_of_extension(path)
    if claimed is not None:
        if claimed in formats:
            return claimed, ""
        return None, f"{claimed} files are not read (parse.formats = {sorted(formats)})"
    ext = path.suffix.lower()
    try:
        with open(path, "rb") as fh:
            head = fh.read(_HEAD_BYTES)
    except OSError as exc:
        return None, f"cannot be read ({type(exc).__name__})"
    what = f"unknown extension {ext}" if ext else "no extension"
    sniffed = sniff(head)
    if sniffed is None:
        kind = "empty" if not head else describe(head)
        hint = "; rename it to .txt or .md to include it" if kind == "text" else ""
        return None, f"{what}, and the content is {kind}{hint}"
    if sniffed not in formats:
        return None, f"{what}; the content is {sniffed}, which parse.formats = {sorted(formats)} leaves out"
    return sniffed, ""


def sniff(head: bytes) -> str | None:
    """The document format the first bytes of a file show, whatever its name: ``pdf``, ``html`` or None."""
    if b"%PDF-" in head[:1024]:
        return "pdf"
    if head and describe(head) == "HTML":
        return "html"
    return None


def _files(root: Path, exclude: set[Path]) -> Iterator[Path]:
    """Files under ``root``, hidden ones, excluded folders and qagen output folders left out."""
    seen: set[str] = set()
    for folder, dirs, files in os.walk(root, followlinks=True):
        real = os.path.realpath(folder)
        if real in seen:  # a symbolic link loop
            dirs[:] = []
            continue
        seen.add(real)
        here = Path(folder)
        if here != root and (here.resolve() in exclude or is_output_folder(here, files)):
            dirs[:] = []
            continue
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            path = here / name
            if not name.startswith(".") and path.is_file():
                yield path


def is_output_folder(folder: Path, names: Iterable[str] | None = None) -> bool:
    """True for a qagen output folder: it holds the build lock or a qagen ``manifest.json``."""
    names = set(os.listdir(folder) if names is None else names)
    if ".qagen.lock" in names:
        return True
    if "manifest.json" not in names:
        return False
    try:
        with open(folder / "manifest.json", "rb") as fh:
            head = fh.read(_HEAD_BYTES)
    except OSError:
        return False
    return b'"stage_order"' in head or (b'"schema_version"' in head and b'"stages"' in head)


def supported_extensions(formats: Iterable[str]) -> list[str]:
    """The extensions that ``formats`` read."""
    return sorted(ext for fmt in formats for ext in EXTENSIONS[fmt])
