"""Atomic file writes, JSONL helpers and content hashes.

Every artifact is written to a temporary file in the same folder, flushed, fsynced and
renamed over the target, so a reader (or a rerun after a crash) never sees half a file.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from qagen.records import from_dict, to_dict


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike[str], mode: str = "w") -> Iterator[Any]:
    """Open a temporary sibling of ``path`` for writing; rename it over ``path`` on success."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    binary = "b" in mode
    try:
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"})) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_UMASK)
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and exc.filename is None:
            exc.filename = str(target)  # a failed write (disk full) names no file by itself
        raise


def _read_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# mkstemp creates files 0600; artifacts get the permissions any other new file would get.
_UMASK = _read_umask()


def dumps(data: Any) -> str:
    """Deterministic compact JSON (UTF-8 kept, key order as given)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def write_text(path: str | os.PathLike[str], text: str) -> None:
    with atomic_open(path) as fh:
        fh.write(text)


def write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    with atomic_open(path, "wb") as fh:
        fh.write(data)


def write_json(path: str | os.PathLike[str], data: Any) -> None:
    """Write pretty, deterministic JSON atomically."""
    write_text(path, json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False) + "\n")


def read_json(path: str | os.PathLike[str]) -> Any:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def write_jsonl(path: str | os.PathLike[str], rows: Iterable[Any]) -> int:
    """Write records or dicts one per line, atomically; returns the number of lines."""
    n = 0
    with atomic_open(path) as fh:
        for row in rows:
            data = row if isinstance(row, dict) else to_dict(row)
            fh.write(dumps(data))
            fh.write("\n")
            n += 1
    return n


def iter_jsonl(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def read_jsonl(path: str | os.PathLike[str], cls: type | None = None) -> list[Any]:
    """Read a JSONL file as dicts, or as records of ``cls``."""
    rows = list(iter_jsonl(path))
    return rows if cls is None else [from_dict(cls, r) for r in rows]


def write_npy(path: str | os.PathLike[str], array: Any) -> None:
    import numpy as np

    with atomic_open(path, "wb") as fh:
        np.save(fh, array, allow_pickle=False)


def read_npy(path: str | os.PathLike[str]) -> Any:
    import numpy as np

    return np.load(path, allow_pickle=False)


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sha256_file(path: str | os.PathLike[str], chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()


def stable_hash(data: Any) -> str:
    """SHA-256 of the canonical JSON form of ``data`` (sorted keys)."""
    return sha256_text(json.dumps(data, sort_keys=True, ensure_ascii=False, default=str))


# SQLite primary result codes (sqlite3.h); ``sqlite_errorcode`` may carry an extended code.
_SQLITE_CORRUPT, _SQLITE_NOTADB = 11, 26
_SQLITE_IOERR, _SQLITE_FULL = 10, 13


def sqlite_is_damaged(exc: BaseException) -> bool:
    """True when a SQLite error means the database file itself is unreadable (corrupt, not a
    database) — not a full disk or an I/O error, which must never cost a cache its contents."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in (_SQLITE_CORRUPT, _SQLITE_NOTADB)


def sqlite_is_disk_full(exc: BaseException) -> bool:
    """True when a SQLite error comes from a full disk (SQLITE_FULL) or a failed write (SQLITE_IOERR)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in (_SQLITE_FULL, _SQLITE_IOERR)
