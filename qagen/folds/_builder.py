"""FoldBuilder: topic-disjoint folds, validation/test split and a stratified sample."""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import numpy as np

from qagen.folds import _assign, _candidates, _checks, _metrics
from qagen.folds._candidates import Data

if TYPE_CHECKING:
    from qagen.records import FoldAssignment


class Assignment(NamedTuple):
    """Where one section ended up: ``fold`` 1/2 and ``split`` only when ``status`` is ``"kept"``."""

    fold: int | None
    split: Literal["validation", "test"] | None
    status: Literal["kept", "outlier", "conflict"]
    sampled: bool


class FoldBuilder:
    """Split a corpus into two topic-disjoint folds, each with a validation and a test part.

    Parameters are checked when the builder is made; :meth:`fit` does the work and sets the
    attributes ending in ``_``. See the :mod:`qagen.folds` docstring for the method and an example.

    Args:
        n_folds: Number of folds; only 2 is supported (fold 1 answers, fold 2 must be refused).
        distance: ``"auto"`` (euclidean and cosine) or a list of them, for clustering topic centroids.
        linkage: ``"auto"`` (single, complete, average, ward) or a list; ward pairs with euclidean only.
        unit: What ``units`` are, ``"page"`` or ``"document"``; a unit never straddles folds or splits.
        test_size: Share of each fold's kept sections whose units go to test, in (0, 1).
        min_fold_ratio: Smallest allowed (small fold / large fold), counted in sections kept after
            removing mixed units; 0 accepts any split with two non-empty folds.
        samples_total: Sections to sample over both folds and splits, shared by their sizes.
        samples_per_fold: Sections to sample per fold instead (not with ``samples_total``).
        sample_test_share: Share of each fold's sample drawn from its test part (the rest from
            validation), exactly as far as the parts are large enough; None shares the sample by the
            parts' sizes. The paper's 200 validation + 50 test per fold is
            ``samples_per_fold=250, sample_test_share=0.2``.
            With neither, every kept section is sampled.
        max_clusters: When no two-cluster candidate meets ``min_fold_ratio``, also try every split of
            the dendrogram cut into 3..``max_clusters`` clusters (2 = paper behaviour only), and every
            cut of the topics along their centroids' main axis. With ``min_fold_ratio`` above 0 the
            most separated balanced split is always tried too: the topics' single-linkage tree cut
            at its widest gap that still leaves two halves meeting the ratio.
        criterion: Which qualifying candidate wins: ``"score"``, the paper's (mean of the
            closest-pair and mean-pair distance between the folds), or ``"separation"``: the folds
            furthest apart at their closest pair of topics (what decides whether a question of
            one fold is answerable from the other), ties going to the better balance.
        on_imbalance: When still nothing meets ``min_fold_ratio``: ``"warn"`` keeps the most balanced
            split found and says so in ``warnings_``; ``"raise"`` raises ValueError.
        few_topics: With fewer than two non-outlier topics: ``"raise"`` (ValueError), or
            ``"documents"``: every document (``docs``, required) stands in for a topic, so the folds
            are whole documents clustered by their mean embedding; not topic-disjoint, which
            ``warnings_`` and ``metrics_["pseudo_topics"]`` say.
        outliers: What becomes of topic outliers (label -1): ``"drop"`` (the paper's: in no fold) or
            ``"assign"``: an outlier joins the fold of its unit's kept sections (that unit's pages are
            loaded with the fold anyway), and a unit of outliers only, with a section ``eligible`` for
            the sample, joins the fold of the topic nearest its mean embedding; outliers in a unit
            with a conflict stay out. Assigned outliers are ``"kept"`` with their topic still -1
            (``metrics_["n_outliers_assigned"]``).
        seed: Seed for the validation/test split and the sample; same inputs and seed, same result.

    Attributes:
        fold_: Fold per section (1 or 2), -1 when not kept (see ``status_``).
        split_: ``"validation"``/``"test"`` per section, None when not kept.
        status_: ``"kept"``, ``"outlier"`` (topic -1) or ``"conflict"`` (its unit holds both folds).
        sampled_: Boolean mask of the sections sampled for question generation.
        assignments_: The four above as one :class:`Assignment` per section.
        topic_folds_: Fold of every non-outlier topic, ``{topic: 1 | 2}``.
        unit_folds_: Fold of every unit with kept sections; ``unit_splits_`` its split.
        conflict_units_: Ids of the units removed because they hold sections of both folds.
        chosen_: The chosen candidate (distance, linkage, n_clusters, score, ...).
        candidates_: Every candidate tried, with its score, balance and status, as dicts.
        metrics_: Separation and coverage metrics (JSON-ready; see the package docstring).
        warnings_: Problems that did not stop the fit (e.g. a fold with one unit has no test part).
        whole_groups_: With ``groups``: each group that went whole into one fold, and why ("one
            topic", "too few sections to split (n < 10)", "no split keeps both halves"); empty
            without groups.
    """

    def __init__(
        self,
        n_folds: int = 2,
        *,
        distance: str | Sequence[str] = "auto",
        linkage: str | Sequence[str] = "auto",
        unit: Literal["page", "document"] = "page",
        test_size: float = 0.2,
        min_fold_ratio: float = 0.0,
        samples_total: int | None = None,
        samples_per_fold: int | None = None,
        sample_test_share: float | None = None,
        max_clusters: int = 6,
        seed: int | None = 0,
        on_imbalance: Literal["warn", "raise"] = "warn",
        few_topics: Literal["raise", "documents"] = "raise",
        criterion: Literal["separation", "score"] = "score",
        outliers: Literal["drop", "assign"] = "drop",
    ) -> None:
        self.n_folds = n_folds
        self.distance = distance
        self.linkage = linkage
        self.unit = unit
        self.test_size = test_size
        self.min_fold_ratio = min_fold_ratio
        self.samples_total = samples_total
        self.samples_per_fold = samples_per_fold
        self.sample_test_share = sample_test_share
        self.max_clusters = max_clusters
        self.seed = seed
        self.on_imbalance = on_imbalance
        self.few_topics = few_topics
        self.criterion = criterion
        self.outliers = outliers
        distances, linkages = _checks.check_params(self.get_params())
        self._search = _candidates.Search(distances, linkages, min_fold_ratio, max_clusters, criterion)

    def get_params(self) -> dict[str, Any]:
        """The constructor parameters, as given."""
        names = ("n_folds", "distance", "linkage", "unit", "test_size", "min_fold_ratio")
        names += ("samples_total", "samples_per_fold", "sample_test_share", "max_clusters", "seed", "on_imbalance")
        names += ("few_topics", "criterion", "outliers")
        return {k: getattr(self, k) for k in names}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"FoldBuilder({args})"

    def fit(
        self,
        embeddings: Any,
        topics: Any,
        units: Any,
        docs: Any = None,
        eligible: Any = None,
        groups: Any = None,
    ) -> FoldBuilder:
        """Choose the folds, drop mixed units, split validation/test and sample.

        Args:
            embeddings: ``(n_sections, n_dims)`` section embeddings, ideally in the reduced
                (e.g. UMAP) space the topics were found in; topic centroids are their means.
            topics: Topic label per section, ``-1`` for outliers (never in a fold).
            units: Unit id per section (page ids, or document ids when ``unit="document"``).
            docs: Optional document id per section, for the ``folds_per_document`` metric.
            eligible: Optional boolean mask: only these sections may be sampled (for example
                prose, not code or tables of contents). Folds and splits still cover every
                section; the sample quotas are shared by the eligible kept sections.
            groups: Optional group per section (for example each document's language). The
                topics of each group are split in two on their own and the halves joined, so
                every group with two or more topics and at least 10 sections has sections in both
                folds; a group with one topic or fewer sections goes whole to the smaller fold
                (noted in ``warnings_``): its few topics are parts of one or two documents.

        Returns:
            self, fitted.

        Raises:
            ValueError: On malformed inputs, fewer than 2 non-outlier topics, when every split leaves a
                fold empty (every unit mixed), or, with ``on_imbalance="raise"``, when no candidate
                meets ``min_fold_ratio`` (the message lists what was tried; ``candidates_`` is set).
        """
        self._reset()
        original = topics
        topics, pseudo = self._pseudo_topics(topics, docs)
        data, doc_codes = self._prepare(embeddings, topics, units, docs)
        group_codes, chosen, cands = None, None, []
        if groups is not None:
            group_codes, group_ids = _checks.encode_groups("groups", groups, data.topic.shape[0])
            if np.unique(group_codes[data.topic >= 0]).size < 2:
                group_codes = None  # one group: the plain method
        if group_codes is not None:
            chosen, cands, notes, whole = _candidates.grouped(data, group_codes, group_ids, self._search)
            self.whole_groups_ = {str(g): why for g, why in whole.items()}
            for note in notes:
                self._warn(f"groups: {note}")
            if chosen is not None:
                cands.append(chosen)
            if chosen is not None and chosen.reason and self.on_imbalance == "raise":
                chosen = None
            elif chosen is None:
                self._warn("groups: joining the groups' halves left a fold empty; the topics are split as one corpus")
                group_codes, self.whole_groups_ = None, {}
        if group_codes is None and chosen is None:
            cands = _candidates.candidates(data, self._search)
            chosen = _candidates.choose(cands, self.criterion)
        if chosen is None and group_codes is None and self.on_imbalance == "warn":
            chosen = _candidates.best_effort(cands, self.min_fold_ratio)
            if chosen is not None:
                self._warn(
                    f"no split meets min_fold_ratio={self.min_fold_ratio:g}; kept the most balanced one found: "
                    f"fold 2 holds {chosen.ratio:.3f} of fold 1's kept sections ({chosen.sections[1]} vs "
                    f"{chosen.sections[0]}, {chosen.distance}/{chosen.linkage}, {chosen.n_clusters} clusters). "
                    "Its rates rest on few questions; raise max_clusters, use unit='page', or lower min_fold_ratio"
                )
        elif chosen is not None and group_codes is not None and chosen.reason:
            self._warn(
                f"no split meets min_fold_ratio={self.min_fold_ratio:g} with every group in both folds; "
                f"fold 2 holds {chosen.ratio:.3f} of fold 1's kept sections ({chosen.sections[1]} vs "
                f"{chosen.sections[0]})"
            )
        self.candidates_ = [c.row() for c in cands]
        if chosen is None:
            raise _candidates.NoFoldSplitError(
                _candidates.no_candidate_message(cands, self.min_fold_ratio, self.max_clusters)
            )
        fold, conflict_units = _assign.section_folds(data.topic, data.unit, data.n_units, chosen.fold_of_topic)
        status = np.where(data.topic < 0, "outlier", np.where(conflict_units[data.unit], "conflict", "kept"))
        fold = np.where(status == "kept", fold, -1)
        mask = np.ones(fold.shape[0], dtype=bool) if eligible is None else np.asarray(eligible, dtype=bool)
        if mask.shape != fold.shape:
            raise ValueError(f"eligible must have one entry per section ({fold.shape[0]}); got shape {mask.shape}")
        assigned = np.zeros(fold.shape[0], dtype=bool)
        if self.outliers == "assign":
            fold, status, assigned = _assign.assign_outliers(
                data.topic, data.unit, data.n_units, fold, status, data.points, data.centroids,
                chosen.fold_of_topic, mask,
            )  # fmt: skip
        ss_split, ss_sample = np.random.SeedSequence(self.seed).spawn(2)
        unit_split = self._split(data, fold, np.random.default_rng(ss_split))
        split = np.where(status == "kept", unit_split[data.unit], None)
        sampled = self._sample(data, np.where(mask, fold, -1), split, np.random.default_rng(ss_sample))
        self._set_attributes(data, chosen, fold, status, split, sampled, unit_split, conflict_units)
        self.metrics_ = _metrics.compute(data, chosen, fold, status, split, sampled, doc_codes)
        self.metrics_["n_outliers_assigned"] = int(assigned.sum())
        if assigned.any() and not chosen.reason and self.metrics_["small_fold_ratio"] < self.min_fold_ratio:
            sizes = [self.metrics_["folds"][f]["sections"] for f in ("1", "2")]
            self._warn(
                f"placing outliers left the folds below min_fold_ratio={self.min_fold_ratio:g}: "
                f"{sizes[0]} vs {sizes[1]} kept sections (the topics alone met it); "
                "use outliers='drop' for the balanced split"
            )
        self.metrics_["outliers"] = self.outliers
        self.metrics_["unit"] = self.unit
        self.metrics_["criterion"] = self.criterion
        self.metrics_["pseudo_topics"] = "documents" if pseudo else None
        if pseudo:  # the folds hold documents, not topics: keep the real labels, no topic -> fold map
            self.section_topics_ = np.asarray(original, dtype=np.int64)
            self.topic_folds_ = {}
        self.metrics_["test_size"] = float(self.test_size)
        return self

    def split(
        self,
        embeddings: Any,
        topics: Any,
        units: Any,
        *,
        part: Literal["validation", "test"] | None = None,
        **fit_args: Any,
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Fit, then yield the two cross-evaluation iterations as scikit-learn style index pairs.

        Iteration 1 is ``(fold 1's kept sections, fold 2's kept sections)``: what a system is
        given (the loaded corpus, or training data) and what it is tested on from topics it never
        saw; iteration 2 is the reverse. Outliers and removed sections are in neither. With
        ``part``, both arrays keep only that part's sections. Usable wherever scikit-learn takes
        ``cv=``: ``cross_val_score(model, X, y, cv=list(builder.split(X, topics, units)))``.

        Args:
            embeddings, topics, units: As for :meth:`fit`.
            part: ``"validation"`` or ``"test"`` to keep one part of each fold; None keeps both.
            **fit_args: ``docs``, ``eligible`` or ``groups``, passed to :meth:`fit`.

        Yields:
            ``(given, held_out)`` pairs of sorted int64 section indices, disjoint, no unit in both.
        """
        if part not in (None, "validation", "test"):
            raise ValueError(f"part must be None, 'validation' or 'test'; got {part!r}")
        self.fit(embeddings, topics, units, **fit_args)
        kept = self.status_ == "kept"
        if part is not None:
            kept &= self.split_ == part
        folds = [np.flatnonzero(kept & (self.fold_ == f)).astype(np.int64) for f in (1, 2)]
        yield folds[0], folds[1]
        yield folds[1], folds[0]

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        """The number of iterations :meth:`split` yields (scikit-learn's splitter protocol): 2."""
        return self.n_folds

    def _reset(self) -> None:
        for name in [k for k in vars(self) if k.endswith("_") and not k.startswith("_")]:
            delattr(self, name)
        self.warnings_: list[str] = []
        self.whole_groups_: dict[str, str] = {}

    def _pseudo_topics(self, topics: Any, docs: Any) -> tuple[Any, bool]:
        """With ``few_topics="documents"`` and fewer than two topics: one pseudo-topic per document."""
        t = np.asarray(topics)
        real = np.unique(t[t >= 0]) if t.ndim == 1 and t.dtype.kind in "iuf" else np.arange(2)
        if self.few_topics != "documents" or real.size >= 2:
            return topics, False
        if docs is None:
            raise ValueError("few_topics='documents' needs docs (the document of each section)")
        codes, doc_ids = _checks.encode_groups("docs", docs, t.shape[0])
        if len(doc_ids) < 2:
            raise ValueError(f"one topic and {len(doc_ids)} document: nothing to split into two folds; add documents")
        self._warn(
            f"{real.size} topic(s) only: the folds are whole documents ({len(doc_ids)}) clustered by their mean "
            "embedding, not topic-disjoint; a question from fold 2 may be answerable from fold 1 (the question-side "
            "check in splits/leakage.json catches those)"
        )
        return np.where(t >= 0, codes, -1), True  # outliers stay outliers

    def _prepare(self, embeddings: Any, topics: Any, units: Any, docs: Any):
        from scipy.spatial.distance import pdist, squareform  # scipy loads on first fit, not on import

        x = _checks.check_embeddings(embeddings)
        n = x.shape[0]
        labels = _checks.check_topics(topics, n)
        unit_codes, self._unit_ids = _checks.encode_groups("units", units, n)
        doc_codes = None
        if docs is not None:
            codes, doc_ids = _checks.encode_groups("docs", docs, n)
            doc_codes = (codes, len(doc_ids))
        topic_ids = np.unique(labels[labels >= 0])
        topic = np.where(labels >= 0, np.searchsorted(topic_ids, labels), -1)
        centroids = _candidates.topic_centroids(x, topic, topic_ids.size)
        data = _candidates.Data(
            topic=topic,
            unit=unit_codes,
            n_units=len(self._unit_ids),
            topic_ids=topic_ids,
            centroids=centroids,
            dist=squareform(pdist(centroids)),
            points=x,
        )
        self.section_topics_, self.section_units_ = labels, np.asarray(self._unit_ids, dtype=object)[unit_codes]
        return data, doc_codes

    def _split(self, data: Data, fold: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Split per unit code (None for units without kept sections)."""
        unit_split = np.full(data.n_units, None, dtype=object)
        for f in (1, 2):
            sizes = np.bincount(data.unit[fold == f], minlength=data.n_units)
            members = np.flatnonzero(sizes)
            test = _assign.split_units(sizes[members], self.test_size, rng)
            unit_split[members] = np.where(test, "test", "validation")
            if members.size == 1:
                self._warn(f"fold {f} has a single {self.unit}: its test part is empty")
        return unit_split

    def _sample(self, data: Data, fold: np.ndarray, split: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        sampled = np.zeros(fold.shape[0], dtype=bool)
        kept = np.array([(fold == f).sum() for f in (1, 2)])
        quotas = _assign.fold_quotas(kept, self.samples_total, self.samples_per_fold)
        for f, quota in zip((1, 2), quotas, strict=True):
            if quota == 0:
                self._warn(
                    f"fold {f} gets no sampled section ({kept[f - 1]} kept of {kept.sum()}); "
                    "raise samples_total, use samples_per_fold or set min_fold_ratio"
                )
            cells = [np.flatnonzero((fold == f) & (split == s)) for s in _assign.SPLITS]
            sizes = np.array([c.size for c in cells])
            if self.sample_test_share is None:
                per_split = _assign.largest_remainder(int(quota), sizes)
            else:
                per_split = _assign.shared(int(quota), sizes, self.sample_test_share)
            for cell, n in zip(cells, per_split, strict=True):
                picked, _ = _assign.stratified_sample(cell, data.topic, int(n), rng)
                sampled[picked] = True
        if self.samples_total is not None and self.samples_total > kept.sum():
            self._warn(
                f"samples_total={self.samples_total} exceeds the {int(kept.sum())} kept sections that may be sampled;"
                " all sampled"
            )
        return sampled

    def _warn(self, message: str) -> None:
        self.warnings_.append(message)
        warnings.warn(message, UserWarning, stacklevel=4)

    def _set_attributes(self, data, chosen, fold, status, split, sampled, unit_split, conflict_units) -> None:
        ids = self._unit_ids
        fold_of_unit = np.zeros(data.n_units, dtype=np.int64)
        fold_of_unit[data.unit[fold > 0]] = fold[fold > 0]
        self.fold_, self.split_, self.status_, self.sampled_ = fold, split, status.astype(object), sampled
        self.assignments_ = [
            Assignment(int(f) if f > 0 else None, s, str(st), bool(sm))
            for f, s, st, sm in zip(fold.tolist(), split.tolist(), status.tolist(), sampled.tolist(), strict=True)
        ]
        self.topic_folds_ = {int(t): int(f) for t, f in zip(data.topic_ids, chosen.fold_of_topic, strict=True)}
        self.unit_folds_ = {ids[u]: int(fold_of_unit[u]) for u in np.flatnonzero(fold_of_unit)}
        self.unit_splits_ = {ids[u]: str(unit_split[u]) for u in np.flatnonzero(fold_of_unit)}
        self.conflict_units_ = [ids[u] for u in np.flatnonzero(conflict_units)]
        self.chosen_ = {k: v for k, v in chosen.row().items() if k != "status" and (k != "reason" or v)}

    def to_records(self, section_ids: Sequence[str]) -> list[FoldAssignment]:
        """The fitted assignment as :class:`qagen.records.FoldAssignment` records, in section order."""
        from qagen.records import FoldAssignment

        if not hasattr(self, "assignments_"):
            raise RuntimeError("this FoldBuilder is not fitted yet; call fit(embeddings, topics, units) first")
        if len(section_ids) != len(self.assignments_):
            raise ValueError(
                f"section_ids must have one id per fitted section ({len(self.assignments_)}); got {len(section_ids)}"
            )
        return [
            FoldAssignment(str(sid), int(t), str(u), a.status, a.fold, a.split, a.sampled)
            for sid, t, u, a in zip(
                section_ids, self.section_topics_, self.section_units_, self.assignments_, strict=True
            )
        ]
