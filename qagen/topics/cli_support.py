"""What ``qagen topics DOCS --sweep n_components=5,10,15 min_cluster_size=10,20,30`` runs after loading sections."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from qagen.topics.sweep import SWEEPABLE, format_table, recommend, sweep

if TYPE_CHECKING:
    from qagen.config import TopicsConfig


class GridError(ValueError):
    """A ``--sweep`` argument that is not KEY=V1,V2,... with a sweepable key."""


def parse_grid(specs: Sequence[str]) -> dict[str, list[int]]:
    """``["n_components=5,10,15", "min_cluster_size=10,20"]`` -> ``{"n_components": [5, 10, 15], ...}``."""
    grid: dict[str, list[int]] = {}
    for spec in specs:
        key, sep, raw = spec.partition("=")
        key = key.strip().removeprefix("topics.")
        if not sep or key not in SWEEPABLE:
            raise GridError(f"--sweep takes KEY=V1,V2,... with KEY among {', '.join(SWEEPABLE)}; got '{spec}'")
        try:
            values = [int(v) for v in raw.split(",") if v.strip()]
        except ValueError:
            raise GridError(f"--sweep {key} takes whole numbers separated by commas; got '{raw}'") from None
        if not values:
            raise GridError(f"--sweep {key} needs at least one value; got '{spec}'")
        grid[key] = list(dict.fromkeys(values))
    if not grid:
        raise GridError(
            "--sweep needs at least one KEY=V1,V2,... (e.g. n_components=5,10,15 min_cluster_size=10,20,30)"
        )
    return grid


@dataclass(frozen=True)
class SweepReport:
    """A finished sweep: rows, the recommended row, the rule that chose it, and the printable text."""

    rows: list[dict[str, Any]]
    best: dict[str, Any]
    rule: str
    text: str

    def __str__(self) -> str:
        return self.text

    def to_json(self) -> dict[str, Any]:
        """JSON-ready data (for ``topics_sweep.json``)."""
        return {"rows": self.rows, "recommended": self.rows.index(self.best), "rule": self.rule}


def run_sweep_command(
    texts: Sequence[str],
    embeddings: np.ndarray,
    doc_ids: Sequence[str],
    grid: Sequence[str] | dict[str, list[int]],
    config: TopicsConfig,
    seed: int = 0,
    *,
    progress: Callable[[str], None] | None = None,
) -> SweepReport:
    """Run the sweep and format it: a Markdown table, the recommendation and its rule."""
    grid = dict(grid) if isinstance(grid, dict) else parse_grid(grid)
    rows = sweep(texts, embeddings, doc_ids, grid, config, seed, progress=progress)
    best, rule = recommend(rows)
    n_docs = len(set(doc_ids))
    reducer = f"{config.reducer.upper()} + {config.clusterer.upper()}"
    text = "\n".join(
        [
            f"Topic sweep over {len(texts)} sections from {n_docs} documents ({reducer}, seed {seed}).",
            "",
            format_table(rows, best),
            "",
            "CH = Calinski–Harabasz, DB = Davies–Bouldin (geometry in the reduced space, outliers left out);",
            "robustness = share of sections keeping their cluster after refitting on noisy embeddings;",
            "DC = document–cluster agreement in %, DC shuffled = the same with topic labels permuted.",
            "",
            rule[0].upper() + rule[1:] + ".",
            "Use it: --set " + " --set ".join(f"topics.{k}={best[k]}" for k in best if k in SWEEPABLE),
        ]
    )
    return SweepReport(rows, best, rule, text)
