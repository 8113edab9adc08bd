"""filter: accepted items and rejections with reasons (``items.jsonl``, ``rejected.jsonl``, ``funnel.json``)."""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import TYPE_CHECKING

from qagen.runner import Stage, StageContext, StageOutput
from qagen.stages.embed import fingerprint as embedder_fingerprint
from qagen.stages.embed import make_embedder
from qagen.stages.generate import filter_context, generate_config

if TYPE_CHECKING:
    from qagen.config import GenerateConfig
    from qagen.records import Item, Section


def run(ctx: StageContext) -> StageOutput:
    from qagen.diversity import diversity_by_type
    from qagen.filters import run_filters
    from qagen.filters.base import reject
    from qagen.generate.premises import achieved as achieved_premises
    from qagen.generate.variants import achieved, make_variants

    sections = ctx.inputs["sections.jsonl"]
    gen_cfg = generate_config(ctx)
    embedder = make_embedder(ctx)
    fctx = filter_context(ctx, embedder.embed)
    result = run_filters(ctx.inputs["candidates.jsonl"], fctx, ctx.config.filter)
    rejected = list(ctx.inputs["generation_failures.jsonl"]) + result.rejected
    mix = gen_cfg.formulation_mix
    variants, failed = make_variants(result.accepted, mix, ctx.config.seed)
    accepted = [*result.accepted, *variants]
    rejected += [reject(v, "variant", why) for v, why in failed]
    formulations = achieved([it for it in accepted if it.type in ("long_form", "factoid")], mix)
    chosen = gen_cfg.model_fields_set  # a mix the user set is warned about when missed; the default's is a note
    for name, row in formulations.items():
        if abs(row["share"] - row["asked"]) > 0.05 and (row["asked"] or row["items"]):
            ctx.log(
                f"{'warning: ' if 'formulation_mix' in chosen else ''}filter: {name} questions are "
                f"{row['share']:.0%} of the long-form and factoid items, asked {row['asked']:.0%} "
                "(generate.formulation_mix): too few questions could be rephrased"
            )
    premise_mix = gen_cfg.premise_mix
    false_premises, not_made = _false_premises(accepted, sections, gen_cfg, ctx.config.seed)
    accepted += false_premises
    rejected += [reject(v, "premise", why) for v, why in not_made]
    premise_rows = achieved_premises(accepted, premise_mix)
    if premise_rows["false"]["asked"] and abs(premise_rows["false"]["share"] - premise_rows["false"]["asked"]) > 0.05:
        ctx.log(
            f"{'warning: ' if 'premise_mix' in chosen else ''}filter: false premises are "
            f"{premise_rows['false']['share']:.0%} of the factoid and MCQ items, "
            f"asked {premise_rows['false']['asked']:.0%} (generate.premise_mix): too few questions in a frame with "
            "a wrong value to assert (see rejected.jsonl, filter premise)"
        )
    persona_rows = None
    if gen_cfg.persona_mix:  # user categories: asked per request, achieved among the accepted long-form questions
        from qagen.generate.mix import achieved_shares

        asked_by = [it.generator.persona for it in accepted if it.type == "long_form" and it.variant_of is None]
        persona_rows = achieved_shares(asked_by, gen_cfg.persona_mix)
        off = [k for k, r in persona_rows.items() if abs(r["share"] - r["asked"]) > 0.05]
        if off:
            ctx.log(
                f"warning: filter: personas {', '.join(off)} are more than 5 points off generate.persona_mix "
                f"among the accepted long-form questions ({len(asked_by)}; the offline generator writes none)"
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
                "premise": premise_rows,
                **({"persona": persona_rows} if persona_rows is not None else {}),
            },
        },
        counts={
            "candidates": len(ctx.inputs["candidates.jsonl"]),
            "accepted": len(result.accepted),
            "accepted_test": sum(it.split == "test" and it.variant_of is None for it in result.accepted),
            "rejected": len(rejected),
            # of those, variants and false premises that could not be made from an accepted item (no candidate lost)
            "derived_not_made": len(failed) + len(not_made),
            **{f"accepted_{k}": v for k, v in sorted(by_type.items())},
            **{
                f"variants_{f}": sum(v.formulation == f for v in variants)
                for f in ("search", "noisy", "verbose")
                if mix.get(f)
            },
            **({"false_premises": len(false_premises)} if premise_mix.get("false") else {}),
        },
        info={"funnel": result.funnel, "diversity": varied["accepted"]["all"]},
    )


def _false_premises(
    items: list[Item], sections: list[Section], gen_cfg: GenerateConfig, seed: int
) -> tuple[list[Item], list[tuple[Item, str]]]:
    """False-premise variants as ``generate.premise_mix`` asks, and those not made with why; the corpus's values
    are read only then."""
    from qagen.entities import extract_entities
    from qagen.generate.premises import asked_share, make_false_premises

    share = asked_share(gen_cfg.premise_mix)
    if not share:
        return [], []
    kinds = [k for k in gen_cfg.entity_kinds if k in ("phone", "email", "url")]
    values: dict[str, list[tuple[str, str, str, str]]] = {k: [] for k in kinds}
    for s in sections:
        for e in extract_entities(s.text, kinds, gen_cfg.phone_region):
            around = s.text[max(0, e.start - 120) : e.end + 120]
            values[e.kind].append((s.doc_id, e.text, e.normalized, around))
    return make_false_premises(items, share, {s.id: s for s in sections}, values, seed)


STAGE = Stage(
    name="filter",
    inputs=("documents.jsonl", "sections.jsonl", "candidates.jsonl", "generation_failures.jsonl"),
    outputs=("items.jsonl", "rejected.jsonl", "funnel.json"),
    config=("filter", "generate", "embed"),
    run=run,
    fingerprint=embedder_fingerprint,
    description="accepted items and rejections",
)
