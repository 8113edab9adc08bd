"""Atomic file writes, JSONL helpers and content hashes.

Every artifact is written to a temporary file in the same folder, flushed, fsynced and
renamed over the target, so a reader (or a rerun after a crash) never sees half a file.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from qagen.errors import QagenError
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
    """The JSON in ``path``; a file that is cut short or is not JSON (or not UTF-8) is a
    :class:`~qagen.errors.DamagedFileError` naming it (a ``ValueError`` too)."""
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise _damaged(path, exc, None) from None


def read_bounded(path: str | os.PathLike[str], limit: int, what: str = "file") -> bytes:
    """The bytes of ``path`` (a file or a pipe), refused with a :class:`~qagen.errors.DamagedFileError` when
    there are more than ``limit`` (``/dev/zero`` would fill memory)."""
    from qagen.errors import DamagedFileError

    with open(path, "rb") as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise DamagedFileError(
            f"the {what} {display_name(path)} is larger than {limit >> 20:,} MB; is it the right file?"
        )
    return data


def _damaged(path: str | os.PathLike[str], exc: BaseException, line: int | None) -> Exception:
    from qagen.errors import DamagedFileError

    where = (
        f" line {line}"
        if line is not None
        else (f" line {exc.lineno}" if isinstance(exc, json.JSONDecodeError) else "")
    )
    why = (
        exc.msg
        if isinstance(exc, json.JSONDecodeError)
        else ("not UTF-8" if isinstance(exc, UnicodeDecodeError) else "nested too deeply")
    )
    return DamagedFileError(
        f"{display_name(path)}:{where} is not valid JSON ({why}): the file is cut short or damaged; restore it "
        "from a copy, or rerun the command that wrote it"
    )


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
    """The JSON object of each non-blank line; a damaged line is a :class:`~qagen.errors.DamagedFileError`."""
    with open(path, encoding="utf-8") as fh:
        number = 0
        try:
            for number, line in enumerate(fh, 1):  # noqa: B007 (the line number is read after a failure)
                if line.strip():
                    yield json.loads(line)
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
            raise _damaged(path, exc, number + (0 if isinstance(exc, json.JSONDecodeError) else 1)) from None


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


def remove_stale_temp_files(folder: str | os.PathLike[str], names: Iterable[str]) -> list[Path]:
    """Delete the temporary files :func:`atomic_open` left for ``names`` in ``folder`` (a killed writer's).

    Call it where one writer owns the files (under the build lock, or before ``qagen score``
    rewrites its own files); returns what was removed.
    """
    removed = []
    for name in names:
        for tmp in Path(folder).glob(f".{glob.escape(name)}.*.tmp"):
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
                removed.append(tmp)
    return removed


def display_name(name: str | os.PathLike[str]) -> str:
    """A file name as text that can always be written: bytes that are not UTF-8 become ``\\xNN``.

    Python hands such bytes over as lone surrogates, which no UTF-8 file, JSON encoder or
    hash accepts; valid names come back unchanged.
    """
    return os.fsencode(name).decode("utf-8", "backslashreplace")


class OutputFolderError(QagenError, ValueError):
    """An output folder that cannot be used; the message names the problem and the fix."""


def check_output_folder(path: str | os.PathLike[str], what: str = "output folder") -> None:
    """Raise :class:`OutputFolderError` unless ``path`` is, or can become, a folder this process can write.

    Catches the cases that would otherwise fail later with a traceback: ``path`` is a file,
    one of its parents is a file, or the folder (or the one it would be made in) is not writable.
    """
    target = Path(os.path.abspath(path))
    shown = display_name(path)
    if target.exists() and not target.is_dir():
        raise OutputFolderError(f"the {what} {shown} is a file, not a folder; pass a folder (it is created if missing)")
    existing = target
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        where = display_name(existing)
        raise OutputFolderError(f"cannot make the {what} {shown}: {where} is a file, not a folder; pass another path")
    if not os.access(existing, os.W_OK | os.X_OK):
        where = display_name(existing)
        doing = "write in" if existing == target else f"create {shown} in"
        raise OutputFolderError(
            f"no permission to {doing} {where}; pass an {what} you can write to, or change its permissions"
        )


def check_output_file(path: str | os.PathLike[str], what: str = "output file") -> None:
    """Raise :class:`OutputFolderError` unless ``path`` can be written as a file (see :func:`check_output_folder`)."""
    target = Path(os.path.abspath(path))
    if target.is_dir():
        raise OutputFolderError(f"the {what} {display_name(path)} is a folder; pass a file name")
    check_output_folder(target.parent, f"folder of the {what}")


# Cells a spreadsheet would run as a formula: = + - @ (and tab / carriage return, which some
# applications strip before they look).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: str) -> str:
    """The text with a leading apostrophe when a spreadsheet would read it as a formula.

    Every CSV qagen writes passes its text cells through this (OWASP's CSV injection advice).
    Text that already starts with an apostrophe gets one more, so :func:`unguard_cell` gives
    back exactly what was written; a spreadsheet shows the cell without the first apostrophe.
    """
    return "'" + value if value.startswith((*FORMULA_START, "'")) else value


def unguard_cell(value: str) -> str:
    """The text :func:`safe_cell` was given (for reading qagen's CSV files with pandas or ``csv``)."""
    guarded = len(value) > 1 and value[0] == "'" and value[1] in (*FORMULA_START, "'")
    return value[1:] if guarded else value
