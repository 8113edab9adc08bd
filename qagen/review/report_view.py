"""The review block of ``crosseval.json`` as the report shows it (plain values, no logic in the template)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from qagen.review.labels import LABEL_NAMES, LABELS


def review_view(review: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Rows and sentences for the report's "Expert review" table; None when nothing was reviewed.

    Args:
        review: ``crosseval.json["review"]`` (see :func:`~qagen.review.review_selection`), or None.
    """
    if not review or not (review.get("verdicts") or review.get("approved_only")):
        return None
    total = review.get("verdicts") or 0
    labels = review.get("labels") or {}
    rows = [
        {"code": lab, "name": LABEL_NAMES[lab], "count": int(labels.get(lab, 0)),
         "share": round(100 * labels.get(lab, 0) / total, 1) if total else 0.0}
        for lab in LABELS
    ]  # fmt: skip
    return {
        "approved_only": bool(review.get("approved_only")),
        "rule": review.get("rule", "all"),
        "items_total": int(review.get("items", 0)),
        "reviewed": int(review.get("reviewed", 0)),
        "approved": int(review.get("approved", 0)),
        "not_reviewed": int(review.get("not_reviewed", 0)),
        "disputed": int(review.get("disputed", 0)),
        "stale": int(review.get("stale_verdicts", 0)),
        "reviewers": list(review.get("reviewers") or []),
        "verdicts": int(total),
        "rows": rows,
        "agreement": _agreement_text(review.get("agreement") or {}),
    }


def _agreement_text(a: Mapping[str, Any]) -> str:
    if not a.get("method"):
        return str(a.get("note") or "")
    name = "Cohen's kappa" if a["method"] == "cohen" else "Fleiss' kappa"
    labels, approved = a.get("labels") or {}, a.get("approved") or {}

    def k(stats: Mapping[str, Any]) -> str:
        value = stats.get("kappa")
        return "undefined" if value is None else f"{value:.2f} ({stats.get('interpretation')})"

    return (
        f"{name} on {a.get('overlap_items', 0)} items labelled by {len(a.get('raters') or [])} reviewers: "
        f"{k(labels)} on the five labels, {k(approved)} on approved or not"
    )
