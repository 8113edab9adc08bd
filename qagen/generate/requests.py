"""Planning LLM requests: which requests to send for the sampled sections, and with what prompt.

One long-form request per section (several candidates, a persona drawn per request), one
factoid request per extracted entity, ``mcq_per_section`` MCQ requests per section with a
Bloom level and scenario assigned from the target mix. S3 requests combine the section with
related sections from other documents of the same topic, fold and split; when a section has
none, the request falls back to S2 and records why. Each prompt names the language of its
(anchor) section's document, and ``meta["language"]`` records its code. Planning is pure and
deterministic.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from qagen.config import GenerateConfig, LLMConfig
from qagen.entities import extract_entities, incidental
from qagen.generate.context import GenerationContext
from qagen.generate.lang import load as load_language
from qagen.generate.mix import BLOOM_DESCRIPTIONS, BLOOM_NAMES, SCENARIO_DESCRIPTIONS, assign, question_task
from qagen.generate.prompts import (
    DEFAULT_FEW_SHOT,
    Prompt,
    format_examples,
    language_few_shots,
    load_few_shot,
    load_prompt,
)
from qagen.generate.reply_models import REPLY_MODELS, long_form_reply, reply_schema
from qagen.generate.subjects import clean_heading
from qagen.generate.text import shorten
from qagen.language import language_name
from qagen.llm.base import LLMRequest, Message
from qagen.records import Section

RequestKind = Literal["long_form", "factoid", "mcq", "multi_hop", "comparison"]
ENTITY_NAMES = {"phone": "phone number", "email": "e-mail address", "url": "web address"}
NO_S3_PARTNER = "no section of the same topic, fold and split in another document"


@dataclass(frozen=True)
class PlannedRequest:
    """One LLM request and what its reply will become.

    Attributes:
        request: The request to send.
        response_model: The pydantic model the reply must validate against.
        kind: The item type the reply becomes.
        section_ids: The sections the prompt shows, the anchor (sampled) section first.
        meta: Persona, prompt hash, Bloom level, scenario (and ``scenario_requested`` /
            ``scenario_fallback`` when an S3 request fell back), entity, request key, and
            ``language``: the code of the language the prompt asks for (the anchor's document's).
    """

    request: LLMRequest
    response_model: type[BaseModel]
    kind: RequestKind
    section_ids: tuple[str, ...]
    meta: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)


def plan_requests(
    ctx: GenerationContext,
    prompts_dir: str | Path,
    config: GenerateConfig,
    *,
    llm: LLMConfig | None = None,
    keep_per_section: int | None = None,
) -> list[PlannedRequest]:
    """Plan every request for the sampled sections of ``ctx``.

    Args:
        ctx: The generation context.
        prompts_dir: Folder with ``long_form.md``, ``factoid.md``, ``mcq.md`` (and the default
            few-shot file ``few_shot_long_form.json``).
        config: The ``[generate]`` config section.
        llm: The ``[llm]`` section, for temperature and max_tokens (defaults when None).
        keep_per_section: Items the filters keep per section and type (``filter.keep_per_section``): a
            long-form request asks for no more questions than that (asking more only to throw them away).

    Returns:
        Requests in sampled-section order: long-form, factoid, then MCQ requests last.
    """
    llm = llm or LLMConfig()
    prompts = _load(prompts_dir, config)
    planned: list[PlannedRequest] = []
    persona_of: dict[str, str] = {}
    if config.persona_mix and "long_form" in config.types:  # user categories met by construction
        from qagen.generate.mix import assign_by_share

        asked = [sid for sid in ctx.sampled if ctx.sections[sid].text.strip()]
        persona_of = assign_by_share(asked, config.persona_mix, ctx.seed)
    # no more requests (long-form questions, factoids) per section than the filters keep: the rest would be thrown away
    n_questions = min(config.long_form_per_section, keep_per_section or config.long_form_per_section)
    n_factoids = min(config.factoid_per_section, keep_per_section or config.factoid_per_section)
    for sid in ctx.sampled:
        section = ctx.sections[sid]
        if not substantial(section, config):
            continue  # a heading with a line under it: nothing a user asks about (the model can only rephrase it)
        if "long_form" in config.types:
            persona = persona_of.get(sid) or _drawn_persona(ctx, config, sid)
            planned.append(_long_form(ctx, section, prompts, config, llm, persona, n_questions))
        if "factoid" in config.types:
            planned += _factoids(ctx, section, prompts["factoid"], config, llm, n_factoids)
    if "long_form" in config.types and config.multi_hop_share > 0:
        planned += _pairs(ctx, prompts["multi_hop"], config, llm, persona_of, "multi_hop", config.multi_hop_share)
    if "long_form" in config.types and config.comparison_share > 0:
        planned += _pairs(ctx, prompts["comparison"], config, llm, persona_of, "comparison", config.comparison_share)
    if "mcq" in config.types and config.mcq_per_section > 0:
        planned += _mcqs(ctx, prompts["mcq"], config, llm)
    return planned


def _pairs(
    ctx: GenerationContext,
    prompt: Prompt,
    config: GenerateConfig,
    llm: LLMConfig,
    persona_of: dict[str, str],
    kind: RequestKind,
    share: float,
) -> list[PlannedRequest]:
    """Two-section requests for ``share`` of the sampled sections, so both are loaded in the same iteration:
    multi-hop, with the most similar section of its topic and fold (its own document's first); comparison,
    with the most similar section of another document of its topic and fold."""
    corpus = _Corpus(ctx, config)
    sampled = [sid for sid in ctx.sampled if substantial(ctx.sections[sid], config) and sid in ctx.folds]
    wanted = round(share * len(sampled))
    order = sorted(sampled, key=lambda sid: random.Random(f"{ctx.seed}:{kind}:{sid}").random())
    out: list[PlannedRequest] = []
    for sid in order:
        if len(out) >= wanted:
            break
        partner = corpus.hop_partner(sid) if kind == "multi_hop" else next(iter(corpus.s3_partners(sid, 1)), None)
        if partner is None:
            continue
        persona = persona_of.get(sid) or _drawn_persona(ctx, config, sid)
        section_ids = (sid, partner)
        language = ctx.language_of(sid)
        values = {"language_name": language_name(language), "persona": persona,
                  "passages": _passages(ctx, section_ids, config)}  # fmt: skip
        key = f"{kind}:{sid}:{partner}"
        out.append(
            PlannedRequest(
                request=_request(prompt, values, kind, llm, ctx.seed, 0, key),
                response_model=REPLY_MODELS[kind],
                kind=kind,
                section_ids=section_ids,
                meta={"persona": persona, "prompt_hash": prompt.hash, "request_key": key, "language": language},
            )
        )
    return out


def _load(prompts_dir: str | Path, config: GenerateConfig) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if "long_form" in config.types:
        path = Path(config.few_shot_file) if config.few_shot_file else Path(prompts_dir) / DEFAULT_FEW_SHOT
        examples, raw = load_few_shot(path) if config.few_shot_file or path.is_file() else ([], b"")
        # examples in the section's language where the prompts folder has them (not with a file of one's own)
        by_language: dict[str, str] = {}
        for code, lang_path in ({} if config.few_shot_file else language_few_shots(prompts_dir)).items():
            lang_examples, lang_raw = load_few_shot(lang_path)
            by_language[code] = format_examples(lang_examples)
            raw += b"\0" + code.encode() + b"\0" + lang_raw
        out["long_form"] = load_prompt(prompts_dir, "long_form", extra=raw)
        out["examples"] = format_examples(examples)
        out["examples_by_language"] = by_language
    for name in ("factoid", "mcq"):
        if name in config.types:
            out[name] = load_prompt(prompts_dir, name)
    for name, share in (("multi_hop", config.multi_hop_share), ("comparison", config.comparison_share)):
        if "long_form" in config.types and share > 0:
            out[name] = load_prompt(prompts_dir, name)
    return out


def _request(
    prompt: Prompt,
    values: dict[str, Any],
    kind: RequestKind,
    llm: LLMConfig,
    seed: int,
    index: int,
    tag: str,
    schema: dict[str, Any] | None = None,
) -> LLMRequest:
    system, user = prompt.render(**values)
    return LLMRequest(
        messages=(Message("system", system), Message("user", user)),
        schema=schema if schema is not None else reply_schema(kind),
        schema_name=f"{kind}_reply",
        temperature=llm.temperature,
        max_tokens=llm.max_tokens,
        seed=seed,
        sample_index=index,
        tag=tag,
    )


def substantial(section: Section, config: GenerateConfig) -> bool:
    """A section with enough text of its own to ask about (``generate.min_section_words``)."""
    return len(section.text.split()) >= config.min_section_words


def subject_rule(ctx: GenerationContext, doc_id: str) -> str:
    """How a question names what it is about: the corpus's product or organisation where the document names it
    (:meth:`GenerationContext.subject_of`), else the one the passage gives."""
    subject = ctx.subject_of(doc_id)
    if subject:
        return f"it names {subject} where a user would, so that it makes sense on its own"
    return "it names the product, organisation or service it concerns where the passage gives it"


def corpus_personas(ctx: GenerationContext, config: GenerateConfig, doc_id: str | None = None) -> list[str]:
    """``generate.personas``, or personas of this corpus: users of its product (of ``doc_id``'s, when given), new
    and experienced (no domain is assumed: a persona sets tone and expertise, never a life story)."""
    if config.personas:
        return list(config.personas)
    subject = ctx.subject if doc_id is None else ctx.subject_of(doc_id)
    if subject:
        return [f"person using {subject} for the first time", f"experienced {subject} user"]
    return ["person reading these documents for the first time", "person who knows these documents well"]


def _section_values(ctx: GenerationContext, section: Section, config: GenerateConfig) -> dict[str, Any]:
    return {
        "subject_rule": subject_rule(ctx, section.doc_id),
        "language_name": language_name(ctx.language_of(section.id)),
        "document_title": ctx.title(section.doc_id) or section.doc_path,
        "heading": clean_heading(section.heading) or "(no heading)",  # no section number for a model to copy
        "section_text": shorten(section.text.strip(), config.max_section_chars),
    }


def _drawn_persona(ctx: GenerationContext, config: GenerateConfig, section_id: str) -> str:
    """One of the personas of a section's document (seeded), when no persona mix assigns one."""
    personas = corpus_personas(ctx, config, ctx.sections[section_id].doc_id)
    return random.Random(f"{ctx.seed}:persona:{section_id}").choice(personas)


def _long_form(
    ctx: GenerationContext,
    section: Section,
    prompts: dict[str, Any],
    config: GenerateConfig,
    llm: LLMConfig,
    persona: str,
    n_questions: int,
) -> PlannedRequest:
    values = _section_values(ctx, section, config) | {
        "persona": persona,
        "n_questions": _count(n_questions),
        "examples": prompts["examples_by_language"].get(ctx.language_of(section.id).split("-")[0], prompts["examples"]),
    }
    prompt: Prompt = prompts["long_form"]
    key = f"long_form:{section.id}"
    model = long_form_reply(n_questions)  # no more candidates than asked for
    return PlannedRequest(
        request=_request(prompt, values, "long_form", llm, ctx.seed, 0, key, model.model_json_schema()),
        response_model=model,
        kind="long_form",
        section_ids=(section.id,),
        meta={
            "persona": persona,
            "prompt_hash": prompt.hash,
            "request_key": key,
            "language": ctx.language_of(section.id),
        },
    )


def _count(n: int) -> str:
    """ "1 question" / "3 different questions" for the prompt (its instructions are English)."""
    return "one question" if n == 1 else f"{n} different questions"


def _factoids(
    ctx: GenerationContext, section: Section, prompt: Prompt, config: GenerateConfig, llm: LLMConfig, n: int
) -> list[PlannedRequest]:
    lang = load_language(ctx.language_of(section.id))
    markers = lang.words.get("example_markers", ()) if lang else ()
    entities = [
        e
        for e in extract_entities(section.text, config.entity_kinds, config.phone_region)
        if incidental(section.text, e, markers) is None  # no question about an example's or a footnote's address
    ]
    unique = list({e.normalized: e for e in reversed(entities)}.values())[::-1]  # first occurrence of each
    out: list[PlannedRequest] = []
    for entity in unique[:n]:
        values = _section_values(ctx, section, config) | {
            "entity": entity.text,
            "entity_kind_name": ENTITY_NAMES[entity.kind],
        }
        key = f"factoid:{section.id}:{entity.kind}:{entity.normalized}"
        meta = {
            "prompt_hash": prompt.hash,
            "request_key": key,
            "entity": entity.text,
            "entity_kind": entity.kind,
            "entity_normalized": entity.normalized,
            "language": ctx.language_of(section.id),
        }
        out.append(
            PlannedRequest(
                _request(prompt, values, "factoid", llm, ctx.seed, 0, key),
                REPLY_MODELS["factoid"],
                "factoid",
                (section.id,),
                meta,
            )
        )
    return out


def _mcqs(ctx: GenerationContext, prompt: Prompt, config: GenerateConfig, llm: LLMConfig) -> list[PlannedRequest]:
    slots = [
        (sid, j) for sid in ctx.sampled if substantial(ctx.sections[sid], config) for j in range(config.mcq_per_section)
    ]
    corpus = _Corpus(ctx, config)
    partners = {sid: corpus.s3_partners(sid, config.s3_documents - 1) for sid, _ in slots}
    cells = assign(len(slots), config.bloom_mix, config.scenario_mix, ctx.seed, [bool(partners[s]) for s, _ in slots])
    out: list[PlannedRequest] = []
    for (sid, j), (bloom, scenario) in zip(slots, cells, strict=True):
        meta: dict[str, Any] = {"prompt_hash": prompt.hash, "bloom": bloom, "scenario": scenario}
        if scenario == "S3" and not partners[sid]:
            meta |= {"scenario": "S2", "scenario_requested": "S3", "scenario_fallback": NO_S3_PARTNER}
        if meta["scenario"] == "S3":
            section_ids: tuple[str, ...] = (sid, *partners[sid])
        elif meta["scenario"] == "S2":
            neighbour = corpus.neighbour(sid)
            section_ids = (sid, neighbour) if neighbour else (sid,)
        else:
            section_ids = (sid,)
        key = f"mcq:{sid}:{j}"
        meta |= {"request_key": key, "language": ctx.language_of(sid)}
        values = {
            "language_name": language_name(meta["language"]),
            "bloom": bloom,
            "bloom_name": BLOOM_NAMES[bloom],
            "bloom_description": BLOOM_DESCRIPTIONS[bloom],
            "scenario": meta["scenario"],
            "scenario_description": SCENARIO_DESCRIPTIONS[meta["scenario"]],
            "question_task": question_task(bloom, meta["scenario"]),
            "passages": _passages(ctx, section_ids, config),
            "subject_rule": subject_rule(ctx, ctx.sections[sid].doc_id),
        }
        out.append(
            PlannedRequest(
                _request(prompt, values, "mcq", llm, ctx.seed, j, key), REPLY_MODELS["mcq"], "mcq", section_ids, meta
            )
        )
    return out


S3_MIN_SHARED = 0.1  # words two documents' sections share (Jaccard) before they are asked together


class _Corpus:
    """Sections grouped by document and by (topic, fold, split), for S2 neighbours and S3 partners."""

    def __init__(self, ctx: GenerationContext, config: GenerateConfig) -> None:
        self.ctx = ctx
        self.by_doc: dict[str, dict[int, str]] = {}
        self.by_group: dict[tuple[int, Any], list[str]] = {}
        self._words: dict[str, set[str]] = {}
        for sid in sorted(ctx.sections):
            section = ctx.sections[sid]
            if sid not in ctx.folds or not section.text.strip() or not substantial(section, config):
                continue
            self.by_doc.setdefault(section.doc_id, {})[section.order] = sid
            if ctx.topic(sid) >= 0:
                self.by_group.setdefault((ctx.topic(sid), ctx.folds[sid]), []).append(sid)

    def words(self, sid: str) -> set[str]:
        if sid not in self._words:
            s = self.ctx.sections[sid]
            self._words[sid] = {w for w in re.findall(r"[^\W\d_]{4,}", f"{s.heading} {s.text}".lower())}
        return self._words[sid]

    def shared(self, sid: str, other: str) -> float:
        """The share of words two sections have in common (Jaccard over words of four letters or more)."""
        a, b = self.words(sid), self.words(other)
        return len(a & b) / max(1, len(a | b))

    def neighbour(self, sid: str) -> str | None:
        """The next (else previous) section of the same document in the same fold, split and topic that shares
        words with it: facts of two unrelated neighbours make a glued question (else the section alone)."""
        anchor = self.ctx.sections[sid]
        doc = self.by_doc.get(anchor.doc_id, {})
        for order in (anchor.order + 1, anchor.order - 1):
            other = doc.get(order)
            if (
                other
                and self.ctx.folds.get(other) == self.ctx.folds[sid]
                and self.ctx.topic(other) == self.ctx.topic(sid)
                and self.shared(sid, other) >= S3_MIN_SHARED
            ):
                return other
        return None

    def hop_partner(self, sid: str) -> str | None:
        """The section most like ``sid`` (shared words) in its topic and fold, its own document's first."""
        topic = self.ctx.topic(sid)
        if topic < 0:
            return None
        doc, words = self.ctx.sections[sid].doc_id, self.words(sid)

        def rank(other: str) -> tuple[bool, float, str]:
            shared = len(words & self.words(other)) / max(1, len(words | self.words(other)))
            return (self.ctx.sections[other].doc_id != doc, -shared, other)

        ranked = sorted(rank(o) for o in self.by_group.get((topic, self.ctx.folds[sid]), []) if o != sid)
        return ranked[0][2] if ranked and ranked[0][1] < 0 else None  # a partner shares some words

    def s3_partners(self, sid: str, n: int) -> list[str]:
        """The most similar section from each of up to ``n`` other documents of the same topic, fold and split."""
        topic = self.ctx.topic(sid)
        if topic < 0:
            return []
        anchor = self.ctx.sections[sid]
        best: dict[str, tuple[float, str]] = {}
        for other in self.by_group.get((topic, self.ctx.folds[sid]), []):
            doc = self.ctx.sections[other].doc_id
            if doc == anchor.doc_id:
                continue
            sim = self.shared(sid, other)
            if sim >= S3_MIN_SHARED and (doc not in best or (sim, other) > best[doc]):
                best[doc] = (sim, other)
        ranked = sorted(best.values(), key=lambda t: (-t[0], t[1]))
        return [other for _, other in ranked[:n]]


def _passages(ctx: GenerationContext, section_ids: tuple[str, ...], config: GenerateConfig) -> str:
    budget = max(500, config.max_section_chars // len(section_ids))
    blocks = []
    for i, sid in enumerate(section_ids, 1):
        s = ctx.sections[sid]
        title = ctx.title(s.doc_id) or s.doc_path
        blocks.append(
            f'Passage {i} (document: "{title}"; section: "{clean_heading(s.heading) or "(no heading)"}")\n'
            f'"""\n{shorten(s.text.strip(), budget)}\n"""'
        )
    return "\n\n".join(blocks)
