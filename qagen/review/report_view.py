"""The report's "Expert review" block (plain values, no logic in the template).

The block is computed from ``reviews.jsonl`` and ``items.jsonl`` when the report has them, so
``qagen report OUT`` (and the re-render after ``qagen review import``) shows verdicts as soon
as they are imported. ``crosseval.json``'s review block says what the splits were built from
(``approved_only``, the rule and how many items were approved then); without ``reviews.jsonl``
it is the only source.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from qagen.review.labels import LABEL_NAMES, LABELS

# Fields of the review summary that, when they differ, mean verdicts changed after the splits were built.
_COMPARED = ("verdicts", "reviewed", "approved", "labels")


def report_review(data: Any) -> dict[str, Any] | None:
    """The "Expert review" view of a :class:`~qagen.report.data.ReportData`; None when nothing was reviewed.

    Args:
        data: Its ``items`` (``items.jsonl``), ``reviews`` (``reviews.jsonl`` verdicts, or None
            when absent) and ``crosseval`` (``crosseval.json``, or None) are read.
    """
    placed = (data.crosseval or {}).get("review") or {}
    reviews = getattr(data, "reviews", None)
    if reviews is None or not data.items:
        return review_view(placed)
    return current_review_view(data.items, reviews, placed)


def current_review_view(
    items: Sequence[Any], reviews: Sequence[Any], placed: Mapping[str, Any]
) -> dict[str, Any] | None:
    """The review status of ``items`` under ``reviews`` now, beside what the splits were built from.

    Args:
        items: Accepted items.
        reviews: Verdicts (stale ones and those of unknown items are counted as stale).
        placed: ``crosseval.json["review"]`` (empty when the splits hold no review block).
    """
    from qagen.review.approved import RULES, review_summary

    rule = placed.get("rule") if placed.get("rule") in RULES else "all"
    now = {"approved_only": bool(placed.get("approved_only")), **review_summary(items, reviews, rule)}
    view = review_view(now)
    if view is None:
        return None
    if placed and view["approved_only"]:
        view["approved_in_splits"] = int(placed.get("approved", 0))
        view["changed_since_splits"] = any(placed.get(k) != now[k] for k in _COMPARED)
    return view


def review_view(review: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Rows and sentences for the report's "Expert review" table; None when nothing was reviewed.

    Args:
        review: A review summary with ``approved_only`` (``crosseval.json["review"]``, see
            :func:`~qagen.review.review_selection`), or None.
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
        "approved_in_splits": int(review.get("approved", 0)),
        "changed_since_splits": False,
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
