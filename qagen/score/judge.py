"""Judges: which MCQ option is closest in meaning to a chatbot's free answer, and did it decline?

The chatbot answers an MCQ's question without seeing the options; a judge then picks the
option closest to that answer (Leadinfo thesis: an LLM judge agreed with the correct option
81% of the time, humans 72%, with a cosine-similarity baseline beside them).

- :class:`EmbeddingJudge` — the baseline: cosine similarity of answer and option embeddings.
- :class:`LLMJudge` — an LLM through :class:`~qagen.llm.LLMEngine` (retries, cache under
  ``OUT/.cache/judge.sqlite``, accounting) with validated pydantic replies; it also decides
  whether an answer declines. A request that fails for good yields None, never a guess.

Who decides refusals is separate (``score.refusal_judge``): by default an LLM MCQ judge also
decides them and phrases decide otherwise; an LLM can decide refusals beside an embedding
MCQ judge, and phrases can decide beside an LLM MCQ judge.

The judge prompts are ``prompts/judge_*.md`` (their rubrics in the system part); the generate
stage's fingerprint leaves them out, so editing one never invalidates a build.
"""

from __future__ import annotations

import dataclasses
import functools
import string
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, create_model

from qagen.score.answers import ScoreError

LETTERS = "ABCDEFGH"

GRADE_CONTEXT_CHARS = 1500  # per passage shown to the grader
GRADE_SCALES = ("correctness", "completeness", "relevance", "faithfulness", "context_relevance")
Grade = Literal[1, 2, 3, 4, 5]


class GradeVerdict(BaseModel):
    """The grader's reply on one answer (1 worst, 5 best; faithfulness null without passages)."""

    model_config = ConfigDict(extra="forbid")
    correctness: Grade
    completeness: Grade
    relevance: Grade
    faithfulness: Grade | None
    context_relevance: Grade | None


@dataclass(frozen=True)
class GradeCase:
    """One answer to grade: the question, the reference, the answer and the passages the chatbot retrieved."""

    question: str
    reference: str
    answer: str
    contexts: tuple[str, ...] = ()


class PremiseVerdict(BaseModel):
    """The judge's reply on one answer to a false-premise question."""

    model_config = ConfigDict(extra="forbid")
    corrected: bool


@dataclass(frozen=True)
class PremiseCase:
    """One answer to a false-premise question: the question, the wrong value it asserts, the source's fact."""

    question: str
    claim: str
    reference: str
    answer: str


class RefusalVerdict(BaseModel):
    """The LLM judge's reply on one answer."""

    model_config = ConfigDict(extra="forbid")
    declined: bool


@functools.cache
def choice_model(n_options: int) -> type[BaseModel]:
    """The reply model of an MCQ judgement among ``n_options`` lettered options."""
    if not 2 <= n_options <= len(LETTERS):
        raise ValueError(f"an MCQ needs 2 to {len(LETTERS)} options; got {n_options}")
    letters = Literal[tuple(LETTERS[:n_options])]  # type: ignore[valid-type]
    return create_model(f"McqChoice{n_options}", __config__=ConfigDict(extra="forbid"), option=(letters, ...))


@dataclass(frozen=True)
class McqCase:
    """One MCQ to judge: its question, the chatbot's free answer and the options."""

    question: str
    answer: str
    options: tuple[str, ...]


class EmbeddingJudge:
    """Picks the option whose embedding is most cosine-similar to the answer's (first on ties).

    Args:
        embedder: An :class:`~qagen.embed.Embedder`; a corpus-fitted one (tfidf) that is not
            fitted yet is fitted on the answers and options of each call.
    """

    def __init__(self, embedder: Any) -> None:
        self.embedder = embedder
        self.name = f"embedding:{getattr(embedder, 'id', type(embedder).__name__)}"

    def choose(self, cases: Sequence[McqCase]) -> list[int | None]:
        """Index of the closest option per case; None when the answer shares nothing with any option."""
        import numpy as np

        if not cases:
            return []
        texts = list(dict.fromkeys(t for c in cases for t in (c.answer, *c.options)))
        if hasattr(self.embedder, "fit") and not getattr(self.embedder, "fitted", True):
            self.embedder.fit(texts)
        vectors = np.asarray(self.embedder.embed(texts), dtype=np.float32)
        row = {t: i for i, t in enumerate(texts)}
        out: list[int | None] = []
        for case in cases:
            sims = vectors[[row[o] for o in case.options]] @ vectors[row[case.answer]]
            out.append(None if np.allclose(sims, sims[0]) and sims[0] <= 0 else int(np.argmax(sims)))
        self.name = f"embedding:{getattr(self.embedder, 'id', type(self.embedder).__name__)}"
        return out


JUDGE_FAILED = -1  # what an MCQ judge returns for a case whose request failed: no option, and no grade


class LLMJudge:
    """An LLM that picks MCQ options and spots refusals.

    Args:
        llm: An LLM spec string, backend object or LangChain chat model.
        config: The ``[llm]`` section (retries, concurrency, budget, structured output mode).
        cache_path: SQLite request cache (``OUT/.cache/judge.sqlite``); None disables it.
        progress: Show a progress bar per batch.
        seed: Sent with every request (servers that honour it answer reproducibly).
    """

    def __init__(
        self, llm: Any, config: Any = None, cache_path: str | Path | None = None, progress: bool = False, seed: int = 0
    ) -> None:
        from qagen.llm import LLMEngine
        from qagen.llm.base import public_id

        self.engine = LLMEngine(llm, config, cache_path=cache_path, progress=progress)
        self.seed = seed
        self.name = f"llm:{public_id(self.engine.llm.id)}"

    def choose(self, cases: Sequence[McqCase]) -> list[int | None]:
        """Index of the option the LLM finds closest per case; :data:`JUDGE_FAILED` when its request failed for
        good (the answer is then ungraded, never counted wrong)."""
        requests = [self._request("judge_mcq", _mcq_fields(c), "mcq_choice") for c in cases]
        results = self.engine.run(requests, response_model=[choice_model(len(c.options)) for c in cases])
        return [LETTERS.index(r.value.option) if r.ok and r.value is not None else JUDGE_FAILED for r in results]

    def declined(self, cases: Sequence[tuple[str, str]]) -> list[bool | None]:
        """Per (question, answer): True when the answer declines; None when the request failed."""
        requests = [self._request("judge_refusal", {"question": q, "answer": a}, "refusal") for q, a in cases]
        results = self.engine.run(requests, response_model=RefusalVerdict)
        return [bool(r.value.declined) if r.ok and r.value is not None else None for r in results]

    def grade(self, cases: Sequence[GradeCase]) -> list[GradeVerdict | None]:
        """The rubric's grades per answer; None where the request failed for good (never a guess)."""
        requests = [
            self._request("judge_grade", _grade_fields(c), "grade", max_tokens=112) for c in cases
        ]  # fmt: skip
        results = self.engine.run(requests, response_model=GradeVerdict)
        return [r.value if r.ok and r.value is not None else None for r in results]

    def premise(self, cases: Sequence[PremiseCase]) -> list[bool | None]:
        """Per answer to a false-premise question: True when it corrects the premise; None when the request failed."""
        requests = [self._request("judge_premise", dataclasses.asdict(c), "premise") for c in cases]
        results = self.engine.run(requests, response_model=PremiseVerdict)
        return [bool(r.value.corrected) if r.ok and r.value is not None else None for r in results]

    def stats(self) -> dict[str, Any]:
        """Requests, cache hits, failures, tokens and cost so far."""
        return self.engine.stats.to_dict()

    def _request(self, prompt: str, fields: dict[str, str], name: str, max_tokens: int = 64) -> Any:
        from qagen.llm import LLMRequest, Message

        system, user = judge_prompt(prompt)
        messages = (Message("system", system), Message("user", user.substitute(fields)))
        return LLMRequest(
            messages, schema_name=name, temperature=0.0, max_tokens=max_tokens, seed=self.seed, tag=f"judge_{name}"
        )


@functools.cache
def judge_prompt(name: str) -> tuple[str, string.Template]:
    """The system text and user template of ``prompts/<name>.md`` (bundled with qagen)."""
    from qagen.generate.prompts import default_prompts_dir, load_prompt

    prompt = load_prompt(default_prompts_dir(), name)
    return prompt.system, string.Template(prompt.user)


def _grade_fields(case: GradeCase) -> dict[str, str]:
    passages = "\n".join(f"[{i + 1}] {c[:GRADE_CONTEXT_CHARS]}" for i, c in enumerate(case.contexts)) or "(none given)"
    return {"question": case.question, "reference": case.reference, "answer": case.answer, "contexts": passages}


def _mcq_fields(case: McqCase) -> dict[str, str]:
    options = "\n".join(f"{LETTERS[i]}. {o}" for i, o in enumerate(case.options))
    return {"question": case.question, "answer": case.answer, "options": options}


@dataclass(frozen=True)
class Judges:
    """The MCQ judge, the embedding baseline beside it, who decides refusals and who grades answers.

    ``refusal`` is an object with ``declined(cases)`` (an :class:`LLMJudge`, possibly the MCQ
    judge itself), or None when refusal phrases decide.
    """

    judge: EmbeddingJudge | LLMJudge | Any
    baseline: EmbeddingJudge
    refusal: LLMJudge | Any | None = None
    grader: LLMJudge | Any | None = None  # grades answers on the rubric (score.grader); None: not graded


def make_judges(
    judge: Any,
    config: Any,
    cache_dir: str | Path | None = None,
    embedder: Any = None,
    progress: bool = False,
    refusal_judge: Any = None,
    grader: Any = None,
) -> Judges:
    """Build the judge named by ``judge``, the embedding baseline and the refusal judge.

    Args:
        judge: ``embedding`` or ``embedding:<embed spec>``, an LLM spec (``openai:<model>[@<url>]``,
            ``local``), an LLM backend or LangChain chat model, an embedder, or a judge object
            with ``choose(cases)`` (and optionally ``declined(cases)``).
        config: The whole :class:`~qagen.config.Config` (``score``, ``embed``, ``llm``, ``seed``).
        cache_dir: Folder of the LLM judges' request cache (``OUT/.cache``).
        embedder: The baseline's embedder (object or spec); default ``score.embedder``.
        progress: Progress bars for LLM requests.
        refusal_judge: Who decides refusals: ``auto`` (an MCQ judge with ``declined`` decides
            when ``score.llm_refusals``, else phrases), ``phrases``, an LLM spec or backend, or
            an object with ``declined(cases)``; None = ``score.refusal_judge``.
        grader: Who grades answered answers on the rubric: ``none``, an LLM spec or backend (the
            same spec as ``judge`` shares its engine), or an object with ``grade(cases)``;
            None = ``score.grader``.

    Raises:
        ScoreError: ``judge`` or ``refusal_judge`` names nothing usable.
    """
    from qagen.embed import get_embedder

    baseline = EmbeddingJudge(get_embedder(embedder or config.score.embedder, config.embed, config.llm))
    mcq = _mcq_judge(judge, config, baseline, embedder, cache_dir, progress)
    spec = config.score.refusal_judge if refusal_judge is None else refusal_judge
    refusal = _refusal_judge(spec, judge, mcq, config, cache_dir, progress)
    grade_spec = config.score.grader if grader is None else grader
    return Judges(mcq, baseline, refusal, _grader(grade_spec, judge, mcq, config, cache_dir, progress))


def preflight_judges(judges: Judges) -> None:
    """One cheap call to each OpenAI-compatible endpoint the judges use (:mod:`qagen.llm.preflight`), before
    any answer is judged: a dead URL or a refused key is one line in seconds, not minutes of retried judgements
    left ungraded. A server several judges share is called once."""
    from qagen.embed.openai_embed import OpenAIEmbedder
    from qagen.llm.openai_backend import OpenAIBackend
    from qagen.llm.preflight import preflight, preflight_embedder

    checked: set[str | None] = set()
    for who in (judges.judge, judges.refusal, judges.grader):
        backend = getattr(getattr(who, "engine", None), "llm", None)
        if isinstance(backend, OpenAIBackend) and backend.base_url not in checked:
            preflight(backend, role="judge")
            checked.add(backend.base_url)
    for who in (judges.judge, judges.baseline):
        embedder = getattr(who, "embedder", None)
        if isinstance(embedder, OpenAIEmbedder) and embedder.base_url not in checked:
            preflight_embedder(embedder)
            checked.add(embedder.base_url)


def _grader(spec: Any, judge_spec: Any, mcq: Any, config: Any, cache_dir: Any, progress: bool) -> Any:
    """The object that grades answers on the rubric, or None (see :func:`make_judges`)."""
    if isinstance(spec, str):
        name = spec.strip().lower()
        if name in ("", "none"):
            return None
        if name.partition(":")[0] in ("embedding", "extractive", "phrases"):
            raise ScoreError(
                f"score.grader (--grader) must be none or an LLM spec such as openai:<model>; got {spec!r}"
            )
    return _llm_for(spec, "grade", judge_spec, mcq, config, cache_dir, progress)


def _mcq_judge(judge: Any, config: Any, baseline: EmbeddingJudge, embedder: Any, cache_dir: Any, progress: bool) -> Any:
    from qagen.embed import Embedder, get_embedder

    if isinstance(judge, str):
        name, _, arg = judge.strip().partition(":")
        if name.lower() == "embedding":
            if not arg or (embedder is None and arg == config.score.embedder):
                return baseline
            return EmbeddingJudge(get_embedder(arg, config.embed, config.llm))
        if name.lower() == "extractive":
            raise ScoreError("--judge extractive is not a judge; use embedding or an LLM spec such as openai:<model>")
    elif hasattr(judge, "choose"):
        return judge
    elif isinstance(judge, Embedder):
        return EmbeddingJudge(judge)
    return _llm_judge(judge, config, cache_dir, progress)


def _refusal_judge(spec: Any, judge_spec: Any, mcq: Any, config: Any, cache_dir: Any, progress: bool) -> Any:
    """The object that decides refusals, or None for phrases (see :func:`make_judges`)."""
    if isinstance(spec, str):
        name = spec.strip().lower()
        if name == "auto":
            return mcq if config.score.llm_refusals and hasattr(mcq, "declined") else None
        if name == "phrases":
            return None
        if not name or name.partition(":")[0] in ("embedding", "extractive"):
            raise ScoreError(
                "score.refusal_judge (--refusal-judge) must be auto, phrases or an LLM spec such as "
                f"openai:<model>[@<url>] or local; got {spec!r}"
            )
    return _llm_for(spec, "declined", judge_spec, mcq, config, cache_dir, progress)


def _llm_for(spec: Any, method: str, judge_spec: Any, mcq: Any, config: Any, cache_dir: Any, progress: bool) -> Any:
    """An object with ``method`` for ``spec``: the MCQ judge itself when ``spec`` names the same LLM (one
    engine, one set of stats), ``spec`` when it already has the method, else an LLM judge for it."""
    if isinstance(spec, str):
        if isinstance(judge_spec, str) and spec.strip() == judge_spec.strip() and hasattr(mcq, method):
            return mcq
    elif hasattr(spec, method):
        return spec
    return _llm_judge(spec, config, cache_dir, progress)


def _llm_judge(llm: Any, config: Any, cache_dir: Any, progress: bool) -> LLMJudge:
    cache = Path(cache_dir) / "judge.sqlite" if cache_dir is not None else None
    return LLMJudge(llm, judge_llm_config(config.llm), cache_path=cache, progress=progress, seed=config.seed)


def judge_llm_config(llm_config: Any) -> Any:
    """The ``[llm]`` section a scoring judge runs with: a judgement whose reply stayed invalid is asked again
    on the next ``qagen score`` (a failed judgement leaves its answer ungraded, and the user reruns to grade
    it, often after fixing the server), unless ``llm.cache_failures`` was set explicitly. A judgement costs
    a few dozen tokens; an ungraded answer costs the score."""
    if "cache_failures" in llm_config.model_fields_set:
        return llm_config
    return llm_config.model_copy(update={"cache_failures": False})
