"""The report's "Chatbot scores" section: ``scores.json`` (from ``qagen score``) beside the research's numbers.

:func:`scores_view` turns ``scores.json`` into what ``assets/scores.html.j2`` shows: headline
figures with the papers' ranges, a table per iteration, the unanswerable-detection confusion
matrix, and the same columns broken down by item type, Bloom level, scenario, fold and topic.
"""

from __future__ import annotations

from typing import Any

from qagen.score.results import at_path, headline_lines

# The research's reported values (shares in 0-1) and which way is better: Twente Table 3, Leadinfo thesis.
PAPER = {
    "answered_in_fold": ((0.57, 0.62), "Twente, Table 3: 57–62%", +1),
    "answered_out_of_fold": ((0.075, 0.12), "Twente, Table 3: 7.5–12%", -1),
    "mcq_judge": ((0.72, 0.81), "Leadinfo: judge 81%, humans 72%", +1),
}
BREAKDOWN_TITLES = (
    ("by_type", "Item type"),
    ("by_bloom", "Bloom level"),
    ("by_scenario", "Scenario"),
    ("by_fold", "Item fold"),
    ("by_set", "Set"),
    ("by_topic", "Topic"),
)


def score_row(name: str, block: dict[str, Any], k: int, min_n: int = 0) -> dict[str, Any]:
    """One table row: the headline metrics of an aggregate block (shares in 0-1, None when undefined);
    ``n_*``, ``ci_*`` and ``small_*`` say how many questions a share rests on, its 95 % interval,
    and whether they are fewer than ``min_n`` (shown greyed)."""
    n_in, n_out = at_path(block, "answerable", "n"), at_path(block, "unanswerable", "n")
    return {
        "name": name,
        "n_in": n_in,
        "n_out": n_out,
        "ci_in": at_path(block, "answerable", "answered_ci"),
        "ci_out": at_path(block, "unanswerable", "answered_ci"),
        "small_in": isinstance(n_in, int) and n_in < min_n,
        "small_out": isinstance(n_out, int) and n_out < min_n,
        "crag": at_path(block, "crag", "score"),
        "answers": block.get("answers"),
        "answered_in_fold": at_path(block, "answerable", "answered_share"),
        "answered_out_of_fold": at_path(block, "unanswerable", "answered_share"),
        "precision": at_path(block, "unanswerable_detection", "precision"),
        "recall": at_path(block, "unanswerable_detection", "recall"),
        "f1": at_path(block, "unanswerable_detection", "f1"),
        "rouge_l": at_path(block, "answer_quality", "rougeL"),
        "bleu": at_path(block, "answer_quality", "bleu"),
        "factoid": at_path(block, "factoid", "accuracy"),
        "recall_k": at_path(block, "retrieval", f"recall@{k}"),
        "mcq_judge": at_path(block, "mcq", "judge", "accuracy"),
        "mcq_embedding": at_path(block, "mcq", "embedding", "accuracy"),
    }


def _verdict(key: str, value: float | None) -> dict[str, str] | None:
    """Where a value sits against the research's range: ``in`` it, ``better`` or ``worse``."""
    if value is None or key not in PAPER:
        return None
    (lo, hi), text, direction = PAPER[key]
    if lo <= value <= hi:
        return {"state": "in", "css": "in", "text": text, "title": "within the research's range"}
    better = value > hi if direction > 0 else value < lo
    state = "better" if better else "worse"
    return {"state": state, "css": "high" if better else "low", "text": text, "title": f"{state} than the research"}


STALE = (
    "These scores were computed on an earlier version of this dataset (crosseval.json changed since "
    "`qagen score` ran, e.g. a rebuild or --approved-only): answer the current questions and score again."
)


def scores_view(scores: dict[str, Any] | None, crosseval: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """What the section shows, or None when the output folder holds no ``scores.json``.

    With ``crosseval`` (the current ``crosseval.json``), scores made for another version of
    the dataset carry a warning (scores written before qagen recorded the dataset do too).
    """
    from qagen.score import dataset_changed

    if not scores or "overall" not in scores:
        return None
    warnings = list(scores.get("warnings") or [])
    if crosseval is not None and dataset_changed(scores, crosseval):
        warnings.insert(0, STALE)
    rows_problem = (scores.get("rows_file") or {}).get("problem")
    if rows_problem:
        warnings.insert(0, f"The per-answer rows do not match these scores: {rows_problem}.")
    ks = at_path(scores, "settings", "recall_k") or [5]
    k = ks[-1]
    min_n = at_path(scores, "settings", "min_n") or 0
    overall = score_row("overall", scores["overall"], k, min_n)
    tiles = headline_tiles(scores, k, min_n)
    breakdowns = []
    for key, title in BREAKDOWN_TITLES:
        groups = scores.get(key) or {}
        if not groups:
            continue
        rows = []
        for name, block in groups.items():
            label = block.get("label") if key == "by_topic" else None
            rows.append(score_row(f"{name} · {label}" if label else name, block, k, min_n))
        breakdowns.append({"key": key, "title": title, "rows": rows})
    return {
        "k": k,
        "judge": scores.get("judge") or {},
        "refusal_by": at_path(scores, "refusal", "decided_by"),
        "answers_file": scores.get("answers_file"),
        "coverage": scores.get("coverage") or {},
        "warnings": warnings,
        "overall": overall,
        "verdicts": {key: _verdict(key, tiles[key]["value"]) for key in PAPER},
        "tiles": tiles,
        "headline_set": (scores.get("headline") or {}).get("set"),
        "headline_lines": headline_lines(scores.get("headline"), min_n),
        "detection": at_path(scores, "overall", "unanswerable_detection") or {},
        "iterations": [score_row(n, b, k, min_n) for n, b in (scores.get("by_iteration") or {}).items()],
        "headline": scores.get("headline"),
        "min_n": min_n,
        "breakdowns": breakdowns,
        "measures": measures(scores, k, min_n),
    }


def headline_tiles(scores: dict[str, Any], k: int, min_n: int) -> dict[str, dict[str, Any]]:
    """The report's three figure tiles, of the headline's set (the test set; validation without one) as the
    console's headline gives them, each with its n and interval; all questions only when there is no headline."""
    head = scores.get("headline")
    block = (scores.get("by_set") or {}).get(head["set"]) if head else None
    row = score_row("headline", block if block is not None else scores["overall"], k, min_n)
    parent = at_path(block if block is not None else scores["overall"], "mcq") or {}
    mcq = parent.get("judge") or {}
    graded = mcq.get("graded", parent.get("n")) if mcq else None  # over the graded answers (a failed request: none)
    return {
        "answered_in_fold": {"value": row["answered_in_fold"], "n": row["n_in"], "ci": row["ci_in"]},
        "answered_out_of_fold": {"value": row["answered_out_of_fold"], "n": row["n_out"], "ci": row["ci_out"]},
        "mcq_judge": {"value": row["mcq_judge"], "n": graded, "ci": mcq.get("accuracy_ci")},
    }


def _interval(ci: Any, digits: int = 3) -> str:
    return f"[{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]" if isinstance(ci, list | tuple) and len(ci) == 2 else ""


def measures(scores: dict[str, Any], k: int, min_n: int) -> list[dict[str, Any]]:
    """The measures beyond the tables (overall), each with its n, 95 % interval and where it comes from;
    ``small`` when it rests on fewer than ``min_n`` questions (shown greyed)."""
    overall = scores["overall"]
    quality, retrieval = overall.get("answer_quality") or {}, overall.get("retrieval") or {}
    out: list[dict[str, Any]] = []

    def add(name: str, value: Any, n: Any, ci: Any, source: str, digits: int = 3) -> None:
        if value is None:
            return
        small = isinstance(n, int) and n < min_n
        out.append({"name": name, "value": f"{value:.{digits}f}", "n": n, "ci": _interval(ci, digits),
                    "small": small, "source": source})  # fmt: skip

    n_answered = quality.get("n_answered")
    add("Semantic similarity (answered)", quality.get("semantic_answered"), n_answered, quality.get("semantic_ci"),
        "cosine of answer and reference embeddings")  # fmt: skip
    add("BERTScore-style F1 (answered)", quality.get("bertscore_f1_answered"), n_answered,
        quality.get("bertscore_f1_ci"), "Twente Table 5; greedy word-piece matching, local model")  # fmt: skip
    for key, name in (("context_precision", "Context precision"), ("context_recall", "Context recall")):
        add(f"{name}@{k} (TF-IDF ≥ {at_path(scores, 'settings', 'context_tfidf_threshold')})",
            retrieval.get(f"{key}@{k}_tfidf"), retrieval.get("n"), retrieval.get(f"{key}@{k}_tfidf_ci"),
            "education-chatbot metrics sheet")  # fmt: skip
    for key, g in (overall.get("grades") or {}).items():
        add(f"Grade: {key.replace('_', ' ')} (1–5)", g.get("mean"), g.get("n"), g.get("ci"),
            f"LLM grader {at_path(scores, 'judge', 'grader')}; Leadinfo thesis rubric", 2)  # fmt: skip
    fp = overall.get("false_premise")
    if fp:
        add("False premises corrected", fp.get("corrected_share"), fp.get("n"), fp.get("corrected_ci"),
            "education-chatbot metrics sheet: counterfactual robustness")  # fmt: skip
    for formulation, block in (overall.get("robustness") or {}).items():
        diff = block.get("answered") or {}
        add(f"{formulation.capitalize()} variants: answered − originals", diff.get("difference"), block.get("n"),
            diff.get("ci"), "education-chatbot metrics sheet: noise robustness (paired)")  # fmt: skip
    indexing = scores.get("indexing") or {}
    if indexing.get("seconds_per_page") is not None:
        add("Indexing, ms per loaded page", 1000 * indexing["seconds_per_page"], indexing.get("pages"), None,
            "Tübingen thesis: indexing time", 2)  # fmt: skip
    if indexing.get("cost_usd_per_page") is not None:
        add("Indexing, USD per loaded page", indexing["cost_usd_per_page"], indexing.get("pages"), None,
            "Tübingen thesis: indexing cost", 6)  # fmt: skip
    return out
