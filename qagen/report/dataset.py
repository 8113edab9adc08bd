"""The dataset's make-up: the filter funnel, Bloom x scenario, type x fold x split, cross-evaluation."""

from __future__ import annotations

from collections import Counter
from typing import Any

from qagen.report.data import ReportData
from qagen.report.summary import ITEM_TYPES, TYPE_NAMES

BLOOM = (("B1", "remember"), ("B2", "understand"), ("B3", "apply"), ("B4", "analyze"))
SCENARIO = (("S1", "one fact, one document"), ("S2", "several facts, one document"), ("S3", "across documents"))
CELLS = ((1, "validation"), (1, "test"), (2, "validation"), (2, "test"))


def _reasons(counter: Counter[str]) -> list[tuple[str, int]]:
    return sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))


def funnel_view(data: ReportData) -> dict[str, Any] | None:
    """Candidates through each filter: what remained, what was dropped and why, per item type."""
    rows = (data.funnel or {}).get("funnel") or []
    gen_failed = [r for r in data.rejected if r.filter == "generation"]
    if not rows and not gen_failed:
        return None
    order: list[str] = []
    for r in rows:
        if r.get("filter") not in order:
            order.append(str(r.get("filter")))
    types = [t for t in ITEM_TYPES if any(r.get("type") == t for r in rows)]
    steps = []
    for name in order:
        mine = [r for r in rows if r.get("filter") == name]
        reasons: Counter[str] = Counter()
        for r in mine:
            reasons.update({str(k): int(v) for k, v in (r.get("reasons") or {}).items()})
        per_type = {str(r.get("type")): (int(r.get("in", 0)), int(r.get("out", 0))) for r in mine}
        steps.append(
            {
                "filter": name,
                "in": sum(v[0] for v in per_type.values()),
                "out": sum(v[1] for v in per_type.values()),
                "per_type": per_type,
                "reasons": _reasons(reasons),
            }
        )
    start = steps[0]["in"] if steps else 0
    for step in steps:
        step["rejected"] = step["in"] - step["out"]
        step["bar"] = 100.0 * step["out"] / start if start else 0.0
    stats = (data.funnel or {}).get("stats") or {}
    return {
        "types": [(t, TYPE_NAMES[t]) for t in types],
        "start": start,
        "start_per_type": {t: next((s["per_type"][t][0] for s in steps if t in s["per_type"]), 0) for t in types},
        "steps": steps,
        "accepted": len(data.items),
        "generation_failed": len(gen_failed),
        "generation_reasons": _reasons(Counter(_short(r.reason) for r in gen_failed)),
        "generation_warnings": [str(w) for w in (_stage(data, "generate").get("warnings") or [])],
        "mcq_stats": _mcq_stats(stats),
        "diversity": _diversity_rows((data.funnel or {}).get("diversity") or {}),
        # shown once a mix asks for more than natural questions
        "formulation": [
            (name, f)
            for name, f in ((data.funnel or {}).get("formulation") or {}).items()
            if any(g.get("items") for n, g in ((data.funnel or {}).get("formulation") or {}).items() if n != "natural")
        ],
        # shown once a mix asks for false premises
        "premise": [
            (name, f)
            for name, f in ((data.funnel or {}).get("premise") or {}).items()
            if (((data.funnel or {}).get("premise") or {}).get("false") or {}).get("asked")
        ],
    }


def _diversity_rows(diversity: dict[str, Any]) -> list[dict[str, Any]]:
    """Candidates and accepted questions, overall and per type, with the four diversity measures."""
    rows = []
    for kind in ("all", *ITEM_TYPES):
        for stage in ("candidates", "accepted"):
            m = (diversity.get(stage) or {}).get(kind)
            if m and m.get("n"):
                rows.append({"type": "all" if kind == "all" else TYPE_NAMES[kind], "stage": stage, **m})
    return rows


def _stage(data: ReportData, name: str) -> dict[str, Any]:
    entry = (data.manifest.get("stages") or {}).get(name)
    return entry if isinstance(entry, dict) else {}


def _short(reason: str) -> str:
    return reason.split(":", 1)[0].strip() or reason


def _mcq_stats(stats: dict[str, Any]) -> dict[str, Any] | None:
    if not stats.get("mcq"):
        return None
    positions = stats.get("answer_positions") or {}
    letters = "ABCDEFGH"
    return {
        "mcq": stats.get("mcq"),
        "longest_share": stats.get("correct_longest_share"),
        "positions": [
            (letters[int(k)] if str(k).isdigit() and int(k) < 8 else str(k), v)
            for k, v in sorted(positions.items(), key=lambda kv: str(kv[0]))
        ],
    }


def bloom_scenario(data: ReportData) -> dict[str, Any] | None:
    """Accepted multiple-choice items counted by Bloom level (rows) and scenario (columns)."""
    mcq = [it for it in data.items if it.type == "mcq"]
    if not mcq:
        return None
    counts = Counter((it.bloom or "—", it.scenario or "—") for it in mcq)
    rows = list(BLOOM) + ([("—", "not set")] if any(b == "—" for b, _ in counts) else [])
    cols = list(SCENARIO) + ([("—", "not set")] if any(s == "—" for _, s in counts) else [])
    table = [
        {
            "key": b,
            "name": name,
            "cells": [counts.get((b, s), 0) for s, _ in cols],
            "total": sum(counts.get((b, s), 0) for s, _ in cols),
        }
        for b, name in rows
    ]
    col_totals = [sum(counts.get((b, s), 0) for b, _ in rows) for s, _ in cols]
    return {"cols": cols, "rows": table, "col_totals": col_totals, "total": len(mcq)}


def type_fold_split(data: ReportData) -> dict[str, Any] | None:
    """Accepted items counted by type (rows) and fold x split (columns)."""
    if not data.items:
        return None
    counts = Counter((it.type, it.fold, it.split) for it in data.items)
    rows = [
        {
            "type": t,
            "name": TYPE_NAMES[t],
            "cells": [counts.get((t, f, s), 0) for f, s in CELLS],
            "total": sum(v for (tt, _, _), v in counts.items() if tt == t),
        }
        for t in ITEM_TYPES
    ]
    col_totals = [sum(counts.get((t, f, s), 0) for t in ITEM_TYPES) for f, s in CELLS]
    return {"cols": CELLS, "rows": rows, "col_totals": col_totals, "total": len(data.items)}


def crosseval_view(data: ReportData) -> dict[str, Any] | None:
    """The cross-evaluation iterations (corpus fold, answerable and unanswerable questions) and leakage."""
    from qagen.review.report_view import report_review

    ce = data.crosseval
    if not ce:
        return None
    iterations = []
    for it in ce.get("iterations") or []:
        counts = it.get("counts") or {}
        iterations.append(
            {
                "name": str(it.get("name", "")),
                "set": str(it.get("set", "")),
                "corpus_fold": it.get("corpus_fold"),
                "pages": counts.get("pages", 0),
                "answerable": counts.get("answerable", 0),
                "unanswerable": counts.get("unanswerable", 0),
                "excluded": counts.get("unanswerable_excluded_leakage", 0),
                "excluded_answerable": counts.get("unanswerable_excluded_answerable", 0),
                "dropped": counts.get("answerable_excluded_unsupported", 0),
                "out_of_scope": counts.get("unanswerable_out_of_scope", 0),
            }
        )
    pages = ce.get("pages") or {}
    leakage = ce.get("leakage") or {}
    return {
        "iterations": iterations,
        "pages_total": pages.get("total"),
        "pages_in_corpus": pages.get("in_corpus"),
        "pages_excluded": sorted((pages.get("excluded") or {}).items()),
        "leakage": leakage,
        # the question-side check (absent from builds made before it, or with splits.answerability off)
        "answerability": "answerable_from_corpus" in leakage,
        "answerable_from_corpus": int(leakage.get("answerable_from_corpus") or 0),
        "unsupported": int(leakage.get("unsupported_answerable") or 0),
        "warnings": [str(w.get("message", "")) for w in ce.get("warnings") or [] if isinstance(w, dict)],
        "refusal": ce.get("refusal_answer"),
        # off-domain questions (splits.out_of_scope_share), absent when none were asked
        "out_of_scope": ce.get("out_of_scope"),
        "review": report_review(data),  # current verdicts (reviews.jsonl) when present
    }
