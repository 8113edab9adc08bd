"""folds: topic-disjoint folds, validation/test units and the sample (``folds.json``, ``assignments.jsonl``)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from qagen.records import Section
from qagen.runner import BuildError, BuildInputs, Stage, StageContext, StageOutput

if TYPE_CHECKING:
    from qagen.config import Config


def fingerprint(config: Config, build: BuildInputs) -> Any:
    """The section kinds sampled (``generate.source_kinds``) and whether a size target samples every kept section
    (``generate.questions``), read from another config section."""
    return {"source_kinds": list(config.generate.source_kinds), "size_target": config.generate.questions is not None}


def run(ctx: StageContext) -> StageOutput:
    from qagen.folds.sections import fit_section_folds, fold_languages
    from qagen.language import document_languages

    cfg = ctx.config.folds
    if ctx.config.generate.questions is not None:  # a size target: every kept section may be asked, in rounds
        cfg = cfg.model_copy(update={"samples_total": None, "samples_per_fold": None})
    sections: list[Section] = ctx.inputs["sections.jsonl"]
    topics = ctx.inputs["topics.json"]
    labels = [topics["section_topics"][s.id] for s in sections]
    kinds = ctx.config.generate.source_kinds
    left_out = Counter(s.kind for s in sections if s.kind not in kinds)
    if left_out:
        shown = ", ".join(f"{n} {k}" for k, n in left_out.most_common())
        ctx.log(f"folds: sampling {', '.join(kinds)} sections only; not sampled: {shown} (generate.source_kinds)")
    doc_language, _ = document_languages(sections)  # for the groups and for the languages per fold
    groups = [doc_language.get(s.doc_id, "und") for s in sections] if cfg.by_language == "auto" else None
    try:
        builder, unit_note = fit_section_folds(
            sections,
            ctx.inputs["pages.jsonl"],
            labels,
            ctx.inputs["reduced.npy"],
            cfg,
            seed=ctx.config.seed,
            eligible=[s.kind in kinds for s in sections],
            groups=groups,
        )
    except ValueError as exc:  # too few topics, or every unit mixed: the user's next step is in it
        raise BuildError(f"folds: {exc} (config keys: folds.min_fold_ratio, folds.max_clusters, folds.unit)") from None
    if unit_note:
        ctx.log(f"folds: unit {builder.unit} ({unit_note}; folds.unit)")
    assignments = builder.to_records([s.id for s in sections])
    chose_size = "samples_total" in ctx.config.folds.model_fields_set
    for warning in builder.warnings_:
        # the default sample larger than a small corpus: every section is sampled, nothing to do (a note);
        # a sample size the user chose and the corpus cannot give stays a warning
        note = not chose_size and "kept sections that may be sampled" in warning
        ctx.log(f"folds: {warning}" if note else f"warning: folds: {warning}")
    data: dict[str, Any] = {
        "chosen": builder.chosen_,
        "metrics": builder.metrics_,
        "candidates": builder.candidates_,
        "topic_folds": {str(k): v for k, v in builder.topic_folds_.items()},
        "unit_folds": {str(k): v for k, v in builder.unit_folds_.items()},
        "unit_splits": {str(k): v for k, v in builder.unit_splits_.items()},
        "conflict_units": sorted(str(u) for u in builder.conflict_units_),
        "warnings": list(builder.warnings_),
    }
    if unit_note:
        data["unit_choice"] = unit_note
    data["source_kinds"] = list(kinds)
    data["section_kinds"] = dict(Counter(s.kind for s in sections).most_common())
    data["languages"], data["language_warnings"] = fold_languages(sections, assignments, doc_language)
    for warning in data["language_warnings"]:
        ctx.log(f"warning: folds: {warning}")
    status = Counter(a.status for a in assignments)
    return StageOutput(
        {"folds.json": data, "assignments.jsonl": assignments},
        counts={**dict(status), "sampled": sum(a.sampled for a in assignments)},
    )


STAGE = Stage(
    name="folds",
    inputs=("sections.jsonl", "pages.jsonl", "topics.json", "reduced.npy"),
    outputs=("folds.json", "assignments.jsonl"),
    config=("folds",),
    run=run,
    fingerprint=fingerprint,
    description="topic-disjoint folds, splits, sample",
)
