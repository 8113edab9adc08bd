"""``scores.json``: the metrics overall, per iteration and broken down, with coverage and warnings."""

from __future__ import annotations

from typing import Any

from qagen.records import SCHEMA_VERSION
from qagen.score.dataset import Dataset, Matched
from qagen.score.metrics import Row, aggregate, bleu_signature, breakdown
from qagen.score.stats import wilson

MAX_MISSING_LISTED = 50
BREAKDOWNS = {
    "by_iteration": lambda r: r["iteration"],
    "by_set": lambda r: r["set"],
    "by_fold": lambda r: r["fold"],
    "by_type": lambda r: r["type"],
    "by_scope": lambda r: r.get("scope"),
    "by_premise": lambda r: r.get("premise"),
    "by_formulation": lambda r: r.get("formulation"),
    "by_hops": lambda r: r.get("hops"),
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
            "min_n": config.min_n,
            "semantic_embedder": notes.pop("semantic_embedder", None),
            "bertscore_embedder": notes.pop("bertscore_embedder", None),
            "context_tfidf_threshold": config.context_tfidf_threshold,
            "long_form_rouge_l": config.long_form_rouge_l,
            "intervals": "95 % Wilson for shares, 95 % percentile bootstrap (2,000 resamples, seed 0) for means",
        },
        "overall": aggregate(rows, ks, tok),
    }
    indexing = _indexing(config, dataset)
    if indexing:
        out["indexing"] = indexing
    for name, key in BREAKDOWNS.items():
        out[name] = breakdown(rows, key, ks, tok)
    order = [it.name for it in dataset.iterations]
    out["by_iteration"] = {n: out["by_iteration"][n] for n in order if n in out["by_iteration"]}
    for tid, block in out["by_topic"].items():
        block["label"] = dataset.topic_labels.get(int(tid), "outliers" if tid == "-1" else "")
    out["headline"] = headline(out, rows)
    out["warnings"] = warnings(out, notes)
    return out


def _indexing(config: Any, dataset: Dataset) -> dict[str, Any] | None:
    """What indexing the iterations' corpora took and cost (as the user gave it), in total and per loaded page."""
    if config.index_seconds is None and config.index_cost_usd is None:
        return None
    pages = sum(len(it.page_texts) for it in dataset.iterations)
    out: dict[str, Any] = {"pages": pages, "seconds": config.index_seconds, "cost_usd": config.index_cost_usd}
    if config.index_seconds is not None and pages:
        out["seconds_per_page"] = round(config.index_seconds / pages, 6)
    if config.index_cost_usd is not None and pages:
        out["cost_usd_per_page"] = round(config.index_cost_usd / pages, 8)
    return out


def headline(scores: dict[str, Any], rows: list[Row]) -> dict[str, Any] | None:
    """The figures to quote: the test set's (validation's when there is no test set), pooled and as the
    mean over its iterations (the Twente paper's per-set figures)."""
    sets = scores["by_set"]
    name = "test" if "test" in sets else "validation" if "validation" in sets else None
    if name is None:
        return None
    block = sets[name]
    in_set = {r["iteration"] for r in rows if r["set"] == name}
    iterations = [b for it, b in scores["by_iteration"].items() if it in in_set]

    def mean(*path: str) -> float | None:
        values = [v for v in (at_path(b, *path) for b in iterations) if v is not None]
        return round(sum(values) / len(values), 4) if values else None

    in_rows = [r for r in rows if r["set"] == name]
    return {
        "set": name,
        "iterations": len(iterations),
        "crag": block.get("crag"),
        "answered_in_fold": block.get("answerable"),
        "answered_out_of_fold": block.get("unanswerable"),
        "correct": _correct(in_rows),
        "answered_wrongly": {
            "n": sum(1 for r in in_rows if r.get("crag") == -1),
            "out_of_fold": sum(1 for r in in_rows if r.get("crag") == -1 and r["role"] == "unanswerable"),
            "in_fold": sum(1 for r in in_rows if r.get("crag") == -1 and r["role"] != "unanswerable"),
        },
        "mcq_judge": at_path(block, "mcq", "judge", "accuracy"),
        "mean_over_iterations": {
            "answered_in_fold": mean("answerable", "answered_share"),
            "answered_out_of_fold": mean("unanswerable", "answered_share"),
            "crag_score": mean("crag", "score"),
        },
    }


def _correct(rows: list[Row]) -> dict[str, Any]:
    """Answerable questions answered correctly, over those whose correctness can be decided (a declined answer
    is not correct); ``needs_judge``: answered ones nothing here can decide (long-form without a grader)."""
    answerable = [r for r in rows if r["role"] != "unanswerable" and "crag" in r]
    decided = [r for r in answerable if r["crag"] is not None]
    correct = sum(1 for r in decided if r["crag"] == 1)
    return {
        "n": len(decided),
        "correct": correct,
        "share": round(correct / len(decided), 4) if decided else None,
        "ci": wilson(correct, len(decided)),
        "needs_judge": len(answerable) - len(decided),
    }


def at_path(block: Any, *path: str) -> Any:
    """``block[path[0]][path[1]]...``, None where a level is missing."""
    for key in path:
        block = block.get(key) if isinstance(block, dict) else None
    return block


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
    mcq = (scores.get("overall") or {}).get("mcq") or {}
    for who, label in (("judge", "MCQ judge"), ("embedding", "MCQ embedding judge")):
        failed = (mcq.get(who) or {}).get("failed")
        if failed:
            out.append(
                f"the {label} failed on {failed} of {mcq['n']} multiple-choice answer(s); they are ungraded "
                "(its accuracy is over the rest); rerun qagen score to ask them again"
            )
    if notes.get("llm_failed"):
        out.append(f"the LLM judge failed on {notes['llm_failed']} refusal request(s); phrases decided those")
    cut = notes.get("answers_cut")
    if cut:
        out.append(
            f"{cut['answers']} answer(s) longer than {cut['max_chars']:,} characters (the longest {cut['longest']:,}) "
            f"were scored on their first {cut['max_chars']:,}; is the chatbot's output cut off at the end of its "
            "reply? (score.max_answer_chars sets the bound)"
        )
    return out


def format_summary(scores: dict[str, Any]) -> str:
    """A short plain-text table: per iteration and overall, the headline numbers."""
    header = ("", "answered in-fold", "answered out-of-fold", "unans. precision", "unans. recall", "ROUGE-L", "BLEU")
    ks = scores["settings"]["recall_k"]
    header += (f"recall@{ks[-1]}", "MCQ judge", "MCQ embed")
    min_n = scores["settings"].get("min_n", 0)
    lines = [header]
    for name, block in [*scores["by_iteration"].items(), ("overall", scores["overall"])]:
        lines.append((name, *_headline(block, ks[-1], min_n)))
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
    text += headline_lines(scores.get("headline"), min_n)
    if any("*" in cell for line in lines[1:] for cell in line[1:]):
        text.append(f"* fewer than {min_n} questions (score.min_n): uncertain; every interval is in scores.json")
    oos = ((scores.get("by_scope") or {}).get("out_of_scope") or {}).get("unanswerable")
    if oos:  # off-domain questions are among the unanswerable ones above; said apart too
        text.append(
            f"out of scope (off the corpus's domain): {oos['n']} asked, {oos['answered']} answered "
            f"({100 * oos['answered_share']:.1f}%), {oos['declined']} declined"
        )
    for formulation, block in (scores["overall"].get("robustness") or {}).items():  # variants against originals
        answered = block["answered"]
        rouge = block.get("rougeL")
        text.append(
            f"{formulation} questions: answered {100 * answered['b']:.1f}% against {100 * answered['a']:.1f}% of "
            f"their originals (n={block['n']})"
            + (f", ROUGE-L {rouge['b']:.3f} against {rouge['a']:.3f}" if rouge else "")
        )
    grades = scores["overall"].get("grades")
    if grades:  # the grader's rubric, 1-5
        parts = [
            f"{key} {g['mean']:.2f}"
            + (f" [{g['ci'][0]:.2f}, {g['ci'][1]:.2f}]" if g.get("ci") else "")
            + f" (n={g['n']})"
            for key, g in grades.items()
        ]
        text.append(f"grades by {scores['judge'].get('grader')} (1-5): " + ", ".join(parts))
    cost, latency = scores["overall"].get("cost_usd"), scores["overall"].get("latency_s")
    if cost or latency:
        parts = [f"cost ${cost['total']:.4f} over {cost['n']} answers (${cost['per_answer']:.6f} each)"] if cost else []
        if latency:
            parts.append(f"latency median {latency['median']:.2f} s, p95 {latency['p95']:.2f} s (n={latency['n']})")
        text.append("; ".join(parts))
    quality, retrieval = scores["overall"].get("answer_quality") or {}, scores["overall"].get("retrieval") or {}
    similar = [
        f"{name} {quality[key]:.3f}"
        for name, key in (("semantic similarity", "semantic_answered"), ("BERTScore-style F1", "bertscore_f1_answered"))
        if quality.get(key) is not None
    ]
    k = scores["settings"]["recall_k"][-1]
    for name in ("context_precision", "context_recall"):
        if retrieval.get(f"{name}@{k}_tfidf") is not None:
            similar.append(f"{name.replace('_', ' ')}@{k} (TF-IDF) {retrieval[f'{name}@{k}_tfidf']:.3f}")
    if similar:  # answered answerable questions
        text.append(", ".join(similar) + f" (answered in-fold, n={quality.get('n_answered', 0)})")
    indexing = scores.get("indexing")
    if indexing:
        parts = []
        if indexing.get("seconds") is not None:
            parts.append(f"{indexing['seconds']:.1f} s ({1000 * indexing.get('seconds_per_page', 0):.2f} ms per page)")
        if indexing.get("cost_usd") is not None:
            parts.append(f"${indexing['cost_usd']:.4f}")
        text.append(f"indexing {indexing['pages']} loaded pages: " + ", ".join(parts))
    fp = scores["overall"].get("false_premise")
    if fp:  # false premises asked where their source is loaded: corrected with the source's value?
        text.append(
            f"false premises: {fp['n']} asked where the source is loaded, {fp['corrected']} corrected "
            f"({100 * fp['corrected_share']:.1f}%), {fp['declined']} declined"
        )
    text += [f"warning: {w}" for w in scores["warnings"]]
    return "\n".join(text)


def headline_lines(head: dict[str, Any] | None, min_n: int) -> list[str]:
    """The figures to quote, with n and 95 % intervals: the same lines on the console, in the report and in
    ``qagen inspect``. Hallucination first: the share of unanswerable questions answered (their source is in
    the other fold, so any answer is made up)."""
    if not head:
        return []

    def share(block: dict[str, Any] | None, key: str = "answered_share", ci_key: str = "answered_ci") -> str:
        if not block or block.get(key) is None:
            return "—"
        ci = block.get(ci_key)
        mark = "*" if block["n"] < min_n else ""
        interval = f" [{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]" if ci else ""
        return f"{100 * block[key]:.1f}%{interval} (n={block['n']}){mark}"

    lines = [
        f"headline ({head['set']} set, {head['iterations']} iterations):",
        f"  hallucination: {share(head['answered_out_of_fold'])} of unanswerable questions answered "
        "(answered out of fold; lower is better)",
        f"  answered in fold: {share(head['answered_in_fold'])} of answerable questions answered",
    ]
    correct = head.get("correct")
    if correct is not None:  # scores.json of an earlier version has none
        judge = (
            f"; {correct['needs_judge']} long-form answer(s) need a judge to be decided "
            "(--grader SPEC, or score.long_form_rouge_l)"
            if correct["needs_judge"]
            else ""
        )
        lines.append(
            f"  answered correctly: {share(correct, 'share', 'ci')} of the answerable questions whose "
            "correctness can be decided" + judge
        )
    crag = head.get("crag")
    if crag:
        ci = f" [{crag['ci'][0]:+.3f}, {crag['ci'][1]:+.3f}]" if crag.get("ci") else ""
        mark = "*" if crag["n"] < min_n else ""
        wrong = head.get("answered_wrongly")
        split = f": {wrong['out_of_fold']} out of fold, {wrong['in_fold']} in fold" if wrong else ""
        lines.append(
            f"  CRAG-style score {crag['score']:+.3f}{ci} (n={crag['n']}){mark}: {crag['correct']} correct (+1), "
            f"{crag['missing']} declined (0), {crag['hallucinated']} answered wrongly (-1{split})"
        )
    means = head["mean_over_iterations"]

    def pct(v: Any) -> str:
        return "—" if v is None else f"{100 * v:.1f}%"

    lines.append(
        f"  mean over iterations: hallucination {pct(means['answered_out_of_fold'])}, "
        f"answered in fold {pct(means['answered_in_fold'])}"
    )
    return lines


def _headline(block: dict[str, Any], k: int, min_n: int = 0) -> tuple[str, ...]:
    def pct(v: Any, n: Any = None) -> str:
        text = "—" if v is None else f"{100 * v:.1f}%"
        return text + "*" if v is not None and isinstance(n, int) and n < min_n else text

    def get(*path: str) -> Any:
        return at_path(block, *path)

    bleu = get("answer_quality", "bleu")
    rouge = get("answer_quality", "rougeL")
    return (
        pct(get("answerable", "answered_share"), get("answerable", "n")),
        pct(get("unanswerable", "answered_share"), get("unanswerable", "n")),
        pct(get("unanswerable_detection", "precision")),
        pct(get("unanswerable_detection", "recall")),
        "—" if rouge is None else f"{rouge:.3f}",
        "—" if bleu is None else f"{bleu:.1f}",
        pct(get("retrieval", f"recall@{k}")),
        pct(get("mcq", "judge", "accuracy")),
        pct(get("mcq", "embedding", "accuracy")),
    )
