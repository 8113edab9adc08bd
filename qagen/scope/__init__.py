"""Out-of-scope questions: about nothing the corpus covers; a chatbot must refuse them.

The cross-evaluation layout already asks the other fold's questions as unanswerable: questions
from the same domain whose answers are not loaded. Users also test the other side of scope,
questions off the domain altogether ("Who won the FIFA World Cup in 2014?" of a hospital's
leaflets). With ``splits.out_of_scope_share`` above 0, every iteration of a set asks such
questions too, in the documents' languages, from the lists bundled here
(``questions.<code>.json``: everyday knowledge, cooking, sport, geography, astronomy; adding a
language is adding a file). Each set (validation, test) gets its own questions, asked in both
of its iterations.

A bundled question is used only when no page of the build answers it, checked from the
question's side as the other-fold questions are (:mod:`qagen.answerability`): its content terms
(less stop words of its language) are looked up in every page; the pages that best match them
(BM25) are read, and the question is *rejected* when one page holds at least
``splits.out_of_scope_max_coverage`` of its terms' weight (inverse document frequency over the
pages; a term in no page weighs the most), or, with an embedding model, when a passage of one
of those pages is at least ``splits.out_of_scope_max_similarity`` similar to it. A corpus of
cookbooks keeps no sourdough question. Every candidate's verdict, kept or not, with its best page,
coverage and similarity, is in ``splits/leakage.json`` under ``out_of_scope``.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from qagen.io import sha256_text
from qagen.records import GeneratorInfo, Item, Page, Section, Source

Embed = Callable[[list[str]], Any]

# BM25-best pages read per question, and the passage length compared with it by embedding
TOP_K = 5
PASSAGE_WORDS = 60
SETS = ("validation", "test")


@functools.lru_cache(maxsize=16)
def bundled(language: str) -> tuple[str, ...]:
    """The bundled out-of-scope questions in ``language`` (ISO 639-1); () for a language without a list."""
    path = resources.files(__name__) / f"questions.{language}.json"
    if not path.is_file():
        return ()
    return tuple(json.loads(path.read_text(encoding="utf-8"))["questions"])


def languages() -> list[str]:
    """Languages with a bundled list."""
    names = [p.name for p in resources.files(__name__).iterdir()]
    return sorted(n.split(".")[1] for n in names if n.startswith("questions.") and n.endswith(".json"))


@dataclass(frozen=True)
class Verdict:
    """One candidate's check against every page of the build."""

    question: str
    language: str
    kept: bool
    reason: str  # "no_shared_terms", "not_on_any_page", "terms_on_page" or "similar_passage"
    terms: tuple[str, ...]
    page_id: str | None = None
    coverage: float = 0.0
    similarity: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "language": self.language,
            "kept": self.kept,
            "reason": self.reason,
            "terms": list(self.terms),
            "page_id": self.page_id,
            "coverage": round(self.coverage, 4),
            "similarity": None if self.similarity is None else round(self.similarity, 4),
        }


@dataclass
class Selection:
    """Out-of-scope items per set, every verdict, and the sets whose ask was not met."""

    items: dict[str, list[Item]] = field(default_factory=dict)
    verdicts: list[Verdict] = field(default_factory=list)
    shortfall: dict[str, dict[str, int]] = field(default_factory=dict)  # set -> language -> missing


def verify(
    candidates: Sequence[tuple[str, str]],
    pages: Sequence[Page],
    sections: Mapping[str, Section] | None = None,
    embed: Embed | None = None,
    max_coverage: float = 0.5,
    max_similarity: float = 0.6,
) -> list[Verdict]:
    """Check each (question, language) against every page; see the module's docstring."""
    from qagen.answerability import CorpusIndex, content_terms, windows
    from qagen.filters.grounding import tokenize

    index = CorpusIndex(pages, sections)
    n = len(index.pages)
    ceiling = math.log(n + 1) + 1.0  # the weight of a term no page uses

    def weight(term: str) -> float:
        df = len(index.terms.units_with(term))
        return math.log((n + 1) / (df + 1)) + 1.0 if df else ceiling

    out: list[Verdict] = []
    for question, language in candidates:
        terms = tuple(content_terms(question, language))
        known = [t for t in terms if index.terms.units_with(t)]
        if not known:
            out.append(Verdict(question, language, True, "no_shared_terms", terms))
            continue
        total = sum(weight(t) for t in terms)
        scores = index.bm25_scores(known)
        ranked = sorted((j for j in range(n) if scores[j] > 0), key=lambda j: -scores[j])[:TOP_K]
        if not ranked:  # BM25 found nothing: read the pages that hold the most terms
            ranked = sorted(range(n), key=lambda j: -sum(j in index.terms.units_with(t) for t in known))[:TOP_K]
        best_j, best = ranked[0], -1.0
        for j in ranked:
            share = sum(weight(t) for t in known if j in index.terms.units_with(t)) / total
            if share > best:
                best_j, best = j, share
        similarity = None
        if embed is not None:
            import numpy as np

            passages = []
            for j in ranked:
                tokens = tokenize(index.pages[j].text)
                passages += [" ".join(tokens[a:b]) for a, b in windows(tokens, PASSAGE_WORDS)]
            if passages:
                vectors = np.asarray(embed([question, *passages]), dtype=np.float32)
                similarity = float((vectors[1:] @ vectors[0]).max())
        page_id = index.pages[best_j].id
        if best >= max_coverage:
            out.append(Verdict(question, language, False, "terms_on_page", terms, page_id, best, similarity))
        elif similarity is not None and similarity >= max_similarity:
            out.append(Verdict(question, language, False, "similar_passage", terms, page_id, best, similarity))
        else:
            out.append(Verdict(question, language, True, "not_on_any_page", terms, page_id, best, similarity))
    return out


def item(question: str, language: str, split: str, refusal: str) -> Item:
    """An out-of-scope question as an item: no source, fold 0, the refusal as its answer."""
    return Item(
        id=sha256_text(f"out_of_scope|{language}|{question}")[:16],
        type="long_form",
        question=question,
        answer=refusal,
        source=Source(doc_id="", section_ids=()),
        fold=0,
        split=split,  # type: ignore[arg-type]
        generator=GeneratorInfo(backend="bundled", model="out_of_scope"),
        language=language,
    )


def select(
    wanted: Mapping[str, Mapping[str, int]],
    pages: Sequence[Page],
    refusal: str,
    *,
    sections: Mapping[str, Section] | None = None,
    embed: Embed | None = None,
    max_coverage: float = 0.5,
    max_similarity: float = 0.6,
    seed: int = 0,
) -> Selection:
    """Out-of-scope items for each set: ``wanted[set][language]`` of them, checked, disjoint across sets.

    Candidates are taken in an order fixed by ``seed``; a language without a bundled list, or
    with too few questions the corpus does not answer, falls short, and ``shortfall`` says by how much.
    """
    needed = sorted({lang for per in wanted.values() for lang, k in per.items() if k > 0})
    order = {lang: sorted(bundled(lang), key=lambda q, lang=lang: sha256_text(f"{seed}|{lang}|{q}")) for lang in needed}
    verdicts = verify(
        [(q, lang) for lang in needed for q in order[lang]],
        pages,
        sections,
        embed,
        max_coverage=max_coverage,
        max_similarity=max_similarity,
    )
    usable = {lang: [v.question for v in verdicts if v.language == lang and v.kept] for lang in needed}
    selection = Selection(verdicts=verdicts)
    for split in SETS:
        chosen: list[Item] = []
        for lang, k in sorted((wanted.get(split) or {}).items()):
            take, usable[lang] = usable.get(lang, [])[:k], usable.get(lang, [])[k:]
            chosen += [item(q, lang, split, refusal) for q in take]
            if len(take) < k:
                selection.shortfall.setdefault(split, {})[lang] = k - len(take)
        selection.items[split] = chosen
    return selection


__all__ = ["Selection", "Verdict", "bundled", "item", "languages", "select", "verify"]
