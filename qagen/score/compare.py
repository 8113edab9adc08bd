"""Two chatbots on one dataset: per metric, both values on the questions both answered, and their paired difference.

``qagen score OUT --answers a.jsonl --answers b.jsonl`` scores each answers file (``scores.json``
for the first, ``scores.<name>.json`` for the others) and compares every later one with the first,
question by question: the same questions resampled for both, so the interval of a difference says
whether the data can tell the two apart (:func:`qagen.score.stats.paired_difference`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from qagen.score.metrics import Row
from qagen.score.stats import paired_difference


def _where_given(key: str) -> tuple[Callable[[Row], bool], Callable[[Row], float | None]]:
    """A row value compared where the row has it."""
    return (lambda r: r.get(key) is not None), (lambda r: r.get(key))


# metric -> (rows it is defined on, the per-question value); higher is better except where said
METRICS: dict[str, tuple[Callable[[Row], bool], Callable[[Row], float | None]]] = {
    "answered_in_fold": (lambda r: r["role"] == "answerable", lambda r: float(not r["declined"])),
    "answered_out_of_fold": (lambda r: r["role"] == "unanswerable", lambda r: float(not r["declined"])),
    "crag_score": (lambda r: r.get("crag") is not None, lambda r: r.get("crag")),
    "rougeL": (lambda r: r["role"] == "answerable" and r.get("rougeL") is not None, lambda r: r.get("rougeL")),
    "factoid_correct": (
        lambda r: r.get("factoid_correct") is not None,
        lambda r: None if r.get("factoid_correct") is None else float(r["factoid_correct"]),
    ),
    "mcq_judge_correct": (lambda r: "mcq_judge_correct" in r, lambda r: float(bool(r.get("mcq_judge_correct")))),
    # where both answered: the meaning kept (semantic similarity, BERTScore-style F1), the metrics sheet's
    # context precision (TF-IDF)
    **{key: _where_given(key) for key in ("semantic", "bertscore_f1", "context_precision_tfidf")},
    "premise_corrected": (
        lambda r: r.get("premise_corrected") is not None,
        lambda r: None if r.get("premise_corrected") is None else float(r["premise_corrected"]),
    ),
}
LOWER_IS_BETTER = frozenset({"answered_out_of_fold"})


def compare_rows(a: Sequence[Row], b: Sequence[Row], set_name: str | None = None) -> dict[str, Any]:
    """Per metric, the paired comparison of ``b`` with ``a`` on the questions both answered.

    Args:
        a: The first chatbot's score rows (``scores.items.jsonl``).
        b: The second's, on the same dataset.
        set_name: Only the questions of this set (``validation`` or ``test``); None = all.
    """
    by_key = {(r["iteration"], r["item_id"]): r for r in b}
    pairs = [
        (r, by_key[(r["iteration"], r["item_id"])])
        for r in a
        if (r["iteration"], r["item_id"]) in by_key and (set_name is None or r["set"] == set_name)
    ]
    out: dict[str, Any] = {"questions": len(pairs), "metrics": {}}
    for name, (defined, value) in METRICS.items():
        values = [(value(x), value(y)) for x, y in pairs if defined(x) and defined(y)]
        values = [(x, y) for x, y in values if x is not None and y is not None]
        if not values:
            continue
        row = paired_difference([x for x, _ in values], [y for _, y in values])
        row["better"] = _better(name, row)
        out["metrics"][name] = row
    return out


def _better(name: str, row: dict[str, Any]) -> str | None:
    """Which chatbot the interval favours ("a" or "b"), None when it holds 0."""
    if not row["separated"]:
        return None
    b_higher = row["difference"] > 0
    return ("a" if b_higher else "b") if name in LOWER_IS_BETTER else ("b" if b_higher else "a")


def format_comparison(comparison: dict[str, Any], name_a: str, name_b: str) -> str:
    """A plain-text table: per metric, n, both values, the difference and its 95 % interval."""

    def num(v: Any) -> str:
        return "—" if v is None else f"{v:.3f}"

    header = ("metric", "n", name_a, name_b, "b - a", "95% interval", "favours")
    lines = [header]
    for metric, r in comparison["metrics"].items():
        ci = "—" if r["ci"] is None else f"[{r['ci'][0]:+.3f}, {r['ci'][1]:+.3f}]"
        favours = {"a": name_a, "b": name_b}.get(r["better"] or "", "neither")
        lines.append((metric, str(r["n"]), num(r["a"]), num(r["b"]), f"{r['difference']:+.3f}", ci, favours))
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return "\n".join(
        "  ".join(c.ljust(w) if i in (0, 6) else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths, strict=True)))
        for line in lines
    )
