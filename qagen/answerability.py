"""Does an iteration's corpus answer a question? The question-side check of the splits.

In iteration i of a set the chatbot's store holds fold i's pages, and the other fold's
questions are asked as unanswerable (expected behaviour "refuse"). Comparing only their
answers with the loaded pages misses generic questions: "What are the options?" asked of a
corpus with an "Options" section has a perfectly good answer there, only a different one
than the reference. This module looks from the question's side.

Retrieval. For every question placed as unanswerable, the pages of that iteration's
corpus that best match it are found with BM25 (``bm25s``, over the question's content
terms) and, when an embedder is given, cosine similarity of the question to each page's
best passage; the two rankings are fused by reciprocal rank fusion (``1/(60 + rank)``
summed) and the ``splits.answerability_top_k`` best pages are checked.

Terms. A question's content terms are its words (case-folded) less stop words (the
question's language and English, from ``stopwordsiso``), numbers and single letters, and
less words that occur in no page at all (phrasing such as "describe"). Terms match a page
up to an inflection: equal, or one a prefix of the other by at most 3 letters with at
least 4 letters left ("option" ~ "options", "optie" ~ "opties"). A term's weight is its
inverse document frequency over the documents of every page given (``ln((N+1)/(df+1))+1``);
a term is *specific* when at most ``max(1, N x splits.answerability_specific_share)``
documents use it (a package or command name), else generic ("options", "package").

Offline verdict (always), for each retrieved page, the strongest wins:

- ``answerable`` by ``heading``: every content term of the question is in the heading
  (path) of one section on the page. "What are the options?" against a page holding an
  "Options" section: the corpus answers it, with its own options.
- ``answerable`` by ``generic``: the question has no specific term, the page holds every
  term and a section heading on it holds the most distinctive one ("What are the package
  options?" against a page with an "Options" section).
- ``answerable`` by ``terms+answer``: the page holds every specific term, the weighted
  share of all terms on the page is at least ``splits.answerability_coverage``, and the
  item's answer (an MCQ's correct option) is there too: ROUGE recall
  (``splits.leakage_rouge_type``) in a passage at least ``splits.answerability_answer_rouge``,
  or embedding similarity to a passage at least ``splits.answerability_answer_similarity``.
- ``answerable`` by ``same-document``: the question's own document is partly in the
  corpus (with ``folds.unit = page`` its pages can fall in both folds) and one of those pages
  holds the item's answer (ROUGE recall as above; similarity does not count, as all passages
  of one document are alike), whatever the words around it (another chapter, the package's
  documented code or its index often says it in other words).
- ``answerable`` by ``translation``: a translation of the question's document is in the
  corpus (:func:`qagen.language.translations`: another language, most rare language-neutral
  tokens shared); the facts are there for a chatbot that reads both languages.
- ``uncertain``: the terms are covered as above but neither the heading nor the answer
  is found; or the question has no content terms at all.
- ``unanswerable``: otherwise, e.g. a specific term is on no retrieved page ("Which
  option of the multicol package balances the columns?" against other packages).

Only ``answerable`` moves an item offline; ``uncertain`` ones stay unanswerable.

LLM judge (``splits.answerability_judge``: ``auto`` = when an LLM is configured, ``on``,
``off``). Items whose offline verdict is ``answerable`` or ``uncertain`` (never the clear
``unanswerable`` ones, which keeps the cost to the doubtful few) are sent with their
retrieved pages and ``prompts/answerability.md``: answerable yes/no and a verbatim quote.
A "yes" counts only when the quote (whitespace and case normalised, at least
:data:`MIN_QUOTE_WORDS` words, fragments joined by an ellipsis each found) occurs in one
of the pages shown; a "yes" with a quote that is not there is ``no evidence``. The judge
decides when it gives a verified "yes" (move) or a "no" (stay); with no evidence or a
failed request the offline verdict stands.

Answerable role (the mirror check). An item is a valid answerable question of its own
iteration when its source pages are in that corpus and its answer is found on them by the
same answer test as above; items failing it are reported and, with
``splits.drop_unsupported_answerable``, left out of both roles (a question its corpus cannot
answer cannot be scored as answered; see :mod:`qagen.splits`).
"""

from __future__ import annotations

import contextlib
import functools
import math
import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict

from qagen.filters.grounding import tokenize, unigram_recall
from qagen.records import Item, Page, Section, section_text

if TYPE_CHECKING:
    import numpy as np

    from qagen.config import SplitsConfig

Cell = tuple[str, int]
Embed = Callable[[list[str]], "np.ndarray"]

RRF_K = 60  # reciprocal rank fusion constant (Cormack et al.)
MIN_QUOTE_WORDS = 3  # a judge's quote shorter than this is no evidence ("Options" occurs anywhere)
MAX_INFLECTION = 3  # letters by which two matching terms may differ at the end
MIN_STEM = 4  # letters two matching terms must share when they differ
PROMPT_NAME = "answerability"
_ELLIPSIS = re.compile(r"\s*(?:\.\.\.|…|\[\.\.\.\])\s*")
_STRIP = " \t\n\"'“”‘’«»`.,;:"

Verdict = Literal["answerable", "uncertain", "unanswerable"]
_RANK = {"answerable": 2, "uncertain": 1, "unanswerable": 0}


# --- terms -------------------------------------------------------------------------------


# Words that phrase a question rather than name what it is about ("What should I know about
# ...", "What does the ... section describe?"), in the languages the generator writes.
_QUESTION_WORDS = """
    know knows tell describe describes described explain explains explained mean means meant happen happens
    happened want wants need needs say says said information info details website site web address addresses
    email mail write section sections chapter part purpose way ways something anything thing things make
    available get find give show completes complete statement fills fill blank
    weten vertellen beschrijft beschreven uitleggen uitgelegd betekent betekenen gebeurt gebeuren wil willen
    zegt informatie website adres sectie hoofdstuk onderdeel doel manier iets
    wissen erfahren beschreibt beschrieben erklärt erklären bedeutet passiert geschieht sagt informationen
    webseite adresse abschnitt kapitel teil zweck etwas
    savoir décrit décrire explique expliquer signifie passe arrive veut dit informations site adresse
    chapitre partie but façon quelque chose
    saber describe explica significa pasa ocurre quiere dice información sitio dirección sección capítulo
    parte propósito forma algo
    sapere descrive spiega significa succede accade vuole dice informazioni sito indirizzo sezione capitolo
    parte scopo modo qualcosa
    descreve explica acontece quer diz informação informações endereço seção secção capítulo propósito
    """
QUESTION_WORDS = frozenset(_QUESTION_WORDS.split())


@functools.cache
def stopwords(language: str) -> frozenset[str]:
    """Stop words of English and ``language`` (ISO 639-1): bm25s's (NLTK's) and stopwordsiso's
    function-word lists (stopwordsiso's long English list is left out: it holds "page",
    "value", "changes"), plus :data:`QUESTION_WORDS`; case-folded."""
    import stopwordsiso
    from bm25s.tokenization import _infer_stopwords

    words: set[str] = set(_infer_stopwords("en_plus")) | QUESTION_WORDS
    code = (language or "en").split("-")[0].lower()
    if code != "en":
        with contextlib.suppress(ValueError):  # a language bm25s has no list for
            words |= set(_infer_stopwords(code))
        if stopwordsiso.has_lang(code):
            words |= set(stopwordsiso.stopwords(code))
    return frozenset(w.casefold() for w in words)


_NUMBERISH = re.compile(r"[a-z]?\d+[a-z]?|\d[\d_]*")


def content_terms(text: str, language: str = "en") -> list[str]:
    """Words of ``text`` less stop words, numbers (and version-like "v1", "2e") and single
    letters, in order, once each."""
    stop = stopwords(language)
    out = [t for t in tokenize(text) if len(t) > 1 and t not in stop and not _NUMBERISH.fullmatch(t)]
    return list(dict.fromkeys(out))


def _stems(term: str) -> list[str]:
    """The shorter forms ``term`` matches: itself less 1 to MAX_INFLECTION letters, MIN_STEM left."""
    return [term[: len(term) - d] for d in range(1, MAX_INFLECTION + 1) if len(term) - d >= MIN_STEM]


class TermIndex:
    """Which of a list of units (documents, pages, headings) use a term, up to an inflection.

    A term matches a unit's word when they are equal, or one is the other plus at most
    :data:`MAX_INFLECTION` letters with at least :data:`MIN_STEM` letters in common.
    """

    def __init__(self, units: Sequence[Iterable[str]]) -> None:
        self.n = len(units)
        self._exact: dict[str, set[int]] = defaultdict(set)
        self._shortened: dict[str, set[int]] = defaultdict(set)
        for i, words in enumerate(units):
            for w in set(words):
                self._exact[w].add(i)
                for s in _stems(w):
                    self._shortened[s].add(i)
        self._memo: dict[str, frozenset[int]] = {}

    def units_with(self, term: str) -> frozenset[int]:
        hit = self._memo.get(term)
        if hit is None:
            found = set(self._exact.get(term, ())) | self._shortened.get(term, set())
            for s in _stems(term):
                found |= self._exact.get(s, set())
            hit = self._memo[term] = frozenset(found)
        return hit


def term_matches(term: str, words: Iterable[str]) -> bool:
    """True when ``term`` matches one of ``words`` (see :class:`TermIndex`)."""
    return bool(TermIndex([list(words)]).units_with(term))


@dataclass(frozen=True)
class Vocabulary:
    """Document frequencies of terms over every document of the build."""

    docs: TermIndex
    specific_max: int

    @classmethod
    def build(cls, pages: Sequence[Page], sections: Mapping[str, Section] | None, share: float) -> Vocabulary:
        words: dict[str, set[str]] = defaultdict(set)
        for page in pages:
            words[page.doc_id].update(tokenize(page.text))
            if sections is not None:
                for sid in page.section_ids:
                    if (s := sections.get(sid)) is not None:
                        words[page.doc_id].update(tokenize(s.heading))
        index = TermIndex([words[d] for d in sorted(words)])
        return cls(index, max(1, math.floor(index.n * share)))

    def df(self, term: str) -> int:
        return len(self.docs.units_with(term))

    def weight(self, term: str) -> float:
        return math.log((self.docs.n + 1) / (self.df(term) + 1)) + 1.0

    def is_specific(self, term: str) -> bool:
        return 0 < self.df(term) <= self.specific_max


# --- passages and the answer test ----------------------------------------------------------


def windows(tokens: Sequence[str], size: int) -> list[tuple[int, int]]:
    """(start, end) of passages of ``size`` tokens overlapping by half, covering all tokens."""
    n = len(tokens)
    if n <= size:
        return [(0, n)] if n else []
    stride = max(size // 2, 1)
    starts = list(range(0, n - size + 1, stride))
    if starts[-1] + size < n:
        starts.append(n - size)
    return [(s, s + size) for s in starts]


def answer_probe(item: Item) -> str:
    """The text that must be found for the item's answer: an MCQ's correct option, else its answer."""
    options, index = item.options or (), item.answer_index
    if item.type == "mcq" and index is not None and 0 <= index < len(options):
        return options[index]
    return item.answer


def passage_recall(probe: list[str], page: list[str], window_words: int, rouge_type: str) -> float:
    """Best ROUGE recall of ``probe`` tokens in a passage of ``page`` tokens (passages at least
    twice the probe's length, so a long answer can be found whole)."""
    if not probe or not page:
        return 0.0
    size = max(window_words, 2 * len(probe))
    best = 0.0
    if rouge_type == "rouge1":
        for a, b in windows(page, size):
            best = max(best, unigram_recall(probe, page[a:b]))
    else:
        from rapidfuzz.distance import LCSseq

        for a, b in windows(page, size):
            best = max(best, LCSseq.similarity(probe, page[a:b]) / len(probe))
            if best >= 1.0:
                break
    return best


class _Vectors:
    """Embeddings of texts, computed in as few calls as possible and looked up by text."""

    def __init__(self, embed: Embed | None) -> None:
        self.embed = embed
        self._row: dict[str, int] = {}
        self._blocks: list[Any] = []
        self._offsets: list[int] = []

    def add(self, texts: Iterable[str]) -> None:
        """Embed the texts not embedded yet, in one call."""
        import numpy as np

        if self.embed is None:
            return
        new = [t for t in dict.fromkeys(texts) if t not in self._row]
        if not new:
            return
        start = sum(len(b) for b in self._blocks)
        self._blocks.append(np.asarray(self.embed(new), dtype=np.float32))
        self._row.update({t: start + i for i, t in enumerate(new)})
        self._matrix = np.concatenate(self._blocks) if len(self._blocks) > 1 else self._blocks[0]

    def get(self, text: str) -> Any:
        row = self._row.get(text) if self.embed is not None else None
        return None if row is None else self._matrix[row]

    def best(self, vector: Any, texts: Sequence[str]) -> float | None:
        """Highest cosine similarity of ``vector`` to ``texts`` (0.0 when there are none)."""
        if vector is None:
            return None
        rows = [self._row[t] for t in texts if t in self._row]
        return float((self._matrix[rows] @ vector).max()) if rows else 0.0


# --- one iteration's corpus -------------------------------------------------------------


class CorpusIndex:
    """One iteration's pages: BM25 over their words, term lookups, section headings."""

    def __init__(self, pages: Sequence[Page], sections: Mapping[str, Section] | None) -> None:
        import bm25s

        self.pages = list(pages)
        self.tokens = [tokenize(p.text) for p in self.pages]
        self.terms = TermIndex(self.tokens)
        self.headings: list[list[tuple[str, TermIndex]]] = []
        for page in self.pages:
            heads = []
            for sid in page.section_ids:
                s = sections.get(sid) if sections is not None else None
                if s is not None and s.heading.strip():
                    heads.append((s.heading, TermIndex([tokenize(s.heading)])))
            self.headings.append(heads)
        self.bm25 = None
        if self.pages:
            corpus = bm25s.tokenize([p.text for p in self.pages], stopwords=[], return_ids=False, show_progress=False)
            if any(corpus):
                self.bm25 = bm25s.BM25()
                self.bm25.index(corpus, show_progress=False)

    def bm25_scores(self, terms: Sequence[str]) -> list[float]:
        query = [t for t in terms if len(t) > 1]
        if self.bm25 is None or not query:
            return [0.0] * len(self.pages)
        return [float(x) for x in self.bm25.get_scores(query)]

    def heading_match(self, j: int, terms: Sequence[str]) -> str | None:
        """The first heading on page ``j`` that holds every term, else None."""
        if not terms:
            return None
        for heading, index in self.headings[j]:
            if all(index.units_with(t) for t in terms):
                return heading
        return None

    def heading_with_any(self, j: int, terms: Sequence[str]) -> str | None:
        """The first heading on page ``j`` that holds one of the terms, else None."""
        for heading, index in self.headings[j]:
            if any(index.units_with(t) for t in terms):
                return heading
        return None


def fuse(rankings: Sequence[Sequence[float | None]], k: int = RRF_K) -> list[float]:
    """Reciprocal rank fusion of score lists over the same pages: ``sum 1/(k + rank)``; a
    page with no positive score in a ranking gets nothing from it."""
    n = len(rankings[0]) if rankings else 0
    fused = [0.0] * n
    for scores in rankings:
        order = sorted((j for j in range(n) if (scores[j] or 0) > 0), key=lambda j: (-(scores[j] or 0), j))
        for rank, j in enumerate(order, 1):
            fused[j] += 1.0 / (k + rank)
    return fused


# --- the judge ---------------------------------------------------------------------------


class AnswerabilityReply(BaseModel):
    """The judge's reply: can the pages answer the question, and the words that show it."""

    model_config = ConfigDict(extra="forbid")
    answerable: Literal["yes", "no"]
    evidence: str


@dataclass(frozen=True)
class JudgeCase:
    """One question and the retrieved pages (id, text) the judge sees."""

    item_id: str
    question: str
    pages: tuple[tuple[str, str], ...]
    language: str = "en"


class Judge(Protocol):
    """Anything that answers :class:`JudgeCase` s with replies (None when a request failed)."""

    def judge(self, cases: Sequence[JudgeCase]) -> list[AnswerabilityReply | None]: ...


def normalise(text: str) -> str:
    """Text compared for quotes: NFKC, case-folded, whitespace collapsed, quotes unified."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = text.translate(str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "\u00ad": None}))
    return " ".join(text.split())


def verify_quote(quote: str, pages: Sequence[tuple[str, str]]) -> str | None:
    """The id of the page that holds ``quote`` (every ellipsis-separated fragment in one page,
    whitespace and case normalised, at least MIN_QUOTE_WORDS words), else None."""
    fragments = [normalise(f).strip(_STRIP) for f in _ELLIPSIS.split(quote or "")]
    fragments = [f for f in fragments if f]
    if not fragments or sum(len(f.split()) for f in fragments) < MIN_QUOTE_WORDS:
        return None
    for page_id, text in pages:
        norm = normalise(text)
        if all(f in norm for f in fragments):
            return page_id
    return None


class LLMAnswerabilityJudge:
    """Asks an LLM, through :class:`~qagen.llm.LLMEngine` (cache, retries, costs), whether
    retrieved pages answer a question, with ``prompts/answerability.md``.

    Args:
        engine: The engine requests run through.
        prompts_dir: Folder holding ``answerability.md`` (the bundled prompts when it has none).
        seed: Sent with every request.
        max_page_chars: Each page is cut to this many characters in the prompt.
        max_tokens: Completion tokens per request.
    """

    def __init__(
        self,
        engine: Any,
        prompts_dir: str | Path | None = None,
        seed: int = 0,
        max_page_chars: int = 6000,
        max_tokens: int = 400,
    ) -> None:
        self.engine = engine
        self.prompt = load_answerability_prompt(prompts_dir)
        self.seed = seed
        self.max_page_chars = max_page_chars
        self.max_tokens = max_tokens

    def judge(self, cases: Sequence[JudgeCase]) -> list[AnswerabilityReply | None]:
        if not cases:
            return []
        requests = [self._request(c) for c in cases]
        results = self.engine.run(requests, response_model=AnswerabilityReply)
        return [r.value if r.ok and r.value is not None else None for r in results]

    def shown(self, case: JudgeCase) -> JudgeCase:
        """The case as the prompt shows it (pages cut to ``max_page_chars``)."""
        pages = tuple((pid, text[: self.max_page_chars]) for pid, text in case.pages)
        return JudgeCase(case.item_id, case.question, pages, case.language)

    def stats(self) -> dict[str, Any]:
        return self.engine.stats.to_dict()

    def _request(self, case: JudgeCase) -> Any:
        from qagen.language import language_name
        from qagen.llm import LLMRequest, Message

        shown = self.shown(case)
        blocks = "\n\n".join(f'Page {i}:\n"""\n{text}\n"""' for i, (_pid, text) in enumerate(shown.pages, 1))
        system, user = self.prompt.render(
            question=case.question, pages=blocks, language_name=language_name(case.language)
        )
        return LLMRequest(
            (Message("system", system), Message("user", user)),
            schema_name="answerability",
            temperature=0.0,
            max_tokens=self.max_tokens,
            seed=self.seed,
            tag=f"answerability:{case.item_id}",
        )


def load_answerability_prompt(prompts_dir: str | Path | None) -> Any:
    """``answerability.md`` from ``prompts_dir``, or the bundled one when that folder has none."""
    from qagen.generate.prompts import load_prompt_or_bundled

    return load_prompt_or_bundled(prompts_dir, PROMPT_NAME)


# --- the checks --------------------------------------------------------------------------


@dataclass(frozen=True)
class CheckResult:
    """Per item: the question-side verdict against the other fold's corpus, and the answer
    check in its own corpus; plus the judge's statistics when it ran."""

    unanswerable: dict[str, dict[str, Any]]
    answerable: dict[str, dict[str, Any]]
    judged: int = 0
    judge_stats: dict[str, Any] | None = None


@dataclass
class _Context:
    """What every verdict reads: term weights, corpus pages' tokens and passages, embeddings."""

    config: SplitsConfig
    vocab: Vocabulary
    vectors: _Vectors
    tokens: dict[str, list[str]]  # page id -> tokens
    passages: dict[str, list[str]]  # page id -> passages (filled for the pages checked)
    texts: dict[str, str]  # page id -> text
    _content: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # (language, page id) -> content tokens

    def page_passages(self, page_id: str) -> list[str]:
        found = self.passages.get(page_id)
        if found is None:
            words = self.texts[page_id].split()
            size = self.config.leakage_window_words
            found = self.passages[page_id] = [" ".join(words[a:b]) for a, b in windows(words, size)]
        return found

    def answer_evidence(self, probe_text: str, page_id: str, language: str = "en") -> tuple[float, float | None]:
        """(best ROUGE recall, best embedding similarity) of an answer in one page's passages.

        ROUGE is over the words less stop words ("The balancingshow option." is found only
        where "balancingshow option" is); an answer of stop words only keeps them all."""
        cfg = self.config
        stop = stopwords(language)
        probe = [t for t in tokenize(probe_text) if t not in stop]
        page = self.tokens[page_id]
        if probe:
            key = (language, page_id)
            if key not in self._content:
                self._content[key] = [t for t in page if t not in stop]
            page = self._content[key]
        else:
            probe = tokenize(probe_text)
        rouge = passage_recall(probe, page, cfg.leakage_window_words, cfg.leakage_rouge_type)
        return rouge, self.vectors.best(self.vectors.get(probe_text), self.page_passages(page_id))

    def answer_found(self, rouge: float, sim: float | None) -> bool:
        cfg = self.config
        return rouge >= cfg.answerability_answer_rouge or (
            sim is not None and sim >= cfg.answerability_answer_similarity
        )


def check(
    placed: Mapping[Cell, Sequence[Item]],
    corpus: Mapping[Cell, Sequence[Page]],
    all_pages: Sequence[Page],
    config: SplitsConfig,
    embed: Embed | None = None,
    sections: Mapping[str, Section] | None = None,
    judge: Judge | None = None,
    page_of: Mapping[str, str] | None = None,
    translations: Mapping[str, Sequence[str]] | None = None,
) -> CheckResult:
    """Run both checks over every iteration (see the module docstring).

    Embeddings are computed in two batches: the questions with the corpus sections (the
    embed stage's texts, so a build finds them cached; page passages when ``sections`` is
    None), then the answers with the passages of the pages retrieved or checked.

    Args:
        placed: Items per (set, fold).
        corpus: Pages per (set, fold): iteration (set, fold)'s store.
        all_pages: Every page of the build (term weights count their documents).
        config: The ``[splits]`` section.
        embed: Texts -> L2-normalised vectors (None: BM25 and ROUGE only).
        sections: Sections by id, for headings and retrieval by embedding.
        judge: An answerability judge for the doubtful items, or None.
        page_of: Section id -> id of the page holding it (default: from ``all_pages``).
        translations: Document id -> ids of the documents that are its translations
            (:func:`qagen.language.translations`); a question is answerable wherever one is loaded.
    """
    if page_of is None:
        page_of = {sid: p.id for p in all_pages for sid in p.section_ids}
    use_embed = embed is not None and config.leakage_embeddings
    pages = {p.id: p for ps in corpus.values() for p in ps}
    indexes = {cell: CorpusIndex(ps, sections) for cell, ps in corpus.items()}
    ctx = _Context(
        config,
        Vocabulary.build(all_pages, sections, config.answerability_specific_share),
        _Vectors(embed if use_embed else None),
        {p.id: t for idx in indexes.values() for p, t in zip(idx.pages, idx.tokens, strict=True)},
        {},
        {pid: p.text for pid, p in pages.items()},
    )
    items = [it for its in placed.values() for it in its]
    units = {pid: _retrieval_units(p, sections, ctx) for pid, p in pages.items()}
    ctx.vectors.add([it.question for it in items] + [u for us in units.values() for u in us])
    retrieved: dict[str, tuple[Cell, list[str], list[dict[str, Any]]]] = {}
    for (s, f), index in indexes.items():
        for item in placed.get((s, 3 - f), ()):
            terms, hits = _retrieve(item, index, units, ctx)
            retrieved[item.id] = ((s, f), terms, hits)
    sources = {it.id: [page_of.get(sid, "") for sid in it.source.section_ids] for it in items}
    same_doc = {  # pages of the question's own document in the corpus it is asked against
        it.id: [p.id for p in indexes[retrieved[it.id][0]].pages if p.doc_id == it.source.doc_id]
        for it in items
        if it.id in retrieved
    }
    checked = {h["page_id"] for _c, _t, hits in retrieved.values() for h in hits}
    checked |= {pid for ids in sources.values() for pid in ids if pid in pages}
    checked |= {pid for ids in same_doc.values() for pid in ids}
    translated = {  # pages of a translation of the question's document in that corpus
        it.id: [p.id for p in indexes[retrieved[it.id][0]].pages if p.doc_id in set(others)]
        for it in items
        if it.id in retrieved and (others := (translations or {}).get(it.source.doc_id))
    }
    ctx.vectors.add([answer_probe(it) for it in items] + [w for pid in sorted(checked) for w in ctx.page_passages(pid)])
    unanswerable = {
        it.id: _translation(
            _same_document(
                _offline(it, indexes[retrieved[it.id][0]], retrieved[it.id][1], retrieved[it.id][2], ctx),
                it,
                same_doc[it.id],
                ctx,
            ),
            translated.get(it.id, ()),
        )
        for it in items
        if it.id in retrieved
    }
    answerable: dict[str, dict[str, Any]] = {}
    for cell, here in placed.items():
        in_corpus = {p.id for p in corpus.get(cell, ())}
        for item in here:
            answerable[item.id] = _answer_check(item, sources[item.id], in_corpus, ctx)
    judged, stats = 0, None
    if judge is not None:
        judged = _run_judge(judge, placed, unanswerable, pages)
        stats = judge.stats() if hasattr(judge, "stats") else None
    for verdict in unanswerable.values():
        _decide(verdict)
    return CheckResult(unanswerable, answerable, judged, stats)


def _retrieval_units(page: Page, sections: Mapping[str, Section] | None, ctx: _Context) -> list[str]:
    """The texts a page is matched to a question by: its sections, else its passages."""
    if sections is not None:
        found = [section_text(s) for sid in page.section_ids if (s := sections.get(sid)) is not None]
        if found:
            return found
    return ctx.page_passages(page.id)


def _retrieve(
    item: Item, index: CorpusIndex, units: Mapping[str, list[str]], ctx: _Context
) -> tuple[list[str], list[dict[str, Any]]]:
    """The question's content terms and the corpus pages that best match it (rank-fused)."""
    terms = [t for t in content_terms(item.question, item.language) if ctx.vocab.df(t) > 0]
    qvec = ctx.vectors.get(item.question)
    sims = [ctx.vectors.best(qvec, units[p.id]) for p in index.pages] if qvec is not None else None
    bm25 = index.bm25_scores(terms)
    fused = fuse([bm25, *([sims] if sims is not None else [])])
    top = sorted(range(len(index.pages)), key=lambda j: (-fused[j], j))[: ctx.config.answerability_top_k]
    hits = []
    for j in top:
        if fused[j] > 0:
            hit: dict[str, Any] = {"page_id": index.pages[j].id, "index": j, "rrf": round(fused[j], 5)}
            hit["bm25"] = round(bm25[j], 4)
            if sims is not None and sims[j] is not None:
                hit["similarity"] = round(sims[j], 4)
            hits.append(hit)
    return terms, hits


def _offline(
    item: Item, index: CorpusIndex, terms: list[str], hits: list[dict[str, Any]], ctx: _Context
) -> dict[str, Any]:
    """The offline verdict of one question against one corpus, with its evidence."""
    specific = [t for t in terms if ctx.vocab.is_specific(t)]
    verdict: dict[str, Any] = {
        "verdict": "uncertain" if not terms else "unanswerable",
        "check": None,
        "reason": "the question has no content terms" if not terms else "no page of the corpus matches the question",
        "terms": terms,
        "specific_terms": specific,
        "pages": [{k: v for k, v in h.items() if k != "index"} for h in hits],
        "page_id": None,
    }
    if not terms:
        return verdict
    best: dict[str, Any] | None = None
    for hit in hits:
        row = _page_verdict(hit["index"], terms, specific, item, index, ctx)
        if best is None or _RANK[row["verdict"]] > _RANK[best["verdict"]]:
            best = row
    if best is not None:
        verdict.update(best)
    return verdict


def _same_document(verdict: dict[str, Any], item: Item, page_ids: Sequence[str], ctx: _Context) -> dict[str, Any]:
    """A question whose own document is partly in the corpus it is asked against (its pages
    split between the folds) is answerable when its answer's words are on one of those pages,
    whatever the wording around it: another chapter, the package's documented code or its index
    often says the same thing in other words, which the term checks miss. Only the words count
    (ROUGE recall), not embedding similarity: every passage of one document is close to every
    other in embedding space."""
    if verdict["verdict"] == "answerable":
        return verdict
    probe = answer_probe(item)
    for pid in page_ids:
        rouge, sim = ctx.answer_evidence(probe, pid, item.language)
        if rouge >= ctx.config.answerability_answer_rouge:
            reason = "the question's own document is partly in this corpus, and this page of it holds the answer"
            found = {"page_id": pid, "answer_rouge": round(rouge, 4), "verdict": "answerable"}
            found["answer_similarity"] = None if sim is None else round(sim, 4)
            shown = [p for p in verdict["pages"] if p["page_id"] != pid]
            return {**verdict, **found, "check": "same-document", "reason": reason, "pages": [*shown, {"page_id": pid}]}
    return verdict


def _translation(verdict: dict[str, Any], page_ids: Sequence[str]) -> dict[str, Any]:
    """A question is answerable where a translation of its document is loaded: the same facts
    are there in another language, which a multilingual chatbot reads (the word checks cannot)."""
    if verdict["verdict"] == "answerable" or not page_ids:
        return verdict
    reason = "a translation of the question's document is in this corpus"
    shown = [p for p in verdict["pages"] if p["page_id"] != page_ids[0]]
    found = {"page_id": page_ids[0], "verdict": "answerable", "check": "translation", "reason": reason}
    return {**verdict, **found, "pages": [*shown, {"page_id": page_ids[0]}]}


def _page_verdict(
    j: int, terms: Sequence[str], specific: Sequence[str], item: Item, index: CorpusIndex, ctx: _Context
) -> dict[str, Any]:
    page = index.pages[j]
    on_page = [t for t in terms if j in index.terms.units_with(t)]
    total = sum(ctx.vocab.weight(t) for t in terms)
    coverage = sum(ctx.vocab.weight(t) for t in on_page) / total if total else 0.0
    heading = index.heading_match(j, terms)
    rouge, sim = ctx.answer_evidence(answer_probe(item), page.id, item.language)
    covered = all(t in on_page for t in specific) and coverage >= ctx.config.answerability_coverage
    row: dict[str, Any] = {
        "page_id": page.id,
        "matched_terms": on_page,
        "missing_terms": [t for t in terms if t not in on_page],
        "coverage": round(coverage, 4),
        "heading": heading,
        "answer_rouge": round(rouge, 4),
        "answer_similarity": None if sim is None else round(sim, 4),
    }
    if heading is not None:
        return {**row, "verdict": "answerable", "check": "heading", "reason": "a section heading holds every term"}
    if not specific and not row["missing_terms"]:
        # the heading must hold the question's most distinctive term ("options" of "package options")
        top = max(ctx.vocab.weight(t) for t in terms)
        partial = index.heading_with_any(j, [t for t in terms if ctx.vocab.weight(t) >= top - 1e-9])
        if partial is not None:
            row["heading"] = partial
            reason = "a generic question: the page holds every term, a heading its most distinctive one"
            return {**row, "verdict": "answerable", "check": "generic", "reason": reason}
    if covered and ctx.answer_found(rouge, sim):
        reason = "the page holds the question's terms and the answer"
        return {**row, "verdict": "answerable", "check": "terms+answer", "reason": reason}
    if covered:
        reason = "the page holds the question's terms, not the answer"
        return {**row, "verdict": "uncertain", "check": None, "reason": reason}
    lacking = [t for t in specific if t not in on_page]
    reason = f"specific term(s) not on the page: {', '.join(lacking)}" if lacking else "too few of the terms"
    return {**row, "verdict": "unanswerable", "check": None, "reason": reason}


def _answer_check(item: Item, sources: Sequence[str], in_corpus: set[str], ctx: _Context) -> dict[str, Any]:
    """Is the item's answer on its source pages, in its own iteration's corpus?"""
    ids = list(dict.fromkeys(sources))
    loaded = bool(ids) and all(pid in in_corpus for pid in ids)
    rouge, sim = 0.0, None
    for pid in ids if loaded else ():
        r, m = ctx.answer_evidence(answer_probe(item), pid, item.language)
        rouge = max(rouge, r)
        sim = m if sim is None else max(sim, m or 0.0)
    return {
        "supported": bool(loaded and ctx.answer_found(rouge, sim)),
        "source_pages_in_corpus": loaded,
        "answer_rouge": round(rouge, 4),
        "answer_similarity": None if sim is None else round(sim, 4),
    }


def _run_judge(
    judge: Judge,
    placed: Mapping[Cell, Sequence[Item]],
    verdicts: dict[str, dict[str, Any]],
    pages: Mapping[str, Page],
) -> int:
    """Ask the judge about every item whose offline verdict is not a clear "unanswerable"."""
    items = {it.id: it for its in placed.values() for it in its}
    cases: list[JudgeCase] = []
    for item_id, v in verdicts.items():
        if v["verdict"] == "unanswerable" or not v["pages"]:
            continue
        shown = tuple((p["page_id"], pages[p["page_id"]].text) for p in v["pages"])
        item = items[item_id]
        cases.append(JudgeCase(item_id, item.question, shown, item.language))
    replies = judge.judge(cases)
    show = getattr(judge, "shown", None)
    for case, reply in zip(cases, replies, strict=True):
        seen = show(case) if show is not None else case
        if reply is None:
            verdicts[case.item_id]["judge"] = {"status": "failed"}
            continue
        page_id = verify_quote(reply.evidence, seen.pages) if reply.answerable == "yes" else None
        status = "no" if reply.answerable == "no" else ("yes" if page_id is not None else "no evidence")
        verdicts[case.item_id]["judge"] = {
            "status": status,
            "answerable": reply.answerable,
            "evidence": reply.evidence,
            "evidence_page_id": page_id,
        }
    return len(cases)


def _decide(v: dict[str, Any]) -> None:
    """The final decision: a verified judge "yes" or a "no" decide; else the offline verdict."""
    judged = (v.get("judge") or {}).get("status")
    if judged in ("yes", "no"):
        v["answerable"] = judged == "yes"
        v["decided_by"] = "judge"
    else:
        v["answerable"] = v["verdict"] == "answerable"
        v["decided_by"] = "offline"


def make_judge(
    config: Any,
    llm: Any = None,
    cache_dir: str | Path | None = None,
    prompts_dir: str | Path | None = None,
    progress: bool = False,
) -> LLMAnswerabilityJudge | None:
    """The judge ``splits.answerability_judge`` asks for, or None.

    Args:
        config: The whole :class:`~qagen.config.Config`.
        llm: An LLM backend object or spec overriding ``llm.backend`` (``qagen build --llm``).
        cache_dir: The build's cache folder; requests are cached in its ``llm.sqlite``.
        prompts_dir: The prompts folder (``generate.prompts_dir``); the bundled prompt when it
            has no ``answerability.md``.
        progress: Show a progress bar.

    Raises:
        ValueError: ``answerability_judge = "on"`` without an LLM.
    """
    mode = config.splits.answerability_judge
    backend = llm or config.llm.backend
    offline = isinstance(backend, str) and backend.strip().lower() == "extractive"
    if mode == "off" or not config.splits.answerability or (offline and mode == "auto"):
        return None
    if offline:
        raise ValueError("splits.answerability_judge = on needs an LLM: set llm.backend (or --llm)")
    from qagen.llm import LLMEngine

    cache = Path(cache_dir) / "llm.sqlite" if cache_dir is not None else None
    engine = LLMEngine(backend, config.llm, cache_path=cache, progress=progress)
    return LLMAnswerabilityJudge(engine, prompts_dir, seed=config.seed)
