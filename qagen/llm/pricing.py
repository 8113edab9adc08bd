"""Token estimates and cost from a price table (USD per million tokens).

Estimates use about four characters per token (three for budget checks, so a budget is
never exceeded because a tokenizer counted more than we guessed). Real counts always come
from the API's ``usage`` fields.
"""

from __future__ import annotations

import json
import math

from qagen.llm.base import LLMRequest, Usage

MESSAGE_OVERHEAD = 4
REPLY_OVERHEAD = 3


def estimate_tokens(text: str, chars_per_token: float = 4.0) -> int:
    """A rough token count for ``text``."""
    return math.ceil(len(text) / chars_per_token)


def estimate_prompt_tokens(request: LLMRequest, conservative: bool = False) -> int:
    """Prompt tokens of ``request``, schema included; ``conservative`` over-estimates on purpose."""
    cpt = 3.0 if conservative else 4.0
    total = REPLY_OVERHEAD + sum(MESSAGE_OVERHEAD + estimate_tokens(m.content, cpt) for m in request.messages)
    if request.schema is not None:
        total += estimate_tokens(json.dumps(request.schema, separators=(",", ":")), cpt) + 30
    return total


def price_name(model: str, prices: dict[str, list[float]]) -> str | None:
    """The name in ``prices`` that prices ``model``, or None when none does.

    Exact names win; otherwise the longest table name that prefixes the model name (so
    ``gpt-4o-mini-2024-07-18`` uses ``gpt-4o-mini``). A ``provider/`` prefix is ignored.
    """
    bare = model.rsplit("/", 1)[-1]
    for name in (model, bare):
        if name in prices:
            return name
    candidates = [k for k in prices if bare.startswith(k)]
    return max(candidates, key=len) if candidates else None


def price_for(model: str, prices: dict[str, list[float]]) -> tuple[float, float] | None:
    """``(prompt, completion)`` USD per million tokens for ``model``, or None when unknown (see :func:`price_name`)."""
    name = price_name(model, prices)
    return None if name is None else _pair(name, prices[name])


def _pair(name: str, value: list[float]) -> tuple[float, float]:
    if len(value) != 2 or any(v < 0 for v in value):
        raise ValueError(
            f"llm.prices.{name} must be [prompt, completion] USD per million tokens, both >= 0; got {value}"
        )
    return float(value[0]), float(value[1])


def cost_of(usage: Usage, price: tuple[float, float] | None) -> float:
    """USD cost of ``usage`` (0.0 when the price is unknown)."""
    if price is None:
        return 0.0
    return (usage.prompt_tokens * price[0] + usage.completion_tokens * price[1]) / 1e6
