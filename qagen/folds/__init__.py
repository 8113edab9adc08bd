"""Topic-disjoint folds of a corpus, with a validation/test split and a stratified sample.

A chatbot loaded with one fold's pages should answer that fold's questions and refuse the other
fold's. :class:`FoldBuilder` takes section embeddings, a topic label per section (``-1`` for
outliers) and a unit id per section (an emulated page or a document), and works in five steps
(paper Section 4.4, made balance-aware):

1. **Candidates.** Topic centroids (mean embedding of each topic's sections) are clustered into two
   groups by agglomerative clustering for every distance in {euclidean, cosine} × linkage in
   {single, complete, average, ward (euclidean only)}.
2. **Choice.** Each candidate's score is the mean of the single-linkage (closest pair) and
   average-linkage (mean pair) *Euclidean* distance between the two folds' topic centroids. A
   candidate is rejected when a fold is empty, or when small fold / large fold, counted in sections
   kept after step 3, is below ``min_fold_ratio``. With a ratio above 0, the most separated
   balanced split is a candidate too: the topics' single-linkage tree cut at its widest gap whose
   components can still be shared out into two halves meeting the ratio. If no two-cluster
   candidate qualifies, cuts along the topics' main axis and every split of each dendrogram cut
   into 3..``max_clusters`` clusters are tried the same way. The winner is the highest score
   (``criterion="score"``, the paper's; ties go to the better balance) or the largest closest-pair
   distance between the folds (``criterion="separation"``; ties go to the better balance, then
   the score); then the earlier candidate. If none qualifies, the most balanced split is kept with
   a warning (``on_imbalance="warn"``) or ``ValueError`` lists what was tried
   (``on_imbalance="raise"``). Fold 1 is the fold with more kept sections.
3. **Conflicts.** Every section of a unit holding non-outlier sections of both folds is removed
   (``status "conflict"``), so no page can answer questions of both folds. With
   ``outliers="assign"``, topic outliers then join the fold of their unit's kept sections (a unit of
   outliers only: the fold of the topic nearest its mean); outliers of a removed unit stay out.
4. **Validation/test.** Each fold's units are shuffled (seeded) and taken into test while that
   brings the test part closer to ``test_size`` of the fold's sections; a unit is never in both.
5. **Sample.** ``samples_total`` is shared over the folds by their kept sizes, then over validation
   and test by theirs, then over topics; every share uses largest-remainder rounding, so each count
   is within 1 of proportional. Sections are drawn at random (seeded) within each topic.

Metrics (``metrics_``), all unrounded and computed on the topic centroids in the given space:
``min_topic_distance`` (closest pair of topics), ``min_fold_distance`` (closest pair across the
folds), ``fold_topic_distance_ratio`` (their ratio; paper: 6.7-8.2), ``avg_fold_distance``,
``small_fold_ratio`` (small / large, kept sections), ``small_fold_share`` (small / both),
``folds_per_unit`` (mean number of folds among each unit's non-outlier sections, before removal;
``folds_per_document`` too when ``docs`` is given), ``valid_sections_pct`` (kept / non-outlier
sections, paper: 55-84), counts, and ``folds`` → ``"1"``/``"2"`` → sections, units, topics and
sampled per fold and per ``validation``/``test``.

Example:
    >>> import numpy as np
    >>> from qagen.folds import FoldBuilder
    >>> rng = np.random.default_rng(0)
    >>> centers = np.array([[0.0, 0.0], [1.0, 0.0], [10.0, 10.0], [11.0, 10.0]])
    >>> topics = np.repeat([0, 1, 2, 3], 25)                  # 4 topics, 2 far-apart pairs
    >>> embeddings = centers[topics] + rng.normal(scale=0.1, size=(100, 2))
    >>> units = [f"page{i // 5}" for i in range(100)]         # 5 sections per page
    >>> fb = FoldBuilder(samples_total=20, seed=0).fit(embeddings, topics, units)
    >>> fb.topic_folds_
    {0: 1, 1: 1, 2: 2, 3: 2}
    >>> int(fb.sampled_.sum()), fb.metrics_["valid_sections_pct"]
    (20, 100.0)
    >>> fb.assignments_[0]
    Assignment(fold=1, split='validation', status='kept', sampled=False)

``import qagen.folds`` loads only numpy (scipy on the first fit): no qagen.config, pydantic or models.
"""

from __future__ import annotations

from qagen.folds._builder import Assignment, FoldBuilder

__all__ = ["Assignment", "FoldBuilder"]
