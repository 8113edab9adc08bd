"""Cross-evaluation splits: per set and fold, a corpus of pages and the questions to ask it.

For each set (validation, test) and iteration i in {1, 2} the chatbot's store holds the
emulated pages of fold i; the questions of fold i are answerable (expected behaviour
"answer") and those of the other fold are unanswerable ("refuse", expected answer: the
configured refusal). Layout, relative to the output folder::

    splits/{set}/fold_{i}/pages.jsonl      corpus of iteration i (Page records)
    splits/{set}/fold_{i}/items.jsonl         fold i's items, as answerable records
    splits/{set}/fold_{i}/unanswerable.jsonl  iteration i's unanswerable records: the other fold's
                                              items (leakage-flagged ones left out), expected
                                              behaviour "refuse", expected answer the refusal
    splits/{set}/fold_{i}/questions.jsonl     iteration i: items.jsonl + unanswerable.jsonl
    splits/leakage.json                    the leakage check, per item
    crosseval.json                         the iterations and their files (written by the runner)

Which pages are in a corpus: a page belongs to fold i when all its kept sections are in
fold i (outlier sections ride along; they get no questions). A page with no kept section
is in no corpus. A page with a section removed as a conflict is in no corpus either: its
unit (page or document) held sections of both folds, so loading it would make questions
of the other fold answerable. A page's split is its sections' split; sections of one
page always agree because the fold builder splits whole units (pages or documents).

Leakage: an item whose answer is still found in the other fold's pages (ROUGE recall or
embedding similarity at or above the thresholds in ``[splits]``) is flagged and left out
of the unanswerable role; it stays answerable in its own iteration.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qagen.filters.grounding import rouge_recall, tokenize
from qagen.records import SCHEMA_VERSION, FoldAssignment, Item, Page, Section, to_dict

if TYPE_CHECKING:
    import numpy as np

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
) -> SplitsResult:
    """Lay out the cross-evaluation iterations and run the leakage check.

    Args:
        items: Accepted items (``items.jsonl``); ids must be unique.
        pages: All emulated pages.
        assignments: The fold assignment of every section.
        config: The ``[splits]`` config section.
        embed: Texts -> L2-normalised vectors, for the embedding half of the leakage check
            (None: ROUGE only).
        sections: Sections by id; when given, records carry their source section texts as
            ``contexts`` (else the source pages' texts).

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
    leak = _leakage(placed, corpus, config, embed)
    answerable = {
        cell: [_record(it, "answerable", config, contexts, leak) for it in its] for cell, its in placed.items()
    }
    questions: dict[Cell, list[dict[str, Any]]] = {}
    for s, f in corpus:
        other = [it for it in placed[(s, 3 - f)] if not leak[it.id]["flagged"]]
        questions[(s, f)] = answerable[(s, f)] + [_record(it, "unanswerable", config, contexts, leak) for it in other]
    leakage = _leakage_report(placed, leak, config)
    crosseval = _crosseval(corpus, placed, questions, leak, config, page_excluded, item_excluded, len(pages))
    return SplitsResult(corpus, answerable, questions, crosseval, leakage)


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
    item: Item, role: str, config: SplitsConfig, contexts: Mapping[str, list[str]], leak: Mapping[str, dict]
) -> dict[str, Any]:
    answerable = role == "answerable"
    return {
        **to_dict(item),
        "role": role,
        "expected_behavior": "answer" if answerable else "refuse",
        "expected_answer": item.answer if answerable else config.refusal_answer,
        "contexts": contexts.get(item.id, []),
        "leakage": leak[item.id],
    }


def _leakage(
    placed: Mapping[Cell, list[Item]], corpus: Mapping[Cell, list[Page]], config: SplitsConfig, embed: Embed | None
) -> dict[str, dict[str, Any]]:
    """Per item: best match of its answer in the other fold's pages of the same set."""
    out: dict[str, dict[str, Any]] = {}
    for (s, f), items in placed.items():
        probes = [_probe(it, config.leakage_min_words) for it in items]
        for item, match in zip(items, _best_matches(probes, corpus[(s, 3 - f)], config, embed), strict=True):
            rouge_hit = match["rouge"] >= config.leakage_rouge
            sim = match["similarity"]
            sim_hit = sim is not None and sim >= config.leakage_similarity
            out[item.id] = {**match, "flagged": bool(rouge_hit or sim_hit)}
    return out


def _probe(item: Item, min_words: int) -> str:
    """The text looked for in the other fold: the answer, with the question when the answer is short."""
    return item.answer if len(item.answer.split()) >= min_words else f"{item.question} {item.answer}"


def _best_matches(probes: list[str], pages: list[Page], config: SplitsConfig, embed: Embed | None) -> list[dict]:
    """For each probe: the highest ROUGE recall over its candidate pages (most rare words in
    common) and, with ``embed``, the highest cosine similarity to their best passages."""
    use_embed = embed is not None and config.leakage_embeddings
    empty = {"page_id": None, "rouge": 0.0, "similarity": 0.0 if use_embed else None, "similarity_page_id": None}
    if not probes or not pages:
        return [dict(empty) for _ in probes]
    candidates, idf = _candidate_pages(probes, [p.text for p in pages], config.leakage_candidates)
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
    from sklearn.feature_extraction.text import CountVectorizer

    vec = CountVectorizer(tokenizer=tokenize, lowercase=False, token_pattern=None, binary=True, dtype=np.float32)
    page_matrix = vec.fit_transform(texts)
    df = np.asarray(page_matrix.sum(axis=0)).ravel()
    idf = np.log((1 + len(texts)) / (1 + df)) + 1.0
    probe_matrix = vec.transform(probes).multiply(idf).tocsr()
    page_matrix = page_matrix.T.tocsc()
    k = min(k, len(texts))
    out: list[list[int]] = []
    for start in range(0, len(probes), 256):
        overlap = (probe_matrix[start : start + 256] @ page_matrix).toarray()
        out += np.argsort(-overlap, axis=1, kind="stable")[:, :k].tolist()
    return out, dict(zip(vec.get_feature_names_out().tolist(), idf.tolist(), strict=True))


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
    words = text.split()
    if len(words) <= size:
        return [" ".join(words)] if words else []
    stride = max(size // 2, 1)
    starts = list(range(0, len(words) - size + 1, stride))
    if starts[-1] + size < len(words):
        starts.append(len(words) - size)
    return [" ".join(words[i : i + size]) for i in starts]


def _leakage_report(
    placed: Mapping[Cell, list[Item]], leak: Mapping[str, dict], config: SplitsConfig
) -> dict[str, Any]:
    by_cell = {}
    rows = []
    for (s, f), items in placed.items():
        flagged = [it.id for it in items if leak[it.id]["flagged"]]
        by_cell[f"{s}/fold_{f}"] = {"checked": len(items), "flagged": len(flagged), "flagged_ids": flagged}
        rows += [{"id": it.id, "set": s, "fold": f, "against_fold": 3 - f, **leak[it.id]} for it in items]
    return {
        "thresholds": {
            "rouge": config.leakage_rouge,
            "rouge_type": config.leakage_rouge_type,
            "similarity": config.leakage_similarity if config.leakage_embeddings else None,
        },
        "checked": len(rows),
        "flagged": sum(r["flagged"] for r in rows),
        "by_cell": by_cell,
        "items": rows,
    }


def _crosseval(
    corpus: Mapping[Cell, list[Page]],
    placed: Mapping[Cell, list[Item]],
    questions: Mapping[Cell, list[dict]],
    leak: Mapping[str, dict],
    config: SplitsConfig,
    page_excluded: Counter,
    item_excluded: Counter,
    n_pages: int,
) -> dict[str, Any]:
    iterations = []
    for s, f in corpus:
        other = placed[(s, 3 - f)]
        flagged = [it.id for it in other if leak[it.id]["flagged"]]
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
                "counts": {
                    "pages": len(corpus[(s, f)]),
                    "answerable": len(placed[(s, f)]),
                    "unanswerable": len(other) - len(flagged),
                    "unanswerable_excluded_leakage": len(flagged),
                },
                "unanswerable_excluded": flagged,
            }
        )
    return {
        "schema_version": SCHEMA_VERSION,
        "refusal_answer": config.refusal_answer,
        "iterations": iterations,
        "pages": {"total": n_pages, "in_corpus": sum(map(len, corpus.values())), "excluded": dict(page_excluded)},
        "items": {"placed": sum(map(len, placed.values())), "excluded": dict(item_excluded)},
        "leakage": {
            "report": "splits/leakage.json",
            "checked": len(leak),
            "flagged": sum(v["flagged"] for v in leak.values()),
        },
    }


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
