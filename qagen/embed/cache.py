"""An on-disk embedding cache keyed by (embedder id, SHA-256 of the text).

One SQLite file (WAL journal); every batch of new vectors is committed in its own
transaction, so a crash loses at most the batch in flight and never leaves a torn row.
Several processes may share the file (SQLite locks; writers wait up to a minute).
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path

import numpy as np

from qagen.embed.base import CorpusFittedEmbedder, Embedder, EmbedError
from qagen.io import sha256_text, sqlite_is_damaged

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS vectors (
    embedder TEXT NOT NULL,
    hash TEXT NOT NULL,
    dim INTEGER NOT NULL,
    vec BLOB NOT NULL,
    PRIMARY KEY (embedder, hash)
) WITHOUT ROWID
"""
_LOOKUP_CHUNK = 500  # well under SQLite's bound-parameter limit


class CachedEmbedder:
    """Wraps an embedder; vectors already in the cache are never computed again.

    Args:
        embedder: Any :class:`~qagen.embed.Embedder`. A corpus-fitted one (TF-IDF) that is not
            fitted yet is fitted on the texts of the first ``embed`` call, so its ``id`` (and the
            cache key) names that corpus.
        cache_path: The SQLite file, or an existing folder to hold ``embeddings.sqlite``.
        commit_every: New vectors computed and committed per batch.
        progress: Show a progress bar while computing new vectors.

    Attributes:
        hits: Texts served from the cache so far.
        misses: Texts embedded so far.
    """

    def __init__(
        self,
        embedder: Embedder,
        cache_path: str | Path,
        *,
        commit_every: int = 512,
        progress: bool = False,
        map_batches: Callable[[list[list[str]]], Iterator[tuple[int, np.ndarray]]] | None = None,
    ) -> None:
        if commit_every < 1:
            raise ValueError(f"commit_every must be >= 1; got {commit_every}")
        path = Path(cache_path)
        self.path = path / "embeddings.sqlite" if path.is_dir() else path
        self.embedder = embedder
        self.commit_every = commit_every
        self.progress = progress
        # computes the batches elsewhere (a Ray cluster): (index, vectors) as each batch is done; the
        # batches are the ones computed here otherwise, so the vectors are the same
        self.map_batches = map_batches
        self.hits = 0
        self.misses = 0

    @property
    def id(self) -> str:
        return self.embedder.id

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors for ``texts``: cached ones read, the rest computed and stored."""
        texts = list(texts)
        if isinstance(self.embedder, CorpusFittedEmbedder) and not self.embedder.fitted and texts:
            self.embedder.fit(texts)
        key = self.embedder.id
        hashes = [sha256_text(t) for t in texts]
        first: dict[str, str] = {}
        for h, t in zip(hashes, texts, strict=True):
            first.setdefault(h, t)
        with self._connect() as conn:
            found = self._lookup(conn, key, list(first))
            todo = [h for h in first if h not in found]
            todo_set = set(todo)
            self.hits += sum(1 for h in hashes if h not in todo_set)
            self.misses += len(todo)
            if self.map_batches is not None and len(todo) > self.commit_every:
                batches = [todo[i : i + self.commit_every] for i in range(0, len(todo), self.commit_every)]
                for i, vectors in self.map_batches([[first[h] for h in b] for b in batches]):
                    self._keep(conn, key, batches[i], np.asarray(vectors, dtype=np.float32), found)
            else:
                for batch in self._batches(todo):
                    vectors = np.asarray(self.embedder.embed([first[h] for h in batch]), dtype=np.float32)
                    self._keep(conn, key, batch, vectors, found)
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([found[h] for h in hashes]).astype(np.float32, copy=False)

    def _keep(
        self, conn: sqlite3.Connection, key: str, batch: list[str], vectors: np.ndarray, found: dict[str, np.ndarray]
    ) -> None:
        if vectors.shape[0] != len(batch):
            raise EmbedError(f"embedder {key} returned {vectors.shape[0]} vectors for {len(batch)} texts")
        self._store(conn, key, batch, vectors)
        found.update(zip(batch, vectors, strict=True))

    def _batches(self, todo: list[str]) -> Iterator[list[str]]:
        starts = range(0, len(todo), self.commit_every)
        if self.progress and todo:
            from tqdm import tqdm

            starts = tqdm(starts, desc="embed", unit="batch", total=len(starts))
        for i in starts:
            yield todo[i : i + self.commit_every]

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            conn = self._open()
        except sqlite3.DatabaseError as exc:
            if not sqlite_is_damaged(exc):
                raise  # a full disk or an I/O error: the cache itself is fine, keep it
            # A cache is only a cache: keep the damaged file aside for inspection and start afresh.
            aside = self.path.with_name(f"{self.path.name}.corrupt-{int(time.time())}")
            self.path.rename(aside)
            log.warning("embedding cache %s was unreadable; moved it to %s and started a new one", self.path, aside)
            conn = self._open()
        with closing(conn):
            yield conn

    def _open(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=60.0)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(_SCHEMA)
            conn.commit()
        except sqlite3.DatabaseError:
            conn.close()
            raise
        return conn

    @staticmethod
    def _lookup(conn: sqlite3.Connection, key: str, hashes: list[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        for i in range(0, len(hashes), _LOOKUP_CHUNK):
            chunk = hashes[i : i + _LOOKUP_CHUNK]
            marks = ",".join("?" * len(chunk))
            rows = conn.execute(
                f"SELECT hash, dim, vec FROM vectors WHERE embedder = ? AND hash IN ({marks})", [key, *chunk]
            )
            for h, dim, blob in rows:
                vec = np.frombuffer(blob, dtype=np.float32)
                if vec.shape[0] == dim:  # a short blob is treated as missing and recomputed
                    found[h] = vec
        return found

    @staticmethod
    def _store(conn: sqlite3.Connection, key: str, hashes: list[str], vectors: np.ndarray) -> None:
        rows = [(key, h, int(v.shape[0]), v.astype(np.float32).tobytes()) for h, v in zip(hashes, vectors, strict=True)]
        with conn:  # one transaction per batch
            conn.executemany("INSERT OR REPLACE INTO vectors (embedder, hash, dim, vec) VALUES (?, ?, ?, ?)", rows)
