"""Formulation variants: the same question as a search-engine query, with a user's typos, or long-winded.

Users do not always ask in full sentences. ``generate.formulation_mix`` asks for a share of
``search`` queries ("multicol package balance columns") and ``noisy`` questions (typos, no
capitals, a missing question mark, missing diacritics) beside the ``natural`` questions, and
``verbose`` ones (the question whole inside a long-winded user's words that add no fact; in the
languages of :func:`verbose_languages`). Both are
made deterministically from accepted items, so the reference answer, the source and the expected
behaviour stay valid: a chatbot should answer "multicol package balance colums" as it answers
"For the multicol package, how do I balance the columns?". Only long-form and factoid questions
get variants (a multiple-choice question is a quiz item, not something a user types).

Each variant is a new item (``formulation``, ``variant_of`` = the original's id) and is checked by
:func:`check_variant`: it differs from the original, and keeps enough of the original's words that
it still asks the same thing.
"""

from __future__ import annotations

import dataclasses
import random
import re
import unicodedata
from collections.abc import Mapping, Sequence

from qagen.generate.lang import available, every, language_cached, part
from qagen.io import sha256_text
from qagen.records import Item

FORMULATIONS = ("natural", "search", "noisy", "verbose")
VARIANT_TYPES = ("long_form", "factoid")
_WORD = re.compile(r"[^\W_][^\W_'’.-]*(?:[.'’-][^\W_]+)*")


@language_cached(maxsize=16)
def _stop_words(language: str) -> frozenset[str]:
    """Function words of ``language``: its variants.json's ``search_stop_words`` where they stand instead of
    stopwords-iso's (``search_stop_words_only``: a short list on purpose, as stop-word lists for topic
    keywords also drop "work", "ill" or "number", which a query keeps); else the language's stop words of at
    most four letters (long entries of stop-word lists are often content words), the words of its offline
    heading question ("Wat moet ik weten over ..."), which frame a question and are no keywords, and every
    language's ``search_stop_words``."""
    code = language.split("-")[0]
    own = part(code, "variants") if code.isalpha() and code.islower() else {}
    if own.get("search_stop_words_only"):
        return frozenset(own.get("search_stop_words") or ())
    import stopwordsiso

    from qagen.generate.factoid_words import heading_frame

    short = {w.casefold() for w in (stopwordsiso.stopwords(code) or set()) if len(w) <= 4}
    frame = re.sub(r"\{\w+\}", " ", heading_frame(code))
    framing = {w.casefold() for w in _WORD.findall(frame)}
    return frozenset(short | framing) | frozenset(every("variants", "search_stop_words"))


def search_query(question: str, language: str = "en") -> str | None:
    """The question as the keywords a user types into a search box; None when fewer than two remain.

    "For the multicol package, how do I balance the columns?" -> "multicol package balance columns".
    Names and acronyms keep their case; the rest is lower-cased.
    """
    stop = _stop_words(language)
    kept = []
    for word in _WORD.findall(question):
        if word.casefold() in stop and not (len(word) > 1 and word.isupper()):  # "IT" is no "it"
            continue
        named = any(c.isupper() for c in word[1:]) or (word[:1].isupper() and word != question.split()[0])
        kept.append(word if named else word.casefold())
    seen: set[str] = set()
    kept = [w for w in kept if not (w.casefold() in seen or seen.add(w.casefold()))]  # "printer ... Printer": once
    if len(kept) < 2 or len(kept) >= len(_WORD.findall(question)):
        return None
    return " ".join(kept)


def noisy_question(question: str, seed: str) -> str | None:
    """The question as a hurried user types it: a typo in one word of four (at least one), and often
    no capitals, no question mark or no diacritics. Deterministic for a given ``seed``."""
    rng = random.Random(seed)
    words = question.split(" ")
    candidates = [i for i, w in enumerate(words) if len(re.sub(r"\W", "", w)) >= 5 and not re.search(r"\d|[/@\\]", w)]
    if not candidates:
        return None
    n_typos = max(1, min(3, len(candidates) // 4))
    for i in sorted(rng.sample(candidates, n_typos)):
        words[i] = _typo(words[i], rng)
    text = " ".join(words)
    if rng.random() < 0.5:
        text = text.lower()
    if rng.random() < 0.5:
        text = text.rstrip("?").rstrip()
    plain = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    if plain != text and rng.random() < 0.5:
        text = plain
    return text if text != question else None


def verbose_languages() -> tuple[str, ...]:
    """The languages with a verbose user's wrappers (``verbose`` in their variants.json)."""
    return tuple(code for code in available() if part(code, "variants").get("verbose"))


def verbose_question(question: str, seed: str, language: str = "en") -> str | None:
    """The question wrapped in a long-winded user's words that add no fact (DataMorgana's "verbose"
    formulation), in the question's language: the question stays whole inside, so its answer and source stay
    valid. None in a language without wrappers (:func:`verbose_languages`)."""
    templates = part(language.split("-")[0].casefold(), "variants").get("verbose")
    if templates is None or not question.rstrip().endswith("?"):
        return None
    template = templates[random.Random(seed).randrange(len(templates))]
    return template.format(question=question.strip())


def _typo(word: str, rng: random.Random) -> str:
    """One keyboard slip inside a word (its first and last letters stay): two letters swapped, one
    dropped or one doubled."""
    inner = [i for i in range(1, len(word) - 1) if word[i].isalpha()]
    if len(inner) < 2:
        return word
    i = rng.choice(inner[:-1])
    kind = rng.choice(("swap", "drop", "double"))
    if kind == "swap" and word[i + 1].isalpha() and word[i] != word[i + 1]:
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if kind == "drop":
        return word[:i] + word[i + 1 :]
    return word[:i] + word[i] + word[i:]


def check_variant(original: str, variant: str, formulation: str) -> str | None:
    """Why ``variant`` does not ask what ``original`` asks, or None when it does."""
    if variant.strip().casefold() == original.strip().casefold() and formulation != "noisy":
        return "same as the original"
    if variant == original:
        return "same as the original"
    source = {w.casefold() for w in _WORD.findall(original)}
    words = [w.casefold() for w in _WORD.findall(variant)]
    if not words:
        return "no words"
    if formulation == "verbose":
        if original.strip() not in variant or len(words) < len(_WORD.findall(original)) + 8:
            return "the original question is not whole inside, or too little is added"
        return None
    if formulation == "search":
        if len(words) < 2:
            return "fewer than two keywords"
        if any(w not in source for w in words):
            return "a keyword not in the original"
        return None
    plain = {unicodedata.normalize("NFKD", w) for w in source} | source
    kept = sum(w in source or unicodedata.normalize("NFKD", w) in plain for w in words)
    if kept < 0.6 * len(words):
        return f"only {kept} of {len(words)} words as in the original"
    return None


def plan_counts(n_natural: int, mix: Mapping[str, float]) -> dict[str, int]:
    """Variants to make per formulation so the final shares follow ``mix`` (originals are ``natural``).

    With shares s_f for search and noisy, the total is n_natural / (1 - sum s_f); each formulation
    gets round(s_f * total), capped at n_natural (one variant of each kind per original at most).
    """
    total_weight = sum(mix.values())
    shares = {f: mix.get(f, 0.0) / total_weight for f in FORMULATIONS if f != "natural"}
    rest = 1.0 - sum(shares.values())
    if n_natural == 0 or rest <= 0:
        return dict.fromkeys(shares, 0) if rest > 0 else {f: n_natural for f in shares}
    total = n_natural / rest
    return {f: min(n_natural, round(s * total)) for f, s in shares.items()}


def make_variants(
    items: Sequence[Item], mix: Mapping[str, float], seed: int = 0
) -> tuple[list[Item], list[tuple[Item, str]]]:
    """Search and noisy variants of accepted items, as many as ``mix`` asks for.

    Returns:
        The variants that passed :func:`check_variant`, and ``(variant, reason)`` of those that
        did not (or of originals that could not be turned into one).
    """
    eligible = [it for it in items if it.type in VARIANT_TYPES and it.formulation == "natural"]
    counts = plan_counts(len(eligible), mix)
    made: list[Item] = []
    failed: list[tuple[Item, str]] = []
    for formulation, wanted in counts.items():
        order = sorted(eligible, key=lambda it: sha256_text(f"{seed}:{formulation}:{it.id}"))
        for original in order:
            if sum(v.formulation == formulation for v in made) >= wanted:
                break
            if formulation == "search":
                text = search_query(original.question, original.language)
            elif formulation == "verbose":
                text = verbose_question(original.question, f"{seed}:{original.id}", original.language)
            else:
                text = noisy_question(original.question, f"{seed}:{original.id}")
            variant = dataclasses.replace(
                original,
                id=sha256_text(f"{original.id}:{formulation}")[:16],
                question=text or original.question,
                formulation=formulation,
                variant_of=original.id,
            )
            why = "no variant could be made" if text is None else check_variant(original.question, text, formulation)
            if why is None:
                made.append(variant)
            else:
                failed.append((variant, why))
    return made, failed


def achieved(items: Sequence[Item], mix: Mapping[str, float]) -> dict[str, dict[str, float | int]]:
    """Per formulation: the share asked (of the mix), the count and share achieved among ``items``."""
    from qagen.generate.mix import achieved_shares

    return achieved_shares([it.formulation for it in items], {f: mix.get(f, 0.0) for f in FORMULATIONS})
