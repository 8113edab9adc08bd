"""Sweep BERTopic's key hyperparameters and recommend a setting with evidence (paper Section 5.1).

Every grid point is reduced and clustered exactly as :func:`~qagen.topics.fit_topics` would
(same components, parameters and seed), without the c-TF-IDF step. The reduction depends only
on the reducer's parameters, so it is computed once per distinct (n_components, n_neighbors)
and shared by every min_cluster_size; likewise the noisy refit for robustness.

A value the user put in the grid runs as asked: ``auto_scale`` never caps a swept
``min_cluster_size`` (it still caps a fixed one). A value the corpus cannot take (more
components than sections allow, two topics larger than the corpus, ...) is not run; its row
has ``status = "impossible"`` and the ``reason``, and it is never recommended.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from qagen.topics.components import add_noise, cluster, effective_params, reduce
from qagen.topics.metrics import cluster_metrics, robustness_from_labels

if TYPE_CHECKING:
    from qagen.config import TopicsConfig

SWEEPABLE = ("n_components", "n_neighbors", "min_cluster_size", "min_samples", "n_clusters")
# Which component reads each key (None: both reducers): sweeping a key nobody reads would only repeat rows.
USED_BY: dict[str, tuple[str, str] | None] = {
    "n_components": None,
    "n_neighbors": ("reducer", "umap"),
    "min_cluster_size": ("clusterer", "hdbscan"),
    "min_samples": ("clusterer", "hdbscan"),
    "n_clusters": ("clusterer", "kmeans"),
}
REDUCER_KEYS = ("reducer", "n_components", "n_neighbors")
MAX_OUTLIER_PCT = 50.0
# (metric, +1 when higher is better, -1 when lower is better)
RANK_METRICS = (
    ("silhouette", 1),
    ("calinski_harabasz", 1),
    ("davies_bouldin", -1),
    ("robustness", 1),
    ("dc_lift", 1),
)


def check_grid(grid: dict[str, Sequence[int]], config: TopicsConfig) -> dict[str, list[int]]:
    """``grid`` with repeated values dropped; ValueError for an unknown, empty or unused key.

    A key is unused when the configured reducer or clusterer does not read it (``n_clusters``
    with HDBSCAN, ``min_cluster_size`` with k-means, ``n_neighbors`` with PCA).
    """
    unknown = sorted(set(grid) - set(SWEEPABLE))
    if unknown:
        raise ValueError(f"sweep grid keys must be among {', '.join(SWEEPABLE)}; got {', '.join(unknown)}")
    if any(not values for values in grid.values()):
        raise ValueError("every sweep grid key needs at least one value, e.g. n_components=5,10,15")
    for key in grid:
        used_by = USED_BY[key]
        if used_by is not None and getattr(config, used_by[0]) != used_by[1]:
            part, name = used_by
            raise ValueError(
                f"sweep key {key} is only used by topics.{part} = '{name}' (this config has "
                f"'{getattr(config, part)}'); drop it from the grid or add --set topics.{part}={name}"
            )
    return {key: list(dict.fromkeys(values)) for key, values in grid.items()}


def _configs(grid: dict[str, list[int]], config: TopicsConfig) -> list[tuple[dict[str, int], TopicsConfig]]:
    from qagen.config import TopicsConfig

    grid = check_grid(grid, config)
    keys = list(grid)
    out = []
    for combo in itertools.product(*(grid[k] for k in keys)):
        point = dict(zip(keys, combo, strict=True))
        data = {**config.model_dump(), **point}
        if "min_cluster_size" in point:
            data["auto_scale"] = False  # a swept value runs as asked
        out.append((point, TopicsConfig.model_validate(data)))
    return out


def impossible(point: dict[str, int], params: dict[str, Any], dim: int) -> str | None:
    """Why the corpus cannot take ``point`` (None when every value runs as asked).

    ``params`` are the effective parameters, whose validity limits (see
    :func:`~qagen.topics.effective_params`) would otherwise change a value silently.
    """
    n = params["n_sections"]
    for key, asked in point.items():
        if key == "min_cluster_size" and asked > n // 2:
            return f"min_cluster_size={asked} leaves no room for 2 topics in {n} sections: at most {n // 2}"
        if params.get(key) != asked:
            return f"{key}={asked} is impossible for {n} sections of {dim} dimensions: at most {params[key]}"
    return None


def sweep(
    texts: Sequence[str],
    embeddings: np.ndarray,
    doc_ids: Sequence[str],
    grid: dict[str, list[int]],
    config: TopicsConfig,
    seed: int = 0,
    *,
    progress: Callable[[str], None] | None = None,
) -> list[dict[str, Any]]:
    """Metrics for every point of ``grid`` (e.g. ``{"n_components": [5, 15], "min_cluster_size": [10, 30]}``).

    Args:
        texts: Section texts (checked for length only; keywords are not needed to score a setting).
        embeddings: Sections x dims.
        doc_ids: Document of each section.
        grid: Config field -> values; keys among :data:`SWEEPABLE`, read by the configured
            reducer or clusterer. Swept values run as asked (no ``auto_scale``).
        config: Base ``[topics]`` config; grid values override it.
        seed: As for :func:`fit_topics`.
        progress: Called with one line per grid point.

    Returns:
        One row per distinct grid point, in grid order: the requested values, ``status``
        (``"ran"`` or ``"impossible"``) and ``params`` (effective). A row that ran has every
        metric of :func:`cluster_metrics`, robustness (when ``config.robustness_check``),
        ``reduce_s`` and ``cluster_s``; an impossible one has the ``reason`` instead.
    """
    embeddings = np.asarray(embeddings, dtype=np.float32)
    if not len(texts) == embeddings.shape[0] == len(doc_ids):
        raise ValueError(
            f"texts, embeddings and doc_ids must have one entry per section; got {len(texts)}, "
            f"{embeddings.shape[0]} and {len(doc_ids)}"
        )
    n, dim = embeddings.shape
    points = _configs(grid, config)  # a bad grid fails before the noisy copy is made
    noisy = add_noise(embeddings, config.robustness_noise, seed) if config.robustness_check else None
    reductions: dict[tuple[Any, ...], tuple[np.ndarray, np.ndarray | None, float]] = {}
    rows = []
    for point, cfg in points:
        params = effective_params(n, dim, cfg)
        reason = impossible(point, params, dim)
        if reason is not None:
            rows.append({**point, "status": "impossible", "params": params, "reason": reason})
            if progress is not None:
                progress(f"{_describe(point)}: not run: {reason}")
            continue
        key = tuple(params[k] for k in REDUCER_KEYS)
        if key not in reductions:
            start = time.perf_counter()
            reduced = reduce(embeddings, params, seed)
            reduced_noisy = reduce(noisy, params, seed) if noisy is not None else None
            reductions[key] = (reduced, reduced_noisy, time.perf_counter() - start)
        rows.append(_run_point(point, params, reductions[key], doc_ids, seed))
        if progress is not None:
            row = rows[-1]
            progress(f"{_describe(point)}: {row['n_topics']} topics, {row['outlier_pct']:.0f}% outliers")
    return rows


def _run_point(
    point: dict[str, int],
    params: dict[str, Any],
    reduction: tuple[np.ndarray, np.ndarray | None, float],
    doc_ids: Sequence[str],
    seed: int,
) -> dict[str, Any]:
    reduced, reduced_noisy, reduce_s = reduction
    start = time.perf_counter()
    labels = cluster(reduced, params, seed)
    row: dict[str, Any] = {**point, "status": "ran", "params": params}
    row.update(cluster_metrics(reduced, labels, doc_ids, seed=seed))
    if reduced_noisy is not None:
        row.update(robustness_from_labels(labels, cluster(reduced_noisy, params, seed)))
    row["reduce_s"] = round(reduce_s, 3)
    row["cluster_s"] = round(time.perf_counter() - start, 3)
    return row


def ran(row: dict[str, Any]) -> bool:
    """Whether a sweep row was run (rows without a ``status`` count as run)."""
    return row.get("status", "ran") == "ran"


def _describe(point: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in point.items())


def _mean_ranks(rows: list[dict[str, Any]]) -> list[float]:
    """Mean rank (0 = best) of each row over the metrics present in every row."""
    used = [(m, sign) for m, sign in RANK_METRICS if all(r.get(m) is not None for r in rows)]
    if not used:
        return [0.0] * len(rows)
    totals = np.zeros(len(rows))
    for metric, sign in used:
        values = np.array([-sign * r[metric] for r in rows], dtype=float)
        # Average ranks for ties, so equal scores weigh equally.
        from scipy.stats import rankdata

        totals += rankdata(values, method="average") - 1
    return (totals / len(used)).tolist()


def recommend(rows: list[dict[str, Any]]) -> tuple[dict[str, Any], str]:
    """The recommended row and the rule that chose it, in one sentence.

    Rule: among settings that ran with at least 2 topics and at most 50% outliers, take the
    best mean rank over silhouette (higher), Calinski–Harabasz (higher), Davies–Bouldin
    (lower), robustness (higher) and DC lift over the shuffled baseline (higher); ties go to
    fewer outliers, then to the earlier grid point. If no setting qualifies, the outlier bound
    is dropped; if none has 2 topics, the setting with most topics is returned with a hint.
    Rows that did not run (``status = "impossible"``) are never recommended.

    Raises:
        ValueError: when no row ran.
    """
    done = [r for r in rows if ran(r)]
    if not done:
        raise ValueError("recommend needs at least one sweep row that ran")
    skipped = f"; {len(rows) - len(done)} impossible for this corpus, not run" if len(done) < len(rows) else ""
    eligible = [r for r in done if r["n_topics"] >= 2 and r["outlier_pct"] <= MAX_OUTLIER_PCT]
    scope = f"the {len(eligible)} of {len(done)} settings run with >= 2 topics and <= {MAX_OUTLIER_PCT:.0f}% outliers"
    if not eligible:
        eligible = [r for r in done if r["n_topics"] >= 2]
        scope = (
            f"the {len(eligible)} of {len(done)} settings run with >= 2 topics "
            f"(none had <= {MAX_OUTLIER_PCT:.0f}% outliers)"
        )
    if not eligible:
        best = max(done, key=lambda r: r["n_topics"])
        return best, "no setting produced 2 or more topics; lower min_cluster_size or add documents"
    ranks = _mean_ranks(eligible)
    order = sorted(range(len(eligible)), key=lambda i: (ranks[i], eligible[i]["outlier_pct"], i))
    best = eligible[order[0]]
    used = [m for m, _ in RANK_METRICS if all(r.get(m) is not None for r in eligible)]
    names = {
        "silhouette": "silhouette ↑",
        "calinski_harabasz": "Calinski–Harabasz ↑",
        "davies_bouldin": "Davies–Bouldin ↓",
        "robustness": "robustness ↑",
        "dc_lift": "DC lift over shuffled ↑",
    }
    setting = ", ".join(f"{k}={best[k]}" for k in best if k in SWEEPABLE)
    rule = (
        f"recommended {setting}: best mean rank ({ranks[order[0]]:.2f}) over "
        f"{', '.join(names[m] for m in used)} among {scope}{skipped}; ties go to fewer outliers"
    )
    return best, rule


def _fmt(value: Any, digits: int) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _metric_cells(row: dict[str, Any]) -> list[str]:
    if not ran(row):
        return ["not run", *["–"] * 9]
    return [
        str(row["n_topics"]),
        f"{row['outlier_pct']:.1f}",
        f"{row['size_min']}/{row['size_median']:g}/{row['size_max']}",
        _fmt(row.get("silhouette"), 3),
        _fmt(row.get("calinski_harabasz"), 0),
        _fmt(row.get("davies_bouldin"), 3),
        _fmt(row.get("robustness"), 3),
        _fmt(row.get("dc"), 1),
        _fmt(row.get("dc_shuffled"), 1),
        _fmt(_lift(row), 1),
    ]


def _lift(row: dict[str, Any]) -> float | None:
    """DC above its shuffled baseline, in points: how far topics follow documents beyond chance."""
    dc, shuffled = row.get("dc"), row.get("dc_shuffled")
    return None if dc is None or shuffled is None else dc - shuffled


def not_run_notes(rows: list[dict[str, Any]]) -> list[str]:
    """One line per distinct reason a row was not run."""
    return [f"Not run: {reason}." for reason in dict.fromkeys(r["reason"] for r in rows if not ran(r))]


def format_table(rows: list[dict[str, Any]], recommended: dict[str, Any] | None = None) -> str:
    """The sweep as a Markdown table (readable in a terminal too); the recommended row is starred.

    Rows that did not run say ``not run`` (:func:`not_run_notes` says why).
    """
    if not rows:
        return "(no sweep rows)"
    keys = [k for k in rows[0] if k in SWEEPABLE]
    metrics = ["topics", "outliers %", "size min/med/max", "silhouette", "CH", "DB", "robustness", "DC", "DC shuffled"]
    metrics.append("DC lift")
    head = [*keys, *metrics]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---:" for _ in head) + "|"]
    for row in rows:
        cells = [str(row[k]) for k in keys]
        cells[0] += " ★" if row is recommended else ""
        lines.append("| " + " | ".join(cells + _metric_cells(row)) + " |")
    return "\n".join(lines)
