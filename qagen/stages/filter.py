"""filter: accepted items and rejections with reasons (``items.jsonl``, ``rejected.jsonl``, ``funnel.json``)."""

from __future__ import annotations

import dataclasses
from collections import Counter

from qagen.runner import Stage, StageContext, StageOutput
from qagen.stages.embed import fingerprint as embedder_fingerprint
from qagen.stages.embed import make_embedder
from qagen.stages.generate import generate_config


def run(ctx: StageContext) -> StageOutput:
    from qagen.diversity import diversity_by_type
    from qagen.filters import FilterContext, run_filters
    from qagen.filters.base import reject
    from qagen.filters.prompt_copy import prompt_reference_texts
    from qagen.generate.context import document_titles
    from qagen.generate.variants import achieved, make_variants

    sections = ctx.inputs["sections.jsonl"]
    gen_cfg = generate_config(ctx)
    embedder = make_embedder(ctx)
    fctx = FilterContext(
        sections={s.id: s for s in sections},
        embed=embedder.embed,
        phone_region=gen_cfg.phone_region,
        entity_kinds=tuple(gen_cfg.entity_kinds),
        titles=document_titles(sections, ctx.inputs["documents.jsonl"]),
        prompt_texts=prompt_reference_texts(ctx.build.prompts_dir or gen_cfg.prompts_dir, gen_cfg.few_shot_file),
    )
    result = run_filters(ctx.inputs["candidates.jsonl"], fctx, ctx.config.filter)
    rejected = list(ctx.inputs["generation_failures.jsonl"]) + result.rejected
    mix = gen_cfg.formulation_mix
    variants, failed = make_variants(result.accepted, mix, ctx.config.seed)
    accepted = [*result.accepted, *variants]
    rejected += [reject(v, "variant", why) for v, why in failed]
    formulations = achieved([it for it in accepted if it.type in ("long_form", "factoid")], mix)
    for name, row in formulations.items():
        if abs(row["share"] - row["asked"]) > 0.05 and (row["asked"] or row["items"]):
            ctx.log(
                f"warning: filter: {name} questions are {row['share']:.0%} of the long-form and factoid items, "
                f"asked {row['asked']:.0%} (generate.formulation_mix): too few questions could be rephrased"
            )
    result = dataclasses.replace(result, accepted=accepted)
    by_type = Counter(it.type for it in result.accepted)
    # how varied the questions are, before and after the filters (the embeddings are the dedup filter's, cached)
    varied = {
        "candidates": diversity_by_type(ctx.inputs["candidates.jsonl"], embedder.embed),
        "accepted": diversity_by_type(result.accepted, embedder.embed),
    }
    return StageOutput(
        {
            "items.jsonl": result.accepted,
            "rejected.jsonl": rejected,
            "funnel.json": {
                "funnel": result.funnel,
                "stats": result.stats,
                "diversity": varied,
                "formulation": formulations,
            },
        },
        counts={
            "candidates": len(ctx.inputs["candidates.jsonl"]),
            "accepted": len(result.accepted),
            "rejected": len(rejected),
            **{f"accepted_{k}": v for k, v in sorted(by_type.items())},
            **{f"variants_{f}": sum(v.formulation == f for v in variants) for f in ("search", "noisy") if mix.get(f)},
        },
        info={"funnel": result.funnel, "diversity": varied["accepted"]["all"]},
    )


STAGE = Stage(
    name="filter",
    inputs=("documents.jsonl", "sections.jsonl", "candidates.jsonl", "generation_failures.jsonl"),
    outputs=("items.jsonl", "rejected.jsonl", "funnel.json"),
    config=("filter", "generate", "embed"),
    run=run,
    fingerprint=embedder_fingerprint,
    description="accepted items and rejections",
)
