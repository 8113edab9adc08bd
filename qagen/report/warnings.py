"""The report's warnings panel: every warning the build printed, with what to do about it.

The stages record what they print (``warnings_logged`` in ``manifest.json``); a manifest from
before that falls back to the warnings kept in ``folds.json``, ``crosseval.json`` and the
generate stage's entry. Each message is matched against the known kinds for advice; a message
that names its fix already ("raise max_clusters, ...") gets none repeated.
"""

from __future__ import annotations

import re

from qagen.report.data import ReportData
from qagen.runner import logged_warnings

# (pattern, kind, what to do). First match wins.
ADVICE: tuple[tuple[str, str, str], ...] = (
    (
        r"fewer than splits\.min_cell_items",
        "small cell",
        "Rates from so few questions have wide intervals: add documents, or raise folds.samples_total "
        "(or folds.samples_per_fold) so each iteration gets more questions.",
    ),
    (
        r"is made of one topic",
        "one-topic fold",
        "The iteration tests a single subject. Add documents on other subjects, or lower topics.min_cluster_size "
        "so that more topics form (qagen topics DOCS --sweep shows the choices).",
    ),
    (
        r"has no (?:un)?answerable \w+ question",
        "missing type",
        "That item type is absent from one side of this iteration: compare rates of that type across "
        "iterations with care, or add documents.",
    ),
    (
        r"no split meets min_fold_ratio|most balanced",
        "unbalanced folds",
        "One fold is much smaller: see the Folds section. Add documents, set folds.unit = 'page', or accept it.",
    ),
    (
        r"exceeds the \d+ kept sections",
        "small corpus",
        "Nothing is wrong: every usable section was sampled. Add documents for more items.",
    ),
    (
        r"were asked as S2",
        "fallback",
        "The S3 share is lower than asked; add documents that treat the same topics, or lower S3 in "
        "generate.scenario_mix.",
    ),
    (
        r"offline generator writes|need an LLM backend",
        "offline generator",
        "The offline generator asks only what it can quote. Configure an LLM ([llm] backend) for higher Bloom "
        "levels and scenarios, or set generate.bloom_mix / generate.scenario_mix to what it makes.",
    ),
    (
        r"no (?:question forms|questions offline)|without (?:offline )?(?:support|question forms)|language",
        "language",
        "Documents in that language get no offline questions: configure an LLM ([llm] backend), or add a data "
        "folder for the language (qagen/generate/lang/<code>/).",
    ),
    (
        r"encrypted|truncated|no text|image-only|duplicate|timeout|damaged|cannot be read|encoding",
        "document",
        "See the per-document table: fix or replace the file (OCR an image-only PDF, remove the password), "
        "or leave it out; the other documents are unaffected.",
    ),
    (
        r"stopped early|incomplete|max_requests|max_cost_usd",
        "budget",
        "Rerun the same command to send what is missing (paid replies are cached), after raising "
        "llm.max_requests / llm.max_cost_usd if a budget stopped it.",
    ),
    (
        r"embed",
        "embedder",
        "Check embed.backend: a model made for the documents' language gives better topics and checks.",
    ),
)


def warning_rows(data: ReportData) -> list[dict[str, str]]:
    """``{"stage", "kind", "message", "advice"}`` per warning of the build, in stage order, without repeats."""
    stages = data.manifest.get("stages") if isinstance(data.manifest.get("stages"), dict) else {}
    found = logged_warnings(data.manifest)
    if not found:  # a manifest from before the stages recorded their warnings (the runner records none empty)
        found += [("folds", str(w)) for w in (data.folds or {}).get("warnings") or []]
        found += [("generate", str(w)) for w in (stages.get("generate") or {}).get("warnings") or []]
        cells = (data.crosseval or {}).get("warnings") or []
        found += [("splits", str(w.get("message", ""))) for w in cells if isinstance(w, dict)]
    rows, seen = [], set()
    for stage, message in found:
        if (stage, message) in seen:
            continue
        seen.add((stage, message))
        kind, advice = classify(message)
        rows.append({"stage": stage, "kind": kind, "message": message, "advice": advice})
    return rows


def classify(message: str) -> tuple[str, str]:
    """(kind, what to do) for one warning; ("other", "") when no known kind matches."""
    for pattern, kind, advice in ADVICE:
        if re.search(pattern, message, re.IGNORECASE):
            return kind, advice
    return "other", ""
