"""Human review round trip: export items for experts, import their verdicts, keep the approved ones.

1. ``qagen review export OUT --to review.csv|review.html`` (:func:`qagen.commands.review.export_review`) writes, per
   reviewer, the items with question, answer (MCQ options), source passage and page, and
   columns for the paper's labels and a comment; an overlap set goes to several reviewers.
2. Reviewers mark one label per item (in a spreadsheet, or in the offline HTML form) and may
   answer two yes/no checks, ``natural`` and ``answerable`` (:data:`CHECKS`).
3. ``qagen review import OUT review*.csv`` (:func:`qagen.commands.review.import_review`) validates every file
   (nothing half-applied), stores the verdicts in ``OUT/reviews.jsonl`` and reports the label
   distribution, the inter-rater agreement on the overlap set and the natural / answerable /
   correct shares (:mod:`qagen.review.checks`).
4. ``qagen build ... --approved-only`` (``splits.approved_only``) lays out the splits from
   approved items only (:func:`approved_items`).

Importing this package is light: numpy, scikit-learn and statsmodels load inside functions.
"""

from __future__ import annotations

from qagen.review.approved import RULES, approved_items, is_approved, review_selection, review_summary
from qagen.review.labels import (
    APPROVED_LABEL,
    CHECKS,
    LABEL_NAMES,
    LABELS,
    REVIEWS_FILE,
    ReviewError,
    Verdict,
    item_hash,
    load_reviews,
)

__all__ = [
    "APPROVED_LABEL",
    "CHECKS",
    "LABELS",
    "LABEL_NAMES",
    "REVIEWS_FILE",
    "RULES",
    "ReviewError",
    "Verdict",
    "approved_items",
    "is_approved",
    "item_hash",
    "load_reviews",
    "review_selection",
    "review_summary",
]
