"""qagen: evaluation datasets for RAG chatbots, split into topic-disjoint folds.

``import qagen`` stays light: heavy dependencies (torch, BERTopic, UMAP) load only when a
stage needs them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from qagen._version import __version__
from qagen.errors import QagenError

if TYPE_CHECKING:
    from qagen.commands.build import BuildResult, build

__all__ = ["BuildResult", "QagenError", "__version__", "build"]


def __getattr__(name: str) -> Any:
    if name in ("build", "BuildResult"):
        from qagen.commands import build

        return getattr(build, name)
    raise AttributeError(f"module 'qagen' has no attribute {name!r}")
