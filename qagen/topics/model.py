"""BERTopic on precomputed section embeddings: topics, labels, reduced space and quality metrics.

BERTopic gets ``embedding_model=None`` and the embeddings, so it never chooses or downloads a
model; the reducer and clusterer come from :mod:`qagen.topics.components` (UMAP + HDBSCAN by
default, PCA + k-means as a fast deterministic stand-in).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from qagen.embed.base import normalize_rows
from qagen.records import Topic
from qagen.topics.components import build_clusterer, build_reducer, effective_params
from qagen.topics.metrics import cluster_metrics, robustness

if TYPE_CHECKING:
    from qagen.config import TopicsConfig

# Keywords are alphabetic words of 2+ letters in any script (numbers and symbols make poor labels).
KEYWORD_PATTERN = r"(?u)\b[^\W\d_]{2,}\b"
LABEL_WORDS = 3


@dataclass(frozen=True, eq=False)
class TopicResult:
    """What :func:`fit_topics` found.

    Attributes:
        topics: One :class:`~qagen.records.Topic` per topic (id >= 0, largest first); outliers
            (-1) are not a topic.
        labels: Topic id per section; -1 marks outliers (no questions are generated from them).
        reduced: Sections x n_components, the space topics were clustered (and centroids taken) in.
        metrics: JSON-ready quality metrics (see :func:`qagen.topics.cluster_metrics`).
        params: The effective parameters after auto-scaling, plus the seed.
        model: The fitted BERTopic object.
    """

    topics: list[Topic]
    labels: np.ndarray
    reduced: np.ndarray
    metrics: dict[str, Any]
    params: dict[str, Any]
    model: Any = field(default=None, repr=False)


def _check_inputs(texts: Sequence[str], embeddings: np.ndarray, doc_ids: Sequence[str]) -> np.ndarray:
    embeddings = np.asarray(embeddings, dtype=np.float32)
    if embeddings.ndim != 2:
        raise ValueError(f"embeddings must be a 2-D array (sections x dims); got shape {embeddings.shape}")
    if not len(texts) == embeddings.shape[0] == len(doc_ids):
        raise ValueError(
            f"texts, embeddings and doc_ids must have one entry per section; got {len(texts)}, "
            f"{embeddings.shape[0]} and {len(doc_ids)}"
        )
    if not np.isfinite(embeddings).all():
        raise ValueError("embeddings contain NaN or infinite values; re-embed the sections (--force embed)")
    return embeddings


def stop_words(setting: str, languages: Sequence[str] = ()) -> frozenset[str]:
    """Stop words for topic keywords: ``auto`` takes stopwordsiso's list of each language and English."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    if setting == "none":
        return frozenset()
    if setting == "english":
        return frozenset(ENGLISH_STOP_WORDS)
    import stopwordsiso

    words: set[str] = set(ENGLISH_STOP_WORDS)
    for code in {"en", *(c.split("-")[0].lower() for c in languages)}:
        words |= {w.lower() for w in stopwordsiso.stopwords(code)}
    return frozenset(words)


def _vectorizer(texts: Sequence[str], config: TopicsConfig, languages: Sequence[str] = ()) -> Any:
    """The keyword counter for c-TF-IDF; a clear error when no text has a single usable word."""
    from sklearn.feature_extraction.text import CountVectorizer

    stop = stop_words(config.stop_words, languages)
    pattern = re.compile(KEYWORD_PATTERN)
    if not any(w not in stop for t in texts for w in pattern.findall(t.lower())):
        raise ValueError(
            f"none of the {len(texts)} section texts has a word to describe topics with; check the parsed sections"
        )
    return CountVectorizer(token_pattern=KEYWORD_PATTERN, stop_words=sorted(stop) or None)


def _bertopic(
    texts: Sequence[str],
    params: dict[str, Any],
    config: TopicsConfig,
    seed: int,
    languages: Sequence[str] = (),
    clusterer: Any = None,
) -> Any:
    from bertopic import BERTopic
    from bertopic.vectorizers import ClassTfidfTransformer

    return BERTopic(
        embedding_model=None,
        umap_model=build_reducer(params, seed),
        hdbscan_model=clusterer if clusterer is not None else build_clusterer(params, seed),
        vectorizer_model=_vectorizer(texts, config, languages),
        # Down-weights words frequent in every topic: a language-independent stop-word filter.
        ctfidf_model=ClassTfidfTransformer(reduce_frequent_words=True),
        top_n_words=config.n_keywords,
        # Only picks an embedding model (never used here) and, for "english", strips every
        # non-ASCII letter before c-TF-IDF; "multilingual" keeps accented and non-Latin words.
        language="multilingual",
        calculate_probabilities=False,
        verbose=False,
    )


def _reduced_of(reducer: Any, embeddings: np.ndarray) -> np.ndarray:
    # UMAP keeps the training layout (what HDBSCAN clustered); PCA re-projects deterministically.
    out = reducer.embedding_ if hasattr(reducer, "embedding_") else reducer.transform(embeddings)
    return np.asarray(out, dtype=np.float32)


def _topics(
    model: Any, labels: np.ndarray, reduced: np.ndarray, doc_ids: Sequence[str], n_keywords: int
) -> list[Topic]:
    docs = np.asarray(doc_ids, dtype=object)
    topics = []
    for tid in sorted(int(t) for t in np.unique(labels) if t != -1):
        mask = labels == tid
        words = [w for w, _ in (model.get_topic(tid) or []) if w][:n_keywords]
        topics.append(
            Topic(
                id=tid,
                size=int(mask.sum()),
                keywords=tuple(words),
                label=", ".join(words[:LABEL_WORDS]) or f"topic {tid}",
                centroid=tuple(float(x) for x in reduced[mask].mean(axis=0)),
                n_documents=len(set(docs[mask].tolist())),
            )
        )
    return topics


def fit_topics(
    texts: Sequence[str],
    embeddings: np.ndarray,
    doc_ids: Sequence[str],
    config: TopicsConfig,
    seed: int = 0,
    languages: Sequence[str] = (),
    groups: Sequence[str] | None = None,
    fit: Sequence[bool] | None = None,
) -> TopicResult:
    """Fit BERTopic on precomputed section embeddings and measure the topics' quality.

    Args:
        texts: Section texts (for topic keywords only).
        embeddings: Sections x dims, from any :class:`~qagen.embed.Embedder`.
        doc_ids: The document of each section (for document agreement and topic document counts).
        config: The ``[topics]`` config section.
        seed: Seeds UMAP, k-means/PCA and the robustness noise: same inputs and seed, same topics.
        languages: Languages the texts are written in (ISO 639 codes), for ``stop_words = "auto"``.
        groups: Optional group per section (its document's language): with two or more groups,
            each is clustered on its own in the shared reduced space, so no topic mixes languages
            and every language gets its own topics (the robustness refit clusters all together).
        fit: Optional flag per section: only flagged sections are fitted (topics, keywords, metrics);
            each other one takes the topic and reduced position of the most similar fitted section of
            its document (cosine of the embeddings), or -1 when its document has no section in a
            topic. With fewer than 5 flagged sections, all are fitted.

    Returns:
        A :class:`TopicResult`.

    Raises:
        ValueError: on mismatched inputs, non-finite embeddings, or fewer than 5 sections.
    """
    embeddings = _check_inputs(texts, embeddings, doc_ids)
    if fit is not None and not all(fit):
        mask = np.asarray(fit, dtype=bool)
        if len(mask) != len(texts):
            raise ValueError(f"fit must have one flag per section; got {len(mask)} for {len(texts)}")
        if int(mask.sum()) >= 5:
            return _fit_part(texts, embeddings, doc_ids, config, seed, languages, groups, mask)
    params = effective_params(embeddings.shape[0], embeddings.shape[1], config)
    clusterer = None
    if groups is not None and len(set(groups)) > 1:
        from qagen.topics.components import MIN_SECTIONS, GroupedClusterer

        def params_for(n: int) -> dict[str, Any]:
            return effective_params(max(n, MIN_SECTIONS), embeddings.shape[1], config)

        clusterer = GroupedClusterer(groups, params_for, seed)
        if len(set(clusterer.pooled().tolist())) < 2:
            clusterer = None
        else:
            params = {**params, "clustered_by": "language"}
    model = _bertopic(texts, params, config, seed, languages, clusterer)
    labels, _ = model.fit_transform(list(texts), embeddings=embeddings)
    labels = np.asarray(labels, dtype=np.int64)
    reduced = _reduced_of(model.umap_model, embeddings)
    metrics = cluster_metrics(reduced, labels, doc_ids, seed=seed)
    if config.robustness_check:
        metrics.update(robustness(embeddings, labels, config, seed, params=params))
    topics = _topics(model, labels, reduced, doc_ids, config.n_keywords)
    return TopicResult(topics, labels, reduced, metrics, {**params, "seed": seed}, model)


def _fit_part(
    texts: Sequence[str],
    embeddings: np.ndarray,
    doc_ids: Sequence[str],
    config: TopicsConfig,
    seed: int,
    languages: Sequence[str],
    groups: Sequence[str] | None,
    mask: np.ndarray,
) -> TopicResult:
    """Fit the flagged sections, then give every other one its nearest fitted neighbour's topic."""
    idx = np.flatnonzero(mask)
    part = fit_topics(
        [texts[i] for i in idx],
        embeddings[idx],
        [doc_ids[i] for i in idx],
        config,
        seed=seed,
        languages=languages,
        groups=None if groups is None else [groups[i] for i in idx],
    )
    labels = np.full(len(texts), -1, dtype=np.int64)
    reduced = np.zeros((len(texts), part.reduced.shape[1]), dtype=np.float32)
    labels[idx], reduced[idx] = part.labels, part.reduced
    unit = normalize_rows(embeddings)
    docs = np.asarray(doc_ids, dtype=object)
    fitted_docs = docs[idx]
    for i in np.flatnonzero(~mask):
        same = idx[(fitted_docs == docs[i]) & (part.labels >= 0)]
        pool = same if len(same) else idx  # no topic in its document: an outlier, placed near its nearest
        j = pool[int(np.argmax(unit[pool] @ unit[i]))]
        labels[i] = labels[j] if len(same) else -1
        reduced[i] = reduced[j]
    metrics = {**part.metrics, "left_out_sections": int((~mask).sum())}
    return TopicResult(part.topics, labels, reduced, metrics, part.params, part.model)


def save_model(result: TopicResult, path: str | Path) -> Path:
    """Save the fitted BERTopic model (safetensors: topics, keywords, c-TF-IDF, config) to a folder.

    Load it with ``BERTopic.load(path)`` to inspect topics (``get_topic_info()``); UMAP and
    HDBSCAN are not saved (BERTopic's safetensors format leaves them out), so the loaded model
    cannot assign new sections. Returns the folder.
    """
    if result.model is None:
        raise ValueError("this TopicResult has no fitted model to save")
    folder = Path(path)
    folder.mkdir(parents=True, exist_ok=True)
    bertopic_log = logging.getLogger("BERTopic")
    level = bertopic_log.level
    bertopic_log.setLevel(logging.ERROR)  # it warns that no embedding model is saved: none was ever used
    try:
        result.model.save(str(folder), serialization="safetensors", save_ctfidf=True, save_embedding_model=False)
    finally:
        bertopic_log.setLevel(level)
    return folder
