"""Validated LLM replies (:mod:`qagen.generate.reply_models`) converted to items.

:func:`items_from_results` turns validated replies into
:class:`~qagen.records.Item` records with full provenance, and failed requests into
:class:`~qagen.records.Rejection` records with ``filter="generation"``. Nothing is coerced:
a reply that does not validate never becomes an item.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel

from qagen.generate.context import GenerationContext, item_id
from qagen.generate.reply_models import REPLY_MODELS, FactoidReply, LongFormReply, MCQReply, MultiHopReply
from qagen.records import GeneratorInfo, Item, Rejection

if TYPE_CHECKING:
    from qagen.generate.requests import PlannedRequest


def items_from_results(
    planned: Sequence[PlannedRequest],
    values: Sequence[BaseModel | None],
    ctx: GenerationContext,
    backend_id: str,
    model: str,
    errors: Sequence[str | None] | None = None,
) -> tuple[list[Item], list[Rejection]]:
    """Turn the engine's results into items, and failed requests into rejections.

    Args:
        planned: The planned requests, in the order they were run.
        values: The validated reply of each request, or None when it failed.
        ctx: The generation context the requests were planned from.
        backend_id: The backend's id (``LLM.id``), recorded as ``generator.backend``.
        model: The model name, recorded as ``generator.model``.
        errors: The engine's one-line error per request (None where it succeeded).

    Returns:
        Items (several per long-form request) and one ``filter="generation"`` rejection
        per failed request, both in request order.
    """
    if len(values) != len(planned) or (errors is not None and len(errors) != len(planned)):
        raise ValueError(
            f"values and errors must have one entry per planned request ({len(planned)}); "
            f"got {len(values)} values and {len(errors) if errors is not None else 'no'} errors"
        )
    items: list[Item] = []
    rejections: list[Rejection] = []
    for i, (plan, value) in enumerate(zip(planned, values, strict=True)):
        generator = GeneratorInfo(
            backend=backend_id,
            model=model,
            prompt_hash=plan.meta.get("prompt_hash", ""),
            persona=plan.meta.get("persona"),
        )
        if value is None:
            reason = (errors[i] if errors is not None else None) or "the request failed without a reply"
            rejections.append(_failed(plan, ctx, generator, reason))
            continue
        expected = REPLY_MODELS[plan.kind]
        if not isinstance(value, expected):
            got = type(value).__name__
            raise TypeError(f"reply {i} of a {plan.kind} request must be a {expected.__name__}; got {got}")
        items += _convert(plan, value, ctx, generator)
    return _drop_repeats(items, rejections)


def _drop_repeats(items: list[Item], rejections: list[Rejection]) -> tuple[list[Item], list[Rejection]]:
    """A model may write the same question twice for one source; keep the first, record the rest."""
    seen: set[str] = set()
    kept: list[Item] = []
    for n, item in enumerate(items):
        if item.id in seen:
            data = {**vars(item), "id": f"{item.id}-repeat{n}"}
            rejections.append(Rejection(**data, filter="exact_repeat", reason="same question as an earlier item"))
        else:
            seen.add(item.id)
            kept.append(item)
    return kept, rejections


def _base(plan: PlannedRequest, ctx: GenerationContext, generator: GeneratorInfo, question: str) -> dict:
    fold, split = ctx.folds[plan.section_ids[0]]
    return {
        "id": item_id(plan.kind, plan.section_ids, question),
        # a multi-hop or comparison question is long-form
        "type": "long_form" if plan.kind in ("multi_hop", "comparison") else plan.kind,
        "question": question,
        "source": ctx.source(plan.section_ids),
        "fold": fold,
        "split": split,
        "generator": generator,
        "language": plan.meta.get("language", ctx.language),
    }


def _convert(plan: PlannedRequest, value: BaseModel, ctx: GenerationContext, generator: GeneratorInfo) -> list[Item]:
    if isinstance(value, LongFormReply):
        return [
            Item(**_base(plan, ctx, generator, c.question), answer=c.answer, score=float(c.score))
            for c in value.candidates
        ]
    if isinstance(value, FactoidReply):
        return [
            Item(
                **_base(plan, ctx, generator, value.question),
                answer=value.answer,
                entity=plan.meta.get("entity"),
                entity_kind=plan.meta.get("entity_kind"),
            )
        ]
    if isinstance(value, MultiHopReply):  # a question over two sections, each quote kept for the check
        base = _base(plan, ctx, generator, value.question)
        evidence = f"1: {value.evidence_1}\n2: {value.evidence_2}"
        hops = "comparison" if plan.kind == "comparison" else "multi"
        return [Item(**base, answer=value.answer, rationale=evidence, hops=hops)]
    assert isinstance(value, MCQReply)
    options = [value.correct_answer, *value.distractors]
    rng = random.Random(f"{ctx.seed}:options:{plan.meta.get('request_key', '')}:{value.question}")
    rng.shuffle(options)
    asked = (plan.meta.get("bloom"), plan.meta.get("scenario"))
    scenario = achieved_scenario(asked[1], value.rationale, plan.section_ids, ctx, value.correct_answer)
    bloom = achieved_bloom(asked[0], scenario, value.correct_answer, value.rationale)
    return [
        Item(
            **_base(plan, ctx, generator, value.question),
            answer=value.correct_answer,
            options=tuple(options),
            answer_index=options.index(value.correct_answer),
            bloom=bloom,
            scenario=scenario,
            labels_asked=f"{asked[0]}/{asked[1]}" if (bloom, scenario) != asked else None,
            rationale=value.rationale,
        )
    ]


def achieved_bloom(asked: str | None, scenario: str | None, answer: str, rationale: str) -> str | None:
    """The level an item's evidence allows, from what it quotes: relating facts (B4) needs two of them; a key
    stated word for word in a one-fact quote is recalled (B1), not put in other words (B2). Applying to a
    situation (B3) is the stem's, which no quote shows: it stays."""
    if asked not in ("B2", "B4") or scenario != "S1" or not rationale.strip():
        return asked
    from qagen.filters.grounding import QUOTE_MIN_RATIO, quoted

    return "B1" if quoted(answer, rationale) >= QUOTE_MIN_RATIO else "B2"


def achieved_scenario(
    asked: str | None, rationale: str, section_ids: Sequence[str], ctx: GenerationContext, answer: str = ""
) -> str | None:
    """The scenario the item's quoted evidence shows: S3 only when it quotes sections of two documents or more,
    S2 when it quotes two sentences or more of one document, else S1 (a label is checked, never assumed). A key
    that one quoted sentence holds by itself (its words, or all its content lemmas) rests on one fact: S1."""
    if asked not in ("S2", "S3") or not rationale.strip():
        return asked
    from qagen.filters.grounding import QUOTE_MIN_RATIO, is_span, lemmas, quoted

    pieces = [p for p in re.split(r"(?<=[.!?;:])\s+|\n+|\s*(?:…|\.\.\.)\s*", rationale) if len(p.strip()) >= 12]
    docs: set[str] = set()
    found: list[str] = []
    for piece in pieces:
        hits = [
            sid
            for sid in section_ids
            if sid in ctx.sections and quoted(piece, ctx.sections[sid].text) >= QUOTE_MIN_RATIO
        ]
        if hits:
            found.append(piece)
            docs |= {ctx.sections[sid].doc_id for sid in hits}
    language = ctx.language_of(section_ids[0]) if section_ids else None
    wanted = lemmas(answer, language) if answer else set()
    one_holds_it = answer and any(
        is_span(answer, piece) or (wanted and wanted <= lemmas(piece, language)) for piece in found
    )
    if one_holds_it:
        return "S1"
    if asked == "S3" and len(docs) >= 2:
        return "S3"
    return "S2" if len(found) >= 2 else "S1"


def _failed(plan: PlannedRequest, ctx: GenerationContext, generator: GeneratorInfo, reason: str) -> Rejection:
    base = _base(plan, ctx, generator, "")
    base["id"] = item_id(plan.kind, plan.section_ids, f"request:{plan.meta.get('request_key', '')}")
    return Rejection(
        **base,
        answer="",
        filter="generation",
        reason=reason,
        bloom=plan.meta.get("bloom"),
        scenario=plan.meta.get("scenario"),
        entity=plan.meta.get("entity"),
        entity_kind=plan.meta.get("entity_kind"),
    )
