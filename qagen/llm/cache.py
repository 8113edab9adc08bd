"""The request cache: one SQLite file (WAL), one row per completed request.

A row is keyed by a hash of everything that defines the request (backend id and model,
messages, schema, temperature, max_tokens, seed, sample index; never the ``tag``). Each
row is committed as soon as its reply validated, so a run killed at any point keeps every
completed request and a rerun pays only for the rest. Several processes may share a file.

A request whose reply stayed invalid after its repairs is stored too, with ``failure`` set
(the reason, its kind and the repairs made), so that a rerun replays the failure instead of
paying for the same invalid reply again (``llm.cache_failures``). Transient failures
(timeouts, 429, 5xx, budget stops) are never stored.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from qagen.io import sqlite_is_damaged
from qagen.llm.base import LLMRequest, Usage

KEY_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS replies (
    key TEXT PRIMARY KEY,
    backend TEXT NOT NULL,
    model TEXT NOT NULL,
    text TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    attempts INTEGER NOT NULL,
    created REAL NOT NULL,
    failure TEXT
)
"""


def request_key(backend_id: str, model: str, request: LLMRequest) -> str:
    """A stable SHA-256 hex digest of everything that defines ``request`` for this backend."""
    payload = {
        "v": KEY_VERSION,
        "backend": backend_id,
        "model": model,
        "messages": [[m.role, m.content] for m in request.messages],
        "schema": request.schema,
        "schema_name": request.schema_name,
        "temperature": request.temperature,
        "max_tokens": request.max_tokens,
        "seed": request.seed,
        "sample_index": request.sample_index,
    }
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CachedFailure:
    """Why a stored reply is not usable: the reason, its kind, and the repairs already made."""

    kind: str
    message: str
    repairs: int


@dataclass(frozen=True)
class CachedReply:
    text: str
    usage: Usage
    attempts: int = 1
    failure: CachedFailure | None = None


def _failure_json(failure: CachedFailure | None) -> str | None:
    return None if failure is None else json.dumps(dataclasses.asdict(failure), sort_keys=True)


def _failure_of(blob: str | None) -> CachedFailure | None:
    return None if blob is None else CachedFailure(**json.loads(blob))


class RequestCache:
    """A SQLite-backed map from request key to the reply that completed it."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None, check_same_thread=False)
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(_SCHEMA)
            columns = {row[1] for row in self._db.execute("PRAGMA table_info(replies)")}
            if "failure" not in columns:  # a cache written before failures were stored
                self._db.execute("ALTER TABLE replies ADD COLUMN failure TEXT")
        except sqlite3.DatabaseError as exc:
            self._db.close()
            if not sqlite_is_damaged(exc):
                raise  # a full disk or an I/O error: the paid replies are intact, keep them
            raise ValueError(
                f"the LLM request cache {self.path} cannot be used ({exc}); delete it to start a new cache"
            ) from None

    def get(self, key: str) -> CachedReply | None:
        row = self._db.execute(
            "SELECT text, prompt_tokens, completion_tokens, attempts, failure FROM replies WHERE key = ?", (key,)
        ).fetchone()
        return None if row is None else CachedReply(row[0], Usage(row[1], row[2]), row[3], _failure_of(row[4]))

    def get_many(self, keys: Iterable[str]) -> dict[str, CachedReply]:
        """The cached replies among ``keys``."""
        found: dict[str, CachedReply] = {}
        unique = list(dict.fromkeys(keys))
        for start in range(0, len(unique), 500):
            chunk = unique[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(
                "SELECT key, text, prompt_tokens, completion_tokens, attempts, failure"
                f" FROM replies WHERE key IN ({marks})",
                chunk,
            )
            for key, text, pt, ct, attempts, failure in rows:
                found[key] = CachedReply(text, Usage(pt, ct), attempts, _failure_of(failure))
        return found

    def put(self, key: str, backend: str, model: str, reply: CachedReply) -> None:
        """Store one reply; committed at once (autocommit), so a kill right after keeps it."""
        self._db.execute(
            "INSERT OR REPLACE INTO replies"
            " (key, backend, model, text, prompt_tokens, completion_tokens, attempts, created, failure)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (key, backend, model, reply.text, reply.usage.prompt_tokens, reply.usage.completion_tokens,
             reply.attempts, time.time(), _failure_json(reply.failure)),
        )  # fmt: skip

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM replies").fetchone()[0])

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> RequestCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
