"""Topic table and fold separation, next to the paper's Table 2."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from qagen.report.data import ReportData

# Twente paper, Table 2: the folds were 6.7-8.2x further apart than the closest topics, and 55-84% of
# sections stayed valid after removing the units (pages, documents) that held sections of both folds.
PAPER_RANGES: dict[str, tuple[float, float]] = {
    "fold_topic_distance_ratio": (6.7, 8.2),
    "valid_sections_pct": (55.0, 84.0),
}
TOPIC_METRICS = (
    ("silhouette", "Silhouette (higher is better)"),
    ("calinski_harabasz", "Calinski–Harabasz (higher is better)"),
    ("davies_bouldin", "Davies–Bouldin (lower is better)"),
    ("dc", "Document–cluster agreement DC, %"),
    ("dc_lift", "DC lift over shuffled topics, points"),
    ("robustness", "Robustness to noise (share keeping their cluster)"),
)


def topic_fold_map(data: ReportData) -> dict[int, int]:
    raw = (data.folds or {}).get("topic_folds") or {}
    out = {}
    for key, value in raw.items():
        try:
            out[int(key)] = int(value)
        except (TypeError, ValueError):
            continue
    return out


def section_topic_map(data: ReportData) -> dict[str, int]:
    raw = (data.topics or {}).get("section_topics") or {}
    return {str(k): int(v) for k, v in raw.items()}


def topic_rows(data: ReportData, top_docs: int = 3) -> list[dict[str, Any]]:
    """One row per topic (and one for the outliers): size, keywords, fold, documents, what became of it."""
    if data.topics is None:
        return []
    sec_topic = section_topic_map(data)
    doc_of = {s.id: s.doc_path for s in data.sections}
    docs: dict[int, Counter[str]] = defaultdict(Counter)
    for sid, t in sec_topic.items():
        docs[t][doc_of.get(sid, "?")] += 1
    status: dict[int, Counter[str]] = defaultdict(Counter)
    for a in data.assignments:
        status[a.topic_id][a.status] += 1
        status[a.topic_id]["sampled"] += int(a.sampled)
    items = Counter(it.source.topic_id for it in data.items)
    folds = topic_fold_map(data)
    rows = []
    for t in data.topics.get("topics") or []:
        tid = int(t.get("id", -1))
        rows.append(
            {
                "id": tid,
                "label": str(t.get("label", "")),
                "size": int(t.get("size", 0)),
                "keywords": [str(k) for k in t.get("keywords") or []],
                "fold": folds.get(tid),
                "n_documents": int(t.get("n_documents") or len(docs[tid])),
                "top_docs": docs[tid].most_common(top_docs),
                "kept": status[tid]["kept"],
                "conflict": status[tid]["conflict"],
                "sampled": status[tid]["sampled"],
                "n_items": items.get(tid, 0),
            }
        )
    n_out = sum(1 for t in sec_topic.values() if t == -1)
    if n_out:
        rows.append(
            {
                "id": -1,
                "label": "outliers (no topic; no questions)",
                "size": n_out,
                "keywords": [],
                "fold": None,
                "n_documents": len(docs[-1]),
                "top_docs": docs[-1].most_common(top_docs),
                "kept": 0,
                "conflict": 0,
                "sampled": 0,
                "n_items": 0,
            }
        )
    return rows


def topic_quality(data: ReportData) -> dict[str, Any] | None:
    """The topic model's parameters and cluster-quality metrics."""
    if data.topics is None:
        return None
    params = data.topics.get("params") or {}
    metrics = data.topics.get("metrics") or {}
    shown = [(label, metrics[key]) for key, label in TOPIC_METRICS if isinstance(metrics.get(key), int | float)]
    keys = ("reducer", "clusterer", "n_components", "n_neighbors", "min_cluster_size", "n_clusters")
    return {"params": [(k, params[k]) for k in keys if params.get(k) is not None], "metrics": shown}


def _verdict(key: str, value: Any) -> dict[str, Any] | None:
    if key not in PAPER_RANGES:
        return None
    lo, hi = PAPER_RANGES[key]
    if not isinstance(value, int | float):
        return {"range": (lo, hi), "state": "na", "text": "not defined"}
    if value < lo:
        return {"range": (lo, hi), "state": "low", "text": "below the paper's range"}
    if value > hi:
        return {"range": (lo, hi), "state": "high", "text": "above the paper's range"}
    return {"range": (lo, hi), "state": "in", "text": "within the paper's range"}


CANDIDATE_DEFAULTS: dict[str, Any] = dict.fromkeys(
    ("distance", "linkage", "score", "single", "average", "sections", "valid_sections_pct", "status", "reason")
)
FOLD_METRICS = (
    ("fold_topic_distance_ratio", "Fold / topic distance ratio", "x"),
    ("valid_sections_pct", "Valid sections after removing mixed units", "%"),
    ("min_topic_distance", "Minimum distance between two topics", ""),
    ("min_fold_distance", "Minimum distance between the folds (single linkage)", ""),
    ("avg_fold_distance", "Average distance between the folds (average linkage)", ""),
    ("small_fold_ratio", "Small-fold ratio (sections of the smaller fold / the larger)", ""),
    ("folds_per_unit", "Folds per unit, before removal", ""),
    ("folds_per_document", "Folds per document, before removal", ""),
)


def languages_seen(languages: dict[str, dict[str, int]]) -> set[str]:
    return {lang for counts in languages.values() for lang in counts}


def fold_view(data: ReportData) -> dict[str, Any] | None:
    """Fold metrics beside the paper's values, the folds' sizes per split, and the candidates tried."""
    if data.folds is None:
        return None
    m = data.folds.get("metrics") or {}
    metrics = [
        {"key": key, "label": label, "unit": unit, "value": m.get(key), "paper": _verdict(key, m.get(key))}
        for key, label, unit in FOLD_METRICS
        if key in m
    ]
    per_fold = []
    for f, cell in sorted((m.get("folds") or {}).items()):
        per_fold.append(
            {
                "fold": f,
                **{k: cell.get(k) for k in ("topics", "sections", "units", "sampled")},
                **{s: {"sections": 0, "units": 0, **(cell.get(s) or {})} for s in ("validation", "test")},
            }
        )
    languages = data.folds.get("languages") or {}
    for cell in per_fold:
        found = languages.get(str(cell["fold"])) or {}
        cell["languages"] = (
            ", ".join(f"{k} {v}" for k, v in found.items()) if len(languages_seen(languages)) > 1 else ""
        )
    builder_warnings = [str(w) for w in data.folds.get("warnings") or []]
    # the fold builder's own notes (imbalance kept, a fold without samples); an empty test part is said below
    warnings = [w[:1].upper() + w[1:] for w in builder_warnings if "its test part is empty" not in w]
    warnings += [str(w) for w in data.folds.get("language_warnings") or []]
    ratio = m.get("small_fold_ratio")
    kept_below = (data.folds.get("chosen") or {}).get("reason")  # already warned by the fold builder
    if isinstance(ratio, int | float) and ratio < 0.1 and not kept_below:
        warnings.append(
            f"The folds are unbalanced: the smaller holds {100 * ratio:.1f}% as many sections as the larger. "
            "Consider folds.min_fold_ratio or another folds.distance/linkage."
        )
    for cell in per_fold:
        if not (cell["test"] or {}).get("sections"):
            warnings.append(f"Fold {cell['fold']} has no test sections (too few units to split).")
    return {
        "chosen": {"distance": "", "linkage": "", **(data.folds.get("chosen") or {})},
        "unit": m.get("unit"),
        "criterion": m.get("criterion"),
        "unit_choice": data.folds.get("unit_choice"),
        "metrics": metrics,
        "per_fold": per_fold,
        "candidates": [{**CANDIDATE_DEFAULTS, **c} for c in data.folds.get("candidates") or [] if isinstance(c, dict)],
        "counts": {k: m.get(k) for k in ("n_kept", "n_conflict", "n_outliers", "n_sections", "conflict_units")},
        "warnings": warnings,
    }
