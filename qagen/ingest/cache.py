"""Parse cache: one JSON file per document, keyed by its content hash and the parser.

The key also covers the parse settings that change the output and a hash of this package's
source, so editing the heuristics or the config never serves a stale parse. Only successful
parses are cached; entries are written atomically and unreadable ones are ignored.
"""

from __future__ import annotations

import json
import logging
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

from qagen.config import ParseConfig
from qagen.ingest.model import ParsedDoc
from qagen.io import read_json, sha256_bytes, stable_hash, write_json

_NOT_OUTPUT = {"workers", "timeout_s", "timeout_per_page_s", "formats"}
logger = logging.getLogger(__name__)


@cache
def _code_hash() -> str:
    here = Path(__file__).parent
    data = b"".join(p.read_bytes() for p in sorted(here.glob("*.py")))
    versions = []
    for package in ("pdfplumber", "pypdfium2"):
        try:
            versions.append(metadata.version(package))
        except metadata.PackageNotFoundError:  # pragma: no cover
            versions.append("?")
    return sha256_bytes(data + " ".join(versions).encode())[:16]


class ParseCache:
    """Cached :class:`ParsedDoc` values under ``cache_dir``."""

    def __init__(self, cache_dir: Path, config: ParseConfig) -> None:
        self.dir = Path(cache_dir)
        settings = {k: v for k, v in config.model_dump(mode="json").items() if k not in _NOT_OUTPUT}
        self.fingerprint = stable_hash({"code": _code_hash(), "config": settings})[:16]

    def _path(self, sha256: str) -> Path:
        return self.dir / sha256[:2] / f"{sha256}-{self.fingerprint}.json"

    def get(self, sha256: str) -> ParsedDoc | None:
        path = self._path(sha256)
        if not path.is_file():
            return None
        try:
            data: dict[str, Any] = read_json(path)
            sections = list(data["sections"])
            return ParsedDoc(data["format"], int(data["n_pages"]), data["title"], sections, data.get("encoding"))
        except (OSError, ValueError, KeyError, TypeError, json.JSONDecodeError):
            return None

    def put(self, sha256: str, doc: ParsedDoc) -> None:
        """Store a parse; a cache that cannot be written is skipped with a warning, never fatal."""
        data = {
            "format": doc.format,
            "n_pages": doc.n_pages,
            "title": doc.title,
            "sections": doc.sections,
            "encoding": doc.encoding,
        }
        try:
            write_json(self._path(sha256), data)
        except (OSError, ValueError) as exc:  # ValueError: text no file can store (a lone surrogate)
            logger.warning("parse cache not written (%s): %s", type(exc).__name__, self.dir)
