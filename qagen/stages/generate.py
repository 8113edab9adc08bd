"""generate: candidate items for the sampled sections, by an LLM or offline (``candidates.jsonl``).

Under ``--dry-run`` the stage stops the build instead (:attr:`StageOutput.stop`) with the
estimate of the requests, tokens and cost it would have spent.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qagen.io import sha256_file
from qagen.runner import BuildInputs, Stage, StageContext, StageOutput

if TYPE_CHECKING:
    from qagen.config import Config, GenerateConfig
    from qagen.generate import GenerationContext


def generate_config(ctx: StageContext) -> GenerateConfig:
    """The ``[generate]`` section with ``phone_region = auto`` resolved from the corpus."""
    from qagen.generate.entities import resolve_phone_region

    return resolve_phone_region(ctx.config.generate, (s.text for s in ctx.inputs["sections.jsonl"]))


def fingerprint(config: Config, build: BuildInputs) -> Any:
    """The LLM passed to the build, the prompt files and the few-shot file."""
    from qagen.generate.prompts import prompt_fingerprint
    from qagen.llm.registry import backend_identity

    few_shot = config.generate.few_shot_file
    few_shot_hash = sha256_file(few_shot) if few_shot and Path(few_shot).is_file() else None
    return {
        "llm": backend_identity(build.llm, config.llm),
        "prompts": prompt_fingerprint(build.prompts_dir),
        "few_shot": few_shot_hash,
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
    if backend == "extractive":
        if ctx.build.dry_run:
            estimate = {"requests": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0}
            return StageOutput({}, stop={"estimate": estimate, "backend": "extractive"})
        items, failures, info = _generate_offline(ctx, gctx, gen_cfg)
    else:
        outcome = _generate_with_llm(ctx, gctx, gen_cfg, backend)
        if isinstance(outcome, StageOutput):
            return outcome
        items, failures, info = outcome
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


def _generate_offline(ctx: StageContext, gctx: GenerationContext, gen_cfg: GenerateConfig) -> tuple[list, list, dict]:
    from qagen.generate.offline import (
        EXTRACTIVE_NOTICE,
        generate_offline,
        offline_language_warning,
        offline_mix_warning,
    )

    ctx.log(EXTRACTIVE_NOTICE)
    items, info = generate_offline(gctx), {"llm": {"backend": "extractive"}}
    languages = {gctx.sections[sid].doc_id: gctx.language_of(sid) for sid in gctx.sampled}
    warnings = [w for w in (offline_mix_warning(gen_cfg), offline_language_warning(languages, gen_cfg.types)) if w]
    for warning in warnings:
        ctx.log(f"warning: generate: {warning}")
    if warnings:
        info["warnings"] = warnings
    return items, [], info


def _generate_with_llm(
    ctx: StageContext, gctx: GenerationContext, gen_cfg: GenerateConfig, backend: Any
) -> tuple[list, list, dict] | StageOutput:
    """Items from the LLM's replies to the planned requests; under ``--dry-run`` the stop with the estimate."""
    from qagen.generate.replies import items_from_results
    from qagen.generate.requests import plan_requests
    from qagen.llm import LLMEngine, get_llm
    from qagen.llm.base import public_id

    llm = get_llm(backend, ctx.config.llm)
    planned = plan_requests(
        gctx, ctx.build.prompts_dir, gen_cfg, llm=ctx.config.llm, keep_per_section=ctx.config.filter.keep_per_section
    )
    engine = LLMEngine(llm, ctx.config.llm, cache_path=ctx.cache_dir / "llm.sqlite", progress=ctx.progress)
    if ctx.build.dry_run:
        from qagen.config import LLMConfig
        from qagen.generate.estimate import dry_run_estimate

        defaults = LLMConfig().prices
        estimate = dry_run_estimate(engine, planned, gctx.sections, gen_cfg.long_form_per_section, defaults)
        return StageOutput({}, stop={"estimate": estimate, "backend": public_id(llm.id)})
    results = engine.run([p.request for p in planned], [p.response_model for p in planned])
    items, failures = items_from_results(
        planned, [r.value for r in results], gctx, public_id(llm.id), llm.model, [r.error for r in results]
    )
    stats = engine.stats.to_dict()
    if stats.get("stopped_reason"):
        ctx.log(f"warning: generation stopped early: {stats['stopped_reason']} (results so far are kept)")
    fallbacks = sum(bool(p.meta.get("scenario_fallback")) for p in planned)
    return items, failures, {"llm": {"backend": public_id(llm.id), **stats}, "s3_fallbacks": fallbacks}


STAGE = Stage(
    name="generate",
    inputs=("documents.jsonl", "sections.jsonl", "pages.jsonl", "assignments.jsonl"),
    outputs=("candidates.jsonl", "generation_failures.jsonl"),
    config=("generate", "llm"),
    run=run,
    fingerprint=fingerprint,
    description="candidate items (LLM or extractive)",
)
