"""Structured output: parse a reply, validate it, and build the repair request.

A reply is JSON (optionally inside a Markdown code fence); it is validated with the
request's pydantic model, or with its JSON schema (``jsonschema``) when no model is given.
Nothing is coerced into shape: a reply that does not validate gets a repair request that
shows the model its output and the error, and otherwise becomes a recorded failure.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from qagen.llm.base import Completion, LLMRequest, Message

SCHEMA_INSTRUCTION = "Reply with only a JSON object, no other text, that conforms to this JSON schema:\n{schema}"
REPAIR_INSTRUCTION = (
    "Your previous reply could not be used: {error}.\n"
    "Reply again with only the corrected JSON object, no other text, keeping the content that was right."
)
TRUNCATED_HINT = "it was cut off at the token limit, so keep the reply shorter"
MAX_ERROR_CHARS = 300
# Longer length bounds make llama.cpp's grammars explode (a 1,000- or 2,000-character maxLength
# fails to compile: it aborts the in-process model and kills llama-cpp-python's server);
# 500 compiles in milliseconds. Validation still checks every original bound.
MAX_GRAMMAR_LENGTH = 500
MAX_GRAMMAR_MIN_LENGTH = 64
MAX_GRAMMAR_ENUM = 100
ResponseModels = type[BaseModel] | Sequence[type[BaseModel] | None] | None
_FENCE = re.compile(r"^\s*```[A-Za-z0-9_-]*\s*\n(.*?)\n?\s*```\s*$", re.DOTALL)


REPLY_ERROR_KINDS = frozenset({"empty", "invalid_json", "wrong_schema", "truncated", "refusal"})


class ReplyError(ValueError):
    """A reply that cannot be used. ``kind`` (one of :data:`REPLY_ERROR_KINDS`) is a short
    tag counted in the stats."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclasses.dataclass(frozen=True)
class Checked:
    """A reply that passed validation."""

    value: BaseModel | None
    data: Any


def schema_instruction(schema: dict[str, Any]) -> str:
    """The text that asks for JSON matching ``schema`` (for servers without schema support)."""
    return SCHEMA_INSTRUCTION.format(schema=json.dumps(schema, ensure_ascii=False, separators=(",", ":")))


def grammar_schema(schema: Any) -> Any:
    """``schema`` reduced to what llama.cpp's JSON-schema grammar handles safely.

    Lowers ``maxLength`` above 500 to 500 and drops ``minLength`` above 64 (llama.cpp
    expands length bounds into one grammar rule per character, and fails on long ones),
    keeps a quote and a backslash out of a string pattern's negated class, and turns a small
    integer range (``minimum``..``maximum``, which the converter ignores) into an ``enum``.
    The lowered bound keeps a small model from running on to the token limit inside one
    string; validation still applies the original schema to every reply. Titles and
    descriptions are dropped (they do not constrain). Used for the in-process llama.cpp
    backend and for ``json_object`` requests that carry a schema (llama-cpp-python's server
    compiles that schema into a grammar).
    """
    if isinstance(schema, list):
        return [grammar_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ("title", "description"):
            continue
        if key in ("properties", "$defs", "definitions", "patternProperties") and isinstance(value, dict):
            out[key] = {name: grammar_schema(sub) for name, sub in value.items()}  # names, not keywords
        else:
            out[key] = grammar_schema(value)
    if out.get("maxLength", 0) > MAX_GRAMMAR_LENGTH:
        out["maxLength"] = MAX_GRAMMAR_LENGTH
    if out.get("minLength", 0) > MAX_GRAMMAR_MIN_LENGTH:
        del out["minLength"]
    pattern = out.get("pattern")
    if isinstance(pattern, str) and pattern.startswith("^[^") and '"' not in pattern.split("]", 1)[0]:
        # the converter writes a pattern's characters raw inside the JSON string: a quote or a backslash
        # there would end or break it, so a negated class also excludes them here
        out["pattern"] = '^[^"\\\\' + pattern[3:]
    lo, hi = out.get("minimum"), out.get("maximum")
    if out.get("type") == "integer" and isinstance(lo, int) and isinstance(hi, int) and 0 <= hi - lo < MAX_GRAMMAR_ENUM:
        out = {"enum": list(range(lo, hi + 1))}
    return out


def with_schema_in_prompt(messages: tuple[Message, ...], schema: dict[str, Any]) -> tuple[Message, ...]:
    """Append the schema instruction to the last user message (or add a user message)."""
    instruction = schema_instruction(schema)
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].role == "user":
            merged = Message("user", f"{messages[i].content}\n\n{instruction}")
            return (*messages[:i], merged, *messages[i + 1 :])
    return (*messages, Message("user", instruction))


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 1] + "…"


def extract_json(text: str) -> Any:
    """Parse the JSON value in ``text``; a Markdown code fence around it is allowed."""
    stripped = text.strip()
    fence = _FENCE.match(stripped)
    if fence:
        stripped = fence.group(1).strip()
    if not stripped:
        raise ReplyError("empty", "empty reply")
    try:
        return json.loads(stripped)
    except json.JSONDecodeError as exc:
        start = min((i for i in (stripped.find("{"), stripped.find("[")) if i >= 0), default=-1)
        if start > 0:
            try:
                value, end = json.JSONDecoder().raw_decode(stripped, start)
            except json.JSONDecodeError:
                pass
            else:
                if not stripped[end:].strip():
                    return value
        raise ReplyError("invalid_json", f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None


def pydantic_error(exc: ValidationError) -> str:
    """One line naming each failing field and what was wrong (never the offending values)."""
    parts = []
    for err in exc.errors()[:5]:
        loc = ".".join(str(p) for p in err["loc"]) or "(root)"
        parts.append(f"{loc}: {err['msg']}")
    more = f" (+{exc.error_count() - 5} more)" if exc.error_count() > 5 else ""
    return _short("; ".join(parts) + more)


def _validate_schema(data: Any, schema: dict[str, Any]) -> None:
    import jsonschema

    validator_cls = jsonschema.validators.validator_for(schema)
    error = jsonschema.exceptions.best_match(validator_cls(schema).iter_errors(data))
    if error is not None:
        where = ".".join(str(p) for p in error.absolute_path) or "(root)"
        raise ReplyError("wrong_schema", _short(f"{where}: {error.message}"))


def check_reply(completion: Completion, request: LLMRequest, response_model: type[BaseModel] | None) -> Checked:
    """Validate one reply; raise :class:`ReplyError` saying why it cannot be used."""
    if completion.refusal or completion.finish_reason == "content_filter":
        raise ReplyError("refusal", "the model refused to answer")
    truncated = completion.finish_reason == "length"
    if response_model is None and request.schema is None:
        if not completion.text.strip():
            raise ReplyError("empty", "empty reply")
        return Checked(None, None)
    try:
        data = extract_json(completion.text)
        if response_model is not None:
            try:
                return Checked(response_model.model_validate(data), data)
            except ValidationError as exc:
                raise ReplyError("wrong_schema", f"reply does not match the schema: {pydantic_error(exc)}") from None
        assert request.schema is not None
        _validate_schema(data, request.schema)
        return Checked(None, data)
    except ReplyError as exc:
        if truncated:
            raise ReplyError("truncated", f"reply truncated at max_tokens={request.max_tokens} ({exc})") from None
        raise


def repair_quote_limit(request: LLMRequest) -> int:
    """The most characters of an invalid reply a repair request quotes back: twice what ``max_tokens`` allows
    (about four characters a token), at least :data:`MIN_REPAIR_QUOTE`."""
    return max(MIN_REPAIR_QUOTE, 8 * request.max_tokens)


MIN_REPAIR_QUOTE = 4000


def repair_request(original: LLMRequest, reply: str, error: ReplyError) -> LLMRequest:
    """The original request followed by the invalid reply (cut to :func:`repair_quote_limit`: a reply padded to
    megabytes is not sent back whole with every repair) and a request to fix it."""
    reason = f"{error}; {TRUNCATED_HINT}" if error.kind == "truncated" else str(error)
    limit = repair_quote_limit(original)
    if len(reply) > limit:
        reply = f"{reply[:limit]}\n[... {len(reply) - limit:,} more characters of this reply cut]"
    messages = (
        *original.messages,
        Message("assistant", reply),
        Message("user", REPAIR_INSTRUCTION.format(error=reason)),
    )
    return dataclasses.replace(original, messages=messages)


def expand_models(response_model: ResponseModels, n: int) -> list[type[BaseModel] | None]:
    """One response model (or None) per request."""
    if response_model is None or isinstance(response_model, type):
        return [response_model] * n
    models = list(response_model)
    if len(models) != n:
        raise ValueError(f"response_model must be one model or one per request ({n}); got {len(models)}")
    return models


def with_schemas(requests: list[LLMRequest], models: list[type[BaseModel] | None]) -> list[LLMRequest]:
    """Give each request without a schema the JSON schema of its response model."""
    schemas: dict[type[BaseModel], dict[str, Any]] = {}
    out = []
    for request, model in zip(requests, models, strict=True):
        if model is not None and request.schema is None:
            if model not in schemas:
                schemas[model] = model.model_json_schema()
            request = dataclasses.replace(request, schema=schemas[model])
        out.append(request)
    return out
