"""Finding the documents in a folder: by extension, else by content; what is left out and why.

A file with a supported extension is a document. A file whose extension is unknown or
missing is read (its first 4 KiB) and taken by its content when that is a PDF or an HTML
page. Every other file is skipped with a reason. Text without a text extension is skipped
too, with a hint to rename it: a docs folder's ``LICENSE``, ``README`` or ``Makefile`` is no
document to ask questions about. Hidden files and folders, and qagen output folders (a ``.qagen.lock`` or a qagen
``manifest.json`` in them) and export folders (a qagen ``exports.json``), are not documents and are not listed;
a qagen report or review form found on its own is listed as skipped.

Symbolic links are followed only while they stay inside the documents folder
(``parse.symlinks = "inside"``): a link out of it, a dangling link and a link loop are each
skipped with the reason. ``"follow"`` follows links anywhere, ``"skip"`` follows none.

File names are taken as the operating system gives them, valid UTF-8 or not. Records,
manifests and messages use :func:`display_name`, where bytes that are not UTF-8 show as
``\\xNN`` escapes; the file is still opened by its real name.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from qagen.ingest.detect import EXTENSIONS, describe, format_of_extension
from qagen.io import display_name

_HEAD_BYTES = 4096
SYMLINK_MODES = ("inside", "follow", "skip")
_QAGEN_HTML = (b'<meta name="generator" content="qagen',)


@dataclass(frozen=True)
class Discovery:
    """What a folder holds: the documents to parse and the files left out, with the reason.

    Attributes:
        paths: Documents, sorted by their path relative to the folder.
        skipped: ``(relative path, reason)`` of every other file that is not hidden and not
            in a qagen output folder, sorted by path. Paths are display names (see
            :func:`display_name`).
    """

    paths: list[Path]
    skipped: list[tuple[str, str]] = field(default_factory=list)


def relative_name(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` as a POSIX display name (a link keeps its own name)."""
    path, root = Path(os.path.abspath(path)), Path(os.path.abspath(root))
    try:
        rel = path.relative_to(root).as_posix()
    except ValueError:
        try:
            rel = path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            rel = Path(os.path.relpath(path.resolve(), root.resolve())).as_posix()
    return display_name(rel)


def scan(docs_dir: Path, formats: Iterable[str], exclude: Iterable[Path] = (), symlinks: str = "inside") -> Discovery:
    """Sort the files under ``docs_dir`` into documents and skipped files (see the module docs).

    Args:
        docs_dir: An existing folder, searched recursively.
        formats: Formats to include (``pdf``, ``txt``, ``md``, ``html``).
        exclude: Folders left out entirely (the build's own output folder).
        symlinks: ``inside`` (follow links that stay in ``docs_dir``), ``follow`` or ``skip``.
    """
    if symlinks not in SYMLINK_MODES:
        raise ValueError(f"symlinks must be one of {', '.join(SYMLINK_MODES)}; got {symlinks!r}")
    root = Path(docs_dir)
    wanted = set(formats)
    found: list[tuple[str, Path]] = []
    skipped: list[tuple[str, str]] = []
    walk = _Walk(root, {os.path.realpath(p) for p in exclude}, symlinks, skipped)
    for path in walk.files():
        rel = relative_name(path, root)
        fmt, reason = classify(path, wanted)
        if fmt is not None:
            found.append((rel, path))
        else:
            skipped.append((rel, reason))
    return Discovery([p for _, p in sorted(found)], sorted(skipped))


def classify(path: Path, formats: set[str]) -> tuple[str | None, str]:
    """``(format, "")`` when ``path`` is a document of one of ``formats``, else ``(None, reason)``."""
    claimed = format_of_extension(path)
    if claimed is not None and claimed not in formats:
        return None, f"{claimed} files are not read (parse.formats = {sorted(formats)})"
    try:
        with open(path, "rb") as fh:
            head = fh.read(_HEAD_BYTES)
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or type(exc).__name__})"
    fmt = claimed or sniff(head)
    if fmt == "html" and any(mark in head for mark in _QAGEN_HTML):
        return None, "a qagen report or review form (qagen's own output, not a document)"
    if claimed is not None:
        return claimed, ""
    ext = display_name(path.suffix.lower())
    what = f"unknown extension {ext}" if ext else "no extension"
    if fmt is None:
        kind = "empty" if not head else describe(head)
        hint = "; rename it to .txt or .md to include it" if kind == "text" else ""
        return None, f"{what}, and the content is {kind}{hint}"
    if fmt not in formats:
        return None, f"{what}; the content is {fmt}, which parse.formats = {sorted(formats)} leaves out"
    return fmt, ""


def sniff(head: bytes) -> str | None:
    """The document format the first bytes of a file show, whatever its name: ``pdf``, ``html`` or None."""
    if b"%PDF-" in head[:1024]:
        return "pdf"
    if head and describe(head) == "HTML":
        return "html"
    return None


class _Walk:
    """The files under a root, depth first in name order, with the symbolic link policy applied.

    Links, loops and unreadable folders that are left out are appended to ``skipped`` with
    the reason; hidden entries, excluded folders and qagen output folders are left out silently.
    """

    def __init__(self, root: Path, exclude: set[str], symlinks: str, skipped: list[tuple[str, str]]) -> None:
        self.root = root
        self.real_root = os.path.realpath(root)
        self.exclude = exclude
        self.symlinks = symlinks
        self.skipped = skipped
        self.seen: set[str] = set()

    def files(self) -> list[Path]:
        out: list[Path] = []
        self._folder(self.root, out)
        return out

    def _skip(self, path: Path, reason: str) -> None:
        self.skipped.append((relative_name(path, self.root), reason))

    def _inside(self, real: str) -> bool:
        return real == self.real_root or real.startswith(self.real_root.rstrip(os.sep) + os.sep)

    def _link_allowed(self, path: Path, kind: str) -> bool:
        """Whether to follow the link ``path`` (to a ``kind``); a refusal is recorded."""
        target = display_name(os.readlink(path))
        if self.symlinks == "skip":
            self._skip(path, f"symbolic link to {target}; links are not followed (parse.symlinks = 'skip')")
            return False
        real = os.path.realpath(path)
        if self.symlinks == "inside" and not self._inside(real):
            self._skip(
                path,
                f"symbolic link to a {kind} outside the documents folder ({display_name(real)}); "
                "not followed (set parse.symlinks = 'follow' to read it)",
            )
            return False
        return True

    def _folder(self, folder: Path, out: list[Path]) -> None:
        real = os.path.realpath(folder)
        if real in self.seen:
            self._skip(folder, "symbolic link loop: this folder is already searched under another name")
            return
        self.seen.add(real)
        try:
            entries = sorted(os.scandir(folder), key=lambda e: os.fsencode(e.name))
        except OSError as exc:
            self._skip(folder, f"folder cannot be read ({exc.strerror or type(exc).__name__})")
            return
        for entry in entries:
            if entry.name.startswith("."):
                continue
            path = Path(entry.path)
            try:
                is_link = entry.is_symlink()
                mode = os.stat(path).st_mode  # follows the link
            except FileNotFoundError:
                self._skip(path, f"dangling symbolic link: its target {display_name(os.readlink(path))} does not exist")
                continue
            except OSError as exc:
                self._skip(path, f"cannot be read ({exc.strerror or type(exc).__name__})")
                continue
            if stat.S_ISDIR(mode):
                if is_link and not self._link_allowed(path, "folder"):
                    continue
                if os.path.realpath(path) in self.exclude or is_output_folder(path):
                    continue
                self._folder(path, out)
            elif stat.S_ISREG(mode):
                if is_link and not self._link_allowed(path, "file"):
                    continue
                out.append(path)
            else:
                self._skip(path, "not a regular file (a device, pipe or socket)")


def is_output_folder(folder: Path) -> bool:
    """True for a qagen output or export folder: the build lock, a qagen ``manifest.json`` or ``exports.json``."""
    try:
        names = set(os.listdir(folder))
    except OSError:
        return False
    if ".qagen.lock" in names:
        return True
    if "manifest.json" in names:
        head = _head(folder / "manifest.json")
        if b'"stage_order"' in head or (b'"schema_version"' in head and b'"stages"' in head):
            return True
    if "exports.json" in names:
        head = _head(folder / "exports.json")
        return b'"format"' in head and b'"iterations"' in head
    return False


def _head(path: Path) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read(_HEAD_BYTES)
    except OSError:
        return b""


def supported_extensions(formats: Iterable[str]) -> list[str]:
    """The extensions that ``formats`` read."""
    return sorted(ext for fmt in formats for ext in EXTENSIONS[fmt])
