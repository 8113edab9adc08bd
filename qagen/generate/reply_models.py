"""LLM reply models: the trust boundary every reply crosses before it can become an item.

The engine validates every reply against these pydantic models (and asks for a repair when one
does not fit); :mod:`qagen.generate.replies` converts the validated ones. Nothing is coerced.
"""

from __future__ import annotations

import functools
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, create_model, model_validator

# A decoding hint for schema-following backends: a question is one line ending in a question mark (Greek
# uses ";"). Quotes and backslashes are allowed: a question names LaTeX commands ("\\newcommand") and quotes
# labels; forbidding them made a capable model drop the backslash ("the ibibleverse command"). Only a hint:
# pydantic does not check it; the validity filter decides (language-aware) and records why.
QUESTION_PATTERN = r"^[^\x00-\x1f]{4,400}[?？؟;]$"
# llama.cpp's grammar gets it without quotes and backslashes (qagen.llm.structured.grammar_schema).
Question = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=5, max_length=500),
    Field(json_schema_extra={"pattern": QUESTION_PATTERN}),
]
Answer = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2000)]
Option = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=300)]


class _Reply(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class LongFormCandidate(_Reply):
    """One long-form question with its answer and the model's quality score."""

    question: Question
    answer: Answer
    score: int = Field(ge=1, le=5, description="5 = a question many users would ask, fully answered")


LONG_FORM_MAX = 10


class LongFormReply(_Reply):
    """Several candidate question/answer pairs for one section."""

    candidates: list[LongFormCandidate] = Field(min_length=1, max_length=LONG_FORM_MAX)

    model_config = ConfigDict(extra="forbid", strict=True, title="LongFormReply")


@functools.cache
def long_form_reply(n: int) -> type[LongFormReply]:
    """The long-form reply of a request that asks for ``n`` questions: at most ``n`` candidates (``maxItems``
    in its schema), so that a model does not write candidates the per-section quota would only throw away."""
    if not 1 <= n <= LONG_FORM_MAX:
        raise ValueError(f"a long-form request asks for 1 to {LONG_FORM_MAX} questions; got {n}")
    if n == LONG_FORM_MAX:
        return LongFormReply
    return create_model(
        f"LongFormReply{n}",
        __base__=LongFormReply,
        candidates=(list[LongFormCandidate], Field(min_length=1, max_length=n)),
    )


class FactoidReply(_Reply):
    """One question whose answer contains the requested entity."""

    question: Question
    answer: Answer


_CODE_MARKS = frozenset("\\_{}<>=/$")


def is_code_option(option: str) -> bool:
    """An option that is code or markup (it holds one of ``\\ _ { } < > = / $``), where case is part of a name;
    used here and by the validity filter's comparison of options."""
    return bool(_CODE_MARKS.intersection(option))


def _option_key(option: str) -> str:
    """What makes two options the same: words regardless of case ("Until 8 pm", "until 8 PM"); code as written,
    since case is part of a name there (LaTeX's ``\\Hat`` and ``\\hat`` are two commands)."""
    return option if is_code_option(option) else option.casefold()


class MCQReply(_Reply):
    """A multiple-choice question: one correct answer, three distractors, a rationale."""

    question: Question
    correct_answer: Option
    distractors: list[Option] = Field(min_length=3, max_length=3)
    rationale: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=1000)]

    @model_validator(mode="after")
    def _distinct(self) -> MCQReply:
        options = [self.correct_answer, *self.distractors]
        if len({_option_key(o) for o in options}) != 4:
            raise ValueError("the correct answer and the three distractors must be four different options")
        return self


class MultiHopReply(_Reply):
    """One question that needs a fact from each of two passages, with the quote each fact comes from."""

    question: Question
    answer: Answer
    evidence_1: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=1000)]
    evidence_2: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=1000)]


REPLY_MODELS: dict[str, type[BaseModel]] = {
    "long_form": LongFormReply,
    "factoid": FactoidReply,
    "mcq": MCQReply,
    "multi_hop": MultiHopReply,
    "comparison": MultiHopReply,  # the same reply: a question, its answer, a quote from each passage
}


@functools.cache
def reply_schema(kind: str) -> dict[str, Any]:
    """The JSON schema of a reply model (computed once; treat as read-only)."""
    return REPLY_MODELS[kind].model_json_schema()
