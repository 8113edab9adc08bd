"""The multiple-choice phrase rules: where a thing is in the menus, what a term is.

Keys come from the section; distractors are the same kind of answer taken from elsewhere in the same
language (other pages' menu paths, other terms' definitions of the same document), so each is plausible and wrong.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from qagen.generate.lang import every
from qagen.generate.offline.phrases import Page, _fill, _first_lower, defined_term
from qagen.generate.offline.reading import fold, menu_paths, sentences, words
from qagen.generate.offline.rules import on
from qagen.records import Item


@dataclass(frozen=True)
class Choice:
    rule: str
    question: str
    options: tuple[str, ...]
    answer_index: int
    answer: str
    parts: tuple[str, ...]
    score: float
    rationale: str | None = None  # the source's words that hold the key


@dataclass
class Pools:
    """Menu paths and definitions by language and document, for distractors."""

    menus: dict[str, dict[str, list[str]]]
    definitions: dict[str, dict[str, list[str]]]
    entities: dict[str, dict[str, list[str]]]  # by entity kind, then document

    @classmethod
    def build(
        cls,
        pages: Iterable[Page],
        stop: dict[str, frozenset[str]],
        kinds: list[str],
        region: str,
        rules: frozenset[str],
    ) -> Pools:
        """Only the pools the rules in use draw from (each reads every page of the corpus)."""
        from qagen.entities import extract_entities

        entities: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
        menus: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
        definitions: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
        for page in pages:
            code, doc = page.lang.code, page.section.doc_id
            if on(rules, "menu_choice"):
                menus[code][doc] += menu_paths(page.section.text, stop.get(code, frozenset()))
            if on(rules, "definition_choice"):
                found = sentences(page.section.text, code)[:1]
                parsed = defined_term(found[0], page) if found else None
                if parsed and 3 <= len(parsed[2].split()) <= 25:
                    definitions[code][doc].append(parsed[2])
            if on(rules, "contact_choice"):
                for entity in extract_entities(page.section.text, kinds, region):
                    entities[entity.kind][doc].append(entity.text)
        return cls(menus, definitions, entities)

    def others(self, pool: dict[str, dict[str, list[str]]], code: str, doc: str) -> list[str]:
        return sorted({x for d, xs in pool.get(code, {}).items() if d != doc for x in xs})

    def same(self, pool: dict[str, dict[str, list[str]]], code: str, doc: str) -> list[str]:
        return sorted(set(pool.get(code, {}).get(doc, [])))


def _options(
    key: str, others: list[str], rng: random.Random, same: str = "", echo: frozenset[str] = frozenset()
) -> tuple[tuple[str, ...], int] | None:
    """The key among three distractors, or None. With ``echo`` (words of the stem the key repeats), only
    distractors that repeat one of them too, so that the stem's words do not point to the key."""
    candidates = [o for o in others if fold(o) != fold(key) and (not same or fold(o.split(" → ")[-1]) != same)]
    if echo:
        candidates = [o for o in candidates if _echoed(o.rsplit(" → ", 1)[0], echo)]
    if len(candidates) < 3:
        return None
    rng.shuffle(candidates)
    # the closest in length first: a key much longer than its distractors gives itself away
    candidates.sort(key=lambda o: abs(len(o) - len(key)))
    chosen = candidates[:3]
    index = rng.randrange(4)
    options = [*chosen[:index], key, *chosen[index:]]
    return tuple(options), index


def menu_choice(page: Page, pools: Pools, stop: frozenset[str], rng: random.Random) -> Choice | None:
    """Where the thing is: its menu path as the key; the same last item under other pages' menus as distractors
    (every option ends with the thing's name, so none gives itself away)."""
    if page.thing is None or not page.product:
        return None
    name = fold(page.thing.name)
    paths = [p for p in menu_paths(page.section.text, stop) if fold(p.split(" → ")[-1]) == name]
    if not paths:
        return None
    key = paths[0]
    last = key.split(" → ")[-1]
    own = {fold(p.rsplit(" → ", 1)[0]) for p in paths}
    # other pages' menus, under a top-level menu that two documents or more of the language use (a line of
    # another language or a garbled path is no plausible menu)
    menus = pools.menus.get(page.lang.code, {})
    tops = Counter(top for doc_paths in menus.values() for top in {p.split(" → ")[0] for p in doc_paths})
    prefixes = {
        p.rsplit(" → ", 1)[0]
        for p in pools.others(pools.menus, page.lang.code, page.section.doc_id)
        if tops[p.split(" → ")[0]] >= 2
    }
    others = sorted(f"{prefix} → {last}" for prefix in prefixes if fold(prefix) not in own)
    question = _fill(page, "mcq_menu", thing_acc=page.thing.said(page.lang, accusative=True))
    if question is None:
        return None
    # a word of the stem that the key's menus repeat ("the Indexed mode": Image → Mode → Indexed) points to the key
    echo = _echoed(key.rsplit(" → ", 1)[0], _content_words(question, stop)) if on(page.rules, "no_echo") else set()
    made = _options(key, others, rng, echo=frozenset(echo))
    if made is None:
        return None
    options, index = made
    return Choice("menu_choice", question, options, index, key, (page.thing.name,), 0.7)


def _content_words(text: str, stop: frozenset[str]) -> frozenset[str]:
    return frozenset(_stem(w) for w in words(text) if fold(w) not in stop and len(w) > 2)


def _stem(word: str) -> str:
    """A word folded, without a plural ending of any language (words.plural_endings, the longest first: "-en",
    "-s"; "Tools" and "tool" are one word for the echo check)."""
    folded = fold(word)
    for ending in sorted(every("words", "plural_endings"), key=len, reverse=True):
        if folded.endswith(ending) and len(folded) - len(ending) >= 3:
            return folded[: -len(ending)]
    return folded


def _echoed(menus: str, stem_words: frozenset[str]) -> set[str]:
    """The words of ``stem_words`` that the menu items ``menus`` (a path without its last item) repeat."""
    return {w for w in (_stem(x) for x in words(menus)) if w in stem_words}


def contact_choice(page: Page, factoid: Item, pools: Pools, rng: random.Random) -> Choice | None:
    """The factoid's question with its entity as the key and other documents' entities of its kind as distractors."""
    # phone numbers only: another organisation's web or e-mail address is told apart by its domain, so the
    # key would give itself away
    if not factoid.entity or factoid.entity_kind != "phone":
        return None
    others = pools.others(pools.entities, factoid.entity_kind, page.section.doc_id)
    made = _options(factoid.entity, others, rng)
    if made is None:
        return None
    options, index = made
    key = options[index]
    return Choice("contact_choice", factoid.question, options, index, key, (factoid.question,), 0.65, factoid.answer)


def definition_choice(page: Page, pools: Pools, rng: random.Random) -> Choice | None:
    found = sentences(page.section.text, page.lang.code)[:1]
    parsed = defined_term(found[0], page) if found else None
    if parsed is None or not 3 <= len(parsed[2].split()) <= 25:
        return None
    term, copula, key = parsed
    plural = copula in page.lang.words.get("definition_copulas", [])[1:]
    if plural:
        return None
    # other terms' definitions of the same document: the same field, so plausible and wrong (readers found
    # another document's definitions, a programming term's beside a document class's, no plausible option)
    made = _options(key, pools.same(pools.definitions, page.lang.code, page.section.doc_id), rng)
    question = _fill(page, "mcq_definition", term=_first_lower(term, page.lang))
    if made is None or question is None:
        return None
    options, index = made
    return Choice("definition_choice", question, options, index, key, (term,), 0.6, found[0])
