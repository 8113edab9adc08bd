"""A sweep's grid (``KEY=V1,V2,...`` axes checked against the config) and its report with the recommendation."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from qagen.errors import UsageError
from qagen.topics.sweep import SWEEPABLE, USED_BY, check_grid, format_table, not_run_notes, ran, recommend, sweep

if TYPE_CHECKING:
    from qagen.config import TopicsConfig

GRID_AXIS = re.compile(r"^(topics\.)?[A-Za-z_]\w*=")
GRID_USAGE = f"grid axes are KEY=V1,V2,... without spaces, KEY among {', '.join(SWEEPABLE)}"


class GridError(UsageError, ValueError):
    """A ``--sweep`` argument that is not KEY=V1,V2,... with a sweepable key."""


def parse_grid(specs: Sequence[str]) -> dict[str, list[int]]:
    """``["n_components=5,10,15", "min_cluster_size=10,20"]`` -> ``{"n_components": [5, 10, 15], ...}``."""
    grid: dict[str, list[int]] = {}
    for spec in specs:
        key, sep, raw = spec.partition("=")
        key = key.strip().removeprefix("topics.")
        if not sep or key not in SWEEPABLE:
            raise GridError(f"--sweep takes KEY=V1,V2,... with KEY among {', '.join(SWEEPABLE)}; got '{spec}'")
        if key in grid:
            raise GridError(f"--sweep {key} is given twice; put all its values in one axis: {key}=V1,V2,...")
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


def checked_grid(specs: Sequence[str] | dict[str, list[int]], config: TopicsConfig) -> dict[str, list[int]]:
    """The grid parsed and checked against ``config`` (keys its reducer and clusterer read); GridError if not."""
    grid = dict(specs) if isinstance(specs, dict) else parse_grid(specs)
    try:
        return check_grid(grid, config)
    except ValueError as exc:
        raise GridError(str(exc)) from None


@dataclass(frozen=True)
class SweepReport:
    """A finished sweep: rows, the recommended row, the rule that chose it, and the printable text.

    ``settings`` are the ``--set`` overrides that make ``qagen build`` use the recommended row
    as it ran (with ``topics.auto_scale=false`` when auto-scaling would change it).
    """

    rows: list[dict[str, Any]]
    best: dict[str, Any]
    rule: str
    text: str
    settings: tuple[str, ...] = ()

    def __str__(self) -> str:
        return self.text

    def to_json(self) -> dict[str, Any]:
        """JSON-ready data (for ``topics_sweep.json``)."""
        recommended = self.rows.index(self.best)
        return {"rows": self.rows, "recommended": recommended, "rule": self.rule, "set": list(self.settings)}


def _settings(best: dict[str, Any], config: TopicsConfig, n: int, dim: int) -> tuple[str, ...]:
    from qagen.topics.components import effective_params

    point = {k: best[k] for k in best if k in SWEEPABLE}
    out = [f"topics.{k}={v}" for k, v in point.items()]
    as_built = effective_params(n, dim, config.model_copy(update=point))
    if "min_cluster_size" in point and as_built["min_cluster_size"] != point["min_cluster_size"]:
        out.append("topics.auto_scale=false")
    return tuple(out)


def _fixed(grid: dict[str, list[int]], config: TopicsConfig, n: int, dim: int) -> str:
    """The keys the components read that the grid leaves fixed, as they run (auto-scaling shown)."""
    from qagen.topics.components import effective_params

    params = effective_params(n, dim, config)
    parts = []
    for key, used_by in USED_BY.items():
        if key in grid or (used_by is not None and getattr(config, used_by[0]) != used_by[1]):
            continue
        value, asked = params[key], getattr(config, key)
        if value is None:
            continue
        note = f" (auto_scale: {asked} capped for {n} sections)" if key == "min_cluster_size" and value != asked else ""
        parts.append(f"{key}={value}{note}")
    return "Fixed: " + ", ".join(parts) + "." if parts else ""


def run_sweep(
    texts: Sequence[str],
    embeddings: np.ndarray,
    doc_ids: Sequence[str],
    grid: Sequence[str] | dict[str, list[int]],
    config: TopicsConfig,
    seed: int = 0,
    *,
    progress: Callable[[str], None] | None = None,
) -> SweepReport:
    """Run the sweep and format it: a Markdown table, the recommendation and its rule.

    Raises:
        GridError: for a bad grid, or when no grid point can run on this corpus.
    """
    grid = checked_grid(grid, config)
    rows = sweep(texts, embeddings, doc_ids, grid, config, seed, progress=progress)
    if not any(ran(r) for r in rows):
        reason = rows[0]["reason"]
        raise GridError(f"no grid point can run on these {len(texts)} sections: {reason}; use smaller values")
    best, rule = recommend(rows)
    n, dim = np.shape(embeddings)
    settings = _settings(best, config, n, dim)
    reducer = f"{config.reducer.upper()} + {config.clusterer.upper()}"
    title = f"Topic sweep over {n} sections from {len(set(doc_ids))} documents ({reducer}, seed {seed})."
    text = "\n".join(
        [
            *filter(None, [title, _fixed(grid, config, n, dim)]),
            "",
            format_table(rows, best),
            *not_run_notes(rows),
            "",
            "CH = Calinski–Harabasz, DB = Davies–Bouldin (geometry in the reduced space, outliers left out);",
            "robustness = share of sections keeping their cluster after refitting on noisy embeddings;",
            "DC = document–cluster agreement in %, DC shuffled = the same with topic labels permuted.",
            "",
            rule[0].upper() + rule[1:] + ".",
            "Use it: --set " + " --set ".join(settings),
        ]
    )
    return SweepReport(rows, best, rule, text, settings)
