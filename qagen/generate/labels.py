"""The label judge: with an LLM backend, each multiple-choice item's Bloom level and scenario are checked.

The structural checks (:func:`qagen.generate.replies.achieved_scenario`, :func:`~qagen.generate.replies.achieved_bloom`)
read only what a rationale quotes; a key in other words, or a second quoted sentence that the answer does not need,
escapes them. So the items of a build are sent in batches of :data:`BATCH` to the judge (``prompts/labels.md``,
the build's LLM), which says what each question really asks; the item takes the judged labels (a pair that
contradicts itself, B4 at S1 or B1 at S2/S3, is moved to the nearest level its scenario allows) and keeps the
requested ones in ``labels_asked``. A judgement that fails leaves the structural labels, and is counted as
failed, never as a verdict. ``generate.label_judge = false`` keeps the structural checks only.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from qagen.generate.mix import COMPATIBLE

if TYPE_CHECKING:
    from qagen.config import LLMConfig
    from qagen.generate.context import GenerationContext
    from qagen.generate.prompts import Prompt
    from qagen.llm.base import LLMRequest
    from qagen.records import Item

BATCH = 8  # questions per judge request: fewer requests than one each, few enough to judge with care
PASSAGE_CHARS = 1500


class _Label(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    question: int = Field(ge=1)
    bloom: Literal["B1", "B2", "B3", "B4"]
    scenario: Literal["S1", "S2", "S3"]
    reason: str = Field(max_length=300)


class LabelReply(BaseModel):
    """The judge's labels, one entry per question of the batch, in order."""

    model_config = ConfigDict(extra="forbid", strict=True)

    labels: list[_Label] = Field(min_length=1, max_length=BATCH)


def excerpt(text: str, rationale: str | None, limit: int = PASSAGE_CHARS) -> str:
    """At most ``limit`` characters of a passage, around what the item's rationale quotes of it when the
    passage is longer: the judge must see the evidence (a cut after the first 1,500 characters had hidden it
    from the judge's view for questions about a long section's end). Cuts are marked with "…"."""
    if len(text) <= limit:
        return text
    at = _quoted_at(text, rationale or "")
    start = 0 if at is None else max(0, min(at - limit // 3, len(text) - limit))
    cut = text[start : start + limit]
    return ("…" if start else "") + cut + ("…" if start + limit < len(text) else "")


def _quoted_at(text: str, rationale: str) -> int | None:
    """Where in ``text`` the rationale's first quoted piece of 30+ characters starts (spaces and line breaks
    compared loosely), or None."""
    for piece in re.split(r"\s*(?:…|\.\.\.|\[\.\.\.\])\s*", rationale):
        probe = " ".join(piece.strip().strip("\"'“”«»").split())[:60]
        if len(probe) >= 30 and (found := re.search(r"\s+".join(map(re.escape, probe.split(" "))), text)):
            return found.start()
    return None


def _block(k: int, item: Item, ctx: GenerationContext) -> str:
    options = "\n".join(f"  {chr(65 + i)}. {o}" for i, o in enumerate(item.options or ()))
    passages = "\n".join(
        f'  Passage (document: "{ctx.title(ctx.sections[s].doc_id)}"): """'
        f'{excerpt(ctx.sections[s].text, item.rationale)}"""'
        for s in item.source.section_ids
        if s in ctx.sections
    )
    return f"Question {k}: {item.question}\n{options}\n  Correct answer: {item.answer}\n{passages}"


def label_requests(
    items: Sequence[Item], ctx: GenerationContext, prompt: Prompt, llm: LLMConfig
) -> list[tuple[list[Item], LLMRequest]]:
    """The judge's requests: the multiple-choice items in batches of :data:`BATCH`, each with its request."""
    from qagen.llm.base import LLMRequest, Message

    mcqs = [it for it in items if it.type == "mcq"]
    out = []
    for start in range(0, len(mcqs), BATCH):
        batch = mcqs[start : start + BATCH]
        system, user = prompt.render(questions="\n\n".join(_block(k, it, ctx) for k, it in enumerate(batch, 1)))
        request = LLMRequest(
            messages=(Message("system", system), Message("user", user)),
            schema=LabelReply.model_json_schema(),
            schema_name="label_reply",
            temperature=llm.temperature,
            max_tokens=llm.max_tokens,
            seed=ctx.seed,
            tag=f"labels:{start // BATCH}",
        )
        out.append((batch, request))
    return out


def fitted(bloom: str, scenario: str) -> str:
    """``bloom`` moved to the nearest level ``scenario`` allows (:data:`qagen.generate.mix.COMPATIBLE`)."""
    allowed = COMPATIBLE[scenario]
    if bloom in allowed:
        return bloom
    return min(allowed, key=lambda b: abs(int(b[1]) - int(bloom[1])))


def relabelled(
    items: list[Item], batches: list[tuple[list[Item], Any]], replies: Sequence[Any], asked: dict[str, str]
) -> tuple[list[Item], dict[str, int]]:
    """``items`` with the judged labels; ``asked``: the requested "B/S" per item id. Counts: judged, changed,
    failed (questions whose judgement failed keep their structural labels)."""
    judged: dict[str, tuple[str, str]] = {}
    failed = 0
    for (batch, _), reply in zip(batches, replies, strict=True):
        by_number = {lab.question: lab for lab in reply.labels} if isinstance(reply, LabelReply) else {}
        for k, item in enumerate(batch, 1):
            lab = by_number.get(k)
            if lab is None:
                failed += 1
                continue
            judged[item.id] = (fitted(lab.bloom, lab.scenario), lab.scenario)
    out, changed = [], 0
    for item in items:
        if item.id not in judged:
            out.append(item)
            continue
        bloom, scenario = judged[item.id]
        changed += (bloom, scenario) != (item.bloom, item.scenario)
        requested = asked.get(item.id)
        keep = None if requested == f"{bloom}/{scenario}" else requested
        out.append(dataclasses.replace(item, bloom=bloom, scenario=scenario, labels_asked=keep))
    return out, {"label_judged": len(judged), "label_changed": changed, "label_judge_failed": failed}
