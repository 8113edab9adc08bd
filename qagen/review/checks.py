"""The yes/no checks beside the label: shares of natural and answerable questions, and of correct answers.

Each share is over the verdicts that judged it (a blank ``natural`` or ``answerable`` cell is
not judged and is left out); the ``correct`` share is over every verdict (each has a label).
Verdicts are counted like the label distribution: one per reviewer and item, current ones only.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from qagen.review.labels import APPROVED_LABEL, CHECKS, Verdict

# What the summary reports per group of verdicts, in this order.
MEASURES: tuple[str, ...] = (*CHECKS, "correct")


def share(yes: int, judged: int) -> dict[str, Any]:
    """``judged``, ``yes`` and ``share`` (``yes / judged``, None when nothing was judged)."""
    return {"judged": judged, "yes": yes, "share": round(yes / judged, 4) if judged else None}


def group_checks(verdicts: Iterable[Verdict]) -> dict[str, Any]:
    """``verdicts``, ``judged`` (verdicts with at least one check answered) and a :func:`share` per measure."""
    verdicts = list(verdicts)
    out: dict[str, Any] = {
        "verdicts": len(verdicts),
        "judged": sum(any(getattr(v, c) is not None for c in CHECKS) for v in verdicts),
    }
    for check in CHECKS:
        answers = [getattr(v, check) for v in verdicts if getattr(v, check) is not None]
        out[check] = share(sum(answers), len(answers))
    out["correct"] = share(sum(v.label == APPROVED_LABEL for v in verdicts), len(verdicts))
    return out


def check_summary(
    verdicts: Sequence[Verdict], type_of: Mapping[str, str], rule_of: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The checks over all current verdicts, per item type and per generator rule.

    Args:
        verdicts: Current verdicts (at most one per item and reviewer).
        type_of: Item id -> item type, for every item a verdict names.
        rule_of: Item id -> what wrote it (the offline generator's rule, ``generator.rule``, else the
            backend), so that a rule that reads badly is found from verdicts and switched off
            (``generate.offline_rules_off``).

    Returns:
        ``overall``, ``by_type`` (type -> the same) and, with ``rule_of``, ``by_rule``, each as
        :func:`group_checks` gives it.
    """
    by_type: dict[str, list[Verdict]] = defaultdict(list)
    by_rule: dict[str, list[Verdict]] = defaultdict(list)
    for v in verdicts:
        by_type[type_of[v.item_id]].append(v)
        if rule_of is not None:
            by_rule[rule_of[v.item_id]].append(v)
    out = {
        "overall": group_checks(verdicts),
        "by_type": {t: group_checks(vs) for t, vs in sorted(by_type.items())},
    }
    if rule_of is not None:
        out["by_rule"] = {r: group_checks(vs) for r, vs in sorted(by_rule.items())}
    return out
