"""An output folder as one object: where each artifact lives, how it is read, its manifest and its lock.

The application commands (:mod:`qagen.commands`) open a build's folder through
:class:`OutputFolder` instead of spelling paths and lock files themselves; the stage runner
takes the same lock. One writer at a time: a build, a review import or a report refresh holds
``.qagen.lock`` while it writes.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from qagen.errors import QagenError

MANIFEST = "manifest.json"
LOCK = ".qagen.lock"
SWEEP = "topics_sweep.json"  # written by `qagen topics --sweep`
OTHER_FILES = (MANIFEST, LOCK, SWEEP)


class FolderBusyError(QagenError, RuntimeError):
    """Another qagen process holds the output folder's lock."""


def _busy(folder: Path) -> Exception:
    return FolderBusyError(f"another qagen command is writing {folder}; wait for it to finish")


class OutputFolder:
    """A build's output folder (it may not exist yet).

    Example:
        >>> folder = OutputFolder("out")
        >>> folder.file("items.jsonl")
        PosixPath('out/items.jsonl')
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def __repr__(self) -> str:
        return f"OutputFolder({str(self.path)!r})"

    def file(self, name: str) -> Path:
        """The path of ``name``: an artifact of :data:`qagen.artifacts.ARTIFACTS` or one of :data:`OTHER_FILES`."""
        from qagen.artifacts import ARTIFACTS

        if name not in ARTIFACTS and name not in OTHER_FILES:
            raise KeyError(f"{name!r} is not a file of an output folder")
        return self.path / name

    def has(self, name: str) -> bool:
        """Whether ``name`` (see :meth:`file`) is in the folder."""
        return self.file(name).is_file()

    def read(self, name: str) -> Any:
        """Artifact ``name`` as its reader loads it (records for JSONL files, arrays for ``.npy``)."""
        from qagen.artifacts import ARTIFACTS

        return ARTIFACTS[name].read(self.file(name))

    def read_if_present(self, name: str, default: Any = None) -> Any:
        """:meth:`read`, or ``default`` when the file is absent."""
        return self.read(name) if self.has(name) else default

    def manifest(self) -> dict[str, Any]:
        """``manifest.json`` (empty when there is none yet)."""
        from qagen.io import read_json

        path = self.path / MANIFEST
        return read_json(path) if path.is_file() else {}

    @contextlib.contextmanager
    def lock(self, busy: Callable[[Path], Exception] = _busy) -> Iterator[None]:
        """Hold the folder's write lock; when another process holds it, raise ``busy(folder)`` at once.

        ``busy`` makes the error the caller's users expect (default :class:`FolderBusyError`).
        """
        from filelock import FileLock, Timeout

        lock = FileLock(str(self.path / LOCK), timeout=0)
        try:
            lock.acquire()
        except Timeout:
            raise busy(self.path) from None
        try:
            yield
        finally:
            lock.release()
