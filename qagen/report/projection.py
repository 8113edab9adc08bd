"""The topic map: sections projected to 2-D (PCA of the reduced space), coloured by fold."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np

from qagen.report.data import ReportData
from qagen.report.topics import section_topic_map

WIDTH, HEIGHT, PAD = 960.0, 540.0, 18.0
# Drawn bottom to top: outliers and removed sections under the folds.
LAYERS = (
    ("outlier", "Outlier (no topic)"),
    ("conflict", "Removed: its unit spans both folds"),
    ("none", "Not assigned"),
    ("f1", "Fold 1"),
    ("f2", "Fold 2"),
)
MAX_LABELS = 40
LABEL_CHAR_W = 6.8  # average width of a 12px bold character, for label overlap checks
TITLE_CHARS = 110


def _pca(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Mean, the first two principal axes (sign-fixed: largest loading positive) and their variance share."""
    mean = x.mean(axis=0)
    _, s, vt = np.linalg.svd(x - mean, full_matrices=False)
    comps = vt[:2]
    if comps.shape[0] < 2:
        comps = np.vstack([comps, np.zeros((2 - comps.shape[0], x.shape[1]))])
    signs = np.sign(comps[np.arange(2), np.abs(comps).argmax(axis=1)])
    comps = comps * np.where(signs == 0, 1.0, signs)[:, None]
    total = float((s**2).sum())
    return mean, comps, float((s[:2] ** 2).sum() / total) if total > 0 else 1.0


def project_2d(reduced: Any, topics: Any = None) -> tuple[np.ndarray, float, str]:
    """Sections (rows of ``reduced``) in 2-D, the variance share the two axes hold, and how they were found.

    With three or more topics the axes are the principal components of the topic centroids, which
    spread the topics (and so the folds) as far apart as a linear view can; otherwise those of the
    sections. Same input, same picture.
    """
    x = np.nan_to_num(np.asarray(reduced, dtype=float), nan=0.0, posinf=0.0, neginf=0.0)
    if x.ndim == 1:
        x = x[:, None]
    if x.shape[1] == 1:
        x = np.hstack([x, np.zeros_like(x)])
    if len(x) < 2:
        return np.zeros((len(x), 2)), 1.0, "sections"
    labels = None if topics is None else np.asarray(topics)
    ids = [] if labels is None else sorted(int(t) for t in np.unique(labels) if t >= 0)
    if len(ids) >= 3:
        centroids = np.vstack([x[labels == t].mean(axis=0) for t in ids])
        mean, comps, share = _pca(centroids)
        return (x - mean) @ comps.T, share, "topic centroids"
    mean, comps, share = _pca(x)
    return (x - mean) @ comps.T, share, "sections"


def _scale(p: np.ndarray) -> np.ndarray:
    """Fit the points in the frame; a few far-out points (beyond the 0.5/99.5 percentiles) sit on its edge."""
    q = (0.5, 99.5) if len(p) >= 400 else (0, 100)
    lo, hi = np.percentile(p, q[0], axis=0), np.percentile(p, q[1], axis=0)
    span = np.where(hi - lo > 0, hi - lo, 1.0)
    unit = np.clip((p - lo) / span, 0.0, 1.0)
    x = PAD + unit[:, 0] * (WIDTH - 2 * PAD)
    y = HEIGHT - PAD - unit[:, 1] * (HEIGHT - 2 * PAD)
    return np.round(np.column_stack([x, y]), 1)


def _layer_of(data: ReportData) -> dict[str, str]:
    layer = {}
    for a in data.assignments:
        if a.status == "kept":
            layer[a.section_id] = f"f{a.fold}" if a.fold in (1, 2) else "none"
        else:
            layer[a.section_id] = "outlier" if a.status == "outlier" else "conflict"
    return layer


def _title(heading: str, doc_path: str, topic: int) -> str:
    head = " ".join(heading.split()) or "(no heading)"
    text = f"{head} · {doc_path} · topic {topic}"
    return text if len(text) <= TITLE_CHARS else text[: TITLE_CHARS - 1] + "…"


def section_map(data: ReportData, max_points: int) -> dict[str, Any]:
    """Points by layer, topic labels and a legend; ``available`` is False (with ``why``) when it cannot be drawn."""
    n = len(data.sections)
    if data.reduced is None or not n:
        return {"available": False, "why": "the topics stage has not run"}
    reduced = np.asarray(data.reduced)
    if reduced.shape[0] != n:
        return {"available": False, "why": f"reduced.npy has {reduced.shape[0]} rows for {n} sections"}
    layer_of, topic_of = _layer_of(data), section_topic_map(data)
    proj, share, method = project_2d(reduced, [topic_of.get(s.id, -1) for s in data.sections])
    xy = _scale(proj)
    coords = xy.tolist()  # plain floats for the template
    shown = np.arange(n) if n <= max_points else np.unique(np.linspace(0, n - 1, max_points).round().astype(int))
    layers: dict[str, list[tuple[float, float, int, str]]] = defaultdict(list)
    counts: dict[str, int] = defaultdict(int)
    by_topic: dict[int, list[int]] = defaultdict(list)
    for i, s in enumerate(data.sections):
        layer = layer_of.get(s.id, "none")
        counts[layer] += 1
        topic = topic_of.get(s.id, -1)
        if topic >= 0:
            by_topic[topic].append(i)
    for i in shown:
        s = data.sections[i]
        topic = topic_of.get(s.id, -1)
        x, y = coords[i]
        layers[layer_of.get(s.id, "none")].append((x, y, topic, _title(s.heading, s.doc_path, topic)))
    return {
        "available": True,
        "width": WIDTH,
        "height": HEIGHT,
        "radius": 3.2 if len(shown) <= 2000 else 2.2 if len(shown) <= 8000 else 1.6,
        "layers": [(key, layers.get(key, [])) for key, _ in LAYERS],
        "legend": [(key, name, counts.get(key, 0)) for key, name in LAYERS if counts.get(key)],
        "labels": _labels(data, xy, by_topic),
        "shown": len(shown),
        "total": n,
        "variance_share": share,
        "method": method,
    }


def _labels(data: ReportData, xy: np.ndarray, by_topic: dict[int, list[int]]) -> list[dict[str, Any]]:
    """A label near the median position of each of the largest topics, nudged off labels already placed."""
    names = {int(t["id"]): str(t.get("label", "")) for t in (data.topics or {}).get("topics") or []}
    largest = sorted(by_topic, key=lambda t: (-len(by_topic[t]), t))[:MAX_LABELS]
    placed: list[tuple[float, float, float, float]] = []
    labels = []
    for t in largest:
        pts = xy[by_topic[t]]
        x, y = float(np.median(pts[:, 0])), float(np.median(pts[:, 1]))
        text = f"{t} · {names.get(t, '')}".strip(" ·")
        text = text if len(text) <= 40 else text[:39] + "…"
        anchor = "end" if x > WIDTH * 0.8 else "start" if x < WIDTH * 0.2 else "middle"
        # Beside the topic's centre at the edges, above it elsewhere, so the label does not hide its dots.
        x, y = (x - 10, y + 4) if anchor == "end" else (x + 10, y + 4) if anchor == "start" else (x, y - 12)
        y = _free_y(x, y, LABEL_CHAR_W * len(text) + 6, anchor, placed)
        labels.append(
            {"topic": t, "x": round(min(max(x, PAD), WIDTH - PAD), 1), "y": round(y, 1), "text": text, "anchor": anchor}
        )
    return sorted(labels, key=lambda label: label["topic"])


def _free_y(x: float, y: float, width: float, anchor: str, placed: list[tuple[float, float, float, float]]) -> float:
    """The first baseline near ``y`` where the label's box overlaps none placed; records the box."""
    left = x - width if anchor == "end" else x - width / 2 if anchor == "middle" else x
    for dy in (0, 15, -15, 30, -30, 45, -45, 60, -60):
        top = min(max(y + dy, PAD + 10), HEIGHT - PAD) - 11
        box = (left, top, left + width, top + 14)
        if not any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3] for b in placed):
            placed.append(box)
            return top + 11
    return min(max(y, PAD + 10), HEIGHT - PAD)
