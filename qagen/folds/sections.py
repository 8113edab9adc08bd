"""Folds over a build's sections: the unit chosen for the corpus, and where each language landed.

:class:`~qagen.folds.FoldBuilder` works on arrays; these functions give it a build's sections,
emulated pages and ``[folds]`` settings, and read its result back per language.
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from qagen.folds._builder import FoldBuilder
from qagen.folds._candidates import NoFoldSplitError
from qagen.records import FoldAssignment, Page, Section

if TYPE_CHECKING:
    from qagen.config import FoldsConfig

# With unit=auto, whole documents are the unit when they keep at least this share of the sections.
AUTO_DOCUMENT_VALID_PCT = 50.0
LANGUAGE_FOLD_SHARE = 0.9  # a language with this share of its sections in one fold is said to follow the folds
LANGUAGE_MIN_SECTIONS = 10


def unit_ids(sections: Sequence[Section], pages: Sequence[Page], unit: str) -> list[str]:
    """Each section's unit: its document, or the emulated page that holds it."""
    if unit == "document":
        return [s.doc_id for s in sections]
    page_of = {sid: p.id for p in pages for sid in p.section_ids}
    return [page_of[s.id] for s in sections]


def fit_section_folds(
    sections: Sequence[Section],
    pages: Sequence[Page],
    labels: Sequence[int],
    reduced: np.ndarray,
    config: FoldsConfig,
    *,
    seed: int,
    eligible: Sequence[bool],
    groups: Sequence[str] | None = None,
) -> tuple[FoldBuilder, str]:
    """Fit the folds with ``config``; with ``unit = auto`` choose the unit; return the builder and why that unit.

    Raises:
        ValueError: Too few topics, or every split mixes its units (the message says what to change).
    """

    def fit(unit: str, by_document: bool = False) -> FoldBuilder:
        builder = FoldBuilder(
            n_folds=config.n_folds,
            distance=config.distance,
            linkage=config.linkage,
            unit=unit,
            test_size=config.test_size,
            min_fold_ratio=0.0 if by_document else config.min_fold_ratio,
            samples_total=None if config.samples_per_fold else config.samples_total,
            samples_per_fold=config.samples_per_fold,
            sample_test_share=config.sample_test_share,
            max_clusters=config.max_clusters,
            seed=seed,
            on_imbalance="raise" if config.on_imbalance == "error" else "warn",
            few_topics="documents" if config.few_topics == "documents" or by_document else "raise",
            criterion=config.criterion,
            outliers=config.outliers,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # the same warnings are in builder.warnings_
            builder.fit(
                reduced,
                np.zeros(len(sections), dtype=np.int64) if by_document else np.asarray(labels),
                np.asarray(unit_ids(sections, pages, unit)),
                docs=[s.doc_id for s in sections],
                eligible=np.asarray(eligible, dtype=bool),
                groups=None if groups is None else np.asarray(groups),
            )
        return builder

    try:
        if config.unit == "auto":
            return auto_unit(fit)
        return fit(config.unit), ""
    except NoFoldSplitError:
        # a small corpus whose every page and document holds sections of both halves of every split: the
        # folds fall back to whole documents, clustered by their embedding, and say so
        if len({s.doc_id for s in sections}) < 2:
            raise
        builder = fit("document", by_document=True)
        pseudo = next(w for w in builder.warnings_ if w.startswith("1 topic(s) only: "))
        builder.warnings_[builder.warnings_.index(pseudo)] = (
            "no split of the topics keeps sections in both folds (every page and document holds both halves' "
            "topics), so " + pseudo.removeprefix("1 topic(s) only: ")
        )
        return builder, "fallback: no topic split keeps both folds"


def auto_unit(fit: Callable[[str], Any]) -> tuple[Any, str]:
    """Whole documents when they can be kept apart (the paper's leaflets), else emulated pages (manuals).

    Per document, a document whose sections fall in both folds' topics is dropped whole: fine for
    many short single-topic documents, ruinous for a few long manuals that cover every topic.
    """
    try:
        by_doc = fit("document")
    except ValueError:
        by_doc = None
    by_page = fit("page")
    if by_doc is not None:
        valid = by_doc.metrics_["valid_sections_pct"]
        below = by_doc.chosen_.get("reason")
        whole = _whole_groups(by_doc) - _whole_groups(by_page)
        if valid >= AUTO_DOCUMENT_VALID_PCT and not below and not whole:
            return by_doc, f"auto: whole documents keep {valid:.0f}% of the sections"
        if whole:
            why = f"per document {', '.join(sorted(whole))} would sit in one fold"
        elif below:
            why = "no balanced split"
        else:
            why = f"whole documents would keep {valid:.0f}% of the sections"
    else:
        why = "every split by document leaves a fold empty"
    return by_page, f"auto: per page, as {why} (documents need {AUTO_DOCUMENT_VALID_PCT:.0f}%)"


def _whole_groups(builder: Any) -> set[str]:
    """The groups (languages) a fit put whole in one fold because no split of theirs kept both halves."""
    return {g for g, why in builder.whole_groups_.items() if why == "no split keeps both halves"}


def fold_languages(
    sections: Sequence[Section], assignments: Sequence[FoldAssignment], languages: Mapping[str, str]
) -> tuple[dict[str, dict[str, int]], list[str]]:
    """Kept sections per fold and language, and a warning for each language that sits in one fold.

    When folds follow languages (a Dutch fold and an Italian one), "refuse the other fold's
    questions" partly measures "refuse questions in another language".
    """
    from qagen.language import language_name

    by_fold: dict[int, Counter[str]] = {}
    for section, a in zip(sections, assignments, strict=True):
        if a.status == "kept" and a.fold is not None:
            by_fold.setdefault(a.fold, Counter())[languages.get(section.doc_id, "und")] += 1
    table = {str(f): dict(c.most_common()) for f, c in sorted(by_fold.items())}
    if len({lang for c in by_fold.values() for lang in c}) < 2:
        return table, []
    found = []
    totals = sum(by_fold.values(), Counter())
    for lang, total in totals.most_common():
        fold, most = max(((f, c[lang]) for f, c in by_fold.items()), key=lambda fc: fc[1])
        if total >= LANGUAGE_MIN_SECTIONS and most / total >= LANGUAGE_FOLD_SHARE:
            found.append(
                f"{100 * most / total:.0f} % of the {total} {language_name(lang)} sections are in fold {fold}: "
                "the folds follow the languages, so refusing the other fold's questions partly means refusing "
                "another language; embed with a multilingual model or build each language apart"
            )
    return table, found
