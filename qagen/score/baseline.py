"""A plain baseline RAG: a TF-IDF index over each iteration's pages, an extractive reader or an LLM.

``qagen ask OUT [--llm SPEC]`` answers a dataset with it, so a chatbot of one's own can be compared
with a plain RAG on the same questions (``qagen score OUT --answers mine.jsonl --answers
OUT/answers.ask.jsonl``). For each cross-evaluation iteration the "vector store" is a TF-IDF index of
that iteration's pages only (``splits/{set}/fold_{i}/pages.jsonl``). A question retrieves the ``k`` most
similar pages; when even the best page is less similar than ``threshold`` the bot declines with the
dataset's refusal answer, else an extractive reader answers with the sentences of the top pages that
best match the question (or, with an LLM, the LLM answers from the top pages).

Words the corpus has never seen count as maximally rare in the question's vector, so a question about a
product that is not loaded scores low even if it shares common words with some page: that is what lets
a retriever notice out-of-fold (unanswerable) questions. The default threshold (0.10) was chosen on the
example build's validation set (``benchmarks/baseline_rag.py``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from qagen.llm.base import LLMError
from qagen.records import Page
from qagen.score.collect import Reply

REFUSAL = "I cannot answer this question from the available documents."
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
LLM_SYSTEM = (
    "Answer the user's question using only the numbered pages below. Answer in one to three sentences. "
    "If the pages do not contain the answer, reply exactly: {refusal}"
)


class _Index:
    """TF-IDF (sublinear tf, smoothed idf, English stop words) over one corpus of pages."""

    def __init__(self, pages: Sequence[Page]) -> None:
        from sklearn.feature_extraction.text import CountVectorizer

        self.pages = list(pages)
        self.vectorizer = CountVectorizer(stop_words="english", token_pattern=r"(?u)\b\w\w+\b")
        counts = self.vectorizer.fit_transform([p.text for p in self.pages]).astype(np.float64)
        df = np.asarray((counts > 0).sum(axis=0)).ravel()
        n = len(self.pages)
        self.idf = np.log((1 + n) / (1 + df)) + 1.0
        self.unseen_idf = math.log(1 + n) + 1.0  # df = 0: rarer than any word of the corpus
        self.analyzer = self.vectorizer.build_analyzer()
        self.matrix = self._weigh(counts)

    def _weigh(self, counts: Any) -> Any:
        """Sublinear tf x idf, rows scaled to unit length."""
        from sklearn.preprocessing import normalize

        weighted = counts.copy()
        weighted.data = 1.0 + np.log(weighted.data)
        return normalize(weighted.multiply(self.idf).tocsr())

    def query(self, text: str) -> tuple[Any, float]:
        """The question's known-word vector (not normalised) and its full norm, unseen words included."""
        counts = self.vectorizer.transform([text]).astype(np.float64)
        vec = counts.copy()
        vec.data = 1.0 + np.log(vec.data)
        vec = vec.multiply(self.idf).tocsr()
        tokens = self.analyzer(text)
        vocab = self.vectorizer.vocabulary_
        unseen = {t: tokens.count(t) for t in set(tokens) if t not in vocab}
        norm_sq = float(vec.multiply(vec).sum()) + sum(
            (1.0 + math.log(c)) ** 2 * self.unseen_idf**2 for c in unseen.values()
        )
        return vec, math.sqrt(norm_sq)

    def search(self, text: str, k: int) -> list[tuple[int, float]]:
        """The ``k`` best pages as (index, cosine similarity), best first."""
        vec, norm = self.query(text)
        if norm == 0:
            return []
        sims = np.asarray((self.matrix @ vec.T).todense()).ravel() / norm
        order = np.argsort(-sims, kind="stable")[:k]
        return [(int(i), float(sims[i])) for i in order]

    def best_sentences(self, text: str, page_ids: Sequence[int], n: int) -> list[str]:
        """The ``n`` sentences of the given pages most similar to ``text``, in their page order."""
        candidates = [
            (i, s.strip()) for i in page_ids for s in _SENTENCE.split(self.pages[i].text) if len(s.split()) >= 3
        ]
        if not candidates:
            return []
        vec, norm = self.query(text)
        counts = self.vectorizer.transform([s for _, s in candidates]).astype(np.float64)
        sims = np.asarray((self._weigh(counts) @ vec.T).todense()).ravel() / max(norm, 1e-12)
        chosen = sorted(np.argsort(-sims, kind="stable")[:n])
        return [candidates[j][1] for j in chosen]


class BaselineRAG:
    """``ask(question, corpus_pages) -> Reply`` for :func:`qagen.score.collect`.

    Args:
        k: Pages retrieved per question (reported for recall@k).
        threshold: Decline when the best page's cosine similarity is below this.
        sentences: Sentences in an extractive answer.
        llm: Optional LLM spec or backend; it answers from the top pages instead of the reader.
        llm_config: The ``[llm]`` config section for the LLM.
        cache_path: SQLite request cache of the LLM.
        refusal: What the bot says when it declines.
    """

    def __init__(
        self,
        k: int = 5,
        threshold: float = 0.10,
        sentences: int = 2,
        llm: Any = None,
        llm_config: Any = None,
        cache_path: str | Path | None = None,
        refusal: str = REFUSAL,
    ) -> None:
        if k < 1 or sentences < 1 or not 0 <= threshold <= 1:
            raise ValueError(f"need k >= 1, sentences >= 1, threshold in [0, 1]; got {k}, {sentences}, {threshold}")
        self.k, self.threshold, self.sentences, self.refusal = k, threshold, sentences, refusal
        self.engine = None
        if llm is not None:
            from qagen.llm import LLMEngine

            self.engine = LLMEngine(llm, llm_config, cache_path=cache_path)
        self._indexes: dict[tuple[str, ...], _Index] = {}

    def __call__(self, question: str, corpus_pages: list[Page]) -> Reply:
        key = tuple(p.id for p in corpus_pages)
        if key not in self._indexes:
            self._indexes = {key: _Index(corpus_pages)}  # one iteration at a time
        index = self._indexes[key]
        hits = index.search(question, self.k)
        retrieved = [index.pages[i].id for i, _ in hits]
        best = hits[0][1] if hits else 0.0
        meta = {"best_similarity": round(best, 4)}
        if best < self.threshold:
            return Reply(self.refusal, retrieved, meta)
        if self.engine is not None:
            return Reply(self._llm_answer(question, [index.pages[i] for i, _ in hits[:3]]), retrieved, meta)
        lines = index.best_sentences(question, [i for i, _ in hits[:3]], self.sentences)
        return Reply(" ".join(lines) or self.refusal, retrieved, meta)

    def _llm_answer(self, question: str, pages: list[Page]) -> str:
        from qagen.llm import LLMRequest, Message

        context = "\n\n".join(f"[{n}] {p.text[:4000]}" for n, p in enumerate(pages, 1))
        request = LLMRequest(
            (
                Message("system", LLM_SYSTEM.format(refusal=self.refusal)),
                Message("user", f"{context}\n\nQuestion: {question}"),
            ),
            temperature=0.0,
            max_tokens=300,
        )
        result = self.engine.run([request])[0]
        if not result.ok:
            raise LLMError(f"LLM request failed: {result.error}")
        return (result.text or "").strip()
