"""The errors of document ingestion (re-exported by :mod:`qagen.ingest`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from qagen.errors import QagenError

if TYPE_CHECKING:
    from qagen.ingest.model import ParseResult as _ParseResult


class IngestError(QagenError, ValueError):
    """Documents cannot be read as asked; the message names the problem and the fix."""


class NoUsableDocumentsError(IngestError):
    """Every document failed to parse; ``result`` holds the documents and their problems."""

    def __init__(self, message: str, result: _ParseResult) -> None:
        super().__init__(message)
        self.result = result
