"""``scores.json``: the metrics overall, per iteration and broken down, with coverage and warnings."""

from __future__ import annotations

from typing import Any

from qagen.records import SCHEMA_VERSION
from qagen.score.dataset import Dataset, Matched
from qagen.score.metrics import Row, aggregate, bleu_signature, breakdown

MAX_MISSING_LISTED = 50
BREAKDOWNS = {
    "by_iteration": lambda r: r["iteration"],
    "by_set": lambda r: r["set"],
    "by_fold": lambda r: r["fold"],
    "by_type": lambda r: r["type"],
    "by_scope": lambda r: r.get("scope"),
    "by_premise": lambda r: r.get("premise"),
    "by_bloom": lambda r: r["bloom"],
    "by_scenario": lambda r: r["scenario"],
    "by_topic": lambda r: r["topic"],
}


def summarize(
    rows: list[Row], matched: Matched, dataset: Dataset, config: Any, judge: dict[str, Any], notes: dict[str, Any]
) -> dict[str, Any]:
    """The ``scores.json`` content (see :mod:`qagen.score.metrics` for the definitions).

    Args:
        rows: Per-answer rows from :func:`~qagen.score.evaluate.evaluate`.
        matched: The matching (for coverage: missing answers per iteration).
        dataset: The iterations (question counts, topic labels).
        config: The ``[score]`` config section.
        judge: Who judged: ``{"mcq": name, "baseline": name, "refusal": name or "phrases",
            "llm_stats": ..., "refusal_llm_stats": ...}`` (LLM stats only for LLM judges).
        notes: Refusal notes from :func:`~qagen.score.evaluate.evaluate`.
    """
    ks, tok = config.recall_k, config.bleu_tokenize
    out: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "coverage": coverage(matched, dataset),
        "judge": judge,
        "refusal": notes,
        "settings": {
            "recall_k": list(ks),
            "bleu": bleu_signature(tok),
            "rouge": "rouge-score F-measure, Unicode word tokens, no stemming",
            "phone_region": dataset.phone_region,
        },
        "overall": aggregate(rows, ks, tok),
    }
    for name, key in BREAKDOWNS.items():
        out[name] = breakdown(rows, key, ks, tok)
    order = [it.name for it in dataset.iterations]
    out["by_iteration"] = {n: out["by_iteration"][n] for n in order if n in out["by_iteration"]}
    for tid, block in out["by_topic"].items():
        block["label"] = dataset.topic_labels.get(int(tid), "outliers" if tid == "-1" else "")
    out["warnings"] = warnings(out, notes)
    return out


def coverage(matched: Matched, dataset: Dataset) -> dict[str, Any]:
    """Questions, answers and missing answers per iteration; iterations nobody answered are named."""
    per: dict[str, dict[str, int]] = {}
    for it in dataset.iterations:
        missing = len(matched.missing.get(it.name, ()))
        per[it.name] = {"questions": len(it.questions), "answers": len(it.questions) - missing, "missing": missing}
    unanswered = [name for name, c in per.items() if c["answers"] == 0 and c["questions"]]
    partial = {n: list(ids[:MAX_MISSING_LISTED]) for n, ids in matched.missing.items() if ids and n not in unanswered}
    return {
        "questions": sum(c["questions"] for c in per.values()),
        "answers": len(matched.pairs),
        "missing": sum(c["missing"] for c in per.values()),
        "iterations_without_answers": unanswered,
        "missing_ids": partial,
        "by_iteration": per,
    }


def warnings(scores: dict[str, Any], notes: dict[str, Any]) -> list[str]:
    """Plain-language problems a reader of the numbers should know about."""
    out = []
    cov = scores["coverage"]
    partial = {n: len(ids) for n, ids in cov["missing_ids"].items()}
    for name, c in cov["by_iteration"].items():
        if name in partial:
            out.append(f"{name}: {c['missing']} of {c['questions']} questions have no answer; they are not scored")
    if cov["iterations_without_answers"]:
        out.append("not answered at all (not scored): " + ", ".join(cov["iterations_without_answers"]))
    for name, n in (notes.get("retrieved_outside_corpus") or {}).items():
        out.append(
            f"{name}: {n} retrieved page id(s) are not in the iteration's corpus; "
            "was the chatbot's store loaded with that iteration's pages.jsonl only?"
        )
    if notes.get("llm_failed"):
        out.append(f"the LLM judge failed on {notes['llm_failed']} refusal request(s); phrases decided those")
    return out


def format_summary(scores: dict[str, Any]) -> str:
    """A short plain-text table: per iteration and overall, the headline numbers."""
    header = ("", "answered in-fold", "answered out-of-fold", "unans. precision", "unans. recall", "ROUGE-L", "BLEU")
    ks = scores["settings"]["recall_k"]
    header += (f"recall@{ks[-1]}", "MCQ judge", "MCQ embed")
    lines = [header]
    for name, block in [*scores["by_iteration"].items(), ("overall", scores["overall"])]:
        lines.append((name, *_headline(block, ks[-1])))
    widths = [max(len(r[i]) for r in lines) for i in range(len(header))]
    text = [
        "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
        for r in lines
    ]
    cov = scores["coverage"]
    refusal = scores["refusal"]
    by = refusal["decided_by"] + (f" ({refusal['judge']})" if refusal.get("judge") else "")
    text.insert(
        0,
        f"scored {cov['answers']} answers ({cov['missing']} questions unanswered); MCQ judge "
        f"{scores['judge']['mcq']}, refusals by {by}",
    )
    oos = ((scores.get("by_scope") or {}).get("out_of_scope") or {}).get("unanswerable")
    if oos:  # off-domain questions are among the unanswerable ones above; said apart too
        text.append(
            f"out of scope (off the corpus's domain): {oos['n']} asked, {oos['answered']} answered "
            f"({100 * oos['answered_share']:.1f}%), {oos['declined']} declined"
        )
    fp = scores["overall"].get("false_premise")
    if fp:  # false premises asked where their source is loaded: corrected with the source's value?
        text.append(
            f"false premises: {fp['n']} asked where the source is loaded, {fp['corrected']} corrected "
            f"({100 * fp['corrected_share']:.1f}%), {fp['declined']} declined"
        )
    text += [f"warning: {w}" for w in scores["warnings"]]
    return "\n".join(text)


def _headline(block: dict[str, Any], k: int) -> tuple[str, ...]:
    def pct(v: Any) -> str:
        return "—" if v is None else f"{100 * v:.1f}%"

    def get(*path: str) -> Any:
        node: Any = block
        for p in path:
            node = node.get(p) if isinstance(node, dict) else None
        return node

    bleu = get("answer_quality", "bleu")
    rouge = get("answer_quality", "rougeL")
    return (
        pct(get("answerable", "answered_share")),
        pct(get("unanswerable", "answered_share")),
        pct(get("unanswerable_detection", "precision")),
        pct(get("unanswerable_detection", "recall")),
        "—" if rouge is None else f"{rouge:.3f}",
        "—" if bleu is None else f"{bleu:.1f}",
        pct(get("retrieval", f"recall@{k}")),
        pct(get("mcq", "judge", "accuracy")),
        pct(get("mcq", "embedding", "accuracy")),
    )
