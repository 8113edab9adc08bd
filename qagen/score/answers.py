"""The answers format: one JSON object per line, one line per (question, iteration) the chatbot answered.

::

    {"item_id": "f9f231b5d7b22c45", "iteration": "validation_iteration_1",
     "answer": "Connect the machine only to an earthed socket ...",
     "retrieved_page_ids": ["4261eee64652a766-p0000", "..."], "latency_s": 1.42}

``item_id`` is an item id from ``OUT/splits/*/fold_*/questions.jsonl``; ``iteration`` is an
iteration name from ``OUT/crosseval.json`` (``validation_iteration_1``) or its number (1 or 2:
an item belongs to one set, so the number is enough). ``retrieved_page_ids`` (the pages the
chatbot retrieved, best first) enables retrieval recall@k; ``latency_s`` is reported as is;
``meta`` holds anything else (model name, token counts). Unknown fields are errors, so a
misspelt ``retreived_page_ids`` cannot silently switch recall@k off.

``schemas/answer.schema.json`` is generated from :class:`Answer` (``python -m qagen.score.schema``)
and a test fails when it drifts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

from qagen.errors import QagenError
from qagen.io import read_bounded
from qagen.records import SCHEMA_VERSION
from qagen.schemas import closed_schema

SCHEMA_FILE = Path(__file__).resolve().parents[2] / "schemas" / "answer.schema.json"
MAX_PROBLEMS_SHOWN = 5
MAX_ANSWERS_BYTES = 1 << 30  # 1 GiB: far beyond any answers file, short of filling memory


class ScoreError(QagenError, ValueError):
    """Answers that cannot be scored against an output folder; the message says why and what to do."""


@dataclass(frozen=True)
class Answer:
    """One chatbot answer to one question of one cross-evaluation iteration."""

    item_id: Annotated[str, Field(min_length=1, description="id of the item (questions.jsonl 'id')")]
    iteration: Annotated[
        Annotated[str, Field(min_length=1)] | Annotated[int, Field(ge=1, le=2)],
        Field(description="iteration name from crosseval.json (validation_iteration_1) or its number (1, 2)"),
    ]
    answer: Annotated[str, Field(description="the chatbot's reply, verbatim (a refusal is a reply too)")]
    retrieved_page_ids: Annotated[
        tuple[str, ...] | None,
        Field(description="ids of the pages the chatbot retrieved, best first (enables recall@k)"),
    ] = None
    latency_s: Annotated[float | None, Field(ge=0, le=1e9, description="seconds the chatbot took to answer")] = None
    meta: Annotated[dict[str, Any] | None, Field(description="anything else: model, tokens, ...")] = None
    cost_usd: Annotated[float | None, Field(ge=0, le=1e9, description="what answering cost in USD, when known")] = None


def answer_schema() -> dict[str, Any]:
    """The JSON schema (draft 2020-12) of one answers line, closed to unknown fields."""
    from pydantic import TypeAdapter

    schema = closed_schema(TypeAdapter(Answer).json_schema(mode="serialization"))
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://qagen.dev/schemas/{SCHEMA_VERSION}/answer.schema.json",
        "x-schema-version": SCHEMA_VERSION,
        **schema,
    }


def render_schema() -> str:
    """The text of ``schemas/answer.schema.json``."""
    return json.dumps(answer_schema(), indent=2, ensure_ascii=False) + "\n"


def parse_answers(lines: list[str], source: str = "answers") -> list[Answer]:
    """Validate answers lines (blank lines skipped) into :class:`Answer` values.

    Raises:
        ScoreError: Naming the first problems by line number (invalid JSON, a missing or
            misspelt field, a wrong type).
    """
    import jsonschema

    validator = jsonschema.Draft202012Validator(answer_schema())
    answers: list[Answer] = []
    problems: list[str] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line, parse_constant=_no_constant)
        except json.JSONDecodeError as exc:
            problems.append(f"line {number}: not JSON ({exc.msg})")
            continue
        except ValueError as exc:  # NaN or Infinity: JSON has no such number
            problems.append(f"line {number}: {exc}")
            continue
        except RecursionError:
            problems.append(f"line {number}: nested too deeply to be an answer")
            continue
        try:
            json.dumps(data, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            problems.append(f"line {number}: holds a lone surrogate escape (such as \\ud800), which is no character")
            continue
        errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
        if errors:
            problems.append(f"line {number}: {_describe(errors[0])}")
            continue
        answers.append(_answer(data))
    if problems:
        raise ScoreError(
            f"{source}: {len(problems)} invalid line(s); {_first(problems)} (the format is schemas/answer.schema.json)"
        )
    return answers


def load_answers(path: str | Path) -> list[Answer]:
    """Read and validate an answers JSONL file (see :func:`parse_answers`).

    Raises:
        FileNotFoundError: No such file.
        ScoreError: Invalid lines, named by number.
    """
    p = Path(path)
    if not p.exists():
        stdin = " ('-' is no file: save the answers to one, or pass <(your command))" if str(path) == "-" else ""
        raise FileNotFoundError(f"answers file not found: {p}{stdin}")
    if p.is_dir():
        raise ScoreError(f"{p} is a folder; pass the answers file (JSONL)")
    raw = read_bounded(p, MAX_ANSWERS_BYTES, "answers file")  # a pipe is read too; an endless one is cut off
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ScoreError(
            f"{p}: line {line} is not UTF-8 (byte 0x{raw[exc.start]:02x}); save the answers as UTF-8"
        ) from None
    return parse_answers(text.splitlines(), source=str(p))


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows; write a number or null")


def answer_to_dict(answer: Answer) -> dict[str, Any]:
    """One answers line as plain data, leaving out unset optional fields."""
    data: dict[str, Any] = {"item_id": answer.item_id, "iteration": answer.iteration, "answer": answer.answer}
    if answer.retrieved_page_ids is not None:
        data["retrieved_page_ids"] = list(answer.retrieved_page_ids)
    if answer.latency_s is not None:
        data["latency_s"] = answer.latency_s
    if answer.meta is not None:
        data["meta"] = answer.meta
    if answer.cost_usd is not None:
        data["cost_usd"] = answer.cost_usd
    return data


def _answer(data: dict[str, Any]) -> Answer:
    iteration = data["iteration"]
    if isinstance(iteration, float):  # JSON 1.0 is the integer 1 for the schema
        iteration = int(iteration)
    pages = data.get("retrieved_page_ids")
    return Answer(
        item_id=data["item_id"],
        iteration=iteration,
        answer=data["answer"],
        retrieved_page_ids=None if pages is None else tuple(pages),
        latency_s=None if data.get("latency_s") is None else float(data["latency_s"]),
        meta=data.get("meta"),
        cost_usd=None if data.get("cost_usd") is None else float(data["cost_usd"]),
    )


def _describe(error: Any) -> str:
    where = ".".join(str(p) for p in error.absolute_path)
    if error.validator == "additionalProperties":
        allowed = ", ".join(Answer.__dataclass_fields__)
        return f"{error.message} (fields are: {allowed})"
    if error.validator == "anyOf" and where == "iteration":
        return f"iteration must be an iteration name or 1 or 2; got {json.dumps(error.instance)}"
    return f"{where + ': ' if where else ''}{error.message}"


def _first(problems: list[str]) -> str:
    shown = "; ".join(problems[:MAX_PROBLEMS_SHOWN])
    more = len(problems) - MAX_PROBLEMS_SHOWN
    return shown + (f"; and {more} more" if more > 0 else "")
