"""splits: the cross-evaluation layout and its checks (``crosseval.json`` and ``splits/``)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from qagen.runner import BuildError, BuildInputs, Stage, StageContext, StageOutput
from qagen.stages.embed import fingerprint as embedder_fingerprint
from qagen.stages.embed import make_embedder

if TYPE_CHECKING:
    from qagen.config import Config


def fingerprint(config: Config, build: BuildInputs) -> Any:
    """The embedder, and when the answerability judge may run, the LLM and the judge prompt."""
    fp: dict[str, Any] = {"embedder": embedder_fingerprint(config, build)}
    judge = config.splits.answerability_judge
    backend = build.llm or config.llm.backend
    if config.splits.answerability and (judge == "on" or (judge == "auto" and backend != "extractive")):
        from qagen.answerability import load_answerability_prompt
        from qagen.llm.registry import backend_identity

        fp.update(llm=backend_identity(backend, config.llm), prompt=load_answerability_prompt(build.prompts_dir).hash)
    return fp


def _judge_config(ctx: StageContext) -> Config | None:
    """The config with what generation left of the LLM budgets; None when one is spent (the judge does not run)."""
    from qagen.llm.stats import remaining_budget

    llm = ctx.config.llm
    if llm.max_requests is None and llm.max_cost_usd is None:
        return ctx.config
    spent = (ctx.manifest.get("stages", {}).get("generate") or {}).get("llm") or {}
    left, spent_key = remaining_budget(llm, spent)
    if left is None:
        ctx.log(f"warning: splits: {spent_key} is spent by generation; the answerability judge did not run")
        return None
    return ctx.config.model_copy(update={"llm": left})


def _chunks(executor: str) -> Any:
    """With a Ray executor, the leakage check searches large corpora in chunks of pages as Ray tasks."""
    if executor == "local":
        return None
    from qagen.ingest.ray_executor import RayChunks, parse_address

    return RayChunks(parse_address(executor))


def run(ctx: StageContext) -> StageOutput:
    from qagen.answerability import make_judge
    from qagen.language import document_languages, translations
    from qagen.llm.stats import unfinished_reason
    from qagen.review import review_selection
    from qagen.splits import build_splits

    cfg = ctx.config.splits
    sections = ctx.inputs["sections.jsonl"]
    if not ctx.inputs["items.jsonl"]:
        from qagen.report.summary import no_items_reason

        raise BuildError(no_items_reason(ctx.manifest))
    items, review = review_selection(
        ctx.inputs["items.jsonl"], ctx.inputs.get("reviews.jsonl"), cfg.approved_only, cfg.approval_rule
    )
    embedder = make_embedder(ctx)
    from qagen.embed.tfidf import TfidfEmbedder

    # TF-IDF/LSA cosines say which words two texts share, not what they mean: the out-of-scope check
    # then reads the words alone (LSA puts unrelated short texts at 0.6-0.9 on the multilingual corpus)
    semantic = not isinstance(embedder.embedder, TfidfEmbedder)
    languages, _ = document_languages(sections)
    translated = translations(sections, languages)
    if translated:
        names = {s.doc_id: s.doc_path for s in sections}
        pairs = sorted({tuple(sorted((names[a], names[b]))) for a, bs in translated.items() for b in bs})
        shown = "; ".join(f"{a} and {b}" for a, b in pairs[:5]) + ("; ..." if len(pairs) > 5 else "")
        ctx.log(
            f"splits: {len(pairs)} pair(s) of documents look like translations ({shown}): a question of one "
            "is not asked as unanswerable where the other is loaded"
        )
    config = _judge_config(ctx)
    try:
        judge = (
            None
            if config is None
            else make_judge(config, ctx.build.llm, ctx.cache_dir, ctx.build.prompts_dir, progress=ctx.progress)
        )
    except ValueError as exc:
        raise BuildError(str(exc)) from None
    result = build_splits(
        items,
        ctx.inputs["pages.jsonl"],
        ctx.inputs["assignments.jsonl"],
        cfg,
        embed=embedder.embed,
        sections={s.id: s for s in sections},
        judge=judge,
        translations=translated,
        scope_embed=embedder.embed if semantic else None,
        chunks=_chunks(ctx.config.executor),
    )
    # questions asked in each iteration (answerable and unanswerable), named as the iterations are
    counts = {f"questions_{s}_iteration_{f}": len(v) for (s, f), v in sorted(result.questions.items())}
    counts["leakage_flagged"] = result.leakage["flagged"]
    scope = result.leakage.get("out_of_scope")
    if scope is not None:  # off-domain questions asked in every iteration of their set
        counts["out_of_scope"] = sum(scope["asked"].values())
        counts["out_of_scope_rejected"] = scope["rejected"]
    checked = result.leakage.get("answerability")
    if checked is not None:  # the question-side check and the answer check of the answerable role
        counts["answerable_from_corpus"] = checked["answerable_from_corpus"]
        counts["answerable_unsupported"] = checked["answer_check"]["unsupported"]
        if judge is not None:
            counts["answerability_judged"] = checked["judged"]
    warnings = result.crosseval.get("warnings", [])
    counts["warnings"] = len(warnings)
    for warning in warnings:
        ctx.log(f"warning: splits: {warning['message']}")
    counts.update(review_items=len(items), reviewed=review["reviewed"], approved=review["approved"])
    result = dataclasses.replace(result, crosseval={**result.crosseval, "review": review})
    info: dict[str, Any] = {"warnings": warnings}
    incomplete = None
    if judge is not None:
        info["llm"] = judge.stats()
        incomplete = unfinished_reason(info["llm"], ctx.config.llm.cache_failures)
    return StageOutput({"crosseval.json": result}, counts=counts, info=info, incomplete=incomplete)


STAGE = Stage(
    name="splits",
    inputs=("sections.jsonl", "items.jsonl", "pages.jsonl", "assignments.jsonl"),
    outputs=("crosseval.json",),
    config=("splits", "embed", "llm"),
    run=run,
    fingerprint=fingerprint,
    description="cross-evaluation splits and leakage check",
    optional_inputs=("reviews.jsonl",),
)
