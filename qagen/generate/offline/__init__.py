"""The offline generator: questions written from the text itself by a few general rules, no model.

- long_form: a heading that is a question; a task heading in any of its language's forms ("To open a
  file", "Opening a file", "Eine Datei öffnen", "Pour ouvrir un fichier") asked as "How do I ...?";
  how to open the thing a reference page is about; what that thing does; what a defined term is;
- factoid: a phone number, e-mail address or web address with what it is for;
- mcq: where the page's thing is in the menus, or what a term is, with distractors of the same kind
  from other documents.

Rules are data (:mod:`qagen.generate.offline.rules`): every item records the rule that wrote it in
``generator.rule``, and ``generate.offline_rules_off`` switches rules off. Words and frames come from
the language's data folder (:mod:`qagen.generate.lang`); a language without one gets no offline
items, which the generate stage says. Deterministic: the same context gives the same items.
"""

from __future__ import annotations

import random
import re
from collections import Counter, defaultdict
from dataclasses import replace
from typing import TYPE_CHECKING

from qagen.generate.context import GenerationContext, item_id, own_language
from qagen.generate.lang import LanguageData, available, load
from qagen.generate.offline.choice import Pools, contact_choice, definition_choice, menu_choice
from qagen.generate.offline.phrases import PHRASES, Draft, Page, Thing
from qagen.generate.offline.reading import (
    boilerplate,
    clean_heading,
    fold,
    own_body,
    plain_name,
    stop_words,
    written_as,
)
from qagen.generate.offline.rules import enabled, on
from qagen.records import GeneratorInfo, Item, ItemType, Section

if TYPE_CHECKING:
    from qagen.config import GenerateConfig

EXTRACTIVE_NOTICE = (
    "No LLM configured: generating with the offline generator (questions from headings, tasks and definitions, "
    "answers quoted from the sections). Configure [llm] backend for model-written questions."
)
SHORT_SECTION_LETTERS = 40  # letters a section needs before its own language is read
SHORT_SECTION_CONFIDENCE = 0.99
OFFLINE_TYPES: dict[str, tuple[str, ...]] = {code: ("long_form", "factoid", "mcq") for code in available()}


def generate_offline(ctx: GenerationContext) -> list[Item]:
    """Candidate items of every type in ``ctx.config.types`` for each sampled section, in sampling order."""
    rules = enabled(ctx.config.offline_rules_off)
    pages = _pages(ctx, rules)
    stop = {code: stop_words(code) for code in {p.lang.code for p in pages.values()}}
    pools = (
        Pools.build(pages.values(), stop, ctx.config.entity_kinds, ctx.config.phone_region, rules)
        if "mcq" in ctx.config.types
        else None
    )
    items: list[Item] = []
    for sid in ctx.sampled:
        page = pages.get(sid)
        if page is None:
            continue
        if "long_form" in ctx.config.types:
            items += _long_form(ctx, page, rules)
        factoids = _factoids(ctx, page, rules) if on(rules, "contact") else []
        if "factoid" in ctx.config.types:
            items += factoids
        if pools is not None and ctx.config.mcq_per_section > 0:
            items += _mcqs(ctx, page, pools, stop[page.lang.code], rules, factoids)
    unique: dict[str, Item] = {}
    for item in items:  # the first rule to write a question keeps it
        unique.setdefault(item.id, item)
    return list(unique.values())


def _pages(ctx: GenerationContext, rules: frozenset[str]) -> dict[str, Page]:
    """A page view of every prose section in a language with data (sampled ones and distractor sources)."""
    by_doc: dict[str, list[Section]] = defaultdict(list)
    for section in ctx.sections.values():
        by_doc[section.doc_id].append(section)
    product = ctx.subject and written_as(ctx.subject, (s.text for s in ctx.sections.values()))
    # the product a document's questions name: the corpus's, where the document names it itself (a ReportLab
    # guide in a folder of LaTeX manuals is not asked "... in LaTeX?")
    naming = {doc: ctx.subject_of(doc) is not None for doc in by_doc} if on(rules, "own_product") else {}
    pages: dict[str, Page] = {}
    things: dict[tuple[str, str], Thing | None] = {}  # one per document and language: it reads the whole document
    repeated = boilerplate({doc: [s.text for s in secs] for doc, secs in by_doc.items()})
    for doc, secs in sorted(by_doc.items()):
        secs.sort(key=lambda s: s.order)
        langs = [_language(ctx, s) for s in secs]
        # each section's own text: no navigation headings, captions or repeated heading
        own = [_own(s, lang, repeated) for s, lang in zip(secs, langs, strict=True)]
        prose = [s for s in own if s.kind == "prose" and len(s.text.split()) >= 3]
        for i, section in enumerate(own):
            lang = langs[i]
            if lang is None or section.kind != "prose" or not section.text.strip():
                continue
            heading = clean_heading(section.heading)
            skipped = fold(heading) in lang.folded("skip_headings")
            if on(rules, "skip_heading") and skipped and not _describes(heading, lang):
                continue
            following = own[i + 1] if i + 1 < len(own) and own[i + 1].kind == "prose" else None
            if (doc, lang.code) not in things:
                things[(doc, lang.code)] = _thing(ctx.title(doc), secs, lang)
            thing = things[(doc, lang.code)]
            first = bool(prose) and prose[0].id == section.id
            own_product = product if naming.get(doc, True) else None
            unnamed = bool(product) and own_product is None  # the corpus has a product this document never names
            pages[section.id] = Page(section, heading, lang, thing, own_product, following, first, rules, unnamed)
    return pages


def _own(section: Section, lang: LanguageData | None, repeated: frozenset[str]) -> Section:
    if lang is None or section.kind != "prose":
        return section
    captions = lang.words.get("caption_words", ())
    return replace(section, text=own_body(section.text, section.heading, captions, repeated))


def _language(ctx: GenerationContext, section: Section) -> LanguageData | None:
    """The data of the language to ask a section in: its document's, unless its own text, however short, is
    surely in another language of the corpus (a French help page's short sections under English captions)."""
    code = ctx.language_of(section.id)
    text = f"{section.heading}\n{section.text}"
    own = own_language(text, code, ctx.corpus_languages, SHORT_SECTION_LETTERS, SHORT_SECTION_CONFIDENCE, 2000)
    return load(own) or load(code)


def _describes(heading: str, lang: LanguageData) -> bool:
    return fold(heading) in lang.folded("description_headings")


def _thing(title: str, sections: list[Section], lang: LanguageData) -> Thing | None:
    """The page's thing: its title as a name (one to five words) and the generic noun its text uses most."""
    name = plain_name(title)
    leading = name.split(" ", 1)
    if len(leading) > 1 and fold(leading[0]) in lang.folded("definition_articles"):
        name = leading[1]  # "The GIH Dialog Box": the frame says the article
    if not name or not 1 <= len(name.split()) <= 5 or name.endswith("?"):
        return None
    nouns = lang.words.get("generic_nouns") or {}
    folded = {fold(n): n for n in nouns}
    named = _named_in_title(name, folded, nouns, lang)
    if named is not None:
        return named
    demonstratives = lang.folded("demonstratives")
    name_words = [fold(w) for w in re.findall(r"[^\W\d_][\w-]*", name)]
    counts: Counter[str] = Counter()
    said_of_it: set[str] = set()
    surface: dict[str, Counter[str]] = defaultdict(Counter)
    for section in sections:
        tokens = re.findall(r"[^\W\d_][\w-]*", section.text)
        keys = [fold(w) for w in tokens]
        for i, word in enumerate(tokens):
            key = keys[i]
            if key not in folded:
                continue
            # "this filter", "the Align tool", "le filtre Flou": the page calls its thing so; a bare
            # mention ("use the tool") may be of another thing and counts less
            pointed = bool(i) and keys[i - 1] in demonstratives
            width = len(name_words)
            named = keys[max(0, i - width) : i] == name_words or keys[i + 1 : i + 1 + width] == name_words
            counts[folded[key]] += 3 if pointed or named else 1
            surface[folded[key]][word] += 1
            if pointed or named:
                said_of_it.add(folded[key])
    counts = Counter({noun: n for noun, n in counts.items() if noun in said_of_it})
    if not counts:
        return None
    noun, n = counts.most_common(1)[0]
    if n < 3 or any(fold(w).startswith(fold(noun)) for w in name.split()):  # "Layer Modes": no "mode" after it
        return None
    articles = nouns[noun]
    written = noun if not lang.words.get("keeps_noun_case") else surface[noun].most_common(1)[0][0]
    return Thing(name, written, articles[0], articles[1] if len(articles) > 1 else articles[0])


def _named_in_title(name: str, folded: dict[str, str], nouns: dict, lang: LanguageData) -> Thing | None:
    """A title that says what the thing is ("The multicol package", "Align tool"): the noun from it, the rest
    as the name."""
    words_ = name.split()
    articles = {fold(a).rstrip("'’") for pair in nouns.values() for a in pair}
    for i, word in enumerate(words_):
        noun = folded.get(fold(word))
        if noun is None:
            continue
        rest = [w for j, w in enumerate(words_) if j != i and fold(w) not in articles]
        if len(rest) == 1 and (i == len(words_) - 1 or i == 0):
            pair = nouns[noun]
            written = word if lang.words.get("keeps_noun_case") else noun
            return Thing(rest[0], written, pair[0], pair[1] if len(pair) > 1 else pair[0], titled=True)
    return None


def _vetoed(draft_parts: tuple[str, ...], page: Page, rules: frozenset[str]) -> str | None:
    """The veto that rejects a draft (by the pieces it took from the document), or None."""
    pieces = " ".join(draft_parts)
    tokens = {fold(w) for w in re.findall(r"[^\W\d_][\w'’-]*", pieces)}
    if on(rules, "no_pointer") and tokens & page.lang.folded("pointers"):
        return "no_pointer"
    if on(rules, "no_garble") and garbled(pieces):
        return "no_garble"
    return None


_GLUED_MARK = re.compile(r"(?<![\w-])\d{1,2}[A-Z][a-z]{2,}")
_GLUED_MARKS = re.compile(r"(?<![\w-])\d{1,2}[a-z]{3,}\s+\d{1,2}[a-z]{3,}")


def garbled(text: str) -> bool:
    """A footnote or page mark glued to a word ("the 1See online", "the 1see 2see"): text the parse ran together."""
    return bool(_GLUED_MARK.search(text) or _GLUED_MARKS.search(text))


def _long_form(ctx: GenerationContext, page: Page, rules: frozenset[str]) -> list[Item]:
    drafts: list[Draft] = []
    for name, phrase in PHRASES.items():
        if not on(rules, name):
            continue
        draft = phrase(page)
        if draft is not None and _vetoed(draft.parts, page, rules) is None:
            drafts.append(draft)
    if not on(rules, "name_the_product"):
        drafts = [_without_product(d, page) for d in drafts]
    items = [_item(ctx, "long_form", page, d.question, d.answer, d.section_ids, d.rule, score=d.score) for d in drafts]
    return items[: ctx.config.long_form_per_section]


def _without_product(draft: Draft, page: Page) -> Draft:
    in_product = (page.lang.frame("in_product") or "").format(product=page.product or "")
    if not page.product or not in_product:
        return draft
    return replace(draft, question=draft.question.replace(in_product, "", 1))


_PREFIX = re.compile(r"^\S+\s+[“\"«„]?(?P<what>.+?)[”\"»“]?\s*[,:]\s+\S")
_QUOTED = re.compile(r"[“\"«„‘](?P<what>[^”\"»“’]{3,})[”\"»“’]")


def quotes_a_title(question: str, titles: tuple[str, ...]) -> bool:
    """The question puts a title or heading before it as context ("For 13.6. Little Planet, ...", "Per
    “Layout di pagina”: ...", "For AromaVita Warranty, Repairs and Returns, ...") or quotes one ("... sobre
    «una guía esencial»?")."""
    names = [n for n in ({fold(plain_name(t)) for t in titles if t} | {fold(t) for t in titles if t}) if n]
    prefix = _PREFIX.match(question)
    if prefix and any(
        fold(plain_name(prefix["what"])) and n.startswith(fold(plain_name(prefix["what"]))) for n in names
    ):
        return True
    return any(fold(plain_name(m["what"])) in names for m in _QUOTED.finditer(question))


def _asks_about_heading(question: str, heading: str, page: Page) -> bool:
    """The contact question's topic is the section's heading where that heading is a label or a task ("... write to
    about feedback", "... about sending a bug report"); a contact page's heading is no topic, so it stays."""
    from qagen.generate.factoid_words import contact_headings
    from qagen.generate.offline.phrases import task_of

    head = clean_heading(heading).rstrip(".:?!")
    if len(head) < 3 or contact_headings().match(head) or (page.thing and fold(page.thing.name) in fold(head)):
        return False
    # a one-word label ("Feedback", "Substances") or a task ("Sending a bug report") is a section's name, not what
    # one writes about; a topic heading ("Lost or stolen devices", "Health and safety") stays
    if len(head.split()) > 1 and task_of(head, page.lang) is None:
        return False
    return re.search(rf"(?<!\w){re.escape(fold(head))}(?!\w)", fold(question)) is not None


def _factoids(ctx: GenerationContext, page: Page, rules: frozenset[str]) -> list[Item]:
    from qagen.entities import extract_entities
    from qagen.generate.factoids import entity_question

    section = page.section
    entities = extract_entities(section.text, ctx.config.entity_kinds, ctx.config.phone_region)
    items: list[Item] = []
    seen: set[str] = set()
    for entity in entities[: ctx.config.factoid_per_section * 3]:
        if entity.normalized in seen:
            continue
        seen.add(entity.normalized)
        title = ctx.title(section.doc_id)
        asked = entity_question(section.text, entity, entities, section.heading, title, page.lang.code)
        titles = (title, section.heading)
        if asked is not None and on(rules, "no_title_prefix") and quotes_a_title(asked.question, titles):
            # a title that is no name ("Pharmacy hours") is not put before the question: asked without it
            asked = entity_question(section.text, entity, entities, section.heading, "", page.lang.code)
            if asked is not None and quotes_a_title(asked.question, titles):
                continue
        if asked is None or asked.question in {i.question for i in items}:
            continue
        if on(rules, "no_garble") and garbled(asked.question):
            continue
        if on(rules, "no_heading_topic") and _asks_about_heading(asked.question, section.heading, page):
            continue
        items.append(
            _item(ctx, "factoid", page, asked.question, asked.answer, (section.id,), "contact",
                  entity=entity.text, entity_kind=entity.kind, score=asked.score)
        )  # fmt: skip
    return items[: ctx.config.factoid_per_section]


def _mcqs(
    ctx: GenerationContext, page: Page, pools: Pools, stop: frozenset[str], rules: frozenset[str], factoids: list[Item]
) -> list[Item]:
    rng = random.Random(f"{ctx.seed}:{page.section.id}")
    made = []
    if on(rules, "menu_choice"):
        made.append(menu_choice(page, pools, stop, rng))
    if on(rules, "definition_choice"):
        made.append(definition_choice(page, pools, rng))
    if on(rules, "contact_choice"):
        made += [contact_choice(page, f, pools, rng) for f in factoids]
    items = []
    for choice in made:
        if choice is None or _vetoed(choice.parts, page, rules) is not None:
            continue
        items.append(
            _item(ctx, "mcq", page, choice.question, choice.answer, (page.section.id,), choice.rule,
                  options=choice.options, answer_index=choice.answer_index, bloom="B1", scenario="S1",
                  score=choice.score, rationale=choice.rationale)
        )  # fmt: skip
    return items[: ctx.config.mcq_per_section]


def _item(
    ctx: GenerationContext,
    kind: ItemType,
    page: Page,
    question: str,
    answer: str,
    section_ids: tuple[str, ...],
    rule: str,
    **extra,
) -> Item:
    fold_, split = ctx.folds[page.section.id]
    return Item(
        id=item_id(kind, list(section_ids), question),
        type=kind,
        question=question,
        answer=answer,
        source=ctx.source(list(section_ids)),
        fold=fold_,
        split=split,
        generator=GeneratorInfo(backend="extractive", rule=rule),
        language=page.lang.code,
        **extra,
    )


def offline_language_warning(
    doc_languages: dict[str, str], types: list[str], supported: dict[str, tuple[str, ...]] | None = None
) -> str | None:
    """Documents whose language the offline generator cannot ask (some of) ``types`` in, said plainly.

    ``supported`` maps a language to the item types it has data for (default: :data:`OFFLINE_TYPES`).
    """
    from qagen.language import language_name

    supported = OFFLINE_TYPES if supported is None else supported
    docs: Counter[str] = Counter(code.split("-")[0] for code in doc_languages.values())
    parts = []
    for code, n in sorted(docs.items()):
        missing = [t for t in types if t not in supported.get(code, ())]
        if missing:
            what = "no questions" if len(missing) == len(types) else f"no {', '.join(missing)} questions"
            parts.append(f"{n} document(s) in {language_name(code)} ({code}) get {what}")
    if not parts:
        return None
    return "offline generator: " + "; ".join(parts) + "; configure an LLM ([llm] backend) to write them"


def offline_mix_warning(config: GenerateConfig) -> str | None:
    """What the config asks for that the offline generator cannot write, said plainly."""
    said = []
    if (config.multi_hop_share > 0 or config.comparison_share > 0) and "long_form" in config.types:
        said.append("the offline generator writes no multi-hop or comparison questions (they need an LLM)")
    if config.persona_mix:
        said.append("the offline generator writes in no persona's voice; generate.persona_mix needs an LLM")
    if "mcq" in config.types and config.mcq_per_section > 0:
        higher = sorted(
            k for k, w in {**config.bloom_mix, **config.scenario_mix}.items() if w > 0 and k not in ("B1", "S1")
        )
        if higher:
            said.append(
                f"the offline generator writes multiple-choice questions at B1 (remember) and S1 (one fact) only; "
                f"{', '.join(higher)} in generate.bloom_mix / generate.scenario_mix need an LLM backend ([llm] backend)"
            )
    return "; ".join(said) or None
