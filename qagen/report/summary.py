"""The run summary: documents, counts, LLM use and time per stage, from the artifacts and manifest."""

from __future__ import annotations

from collections import Counter
from typing import Any

from qagen.report.data import ReportData
from qagen.stages import STAGE_NAMES

ITEM_TYPES = ("long_form", "factoid", "mcq")
TYPE_NAMES = {"long_form": "long-form", "factoid": "factoid", "mcq": "multiple choice"}
LLM_DEFAULTS: dict[str, Any] = {
    "backend": "unknown",
    "model": "",
    "requests": 0,
    "requests_sent": 0,
    "cache_hits": 0,
    "succeeded": 0,
    "retries": 0,
    "repairs": 0,
    "failures": 0,
    "not_run": 0,
    "prompt_tokens": 0,
    "completion_tokens": 0,
    "cost_usd": 0.0,
    "cost_known": False,
    "structured_mode": None,
    "stopped_reason": None,
    "elapsed_s": None,
    "errors": {},
}
STAGE_ORDER = STAGE_NAMES


def _stages(manifest: dict[str, Any]) -> dict[str, Any]:
    stages = manifest.get("stages")
    return stages if isinstance(stages, dict) else {}


def stage_rows(manifest: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per stage in the manifest: status, wall and CPU seconds, counts."""
    stages = _stages(manifest)
    order = list(manifest.get("stage_order") or STAGE_ORDER)
    order += [name for name in stages if name not in order]
    rows = []
    for name in order:
        entry = stages.get(name)
        if not isinstance(entry, dict):
            continue
        counts = entry.get("counts") or {}
        rows.append(
            {
                "name": name,
                "status": "skipped (unchanged)" if entry.get("skipped") else str(entry.get("status", "")),
                "seconds": _num(entry.get("seconds")),
                "cpu_seconds": _num(entry.get("cpu_seconds")),
                "counts": " · ".join(f"{str(k).replace('_', ' ')} {v}" for k, v in counts.items()),
                "errors": len(entry.get("errors") or []),
            }
        )
    longest = max((r["seconds"] or 0.0 for r in rows), default=0.0)
    for r in rows:
        r["bar"] = 100.0 * (r["seconds"] or 0.0) / longest if longest > 0 else 0.0
    return rows


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def llm_stats(manifest: dict[str, Any]) -> dict[str, Any] | None:
    """The generate stage's LLM statistics, or None when generation has not run."""
    entry = _stages(manifest).get("generate")
    if not isinstance(entry, dict):
        return None
    llm = {**LLM_DEFAULTS, **(entry.get("llm") or {})}
    llm["offline"] = llm["backend"] == "extractive"
    llm["tokens"] = int(llm.get("prompt_tokens", 0) or 0) + int(llm.get("completion_tokens", 0) or 0)
    llm["error_kinds"] = sorted((llm.get("errors") or {}).items(), key=lambda kv: (-kv[1], kv[0]))
    return llm


def document_problems(data: ReportData, limit: int) -> dict[str, Any]:
    """Documents parsed and failed, problems (failures, duplicates, skipped pages) with their reasons."""
    docs = data.documents
    problems = _stages(data.manifest).get("parse", {}).get("errors") or []
    if not problems:  # fall back to the documents themselves
        problems = [{"path": d.path, "reason": "failed", "detail": d.error or ""} for d in docs if d.status != "ok"]
    rows = [
        {"path": str(p.get("path", "")), "reason": str(p.get("reason", "")), "detail": str(p.get("detail", ""))}
        for p in problems
        if isinstance(p, dict)
    ]
    by_reason = Counter(r["reason"] for r in rows)
    return {
        "total": len(docs),
        "parsed": sum(d.status == "ok" for d in docs),
        "failed": sum(d.status != "ok" for d in docs),
        "formats": sorted(Counter(d.format for d in docs).items()),
        "by_reason": sorted(by_reason.items(), key=lambda kv: (-kv[1], kv[0])),
        "rows": rows[:limit],
        "hidden": max(0, len(rows) - limit),
    }


def kpis(data: ReportData) -> dict[str, Any]:
    """Headline numbers for the top of the page."""
    rows = stage_rows(data.manifest)
    by_type = Counter(it.type for it in data.items)
    n_sections = len(data.sections)
    outliers = None
    if data.topics is not None:
        labels = list((data.topics.get("section_topics") or {}).values())
        outliers = 100.0 * sum(1 for x in labels if x == -1) / len(labels) if labels else 0.0
    return {
        "documents": len(data.documents),
        "parsed": sum(d.status == "ok" for d in data.documents),
        "failed": sum(d.status != "ok" for d in data.documents),
        "sections": n_sections,
        "pages": len(data.pages),
        "topics": len((data.topics or {}).get("topics") or []) if data.topics is not None else None,
        "outlier_pct": outliers,
        "accepted": len(data.items),
        "items_by_type": [(t, TYPE_NAMES[t], by_type.get(t, 0)) for t in ITEM_TYPES],
        "candidates": _candidates(data),
        "rejected": len(data.rejected),
        # this build's time: a skipped stage's seconds are those of the run that made its outputs
        # (a dry run, an earlier build), not of this one
        "seconds": sum(r["seconds"] or 0.0 for r in rows if not r["status"].startswith("skipped")),
        "reused": sum(r["status"].startswith("skipped") for r in rows),
        "reused_seconds": sum(r["seconds"] or 0.0 for r in rows if r["status"].startswith("skipped")),
        "no_items": no_items_reason(data.manifest) if not data.items else None,
    }


def no_items_reason(manifest: dict[str, Any]) -> str:
    """Why a build has no accepted items, in one line: a stage that failed, no candidates (and why), or
    the filters' main reasons."""
    from qagen.generate.offline import OFFLINE_TYPES

    stages = _stages(manifest)
    for name in STAGE_ORDER[: STAGE_ORDER.index("filter") + 1]:  # stages that make the items
        entry = stages.get(name) or {}
        if entry.get("status") in ("failed", "interrupted"):
            return f"no items: the {name} stage {entry['status']}: {entry.get('error', '')}"
    if "generate" not in stages:
        return "no items yet: the generate stage has not run"
    generated = stages.get("generate", {}).get("counts", {})
    if not generated.get("candidates") and generated.get("failed_requests"):
        return _failed_requests_reason(stages["generate"], generated["failed_requests"])
    if not generated.get("candidates"):
        language = generated.get("language", "")
        why = (
            f"the offline generator has no question forms for the documents' language ({language}); "
            "configure an LLM ([llm] backend)"
            if language and language.split("-")[0] not in OFFLINE_TYPES
            else f"{generated.get('sampled_sections', 0)} sampled section(s) gave no question; see candidates.jsonl"
        )
        return f"no items: generation made no candidates: {why}"
    reasons: Counter[str] = Counter()
    for row in stages.get("filter", {}).get("funnel", []):
        reasons.update(row.get("reasons", {}))
    top = ", ".join(f"{k} {v}" for k, v in reasons.most_common(3))
    return f"no items: the filters rejected all {generated['candidates']} candidates ({top}); see rejected.jsonl"


def _failed_requests_reason(entry: dict[str, Any], failed: int) -> str:
    """No candidates because LLM requests failed: say so, with how many of how many and the commonest reason
    (the generator was never heard, so "no candidates" would blame the documents)."""
    llm = entry.get("llm") or {}
    total = llm.get("requests") or failed
    reasons = Counter(str(e.get("reason", "")) for e in entry.get("errors") or [] if isinstance(e, dict))
    first = reasons.most_common(1)[0][0] if reasons else next(iter(llm.get("errors") or {}), "")
    share = f"all {failed}" if failed >= total else f"{failed} of {total}"
    because = f" (e.g. {first})" if first else ""
    return (
        f"no items: {share} LLM generation request(s) failed{because}; fix the LLM or its settings and rerun "
        "(completed requests are cached); see generation_failures.jsonl"
    )


def document_rows(data: ReportData, limit: int) -> dict[str, Any]:
    """One row per document: format, pages, sections, items accepted and rejected, and its problem if any.

    Sorted with failed documents first, then by fewest items, so what needs a look comes first.
    """
    problems = {
        str(p.get("path", "")): f"{p.get('reason', '')}: {p.get('detail', '')}".strip(": ")
        for p in _stages(data.manifest).get("parse", {}).get("errors") or []
        if isinstance(p, dict)
    }
    doc_of = {sec.id: sec.doc_id for sec in data.sections}
    sampled = Counter(doc_of.get(a.section_id) for a in data.assignments if a.sampled)
    left_out = Counter(doc_of.get(a.section_id) for a in data.assignments if a.status != "kept")
    accepted = Counter(it.source.doc_id for it in data.items)
    rejected = Counter(r.source.doc_id for r in data.rejected)
    reasons: dict[str, Counter[str]] = {}
    for r in data.rejected:
        reasons.setdefault(r.source.doc_id, Counter())[r.filter] += 1
    rows = []
    for d in data.documents:
        top = reasons.get(d.id, Counter()).most_common(1)
        rows.append(
            {
                "path": d.path,
                "title": d.title or "",
                "format": d.format + (f" ({d.encoding})" if d.encoding and d.encoding != "utf-8" else ""),
                "status": d.status,
                "pages": d.n_pages,
                "sections": d.n_sections,
                "sampled": sampled.get(d.id, 0),
                "left_out": left_out.get(d.id, 0),
                "accepted": accepted.get(d.id, 0),
                "rejected": rejected.get(d.id, 0),
                "top_rejection": f"{top[0][0]} ({top[0][1]})" if top else "",
                "problem": problems.get(d.path, d.error or ""),
            }
        )
    generate = _stages(data.manifest).get("generate") or {}
    asked = (generate.get("size_target") or {}).get("asked_by_document")
    offline = (generate.get("llm") or {}).get("backend") == "extractive"
    status_of = {a.section_id: a.status for a in data.assignments}
    statuses: dict[str, Counter[str | None]] = {}  # per document: its sections by fold status (None: no fold)
    for sec in data.sections:
        statuses.setdefault(sec.doc_id, Counter())[status_of.get(sec.id)] += 1
    for d, row in zip(data.documents, rows, strict=True):
        if asked is not None:  # a size target: the rounds asked some of the sampled sections
            row["sampled"] = asked.get(d.id, 0)
        if not row["problem"] and row["status"] == "ok" and not row["accepted"]:
            row["problem"] = _why_no_items(row, statuses.get(d.id, Counter()), offline, reasons.get(d.id))
    rows.sort(key=lambda r: (r["status"] == "ok", r["accepted"], r["path"]))
    return {
        "rows": rows[:limit],
        "hidden": max(0, len(rows) - limit),
        "without_items": sum(r["status"] == "ok" and not r["accepted"] for r in rows),
        "not_sampled": sum(r["status"] == "ok" and not r["sampled"] and r["left_out"] < r["sections"] for r in rows),
        "all_left_out": sum(r["status"] == "ok" and r["sections"] and r["left_out"] >= r["sections"] for r in rows),
        "has_folds": bool(data.assignments),
        # more samples help only while some kept section was not sampled
        "more_sampled_helps": any(a.status == "kept" and not a.sampled for a in data.assignments) and asked is None,
    }


def _why_no_items(row: dict[str, Any], status: Counter, offline: bool, rejected_by: Counter[str] | None) -> str:
    """Why a parsed document gave no accepted item, in a few words."""
    if not row["sections"]:
        return "no section parsed"
    if status and not status.get("kept"):
        lost = [f"{n} {what}" for key, what in (("outlier", "topic outlier(s)"), ("conflict", "in units that span both "
                "folds")) if (n := status.get(key))]  # fmt: skip
        return f"every section left out: {', '.join(lost) or 'not in the folds'}"
    if not row["sampled"]:
        return f"none of its {status.get('kept', 0)} kept section(s) sampled"
    if not row["rejected"]:
        what = (
            "the offline rules found no question or task heading, definition, menu path or contact detail in them"
            if offline
            else "the LLM's replies held no usable question for them"
        )
        return f"{row['sampled']} sampled section(s), no candidate: {what}"
    top = rejected_by.most_common(1)[0] if rejected_by else ("?", row["rejected"])
    return f"all {row['rejected']} candidate(s) rejected, most by {top[0]} ({top[1]})"


def _candidates(data: ReportData) -> int | None:
    entry = _stages(data.manifest).get("generate")
    if isinstance(entry, dict) and "candidates" in (entry.get("counts") or {}):
        return int(entry["counts"]["candidates"])
    rows = (data.funnel or {}).get("funnel") or []
    if rows:
        first = rows[0].get("filter")
        return sum(int(r.get("in", 0)) for r in rows if r.get("filter") == first)
    return None


def build_info(data: ReportData) -> dict[str, Any]:
    """Version, embedder, topic model and when the build finished."""
    stages = _stages(data.manifest)
    finished = [e.get("finished_at") for e in stages.values() if isinstance(e, dict) and e.get("finished_at")]
    params = (data.topics or {}).get("params") or {}
    return {
        "qagen_version": data.manifest.get("qagen_version", "?"),
        "finished_at": max(finished) if finished else None,
        "embedder": (stages.get("embed") or {}).get("embedder"),
        "reducer": params.get("reducer"),
        "clusterer": params.get("clusterer"),
        "llm": ((stages.get("generate") or {}).get("llm") or {}).get("backend"),
        "model": ((stages.get("generate") or {}).get("llm") or {}).get("model"),
    }
