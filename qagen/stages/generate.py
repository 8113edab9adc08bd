"""generate: candidate items for the sampled sections, by an LLM or offline (``candidates.jsonl``).

Under ``--dry-run`` the stage stops the build instead (:attr:`StageOutput.stop`) with the
estimate of the requests, tokens and cost it would have spent.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qagen.io import sha256_file
from qagen.runner import BuildInputs, Stage, StageContext, StageOutput

if TYPE_CHECKING:
    from qagen.config import Config, GenerateConfig
    from qagen.filters import FilterContext
    from qagen.generate import GenerationContext


def generate_config(ctx: StageContext) -> GenerateConfig:
    """The ``[generate]`` section with ``phone_region = auto`` resolved from the corpus."""
    from qagen.entities import resolve_phone_region

    return resolve_phone_region(ctx.config.generate, (s.text for s in ctx.inputs["sections.jsonl"]))


def filter_context(ctx: StageContext, embed: Callable[[list[str]], Any]) -> FilterContext:
    """What the filters read: the sections, titles, subject and prompt texts of the build (from ``ctx.inputs``
    ``sections.jsonl`` and ``documents.jsonl``); the filter stage and the size target's rounds use it."""
    from qagen.filters import FilterContext
    from qagen.filters.prompt_copy import prompt_reference_texts
    from qagen.generate.context import document_titles
    from qagen.generate.offline.reading import corpus_subject

    sections = ctx.inputs["sections.jsonl"]
    gen_cfg = generate_config(ctx)
    titles = document_titles(sections, ctx.inputs["documents.jsonl"])
    return FilterContext(
        sections={s.id: s for s in sections},
        embed=embed,
        phone_region=gen_cfg.phone_region,
        entity_kinds=tuple(gen_cfg.entity_kinds),
        titles=titles,
        subject=gen_cfg.subject or corpus_subject(sections, titles),
        prompt_texts=prompt_reference_texts(ctx.build.prompts_dir or gen_cfg.prompts_dir, gen_cfg.few_shot_file),
    )


def fingerprint(config: Config, build: BuildInputs) -> Any:
    """The LLM passed to the build, the prompt files and the few-shot file."""
    from qagen.generate.prompts import prompt_fingerprint
    from qagen.llm.registry import backend_identity

    few_shot = config.generate.few_shot_file
    few_shot_hash = sha256_file(few_shot) if few_shot and Path(few_shot).is_file() else None
    target = None
    if config.generate.questions is not None:  # the rounds count what the filters keep: their config counts too
        from qagen.stages.embed import fingerprint as embedder_fingerprint

        target = {"filter": config.filter.model_dump(mode="json"), "embed": config.embed.model_dump(mode="json"),
                  "embedder": embedder_fingerprint(config, build)}  # fmt: skip
    return {
        "llm": backend_identity(build.llm, config.llm),
        "prompts": prompt_fingerprint(build.prompts_dir),
        "few_shot": few_shot_hash,
        "size_target": target,
    }


def run(ctx: StageContext) -> StageOutput:
    from qagen.generate import GenerationContext
    from qagen.llm.stats import unfinished_reason

    gen_cfg = generate_config(ctx)
    gctx = GenerationContext.build(
        ctx.inputs["sections.jsonl"],
        ctx.inputs["pages.jsonl"],
        ctx.inputs["assignments.jsonl"],
        seed=ctx.config.seed,
        config=gen_cfg,
        documents=ctx.inputs["documents.jsonl"],
    )
    backend = ctx.build.llm or ctx.config.llm.backend
    counts: dict[str, Any] = {
        "sampled_sections": len(gctx.sampled),
        "phone_region": gen_cfg.phone_region,
        "language": gctx.language,
    }
    if backend == "extractive" and ctx.build.dry_run:
        estimate = {"requests": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0}
        return StageOutput({}, stop={"estimate": estimate, "backend": "extractive"})

    said: list[str] = []  # the offline notice and warnings, said once over the rounds
    spent: list[dict] = []  # each LLM round's info: the budgets bound the whole build, not a round

    def produce(g: GenerationContext) -> tuple[list, list, dict] | StageOutput:
        if backend == "extractive":
            return _generate_offline(ctx, g, gen_cfg, said)
        from qagen.llm.stats import remaining_budget

        llm_cfg, used_up = remaining_budget(ctx.config.llm, _merged(spent)["llm"]) if spent else (None, None)
        if used_up:
            return [], [], {"llm": {"stopped_reason": f"{used_up} used up"}}
        outcome = _generate_with_llm(ctx, g, gen_cfg, backend, llm_cfg)
        if not isinstance(outcome, StageOutput):
            spent.append(outcome[2])
        return outcome

    outcome = produce(gctx) if gen_cfg.questions is None else _in_rounds(ctx, gctx, gen_cfg, produce)
    if isinstance(outcome, StageOutput):
        return outcome
    items, failures, info = outcome
    if "size_target" in info:
        counts.update({k: v for k, v in info["size_target"].items() if k not in ("rounds", "asked_by_document")})
    incomplete = unfinished_reason(info["llm"], ctx.config.llm.cache_failures)
    by_type = Counter(it.type for it in items)
    counts.update(
        {
            "candidates": len(items),
            **{f"candidates_{k}": v for k, v in sorted(by_type.items())},
            "failed_requests": sum(f.filter == "generation" for f in failures),
            "exact_repeats": sum(f.filter == "exact_repeat" for f in failures),
        }
    )
    if "s3_fallbacks" in info:  # S3 requests asked as S2: no related section in another document
        counts["mcq_s3_requested_as_s2"] = fell_back = info.pop("s3_fallbacks")
        if fell_back:
            ctx.log(
                f"warning: generate: {fell_back} MCQ request(s) for scenario S3 were asked as S2: their section has "
                "no related section in another document of its fold (generate.scenario_mix)"
            )
    return StageOutput(
        {"candidates.jsonl": items, "generation_failures.jsonl": failures},
        counts=counts,
        errors=[{"request": f.id, "reason": f.reason} for f in failures[:50]],
        info=info,
        incomplete=incomplete,
    )


def _in_rounds(
    ctx: StageContext, gctx: GenerationContext, gen_cfg: GenerateConfig, produce: Any
) -> tuple[list, list, dict] | StageOutput:
    """Sections asked in rounds until the filters keep ``generate.questions`` test items (:mod:`qagen.generate.target`).

    Under ``--dry-run`` the estimate is the first round's.
    """
    import dataclasses

    from qagen.filters import run_filters
    from qagen.generate.target import Rounds, ask_order
    from qagen.stages.embed import make_embedder

    doc_of = {sid: gctx.sections[sid].doc_id for sid in gctx.sampled}
    order = ask_order(gctx.sampled, gctx.folds, doc_of, ctx.config.seed)
    conflicts = sum(a.status == "conflict" for a in ctx.inputs["assignments.jsonl"])
    rounds = Rounds(
        int(gen_cfg.questions or 0), order, {s: gctx.folds[s][1] == "test" for s in order}, conflicts=conflicts
    )
    fctx = filter_context(ctx, make_embedder(ctx).embed)
    items: list = []
    failures: list = []
    infos: list[dict] = []
    stopped = None
    while batch := rounds.next_batch():
        outcome = produce(dataclasses.replace(gctx, sampled=tuple(batch)))
        if isinstance(outcome, StageOutput):
            return outcome
        new, failed, info = outcome
        items, failures = items + new, failures + failed
        infos.append(info)
        kept = run_filters(items, fctx, ctx.config.filter).accepted
        rounds.record(batch, len(items), sum(it.split == "test" for it in kept))
        ctx.log(
            f"generate: round {len(rounds.rows)}: {len(batch)} section(s) asked ({rounds.asked} of {len(order)}), "
            f"{rounds.got} of {rounds.target} test questions kept"
        )
        stopped = (info.get("llm") or {}).get("stopped_reason")
        if stopped:
            break
    short = rounds.shortfall(stopped)
    if short:
        ctx.log(f"warning: generate: {short}")
    info = _merged(infos)
    asked_by_document = Counter(doc_of[sid] for sid in order[: rounds.asked])
    info["size_target"] = {
        **rounds.to_dict(),
        **({"shortfall": short} if short else {}),
        "asked_by_document": dict(sorted(asked_by_document.items())),
    }
    return items, failures, info


def _merged(infos: list[dict]) -> dict:
    """One info of the rounds': LLM counts summed, the rest the last round's, warnings once each."""
    if not infos:
        return {"llm": {}}
    merged = {k: v for k, v in infos[-1].items() if k != "llm"}
    llm: dict = {}
    for info in infos:
        for key, value in (info.get("llm") or {}).items():
            summable = isinstance(value, int | float) and not isinstance(value, bool)
            llm[key] = llm.get(key, 0) + value if summable and key in llm else value
    merged["llm"] = llm
    warnings = [w for info in infos for w in info.get("warnings", [])]
    if warnings:
        merged["warnings"] = list(dict.fromkeys(warnings))
    if any("s3_fallbacks" in i for i in infos):
        merged["s3_fallbacks"] = sum(i.get("s3_fallbacks", 0) for i in infos)
    return merged


def _generate_offline(
    ctx: StageContext, gctx: GenerationContext, gen_cfg: GenerateConfig, said: list[str]
) -> tuple[list, list, dict]:
    from qagen.generate.offline import (
        EXTRACTIVE_NOTICE,
        generate_offline,
        offline_language_warning,
        offline_mix_warning,
    )

    if EXTRACTIVE_NOTICE not in said:
        ctx.log(EXTRACTIVE_NOTICE)
        said.append(EXTRACTIVE_NOTICE)
    items, info = generate_offline(gctx), {"llm": {"backend": "extractive"}}
    languages = {gctx.sections[sid].doc_id: gctx.language_of(sid) for sid in gctx.sampled}
    mix = offline_mix_warning(gen_cfg)
    # the default mixes hold levels the offline generator cannot write: a note; mixes the user set: a warning
    chose = bool({"bloom_mix", "scenario_mix", "multi_hop_share", "comparison_share", "persona_mix"}
                 & gen_cfg.model_fields_set)  # fmt: skip
    warnings = [w for w in (mix if chose else None, offline_language_warning(languages, gen_cfg.types)) if w]
    if mix and not chose and mix not in said:
        ctx.log(f"generate: {mix}")
        said.append(mix)
    for warning in warnings:
        if warning not in said:
            ctx.log(f"warning: generate: {warning}")
            said.append(warning)
    if warnings:
        info["warnings"] = warnings
    return items, [], info


def _generate_with_llm(
    ctx: StageContext, gctx: GenerationContext, gen_cfg: GenerateConfig, backend: Any, llm_cfg: Any = None
) -> tuple[list, list, dict] | StageOutput:
    """Items from the LLM's replies to the planned requests; under ``--dry-run`` the stop with the estimate.
    ``llm_cfg``: the ``[llm]`` section with what is left of its budgets (a size target's later rounds)."""
    from qagen.generate.replies import items_from_results
    from qagen.generate.requests import plan_requests
    from qagen.llm import LLMEngine, get_llm
    from qagen.llm.base import public_id

    llm = get_llm(backend, ctx.config.llm)
    planned = plan_requests(
        gctx, ctx.build.prompts_dir, gen_cfg, llm=ctx.config.llm, keep_per_section=ctx.config.filter.keep_per_section
    )
    engine = LLMEngine(llm, llm_cfg or ctx.config.llm, cache_path=ctx.cache_dir / "llm.sqlite", progress=ctx.progress)
    if ctx.build.dry_run:
        from qagen.config import LLMConfig
        from qagen.generate.estimate import dry_run_estimate

        defaults = LLMConfig().prices
        estimate = dry_run_estimate(
            engine, planned, gctx.sections, gen_cfg.long_form_per_section, defaults, label_judge=gen_cfg.label_judge
        )
        return StageOutput({}, stop={"estimate": estimate, "backend": public_id(llm.id)})
    results = engine.run([p.request for p in planned], [p.response_model for p in planned])
    items, failures = items_from_results(
        planned, [r.value for r in results], gctx, public_id(llm.id), llm.model, [r.error for r in results]
    )
    label_counts: dict[str, int] = {}
    if gen_cfg.label_judge and any(it.type == "mcq" for it in items):
        items, label_counts = _judged_labels(ctx, gctx, items, engine)
    stats = engine.stats.to_dict()
    if stats.get("stopped_reason"):
        ctx.log(f"warning: generation stopped early: {stats['stopped_reason']} (results so far are kept)")
    fallbacks = sum(bool(p.meta.get("scenario_fallback")) for p in planned)
    info = {"llm": {"backend": public_id(llm.id), **stats}, "s3_fallbacks": fallbacks}
    return items, failures, {**info, **({"labels": label_counts} if label_counts else {})}


def _judged_labels(ctx: StageContext, gctx: GenerationContext, items: list, engine: Any) -> tuple[list, dict]:
    """The MCQs' labels as the LLM judges them (:mod:`qagen.generate.labels`); failed judgements are counted."""
    from qagen.generate.labels import LabelReply, label_requests, relabelled
    from qagen.generate.prompts import load_prompt_or_bundled

    prompt = load_prompt_or_bundled(ctx.build.prompts_dir, "labels")
    batches = label_requests(items, gctx, prompt, ctx.config.llm)
    results = engine.run([r for _, r in batches], [LabelReply] * len(batches))
    asked = {it.id: it.labels_asked or f"{it.bloom}/{it.scenario}" for it in items if it.type == "mcq"}
    items, counts = relabelled(items, batches, [r.value for r in results], asked)
    if counts["label_judge_failed"]:
        ctx.log(
            f"warning: generate: the label judge failed for {counts['label_judge_failed']} multiple-choice item(s); "
            "they keep the labels their quoted evidence shows (rerun to judge them)"
        )
    return items, counts


STAGE = Stage(
    name="generate",
    inputs=("documents.jsonl", "sections.jsonl", "pages.jsonl", "assignments.jsonl"),
    outputs=("candidates.jsonl", "generation_failures.jsonl"),
    config=("generate", "llm"),
    run=run,
    fingerprint=fingerprint,
    description="candidate items (LLM or extractive)",
)
