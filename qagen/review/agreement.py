"""Inter-rater agreement on the overlap set: items that two or more reviewers labelled.

With exactly two reviewers on the overlap set, Cohen's kappa (scikit-learn); with more,
Fleiss' kappa (statsmodels), which allows a different group of raters per item but needs
the same number of ratings per item: it uses the items with the most common count and
reports how many it left out. Each is given for the five labels and for the decision that
matters downstream, approved (``correct``) or not. Reviewer pairs are listed with their
shared items, raw agreement and Cohen's kappa, to spot the reviewer who reads the labels
differently. A kappa is ``None`` when it is undefined (every rating has the same label).
"""

from __future__ import annotations

import itertools
import warnings
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from qagen.review.labels import APPROVED_LABEL, LABELS, Verdict

# Landis & Koch (1977): below 0 poor, then these upper bounds (inclusive).
BANDS = ((0.2, "slight"), (0.4, "fair"), (0.6, "moderate"), (0.8, "substantial"))


def interpret(kappa: float | None) -> str | None:
    """Landis & Koch's word for a kappa ('poor' below 0 ... 'almost perfect' above 0.8)."""
    if kappa is None:
        return None
    if kappa < 0:
        return "poor"
    return next((word for bound, word in BANDS if kappa <= bound), "almost perfect")


def cohen_kappa(a: Sequence[str], b: Sequence[str], labels: Sequence[str] = LABELS) -> float | None:
    """Cohen's kappa of two raters over the same items (scikit-learn); None when undefined."""
    import math

    from sklearn.metrics import cohen_kappa_score

    if not a:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = float(cohen_kappa_score(list(a), list(b), labels=list(labels)))
    return None if math.isnan(value) else value


def fleiss_kappa(table: Sequence[Sequence[int]]) -> float | None:
    """Fleiss' kappa of an items x categories count table (same ratings per item); None when undefined."""
    import math

    import numpy as np

    try:
        from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss
    except ImportError:  # pragma: no cover - statsmodels is a dependency
        raise ImportError("Fleiss' kappa needs statsmodels: pip install statsmodels") from None
    arr = np.asarray(table, dtype=float)
    if arr.shape[0] == 0:
        return None
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        value = float(sm_fleiss(arr, method="fleiss"))
    return None if math.isnan(value) else value


def mean_pairwise_agreement(table: Sequence[Sequence[int]]) -> float | None:
    """Fleiss' P-bar: the share of agreeing rater pairs, averaged over items."""
    if not table:
        return None
    shares = []
    for row in table:
        n = sum(row)
        shares.append(sum(c * (c - 1) for c in row) / (n * (n - 1)))
    return sum(shares) / len(shares)


def ratings_by_item(verdicts: Sequence[Verdict]) -> dict[str, dict[str, str]]:
    """Item id -> reviewer -> label."""
    out: dict[str, dict[str, str]] = defaultdict(dict)
    for v in verdicts:
        out[v.item_id][v.reviewer] = v.label
    return dict(out)


def agreement(verdicts: Sequence[Verdict]) -> dict[str, Any]:
    """Agreement statistics on the items that two or more reviewers labelled.

    Args:
        verdicts: Current verdicts (at most one per item and reviewer).

    Returns:
        ``overlap_items``, ``raters``, ``method`` (``cohen``, ``fleiss`` or None), ``labels``
        and ``approved`` (each with ``kappa``, ``observed_agreement``, ``items``,
        ``interpretation``), ``ratings_per_item``, ``items_left_out``, ``pairs`` and ``note``.
    """
    overlap = {k: r for k, r in sorted(ratings_by_item(verdicts).items()) if len(r) >= 2}
    raters = sorted({name for r in overlap.values() for name in r})
    out: dict[str, Any] = {
        "overlap_items": len(overlap),
        "raters": raters,
        "method": None,
        "labels": None,
        "approved": None,
        "ratings_per_item": None,
        "items_left_out": 0,
        "pairs": _pairs(overlap, raters),
        "note": "",
    }
    if not overlap:
        out["note"] = "no item has verdicts from two reviewers; export with --overlap M to measure agreement"
    elif len(raters) == 2:
        a = [r[raters[0]] for r in overlap.values()]
        b = [r[raters[1]] for r in overlap.values()]
        out.update(method="cohen", ratings_per_item=2)
        out["labels"] = _cohen_stats(a, b, LABELS)
        out["approved"] = _cohen_stats(_approved(a), _approved(b), ("yes", "no"))
    else:
        out.update(_fleiss_stats(overlap))
    return out


def _approved(labels: Sequence[str]) -> list[str]:
    return ["yes" if lab == APPROVED_LABEL else "no" for lab in labels]


def _cohen_stats(a: Sequence[str], b: Sequence[str], labels: Sequence[str]) -> dict[str, Any]:
    kappa = cohen_kappa(a, b, labels)
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / len(a)
    return {"kappa": _round(kappa), "observed_agreement": round(observed, 4), "items": len(a),
            "interpretation": interpret(kappa)}  # fmt: skip


def _fleiss_stats(overlap: Mapping[str, Mapping[str, str]]) -> dict[str, Any]:
    sizes = Counter(len(r) for r in overlap.values())
    n = max(sizes, key=lambda k: (sizes[k], k))
    used = [list(r.values()) for r in overlap.values() if len(r) == n]
    tables = {
        "labels": [[row.count(lab) for lab in LABELS] for row in used],
        "approved": [[row.count(APPROVED_LABEL), n - row.count(APPROVED_LABEL)] for row in used],
    }
    stats = {}
    for name, table in tables.items():
        kappa = fleiss_kappa(table)
        stats[name] = {"kappa": _round(kappa), "observed_agreement": _round(mean_pairwise_agreement(table)),
                       "items": len(used), "interpretation": interpret(kappa)}  # fmt: skip
    left_out = len(overlap) - len(used)
    note = f"Fleiss' kappa over the {len(used)} items with {n} ratings each" + (
        f"; {left_out} item(s) with another number of ratings left out" if left_out else ""
    )
    return {"method": "fleiss", "ratings_per_item": n, "items_left_out": left_out, "note": note, **stats}


def _pairs(overlap: Mapping[str, Mapping[str, str]], raters: Sequence[str]) -> list[dict[str, Any]]:
    out = []
    for r1, r2 in itertools.combinations(raters, 2):
        shared = [(r[r1], r[r2]) for r in overlap.values() if r1 in r and r2 in r]
        if not shared:
            continue
        a, b = [x for x, _ in shared], [y for _, y in shared]
        kappa = cohen_kappa(a, b)
        out.append({"raters": [r1, r2], "items": len(shared),
                    "observed_agreement": round(sum(x == y for x, y in shared) / len(shared), 4),
                    "kappa": _round(kappa)})  # fmt: skip
    return out


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)
