"""Grounding: the answer is supported by its source section, word for word where it matters.

Two measures, both required:

- ROUGE recall (the share of the answer's tokens the section covers, as ROUGE-L's longest
  common subsequence or ROUGE-1 unigrams) at or above ``filter.grounding_threshold``;
- content-word recall: the share of the answer's distinct content words (not stop words of
  its language, not question words) found in the source (its sections and its document's
  title) at or above ``filter.content_recall``. ROUGE alone passes an answer that shares only
  "the", "a", "on" and "of" with its section: a sentence of the prompt or of a few-shot
  example copied by a model met ROUGE-L recall 0.2 against unrelated sections.

A word is found when the source holds it, its singular or plural, or a word it is a prefix
of or that is a prefix of it (five letters at least: "visit" / "visiting"). Factoid answers
are checked without their entity (its format may differ: ``factoid_entity`` compares it
normalised). An MCQ is judged by its evidence: its rationale must be a quote of the source
(rapidfuzz partial ratio >= 85 per sentence) that supports the key (the key is a span of it,
or shares a content lemma with it, lemmas by simplemma: a paraphrased B2 key passes), and a
distractor is rejected only when the quote states it where it does not state the key. An MCQ
without a rationale keeps the word-level rule: the key quoted from the source, no distractor
at ``filter.distractor_max_support`` or above.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from qagen.filters.base import FilterContext, ItemFilter, Reject
from qagen.records import Item

if TYPE_CHECKING:
    from qagen.config import FilterConfig

# Chinese and Japanese run their words together: each ideograph or kana is a token of its own (as
# ROUGE is computed for them), everything else a run of word characters.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_WORD = re.compile(rf"[{_CJK}]|[^\W{_CJK}]+")
_MIN_PREFIX = 5
# Question words are never content, whatever a stop-word list says.
_QUESTION_WORDS = (
    "what which who whom whose when where why how "
    "wat welk welke wie wiens wanneer waar waarom hoe hoeveel "
    "was welcher welche welches wer wen wem wessen wann wo warum wieso weshalb wie "
    "que quoi quel quelle quels quelles qui quand où pourquoi comment combien "
    "qué cuál cuáles quién quiénes cuándo dónde cómo cuánto cuántos cuánta cuántas "
    "che cosa quale quali chi quando dove perché come quanto quanti quanta quante "
    "qual quais quem onde porque porquê como quanto quantos quanta quantas"
)
QUESTION_WORDS = frozenset(_QUESTION_WORDS.split())


class UnicodeTokenizer:
    """Lower-cased word tokens in any script (rouge-score's default drops non-ASCII letters)."""

    def tokenize(self, text: str) -> list[str]:
        return tokenize(text)


def tokenize(text: str) -> list[str]:
    """The tokens ROUGE, the leakage check and scoring compare: NFKC, case-folded words in any script.

    Ligatures and full-width forms fold to letters ("ﬁle" -> "file"), "ß" to "ss" (casefold),
    accents stay ("café"), and Chinese or Japanese text is one token per character.
    """
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())


def words(text: str) -> list[str]:
    """Word tokens for content-word checks: the same tokens as :func:`tokenize`."""
    return tokenize(text)


@lru_cache(maxsize=64)
def stop_words(language: str | None) -> frozenset[str]:
    """Stop words of ``language`` (stopwordsiso; English when it has no list) plus question words."""
    import stopwordsiso

    code = (language or "en").split("-")[0].split("_")[0].casefold()
    if not stopwordsiso.has_lang(code):
        code = "en"
    base = stopwordsiso.stopwords(code)
    return frozenset(unicodedata.normalize("NFKC", w).casefold() for w in base) | QUESTION_WORDS


def is_content(word: str, stops: frozenset[str]) -> bool:
    """A word that carries meaning: not a stop word, and a number or at least two characters."""
    return word not in stops and (len(word) > 1 or word.isdigit())


def content_words(text: str, language: str | None = "en") -> list[str]:
    """The distinct content words of ``text``, in order of first occurrence."""
    stops = stop_words(language)
    return list(dict.fromkeys(w for w in words(text) if is_content(w, stops)))


@dataclass(frozen=True)
class Vocabulary:
    """The words of a source text, for :meth:`has` look-ups (exact, plural, shared prefix)."""

    words: frozenset[str]
    ordered: tuple[str, ...]

    @classmethod
    def of(cls, texts: Iterable[str]) -> Vocabulary:
        found: set[str] = set()
        for text in texts:
            found.update(words(text))
        return cls(frozenset(found), tuple(sorted(found)))

    def has(self, word: str) -> bool:
        if word in self.words:
            return True
        if (word.endswith("s") and word[:-1] in self.words) or word + "s" in self.words:
            return True
        if len(word) < _MIN_PREFIX:
            return False
        if any(word[:k] in self.words for k in range(_MIN_PREFIX, len(word))):
            return True  # a source word is a prefix of it ("direct" for "directly")
        i = bisect.bisect_left(self.ordered, word)
        return i < len(self.ordered) and self.ordered[i].startswith(word)  # it is a prefix of a source word


def content_recall(text: str, vocab: Vocabulary, language: str | None = "en") -> tuple[float, list[str]]:
    """Share of the distinct content words of ``text`` the vocabulary holds, and the missing ones.

    A text without content words has share 1.0 (nothing in it needs support)."""
    wanted = content_words(text, language)
    if not wanted:
        return 1.0, []
    missing = [w for w in wanted if not vocab.has(w)]
    return 1 - len(missing) / len(wanted), missing


def normalized(text: str) -> str:
    """NFKC, case-folded, punctuation and symbols as spaces, spaces collapsed (for span checks)."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = "".join(" " if unicodedata.category(ch)[0] in "PZSC" else ch for ch in text)
    return " ".join(text.split())


def is_span(text: str, source: str) -> bool:
    """True when ``text`` occurs in ``source`` after :func:`normalized` (on word boundaries)."""
    needle = normalized(text)
    return bool(needle) and f" {needle} " in f" {normalized(source)} "


def rouge_recall(text: str, source: str, rouge_type: str = "rougeL") -> float:
    """ROUGE recall of ``text`` against ``source``: how much of ``text`` the source covers.

    The numbers are rouge-score's (``RougeScorer([type], tokenizer=UnicodeTokenizer())``,
    checked by the tests), computed faster: ROUGE-L's longest common subsequence with
    rapidfuzz (C++, bit-parallel) where rouge-score fills a pure-Python table (~0.3 s for a
    60-token answer against an 800-token section, against ~0.1 ms), and ROUGE-1 as clipped
    unigram overlap without importing rouge-score, whose nltk import takes 6-8 s.
    """
    if rouge_type not in ("rougeL", "rouge1"):
        raise ValueError(f"rouge_type must be 'rougeL' or 'rouge1'; got {rouge_type!r}")
    tokens = tokenize(text)
    if not tokens:
        return 0.0
    if rouge_type == "rouge1":
        return unigram_recall(tokens, tokenize(source))
    from rapidfuzz.distance import LCSseq

    return LCSseq.similarity(tokens, tokenize(source)) / len(tokens)


def unigram_recall(tokens: list[str], source_tokens: list[str]) -> float:
    """Clipped unigram recall (ROUGE-1 recall) of ``tokens`` in ``source_tokens``."""
    if not tokens:
        return 0.0
    have = Counter(source_tokens)
    hits = sum(min(n, have[t]) for t, n in Counter(tokens).items())
    return hits / len(tokens)


def source_vocabulary(item: Item, ctx: FilterContext, source: str) -> Vocabulary:
    """The words of the item's source sections and of its documents' titles."""
    docs = {ctx.sections[s].doc_id for s in item.source.section_ids if s in ctx.sections}
    return Vocabulary.of([source, *(ctx.titles.get(d, "") for d in sorted(docs))])


def _without_entities(item: Item, ctx: FilterContext) -> str:
    """A factoid's answer without its entities (checked normalised by ``factoid_entity``)."""
    from qagen.entities import ENTITY_KINDS, extract_entities

    kinds = [k for k in (item.entity_kind, *ctx.entity_kinds) if k in ENTITY_KINDS]
    text = item.answer
    for entity in sorted(extract_entities(text, list(dict.fromkeys(kinds)), ctx.phone_region), key=lambda e: -e.start):
        text = text[: entity.start] + " " + text[entity.end :]
    if item.entity:
        text = text.replace(item.entity, " ")
    return text


def check_grounding(item: Item, ctx: FilterContext, config: FilterConfig) -> Reject | None:
    """Answer (or correct option and rationale) supported by the source; MCQ distractors not supported."""
    source = ctx.source_text(item)
    if not source:
        return Reject("no source text")
    rtype = config.rouge_type
    language = item.language
    if item.type != "mcq":
        recall = rouge_recall(item.answer, source, rtype)
        if recall < config.grounding_threshold:
            return Reject("answer not grounded in the source", recall)
        answer = _without_entities(item, ctx) if item.type == "factoid" else item.answer
        share, missing = content_recall(answer, source_vocabulary(item, ctx, source), language)
        if share < config.content_recall:
            return Reject(f"answer content words not in the source ({', '.join(missing[:5])})", share)
        return None
    options = list(item.options or ())
    index = item.answer_index if item.answer_index is not None else -1
    if not 0 <= index < len(options):
        return Reject("mcq: answer_index out of range")
    if item.rationale and item.rationale.strip():
        return _mcq_by_evidence(item, options, index, source, config)
    correct = rouge_recall(options[index], source, rtype)
    if correct < config.grounding_threshold:
        return Reject("correct option not grounded in the source", correct)
    vocab = source_vocabulary(item, ctx, source)
    if not is_span(options[index], source):
        share, missing = content_recall(options[index], vocab, language)
        if share < 1.0 or not content_words(options[index], language):
            return Reject(f"correct option not quoted from the source ({', '.join(missing[:5])})", share)
    for i, option in enumerate(options):
        support = rouge_recall(option, source, rtype) if i != index else 0.0
        if support >= config.distractor_max_support:
            return Reject(f"distractor supported by the source (option {i})", support)
    return None


QUOTE_MIN_RATIO = 85.0  # rapidfuzz partial ratio of the rationale against the source: a quote, spacing and case aside


def quoted(quote: str, source: str) -> float:
    """How nearly ``quote`` occurs in ``source`` (0-100; each sentence of it scored, the weakest counts)."""
    text = normalized(source)
    # sentences, and the parts a quote joins with an ellipsis ("Open the menu … Then choose Layers")
    parts = re.split(r"(?<=[.!?;])\s+|\n+|\s*(?:…|\.\.\.|\[\.\.\.\])\s*", quote)
    pieces = [p for p in parts if len(normalized(p)) >= MIN_PIECE] or [quote]
    if not normalized(pieces[0]):
        return 0.0
    return min(_piece_ratio(p, text) for p in pieces)


MIN_PIECE = 12  # normalised characters: shorter parts of a quote are found anywhere


def _piece_ratio(piece: str, text: str) -> float:
    """How nearly one piece of a quote occurs in the normalised source; a piece of code lines joined on one line
    ("182 \\let\\a\\b 189 \\write ...", lines of a listing with their numbers) is scored line by line."""
    from rapidfuzz import fuzz

    ratio = fuzz.partial_ratio(normalized(piece), text)
    if ratio >= QUOTE_MIN_RATIO:
        return ratio
    lines = [x for x in _CODE_LINE_START.split(piece) if len(normalized(x)) >= MIN_PIECE]
    if len(lines) < 2:
        return ratio
    return max(ratio, min(fuzz.partial_ratio(normalized(x), text) for x in lines))


# where a quote runs a listing's lines together: a line number before a command
_CODE_LINE_START = re.compile(r"\s+\d+\s+(?=\\)")


def lemmas(text: str, language: str | None) -> set[str]:
    """Lemmas of the content words of ``text`` (simplemma), lower case."""
    import simplemma

    code = (language or "en").split("-")[0]
    out = set()
    for word in content_words(text, language):
        try:
            out.add(simplemma.lemmatize(word, lang=code).lower())
        except ValueError:  # a language simplemma does not know
            out.add(word)
    return out


def supports(evidence: str, claim: str, language: str | None) -> bool:
    """The evidence holds the claim: the claim is a span of it, or shares a content lemma (or word stem) with it."""
    if is_span(claim, evidence):
        return True
    wanted = lemmas(claim, language)
    if not wanted:  # a number or a symbol: found as written
        return normalized(claim) in normalized(evidence)
    have = lemmas(evidence, language)
    vocab = Vocabulary.of([evidence])
    return bool(wanted & have) or any(vocab.has(w) for w in content_words(claim, language))


def _mcq_by_evidence(item: Item, options: list[str], index: int, source: str, config: FilterConfig) -> Reject | None:
    """The rationale is quoted from the source and supports the key; a distractor is wrong unless the quote
    states it as the key is stated (it is the quote's own words and the key is not)."""
    rationale = item.rationale or ""
    ratio = quoted(rationale, source)
    if ratio < QUOTE_MIN_RATIO:
        return Reject("rationale not quoted from the source", round(ratio / 100, 3))
    key = options[index]
    if not supports(rationale, key, item.language) and not supports(source, key, item.language):
        return Reject("correct option not supported by the quoted rationale", 0.0)
    key_stated = is_span(key, rationale)
    for i, option in enumerate(options):
        if i != index and is_span(option, rationale) and not key_stated and not is_span(option, key):
            return Reject(f"distractor stated by the quoted rationale (option {i})", 1.0)
    return None


GROUNDING = ItemFilter("grounding", check_grounding)
