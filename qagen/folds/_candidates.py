"""Fold candidates: agglomerative clustering of topic centroids, scored and checked for balance."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Data:
    """Fit inputs in coded form: topic code per section (-1 outlier), unit code per section."""

    topic: np.ndarray
    unit: np.ndarray
    n_units: int
    topic_ids: np.ndarray
    centroids: np.ndarray
    dist: np.ndarray
    points: np.ndarray | None = None  # the section embeddings (for placing outliers)


@dataclass(frozen=True)
class Search:
    """How candidates are made and chosen: the FoldBuilder settings that shape the search."""

    distances: tuple[str, ...]
    linkages: tuple[str, ...]
    min_ratio: float
    max_clusters: int
    criterion: str = "separation"  # or "score", the paper's


# A group (language) with fewer non-outlier sections than this goes whole into one fold: its few
# topics are usually parts of one or two documents, and splitting them puts near neighbours apart.
GROUP_MIN_SECTIONS = 10


@dataclass
class Candidate:
    """One way to split the topics in two, with its score and balance."""

    id: int
    distance: str
    linkage: str
    n_clusters: int
    fold_of_topic: np.ndarray  # 1 or 2 per topic code; fold 1 holds more kept sections
    single: float
    average: float
    sections: tuple[int, int]
    topics: tuple[int, int]
    conflict_units: int
    valid_sections_pct: float
    status: str = "ok"
    reason: str | None = None
    group: Any = None  # the group (language) a per-group candidate was made for

    @property
    def score(self) -> float:
        return (self.single + self.average) / 2

    @property
    def ratio(self) -> float:
        return self.sections[1] / self.sections[0] if self.sections[0] else 0.0

    def row(self) -> dict[str, Any]:
        """The candidate as a JSON-ready dict (no rounding)."""
        return {
            "id": self.id,
            "distance": self.distance,
            "linkage": self.linkage,
            "n_clusters": self.n_clusters,
            "score": _num(self.score),
            "single": _num(self.single),
            "average": _num(self.average),
            "fold_ratio": float(self.ratio),
            "sections": list(self.sections),
            "topics": list(self.topics),
            "conflict_units": self.conflict_units,
            "valid_sections_pct": float(self.valid_sections_pct),
            "status": self.status,
            "reason": self.reason,
            **({"group": str(self.group)} if self.group is not None else {}),
        }


def _num(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


def topic_centroids(x: np.ndarray, topic: np.ndarray, n_topics: int) -> np.ndarray:
    """Mean embedding of each topic's sections."""
    mask = topic >= 0
    sums = np.zeros((n_topics, x.shape[1]))
    np.add.at(sums, topic[mask], x[mask])
    return sums / np.bincount(topic[mask], minlength=n_topics)[:, None]


def dendrogram(centroids: np.ndarray, distance: str, linkage: str) -> np.ndarray:
    """scipy linkage matrix of the topic centroids."""
    from scipy.cluster.hierarchy import linkage as scipy_linkage
    from scipy.spatial.distance import pdist

    if linkage == "ward":
        return scipy_linkage(centroids, method="ward", metric="euclidean")
    return scipy_linkage(np.clip(pdist(centroids, metric=distance), 0.0, None), method=linkage)


def evaluate(data: Data, side: np.ndarray, meta: tuple[int, str, str, int]) -> Candidate:
    """Score a two-sided split of the topics (``side`` True/False per topic code)."""
    cross = data.dist[np.ix_(side, ~side)]
    fold_topic = np.where(side, 0, 1)
    sec = data.topic >= 0
    sec_fold = fold_topic[data.topic[sec]]
    units = data.unit[sec]
    per_unit = [np.bincount(units[sec_fold == f], minlength=data.n_units) for f in (0, 1)]
    conflict = (per_unit[0] > 0) & (per_unit[1] > 0)
    kept = [int(c[~conflict].sum()) for c in per_unit]
    n_topics = [int(side.sum()), int((~side).sum())]
    if kept[1] > kept[0] or (kept[1] == kept[0] and not side[0]):
        kept, n_topics, fold_topic = kept[::-1], n_topics[::-1], 1 - fold_topic
    return Candidate(
        id=meta[0],
        distance=meta[1],
        linkage=meta[2],
        n_clusters=meta[3],
        fold_of_topic=fold_topic + 1,
        single=float(cross.min()),
        average=float(cross.mean()),
        sections=(kept[0], kept[1]),
        topics=(n_topics[0], n_topics[1]),
        conflict_units=int(conflict.sum()),
        valid_sections_pct=100.0 * sum(kept) / max(int(sec.sum()), 1),
    )


def _judge(c: Candidate, min_ratio: float) -> Candidate:
    if c.sections[1] == 0:
        c.status, c.reason = "rejected", "one fold is empty after removing mixed units"
    elif c.ratio < min_ratio:
        c.status, c.reason = "rejected", f"fold ratio {c.ratio:.3f} < min_fold_ratio {min_ratio:g}"
    return c


def candidates(data: Data, search: Search) -> list[Candidate]:
    """Paper candidates (2 clusters per distance × linkage), then, with a balance floor, the most
    separated balanced split (:func:`spacing_splits`); if no paper candidate is balanced enough,
    splits along the topics' main axis and bipartitions of finer dendrogram cuts (3..max_clusters
    clusters) too, each distinct split once."""
    from scipy.cluster.hierarchy import cut_tree

    min_ratio, max_clusters = search.min_ratio, search.max_clusters
    pairs = [(d, k) for d in search.distances for k in search.linkages if d == "euclidean" or k != "ward"]
    zero = np.linalg.norm(data.centroids, axis=1) < 1e-12
    out: list[Candidate] = []
    trees: dict[tuple[str, str], np.ndarray] = {}
    for d, k in pairs:
        if d == "cosine" and zero.any():
            reason = f"topic {data.topic_ids[np.argmax(zero)]} has a zero centroid; cosine is undefined"
            skipped = Candidate(len(out), d, k, 2, np.zeros(0, int), np.nan, np.nan, (0, 0), (0, 0), 0, 0.0)
            skipped.status, skipped.reason = "skipped", reason
            out.append(skipped)
            continue
        trees[(d, k)] = dendrogram(data.centroids, d, k)
        side = cut_tree(trees[(d, k)], n_clusters=2).ravel() == 0
        out.append(_judge(evaluate(data, side, (len(out), d, k, 2)), min_ratio))
    seen = {_key(c.fold_of_topic) for c in out if c.status != "skipped"}
    paper_ok = any(c.status == "ok" for c in out)
    if min_ratio > 0:  # with the paper's rule (0) its own single-linkage split is already the widest gap
        for n, side in spacing_splits(data):  # the widest gap that still leaves two balanced halves
            key = _key(np.where(side, 1, 2))
            if key in seen:
                continue
            seen.add(key)
            c = _judge(evaluate(data, side, (len(out), "euclidean", "spacing", n)), min_ratio)
            out.append(c)
            if c.status == "ok":
                break
    if paper_ok:
        return out
    for side in axis_sweep(data):  # balanced splits along the topics' main direction
        key = _key(np.where(side, 1, 2))
        if key not in seen:
            seen.add(key)
            out.append(_judge(evaluate(data, side, (len(out), "euclidean", "axis", 2)), min_ratio))
    for n in range(3, min(max_clusters, data.centroids.shape[0]) + 1):
        for (d, k), tree in trees.items():
            labels = cut_tree(tree, n_clusters=n).ravel()
            for mask in range(2 ** (n - 1) - 1):
                groups = [0] + [g for g in range(1, n) if mask >> (g - 1) & 1]
                side = np.isin(labels, groups)
                key = _key(np.where(side, 1, 2))
                if key in seen:
                    continue
                seen.add(key)
                out.append(_judge(evaluate(data, side, (len(out), d, k, n)), min_ratio))
    return out


def axis_sweep(data: Data) -> list[np.ndarray]:
    """Splits of the topics at every cut along their centroids' main axis (first principal component,
    weighted by topic size), smallest cut first: far-apart halves of the corpus whatever their balance,
    where a dendrogram cut only ever isolates the odd topic out."""
    n_topics = data.centroids.shape[0]
    if n_topics < 2:
        return []
    weight = np.bincount(data.topic[data.topic >= 0], minlength=n_topics).astype(float)
    mean = (data.centroids * weight[:, None]).sum(axis=0) / max(weight.sum(), 1.0)
    centred = (data.centroids - mean) * np.sqrt(weight)[:, None]
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    order = np.argsort((data.centroids - mean) @ vt[0], kind="stable")
    sides = []
    for k in range(1, n_topics):
        side = np.zeros(n_topics, dtype=bool)
        side[order[:k]] = True
        sides.append(side)
    return sides


def spacing_splits(data: Data):
    """Balanced splits that keep close topics together, widest gap first.

    Cutting the topics' single-linkage tree (Euclidean) into ``n`` components leaves every pair of
    components at least the ``n``-th widest gap apart, so any split that keeps each component
    whole has at least that distance between its folds. For n = 2, 3, ... the components are put
    on two sides so that their sections come as close to half and half as possible (exact
    subset sums); the caller stops at the first split balanced enough after conflict removal.
    Yields ``(n, side)``.
    """
    from scipy.cluster.hierarchy import cut_tree, linkage

    n_topics = data.centroids.shape[0]
    if n_topics < 3:
        return
    tree = linkage(data.centroids, method="single", metric="euclidean")
    cuts = cut_tree(tree)  # column k: the cut into n_topics - k components
    sizes = np.bincount(data.topic[data.topic >= 0], minlength=n_topics)
    for n in range(2, n_topics + 1):
        comp = cuts[:, n_topics - n]
        side = _half(np.bincount(comp, weights=sizes, minlength=n).astype(np.int64))
        yield n, side[comp]


def _half(weights: np.ndarray) -> np.ndarray:
    """Items (by weight) on one side so the side's total is as close to half as it can be:
    a subset-sum table over the weights, read back from the reachable total nearest half
    (the lower one on a tie)."""
    total = int(weights.sum())
    reach = np.zeros((weights.size + 1, total + 1), dtype=bool)
    reach[0, 0] = True
    for i, w in enumerate(weights.tolist()):
        reach[i + 1] = reach[i]
        if w:
            reach[i + 1, w:] |= reach[i, : total + 1 - w]
    sums = np.flatnonzero(reach[-1])
    target = int(sums[np.argmin(np.abs(2 * sums - total))])
    side = np.zeros(weights.size, dtype=bool)
    for i in range(weights.size, 0, -1):  # walk back: take item i-1 when the target needs it
        if not reach[i - 1, target]:
            side[i - 1] = True
            target -= int(weights[i - 1])
    return side


def best_effort(cands: list[Candidate], min_ratio: float) -> Candidate | None:
    """When no candidate meets ``min_ratio``: the most balanced one with two non-empty folds
    (ties: better score, then the earlier candidate), marked as chosen below the ratio."""
    usable = [c for c in cands if c.status == "rejected" and c.sections[1] > 0]
    if not usable:
        return None
    best = max(usable, key=lambda c: (_sig(c.ratio), _sig(c.score), -c.id))
    best.status = "chosen"
    best.reason = f"below min_fold_ratio {min_ratio:g}: the most balanced split found"
    return best


def _key(fold_of_topic: np.ndarray) -> bytes:
    """The split regardless of which side is called fold 1."""
    same = fold_of_topic == fold_of_topic[0]
    return np.packbits(same).tobytes()


def choose(cands: list[Candidate], criterion: str = "separation") -> Candidate | None:
    """The qualifying candidate whose folds are furthest apart at their closest pair of topics
    (``separation``; ties → better balance → better score), or with the best paper score
    (``score``; ties → better balance); then the earlier candidate."""
    ok = [c for c in cands if c.status == "ok"]
    if not ok:
        return None
    if criterion == "score":
        best = max(ok, key=lambda c: (_sig(c.score), _sig(c.ratio), -c.id))
    else:
        best = max(ok, key=lambda c: (_sig(c.single), _sig(c.ratio), _sig(c.score), -c.id))
    best.status = "chosen"
    return best


def _sig(value: float) -> float:
    """Ten significant digits, so float noise never decides a tie."""
    return float(f"{value:.10g}")


class NoFoldSplitError(ValueError):
    """No split of the topics keeps sections in both folds at the balance asked for (the message says what was
    tried); a caller may fall back to another unit or to folds of whole documents."""


def no_candidate_message(cands: list[Candidate], min_ratio: float, max_clusters: int) -> str:
    """What was tried and how close it came, for the error raised when nothing qualifies."""
    tried = [c for c in cands if c.status != "skipped"]
    paper = [c for c in tried if c.n_clusters == 2]
    lines = [f"{c.distance}/{c.linkage}: ratio {c.ratio:.3f}, score {c.score:.3g}" for c in paper]
    best = max(tried, key=lambda c: c.ratio, default=None)
    extra = len(tried) - len(paper)
    msg = (
        f"no fold candidate meets min_fold_ratio={min_ratio:g} (small fold / large fold, in sections kept "
        f"after removing mixed units); tried {len(paper)} two-cluster candidates [{'; '.join(lines)}]"
    )
    if extra:
        msg += f" and {extra} splits of up to {max_clusters} clusters or along the topics' main axis"
    if best is not None:
        msg += f"; best ratio reached {best.ratio:.3f} ({best.distance}/{best.linkage}, {best.n_clusters} clusters)"
    return msg + "; lower min_fold_ratio, raise max_clusters, or use unit='page'"


def grouped(
    data: Data, group: np.ndarray, group_ids: list[Any], search: Search
) -> tuple[Candidate | None, list[Candidate], list[str], dict[Any, str]]:
    """Split the topics of each group (a language) in two on their own, then join the halves.

    Each topic belongs to the group most of its sections are in. Every group with two or more
    topics is split like a corpus of its own (same candidates, balance floor and fallback), and
    its larger half goes to whichever fold is smaller so far, so every language sits in both folds.
    A group with one topic, fewer than ``GROUP_MIN_SECTIONS`` sections, or whose every split
    empties a fold, goes whole to the smaller fold,
    with a note. Returns the joined candidate (None if a fold stays empty), every group's
    candidates (their ``group`` set), the notes, and the groups put whole in one fold with why
    ("one topic" or "no split keeps both halves").
    """
    n_topics = data.centroids.shape[0]
    sec = data.topic >= 0
    counts = np.zeros((n_topics, len(group_ids)), dtype=np.int64)
    np.add.at(counts, (data.topic[sec], group[sec]), 1)
    topic_group = counts.argmax(axis=1)
    sizes = counts.sum(axis=1)
    fold_of_topic = np.zeros(n_topics, dtype=np.int64)
    totals = np.zeros(2)
    out: list[Candidate] = []
    notes: list[str] = []
    whole: list[tuple[int, np.ndarray, str]] = []  # groups put whole in one fold, and why
    order = sorted(range(len(group_ids)), key=lambda g: (-int(sizes[topic_group == g].sum()), g))
    for g in order:
        members = np.flatnonzero(topic_group == g)
        if members.size == 0:
            continue
        half = None
        n_sections = int(sizes[members].sum())
        if members.size >= 2 and n_sections >= GROUP_MIN_SECTIONS:
            remap = np.full(n_topics, -1)
            remap[members] = np.arange(members.size)
            sub = Data(
                topic=np.where(data.topic >= 0, remap[np.maximum(data.topic, 0)], -1),
                unit=data.unit,
                n_units=data.n_units,
                topic_ids=data.topic_ids[members],
                centroids=data.centroids[members],
                dist=data.dist[np.ix_(members, members)],
            )
            cands = candidates(sub, search)
            for c in cands:
                c.group = group_ids[g]
            out += cands
            chosen = choose(cands, search.criterion) or best_effort(cands, search.min_ratio)
            if chosen is not None:
                chosen.status = "chosen in group"  # the joined candidate is the one chosen
                half = chosen.fold_of_topic
                if chosen.reason:
                    notes.append(f"{group_ids[g]}: {chosen.reason} ({chosen.sections[1]} vs {chosen.sections[0]})")
        small = int(np.argmin(totals))
        if half is None:
            fold_of_topic[members] = small + 1
            totals[small] += sizes[members].sum()
            if members.size == 1:
                why = "one topic"
            elif n_sections < GROUP_MIN_SECTIONS:
                why = f"too few sections to split ({n_sections} < {GROUP_MIN_SECTIONS})"
            else:
                why = "no split keeps both halves"
            whole.append((g, members, why))
            continue
        larger, other = small + 1, 2 - small  # the group's larger half (its fold 1) to the smaller fold
        fold_of_topic[members] = np.where(half == 1, larger, other)
        for f in (1, 2):
            totals[f - 1] += sizes[members[fold_of_topic[members] == f]].sum()
    kept_whole = {group_ids[g]: why for g, _, why in whole}
    if not ((fold_of_topic == 1).any() and (fold_of_topic == 2).any()):
        return None, out, notes, kept_whole
    joined = _judge(evaluate(data, fold_of_topic == 1, (len(out), "per-group", "per-group", 2)), search.min_ratio)
    for g, members, why in whole:  # told with the joined folds' numbers (fold 1 is the larger)
        n = int(sizes[members].sum())
        notes.append(f"{group_ids[g]}: {why}; all its {n} sections in fold {int(joined.fold_of_topic[members[0]])}")
    if joined.sections[1] == 0:
        return None, out, notes, kept_whole
    if joined.status != "ok":
        joined.reason = f"below min_fold_ratio {search.min_ratio:g} after joining the groups"
    joined.status = "chosen"
    return joined, out, notes, kept_whole
