"""Cross-evaluation splits: per set and fold, a corpus of pages and the questions to ask it.

For each set (validation, test) and iteration i in {1, 2} the chatbot's store holds the
emulated pages of fold i; the questions of fold i are answerable (expected behaviour
"answer") and those of the other fold are unanswerable ("refuse", expected answer: the
configured refusal). Layout, relative to the output folder::

    splits/{set}/fold_{i}/pages.jsonl      corpus of iteration i (Page records)
    splits/{set}/fold_{i}/items.jsonl         fold i's items, as answerable records
    splits/{set}/fold_{i}/unanswerable.jsonl  iteration i's unanswerable records: the other fold's
                                              items (those the checks below take out left out),
                                              expected behaviour "refuse", expected answer the refusal
    splits/{set}/fold_{i}/questions.jsonl     iteration i: items.jsonl + unanswerable.jsonl
    splits/leakage.json                    the leakage, answerability and answer checks, per item
    crosseval.json                         the iterations and their files (written by the runner)

Which pages are in a corpus: a page belongs to fold i when all its kept sections are in
fold i (outlier sections ride along: with ``folds.outliers = "assign"`` they are kept in that
fold and asked, else they get no questions). A page with no kept section
is in no corpus. A page with a section removed as a conflict is in no corpus either: its
unit (page or document) held sections of both folds, so loading it would make questions
of the other fold answerable. A page's split is its sections' split; sections of one
page always agree because the fold builder splits whole units (pages or documents).

Leakage, from the answer's side: an item whose answer is still found in the other fold's
pages (ROUGE recall or embedding similarity at or above the thresholds in ``[splits]``) is
flagged and left out of the unanswerable role; it stays answerable in its own iteration.

Answerability, from the question's side (:mod:`qagen.answerability`, ``splits.answerability``):
an item whose question the iteration's corpus answers (a generic "What are the options?"
asked of a corpus with an "Options" section; a question whose terms and answer are on a
page; or an LLM judge's verified "yes") is left out of the unanswerable role too, with its
evidence in ``splits/leakage.json``. The mirror check: an item whose answer is not found on
its own source pages is reported, and with ``splits.drop_unsupported_answerable`` left out
of both roles (a question its corpus cannot answer is no valid answerable item, and the
unanswerable questions of an iteration stay the other iteration's answerable ones less
those a check took out).

Warnings (``crosseval.json`` ``warnings``, each ``{"code", "message", ...}``): an iteration
with fewer than ``splits.min_cell_items`` answerable or unanswerable questions
(``small_cell``), a fold whose kept sections are all of one topic (``one_topic_fold``), and
an iteration without answerable or unanswerable items of a type that other iterations of
its set have (``missing_type``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from qagen.filters.grounding import rouge_recall, tokenize
from qagen.records import SCHEMA_VERSION, FoldAssignment, Item, Page, Section, to_dict

if TYPE_CHECKING:
    import numpy as np

    from qagen.answerability import CheckResult, Judge
    from qagen.config import SplitsConfig

SETS = ("validation", "test")
FOLDS = (1, 2)
Cell = tuple[str, int]
Embed = Callable[[list[str]], "np.ndarray"]


@dataclass(frozen=True)
class SplitsResult:
    """What :func:`build_splits` returns; :func:`write_splits` writes it.

    Attributes:
        pages: Corpus pages per (set, fold).
        items: Records of each (set, fold)'s items in their answerable role.
        questions: Records of iteration (set, i): fold i answerable + other fold unanswerable.
        crosseval: The ``crosseval.json`` content (paths relative to the output folder).
        leakage: Per-item leakage measures and the summary.
    """

    pages: dict[Cell, list[Page]]
    items: dict[Cell, list[dict[str, Any]]]
    questions: dict[Cell, list[dict[str, Any]]]
    crosseval: dict[str, Any]
    leakage: dict[str, Any]


def build_splits(
    items: Sequence[Item],
    pages: Sequence[Page],
    assignments: Sequence[FoldAssignment],
    config: SplitsConfig,
    embed: Embed | None = None,
    sections: Mapping[str, Section] | None = None,
    judge: Judge | None = None,
    translations: Mapping[str, Sequence[str]] | None = None,
    scope_embed: Embed | None = None,
    chunks: ChunkMap | None = None,
) -> SplitsResult:
    """Lay out the cross-evaluation iterations and run the leakage and answerability checks.

    Args:
        items: Accepted items (``items.jsonl``); ids must be unique.
        pages: All emulated pages.
        assignments: The fold assignment of every section.
        config: The ``[splits]`` config section.
        embed: Texts -> L2-normalised vectors, for the embedding half of the leakage check
            (None: ROUGE only).
        sections: Sections by id; when given, records carry their source section texts as
            ``contexts`` (else the source pages' texts), and the answerability check reads
            their headings.
        judge: An answerability judge (:class:`~qagen.answerability.LLMAnswerabilityJudge`)
            for the questions the offline check finds answerable or is unsure of; None: offline only.
        translations: Document id -> its translations' ids: a question is not asked as
            unanswerable where a translation of its document is loaded.
        scope_embed: A semantic embedder for the out-of-scope check's passage similarity
            (``splits.out_of_scope_share``); None: that check reads the words alone.
        chunks: Runs the leakage check's search of the other fold's pages in chunks of pages
            elsewhere (:class:`qagen.ingest.ray_executor.RayChunks` on a Ray cluster); None: here.
            Either way the same candidates, to the bit.

    Returns:
        A :class:`SplitsResult`.

    Raises:
        ValueError: When item ids repeat, or a page holds kept sections of two folds or splits.
    """
    repeated = [k for k, n in Counter(it.id for it in items).items() if n > 1]
    if repeated:
        raise ValueError(f"item ids must be unique; repeated: {repeated[:5]}")
    by_section = {a.section_id: a for a in assignments}
    page_cell, page_excluded = _page_cells(pages, by_section)
    corpus: dict[Cell, list[Page]] = {(s, f): [] for s in SETS for f in FOLDS}
    for page in pages:
        if page.id in page_cell:
            corpus[page_cell[page.id]].append(page)
    page_of = {sid: p.id for p in pages for sid in p.section_ids}
    placed, item_excluded = _place_items(items, by_section, page_of, page_cell)
    contexts = _contexts(items, sections, {p.id: p for p in pages}, page_of)
    leak = _leakage(placed, corpus, config, embed, chunks)
    checks = _answerability(placed, corpus, pages, config, embed, sections, judge, page_of, translations)
    keep = {it.id: _kept(it.id, leak, checks, config) for its in placed.values() for it in its}
    answerable = {
        cell: [_record(it, "answerable", config, contexts, leak) for it in its if keep[it.id][0]]
        for cell, its in placed.items()
    }
    questions: dict[Cell, list[dict[str, Any]]] = {}
    for s, f in corpus:
        other = [it for it in placed[(s, 3 - f)] if keep[it.id][1]]
        refuse = [_record(it, "unanswerable", config, contexts, leak) for it in other]
        questions[(s, f)] = answerable[(s, f)] + refuse
    leakage = _leakage_report(placed, leak, checks, keep, config)
    if translations:
        leakage["translations"] = {doc: list(others) for doc, others in sorted(translations.items())}
    scope = (
        _out_of_scope(questions, placed, pages, config, scope_embed, sections) if config.out_of_scope_share else None
    )
    crosseval = _crosseval(
        corpus, placed, questions, leak, checks, keep, config, page_excluded, item_excluded, len(pages)
    )
    crosseval["warnings"] = cell_warnings(questions, placed, assignments, config)
    if scope is not None:
        leakage["out_of_scope"] = scope
        crosseval["out_of_scope"] = {k: v for k, v in scope.items() if k != "verdicts"}
        for it in crosseval["iterations"]:
            it["counts"]["unanswerable_out_of_scope"] = scope["asked"].get(it["set"], 0)
        for split, missing in scope["shortfall"].items():
            crosseval["warnings"].append(
                {
                    "code": "out_of_scope_shortfall",
                    "set": split,
                    "missing": missing,
                    "message": f"{split}: {sum(missing.values())} out-of-scope question(s) fewer than "
                    f"splits.out_of_scope_share asks ({', '.join(f'{k} {v}' for k, v in sorted(missing.items()))}): "
                    "no bundled list for the language, or the corpus answers the rest",
                }
            )
    return SplitsResult(corpus, answerable, questions, crosseval, leakage)


def _out_of_scope(
    questions: dict[Cell, list[dict[str, Any]]],
    placed: Mapping[Cell, list[Item]],
    pages: Sequence[Page],
    config: SplitsConfig,
    embed: Embed | None,
    sections: Mapping[str, Section] | None,
) -> dict[str, Any]:
    """Add each set's out-of-scope questions to both of its iterations (see :mod:`qagen.scope`);
    return what was asked, found short and checked, for ``splits/leakage.json``."""
    from qagen.scope import select

    share = config.out_of_scope_share
    wanted: dict[str, dict[str, int]] = {}
    for s in SETS:
        per_iteration = sum(len(questions[(s, f)]) for f in FOLDS) / len(FOLDS)
        n = round(per_iteration * share / (1 - share))
        languages = Counter(it.language for f in FOLDS for it in placed[(s, f)])
        wanted[s] = _apportion(n, languages)
    selection = select(
        wanted,
        pages,
        config.refusal_answer,
        sections=sections,
        embed=embed,
        max_coverage=config.out_of_scope_max_coverage,
        max_similarity=config.out_of_scope_max_similarity,
    )
    verdict = {(v.question, v.language): v for v in selection.verdicts}
    for s in SETS:
        for f in FOLDS:
            for item in selection.items.get(s, []):
                v = verdict[(item.question, item.language)]
                match = {
                    "page_id": v.page_id,
                    "rouge": 0.0,
                    "similarity": v.similarity,
                    "similarity_page_id": v.page_id if v.similarity is not None else None,
                    "flagged": False,
                }
                questions[(s, f)].append(
                    _record(item, "unanswerable", config, {}, {item.id: match}, scope="out_of_scope")
                )
    return {
        "share": share,
        "wanted": wanted,
        "asked": {s: len(selection.items.get(s, [])) for s in SETS},
        "shortfall": selection.shortfall,
        "rejected": sum(not v.kept for v in selection.verdicts),
        "verdicts": [v.to_dict() for v in selection.verdicts],
    }


def _apportion(n: int, weights: Counter[str]) -> dict[str, int]:
    """``n`` shared over the keys of ``weights`` in proportion (largest remainder, ties by key)."""
    total = sum(weights.values())
    if n <= 0 or total == 0:
        return {}
    exact = {k: n * w / total for k, w in weights.items()}
    out = {k: int(v) for k, v in exact.items()}
    for k in sorted(exact, key=lambda k: (-(exact[k] - out[k]), k))[: n - sum(out.values())]:
        out[k] += 1
    return {k: v for k, v in sorted(out.items()) if v}


def _answerability(
    placed: Mapping[Cell, list[Item]],
    corpus: Mapping[Cell, list[Page]],
    pages: Sequence[Page],
    config: SplitsConfig,
    embed: Embed | None,
    sections: Mapping[str, Section] | None,
    judge: Judge | None,
    page_of: Mapping[str, str],
    translations: Mapping[str, Sequence[str]] | None,
) -> CheckResult | None:
    if not config.answerability:
        return None
    from qagen.answerability import check

    return check(placed, corpus, pages, config, embed, sections, judge, page_of, translations)


def _kept(
    item_id: str, leak: Mapping[str, dict], checks: CheckResult | None, config: SplitsConfig
) -> tuple[bool, bool]:
    """(kept in the answerable role, kept in the unanswerable role) of one item.

    An item whose answer is not on its source pages is dropped (``drop_unsupported_answerable``)
    from both roles: it is not a valid item, and each iteration's unanswerable questions stay
    the other iteration's answerable ones less those a check took out."""
    if checks is None:
        return True, not leak[item_id]["flagged"]
    supported = checks.answerable[item_id]["supported"] or not config.drop_unsupported_answerable
    answered = checks.unanswerable[item_id]["answerable"]
    return supported, supported and not (leak[item_id]["flagged"] or answered)


def _page_cells(pages: Sequence[Page], by_section: Mapping[str, FoldAssignment]) -> tuple[dict[str, Cell], Counter]:
    """(set, fold) of every page that belongs to a corpus, and counts of excluded pages by reason."""
    cells: dict[str, Cell] = {}
    excluded: Counter[str] = Counter()
    for page in pages:
        found = [by_section.get(sid) for sid in page.section_ids]
        if any(a is not None and a.status == "conflict" for a in found):
            excluded["conflict"] += 1
            continue
        kept = [a for a in found if a is not None and a.status == "kept"]
        if not kept:
            excluded["no_kept_sections"] += 1
            continue
        folds = {a.fold for a in kept}
        splits = {a.split for a in kept}
        if len(folds) != 1 or len(splits) != 1:
            raise ValueError(
                f"page {page.id} holds kept sections of folds {sorted(map(str, folds))} and splits "
                f"{sorted(map(str, splits))}; folds must remove or split whole units (folds.unit = page or document)"
            )
        fold, split = kept[0].fold, kept[0].split
        if fold not in FOLDS or split not in SETS:
            raise ValueError(f"page {page.id}: fold must be 1 or 2 and split validation or test; got {fold}, {split}")
        cells[page.id] = (split, fold)
    return cells, excluded


def _place_items(
    items: Sequence[Item],
    by_section: Mapping[str, FoldAssignment],
    page_of: Mapping[str, str],
    page_cell: Mapping[str, Cell],
) -> tuple[dict[Cell, list[Item]], Counter]:
    """Items per (set, fold); items whose sources are not in their fold's corpus are left out, counted."""
    placed: dict[Cell, list[Item]] = {(s, f): [] for s in SETS for f in FOLDS}
    excluded: Counter[str] = Counter()
    for item in items:
        cell = (item.split, item.fold)
        if cell not in placed:
            excluded["fold or split out of range"] += 1
            continue
        assigned = [by_section.get(sid) for sid in item.source.section_ids]
        if not assigned or any(a is None or a.status != "kept" or (a.split, a.fold) != cell for a in assigned):
            excluded["source section not kept in the item's fold and split"] += 1
            continue
        if any(page_cell.get(page_of.get(sid, "")) != cell for sid in item.source.section_ids):
            excluded["source page not in the fold's corpus"] += 1
            continue
        placed[cell].append(item)
    return placed, excluded


def _contexts(
    items: Sequence[Item], sections: Mapping[str, Section] | None, pages: Mapping[str, Page], page_of: Mapping[str, str]
) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for item in items:
        if sections is not None:
            texts = [f"{s.heading}\n{s.text}".strip() for sid in item.source.section_ids if (s := sections.get(sid))]
        else:
            ids = dict.fromkeys(page_of[sid] for sid in item.source.section_ids if sid in page_of)
            texts = [pages[pid].text for pid in ids]
        out[item.id] = texts
    return out


def _record(
    item: Item,
    role: str,
    config: SplitsConfig,
    contexts: Mapping[str, list[str]],
    leak: Mapping[str, dict],
    scope: str | None = None,
) -> dict[str, Any]:
    """One question record (``schemas/split_question.schema.json``; the answerability evidence
    is in ``splits/leakage.json``, not here); ``scope`` defaults to what the role says."""
    answerable = role == "answerable"
    record = {**to_dict(item), "scenario_generated": None}
    if item.type == "mcq" and not answerable:
        # the Leadinfo thesis's S4: the answer is not in the corpus asked against (checked from the question's
        # side like every unanswerable question); the scenario it was generated at is kept beside
        record["scenario_generated"], record["scenario"] = record.get("scenario"), "S4"
    return {
        **record,
        "role": role,
        "scope": scope or ("in_scope" if answerable else "other_fold"),
        # a false premise is corrected where its source is loaded (the reference gives the source's fact)
        "expected_behavior": ("correct_premise" if item.premise == "false" else "answer") if answerable else "refuse",
        "expected_answer": item.answer if answerable else config.refusal_answer,
        "contexts": contexts.get(item.id, []),
        "leakage": leak[item.id],
    }


def _leakage(
    placed: Mapping[Cell, list[Item]],
    corpus: Mapping[Cell, list[Page]],
    config: SplitsConfig,
    embed: Embed | None,
    chunks: ChunkMap | None = None,
) -> dict[str, dict[str, Any]]:
    """Per item: best match of its answer in the other fold's pages of the same set."""
    out: dict[str, dict[str, Any]] = {}
    for (s, f), items in placed.items():
        probes = [_probe(it, config.leakage_min_words) for it in items]
        matches = _best_matches(probes, corpus[(s, 3 - f)], config, embed, chunks)
        for item, match in zip(items, matches, strict=True):
            rouge_hit = match["rouge"] >= config.leakage_rouge
            sim = match["similarity"]
            sim_hit = sim is not None and sim >= config.leakage_similarity
            out[item.id] = {**match, "flagged": bool(rouge_hit or sim_hit)}
    return out


def _probe(item: Item, min_words: int) -> str:
    """The text looked for in the other fold: the answer, with the question when the answer is short."""
    return item.answer if len(item.answer.split()) >= min_words else f"{item.question} {item.answer}"


def _best_matches(
    probes: list[str], pages: list[Page], config: SplitsConfig, embed: Embed | None, chunks: ChunkMap | None = None
) -> list[dict]:
    """For each probe: the highest ROUGE recall over its candidate pages (most rare words in
    common) and, with ``embed``, the highest cosine similarity to their best passages."""
    use_embed = embed is not None and config.leakage_embeddings
    empty = {"page_id": None, "rouge": 0.0, "similarity": 0.0 if use_embed else None, "similarity_page_id": None}
    if not probes or not pages:
        return [dict(empty) for _ in probes]
    texts = [p.text for p in pages]
    if chunks is not None and len(texts) > chunks.chunk_pages:
        candidates, idf = _candidate_pages_chunked(probes, texts, config.leakage_candidates, chunks)
    else:
        candidates, idf = _candidate_pages(probes, texts, config.leakage_candidates)
    out = []
    for probe, idx in zip(probes, candidates, strict=True):
        scores = [(rouge_recall(probe, pages[j].text, config.leakage_rouge_type), -j) for j in idx]
        best, neg_j = max(scores)
        out.append({**empty, "page_id": pages[-neg_j].id, "rouge": round(best, 4)})
    if use_embed:
        _add_similarity(out, probes, candidates, pages, idf, config, embed)  # type: ignore[arg-type]
    return out


def _candidate_pages(probes: list[str], texts: list[str], k: int) -> tuple[list[list[int]], dict[str, float]]:
    """Indices of the ``k`` pages sharing the most words with each probe (words weighted by
    inverse page frequency, so "the" counts little), and those weights."""
    import numpy as np

    vec = _word_vectorizer()
    page_matrix = vec.fit_transform(texts)
    df = np.asarray(page_matrix.sum(axis=0)).ravel()
    idf = np.log((1 + len(texts)) / (1 + df)) + 1.0
    out = [order.tolist() for _, order in _top_overlaps(vec, idf, probes, page_matrix, min(k, len(texts)))]
    return out, dict(zip(vec.get_feature_names_out().tolist(), idf.tolist(), strict=True))


def _word_vectorizer(vocabulary: list[str] | None = None) -> Any:
    """Which pages hold which words (ROUGE's tokens), in a vocabulary of its own or the one given."""
    import numpy as np
    from sklearn.feature_extraction.text import CountVectorizer

    return CountVectorizer(
        tokenizer=tokenize, lowercase=False, token_pattern=None, binary=True, dtype=np.float32, vocabulary=vocabulary
    )


def _top_overlaps(vec: Any, idf: Any, probes: list[str], page_matrix: Any, k: int) -> Any:
    """Per probe: its weighted word overlap with each page (pages x words in ``page_matrix``) and the
    ``k`` pages with the most, ties to the first page; 256 probes at a time."""
    import numpy as np

    probe_matrix = vec.transform(probes).multiply(idf).tocsr()
    by_word = page_matrix.T.tocsc()
    for start in range(0, len(probes), 256):
        overlap = (probe_matrix[start : start + 256] @ by_word).toarray()
        yield from zip(overlap, np.argsort(-overlap, axis=1, kind="stable")[:, :k], strict=True)


class ChunkMap(Protocol):
    """Runs ``fn(*shared, *chunk)`` for every chunk, somewhere; the results in chunk order."""

    chunk_pages: int

    def __call__(self, fn: Callable[..., Any], shared: tuple[Any, ...], chunks: list[tuple[Any, ...]]) -> list[Any]: ...


def _candidate_pages_chunked(
    probes: list[str], texts: list[str], k: int, chunks: ChunkMap
) -> tuple[list[list[int]], dict[str, float]]:
    """:func:`_candidate_pages` over chunks of pages, each chunk's work done by ``chunks``: first the
    words of each chunk (for the vocabulary and the page frequencies), then each chunk's best ``k``
    pages per probe, merged here. The vocabulary is the sorted one a single vectoriser builds and
    the overlaps are summed in the same order, so the candidates are the same to the bit."""
    import numpy as np

    size = chunks.chunk_pages
    spans = [(a, min(a + size, len(texts))) for a in range(0, len(texts), size)]
    counts: dict[str, int] = {}
    for part in chunks(chunk_words, (), [(texts[a:b],) for a, b in spans]):
        for word, n in part.items():
            counts[word] = counts.get(word, 0) + n
    vocabulary = sorted(counts)
    df = np.array([counts[w] for w in vocabulary], dtype=np.float32)  # as a vectoriser sums them: same idf bits
    idf = np.log((1 + len(texts)) / (1 + df)) + 1.0
    k = min(k, len(texts))
    best = chunks(chunk_candidates, (probes, vocabulary, idf, k), [(texts[a:b], a) for a, b in spans])
    out: list[list[int]] = []
    for i in range(len(probes)):
        merged = sorted((pair for part in best for pair in part[i]), key=lambda pair: (-pair[0], pair[1]))
        out.append([j for _, j in merged[:k]])
    return out, dict(zip(vocabulary, idf.tolist(), strict=True))


def chunk_words(texts: list[str]) -> dict[str, int]:
    """Pages holding each word, over one chunk of pages (a task of :func:`_candidate_pages_chunked`)."""
    counts: dict[str, int] = {}
    for text in texts:
        for word in set(tokenize(text)):
            counts[word] = counts.get(word, 0) + 1
    return counts


def chunk_candidates(
    probes: list[str], vocabulary: list[str], idf: Any, k: int, texts: list[str], offset: int
) -> list[list[tuple[float, int]]]:
    """Per probe, the ``k`` pages of one chunk sharing the most weighted words with it, as (overlap,
    page index in the whole list) (a task of :func:`_candidate_pages_chunked`)."""
    import numpy as np

    vec = _word_vectorizer(vocabulary)
    best = _top_overlaps(vec, np.asarray(idf), probes, vec.transform(texts), k)
    return [[(float(row[j]), offset + int(j)) for j in order] for row, order in best]


def _add_similarity(
    out: list[dict],
    probes: list[str],
    candidates: list[list[int]],
    pages: list[Page],
    idf: Mapping[str, float],
    config: SplitsConfig,
    embed: Embed,
) -> None:
    """Cosine similarity of each probe to the ``leakage_candidates`` passages of its candidate
    pages that share the most (weighted) words with it: bounded work however long the pages."""
    import numpy as np

    page_windows = {j: _windows(pages[j].text, config.leakage_window_words) for idx in candidates for j in idx}
    window_words = {w: set(tokenize(w)) for ws in page_windows.values() for w in ws}
    texts: dict[str, int] = {}
    chosen: list[list[tuple[int, int]]] = []  # per probe: (text row, page index)
    for probe, idx in zip(probes, candidates, strict=True):
        words = set(tokenize(probe))
        scored = [(-sum(idf.get(t, 0.0) for t in words & window_words[w]), j, w) for j in idx for w in page_windows[j]]
        top = sorted(scored, key=lambda x: (x[0], x[1]))[: config.leakage_candidates]
        chosen.append([(texts.setdefault(w, len(texts)), j) for _, j, w in top])
    probe_vecs = np.asarray(embed(list(probes)), dtype=np.float32)
    text_vecs = np.asarray(embed(list(texts)), dtype=np.float32) if texts else np.zeros((0, 1), np.float32)
    for i, rows in enumerate(chosen):
        if rows:
            sims = text_vecs[[r for r, _ in rows]] @ probe_vecs[i]
            best = int(np.argmax(sims))
            out[i]["similarity"], out[i]["similarity_page_id"] = round(float(sims[best]), 4), pages[rows[best][1]].id


def _windows(text: str, size: int) -> list[str]:
    """Passages of ``size`` words overlapping by half, covering the whole text."""
    from qagen.answerability import windows

    words = text.split()
    return [" ".join(words[a:b]) for a, b in windows(words, size)]


def _leakage_report(
    placed: Mapping[Cell, list[Item]],
    leak: Mapping[str, dict],
    checks: CheckResult | None,
    keep: Mapping[str, tuple[bool, bool]],
    config: SplitsConfig,
) -> dict[str, Any]:
    """``splits/leakage.json``: per item, the answer-side leakage measures (flat, as before),
    ``answerability`` (question side, against the other fold's corpus) and ``answer_check``
    (its answer on its own source pages); summaries per cell (the item's own set/fold) and overall."""
    by_cell = {}
    rows = []
    for (s, f), items in placed.items():
        flagged = [it.id for it in items if leak[it.id]["flagged"]]
        cell: dict[str, Any] = {"checked": len(items), "flagged": len(flagged), "flagged_ids": flagged}
        if checks is not None:
            moved = [it.id for it in items if checks.unanswerable[it.id]["answerable"]]
            unsupported = [it.id for it in items if not checks.answerable[it.id]["supported"]]
            cell.update(
                answerable_from_corpus=len(moved),
                answerable_from_corpus_ids=moved,
                unsupported=len(unsupported),
                unsupported_ids=unsupported,
            )
        by_cell[f"{s}/fold_{f}"] = cell
        for it in items:
            row = {"id": it.id, "set": s, "fold": f, "against_fold": 3 - f, **leak[it.id]}
            row["unanswerable_role"], row["answerable_role"] = keep[it.id][1], keep[it.id][0]
            if checks is not None:
                row["answerability"] = checks.unanswerable[it.id]
                row["answer_check"] = checks.answerable[it.id]
            rows.append(row)
    report: dict[str, Any] = {
        "thresholds": {
            "rouge": config.leakage_rouge,
            "rouge_type": config.leakage_rouge_type,
            "similarity": config.leakage_similarity if config.leakage_embeddings else None,
        },
        "checked": len(rows),
        "flagged": sum(r["flagged"] for r in rows),
    }
    if checks is not None:
        report["answerability"] = _answerability_summary(checks, config)
    return {**report, "by_cell": by_cell, "items": rows}


def _answerability_summary(checks: CheckResult, config: SplitsConfig) -> dict[str, Any]:
    verdicts = list(checks.unanswerable.values())
    moved = [v for v in verdicts if v["answerable"]]
    unsupported = [k for k, v in checks.answerable.items() if not v["supported"]]
    judge = [v["judge"]["status"] for v in verdicts if v.get("judge")]
    return {
        "thresholds": {
            "top_k": config.answerability_top_k,
            "specific_share": config.answerability_specific_share,
            "coverage": config.answerability_coverage,
            "answer_rouge": config.answerability_answer_rouge,
            "answer_similarity": config.answerability_answer_similarity if config.leakage_embeddings else None,
        },
        "checked": len(verdicts),
        "answerable_from_corpus": len(moved),
        "offline": dict(sorted(Counter(v["verdict"] for v in verdicts).items())),
        "by_check": dict(
            sorted(Counter(v["check"] if v["decided_by"] == "offline" else "judge" for v in moved).items())
        ),
        "judged": checks.judged,
        "judge": dict(sorted(Counter(judge).items())),
        "judge_llm": checks.judge_stats,
        "answer_check": {
            "checked": len(checks.answerable),
            "unsupported": len(unsupported),
            "dropped": len(unsupported) if config.drop_unsupported_answerable else 0,
            "unsupported_ids": unsupported,
        },
    }


def _crosseval(
    corpus: Mapping[Cell, list[Page]],
    placed: Mapping[Cell, list[Item]],
    questions: Mapping[Cell, list[dict]],
    leak: Mapping[str, dict],
    checks: CheckResult | None,
    keep: Mapping[str, tuple[bool, bool]],
    config: SplitsConfig,
    page_excluded: Counter,
    item_excluded: Counter,
    n_pages: int,
) -> dict[str, Any]:
    iterations = []
    for s, f in corpus:
        other = placed[(s, 3 - f)]
        flagged = [it.id for it in other if leak[it.id]["flagged"]]
        left_out = [it.id for it in other if not keep[it.id][1]]
        dropped = [it.id for it in placed[(s, f)] if not keep[it.id][0]]
        counts = {
            "pages": len(corpus[(s, f)]),
            "answerable": len(placed[(s, f)]) - len(dropped),
            "unanswerable": len(other) - len(left_out),
            "unanswerable_excluded_leakage": len(flagged),
        }
        if checks is not None:
            # each left-out item counted once, leakage first, so that the counts add up
            unsupported = [i for i in left_out if not keep[i][0] and not leak[i]["flagged"]]
            counts["unanswerable_excluded_answerable"] = len(left_out) - len(flagged) - len(unsupported)
            counts["unanswerable_excluded_unsupported"] = len(unsupported)
            counts["answerable_excluded_unsupported"] = len(dropped)
        iterations.append(
            {
                "name": f"{s}_iteration_{f}",
                "set": s,
                "iteration": f,
                "corpus_fold": f,
                "corpus": f"splits/{s}/fold_{f}/pages.jsonl",
                "answerable": f"splits/{s}/fold_{f}/items.jsonl",
                "unanswerable": f"splits/{s}/fold_{f}/unanswerable.jsonl",
                "questions": f"splits/{s}/fold_{f}/questions.jsonl",
                "counts": counts,
                "unanswerable_excluded": left_out,
                **({"answerable_excluded": dropped} if checks is not None else {}),
            }
        )
    leakage: dict[str, Any] = {"report": "splits/leakage.json", "checked": len(leak), "flagged": 0}
    leakage["flagged"] = sum(v["flagged"] for v in leak.values())
    if checks is not None:
        leakage["answerable_from_corpus"] = sum(v["answerable"] for v in checks.unanswerable.values())
        leakage["unsupported_answerable"] = sum(not v["supported"] for v in checks.answerable.values())
    return {
        "schema_version": SCHEMA_VERSION,
        "refusal_answer": config.refusal_answer,
        "iterations": iterations,
        "pages": {"total": n_pages, "in_corpus": sum(map(len, corpus.values())), "excluded": dict(page_excluded)},
        "items": {"placed": sum(map(len, placed.values())), "excluded": dict(item_excluded)},
        "leakage": leakage,
    }


ITEM_TYPES = ("long_form", "factoid", "mcq")


def cell_warnings(
    questions: Mapping[Cell, list[dict[str, Any]]],
    placed: Mapping[Cell, list[Item]],
    assignments: Sequence[FoldAssignment],
    config: SplitsConfig,
) -> list[dict[str, Any]]:
    """Cells too small or too narrow to measure much: see the module docstring."""
    out: list[dict[str, Any]] = []
    roles: dict[Cell, dict[str, Counter[str]]] = {}
    for (s, f), recs in questions.items():
        name = f"{s}_iteration_{f}"
        by_role = {
            role: Counter(r["type"] for r in recs if r["role"] == role) for role in ("answerable", "unanswerable")
        }
        roles[(s, f)] = by_role
        for role, types in by_role.items():
            n = sum(types.values())
            if n < config.min_cell_items:
                out.append(
                    {
                        "code": "small_cell",
                        "iteration": name,
                        "role": role,
                        "count": n,
                        "message": f"{name} has {n} {role} question(s), fewer than splits.min_cell_items="
                        f"{config.min_cell_items}: its rates are uncertain",
                    }
                )
    topics: dict[Cell, set[int]] = {}
    for a in assignments:
        if a.status == "kept" and a.fold in (1, 2) and a.split in SETS:
            topics.setdefault((a.split, a.fold), set()).add(a.topic_id)
    for (s, f), ids in sorted(topics.items()):
        if len(ids) == 1:
            (topic,) = ids
            out.append(
                {
                    "code": "one_topic_fold",
                    "set": s,
                    "fold": f,
                    "topic_id": topic,
                    "message": f"{s} fold {f} is made of one topic ({topic}): its iteration tests one subject, and the "
                    f"other iteration's unanswerable questions all come from it",
                }
            )
    for s in SETS:
        present = {t for f in FOLDS for it in placed.get((s, f), ()) for t in [it.type]}
        for f in FOLDS:
            for role in ("answerable", "unanswerable"):
                missing = [t for t in ITEM_TYPES if t in present and not roles.get((s, f), {}).get(role, {}).get(t)]
                if missing:
                    name = f"{s}_iteration_{f}"
                    out.append(
                        {
                            "code": "missing_type",
                            "iteration": name,
                            "role": role,
                            "types": missing,
                            "message": f"{name} has no {role} {', '.join(missing)} question(s) (the {s} set has some)",
                        }
                    )
    return out


def write_splits(result: SplitsResult, out_dir: str | Path) -> dict[str, Any]:
    """Write ``splits/`` under ``out_dir`` atomically; return the ``crosseval.json`` content.

    The runner writes ``crosseval.json`` itself from the returned dict.
    """
    from qagen.io import write_json, write_jsonl

    root = Path(out_dir)
    for s, f in result.pages:
        folder = root / "splits" / s / f"fold_{f}"
        write_jsonl(folder / "pages.jsonl", result.pages[(s, f)])
        write_jsonl(folder / "items.jsonl", result.items[(s, f)])
        refuse = [r for r in result.questions[(s, f)] if r["role"] == "unanswerable"]
        write_jsonl(folder / "unanswerable.jsonl", refuse)
        write_jsonl(folder / "questions.jsonl", result.questions[(s, f)])
    write_json(root / "splits" / "leakage.json", result.leakage)
    return result.crosseval
