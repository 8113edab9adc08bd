"""What ``--dry-run`` says generation would cost: per item type, requests and tokens, expected and maximum.

The maximum assumes every reply runs to ``llm.max_tokens`` (the budget's worst case, a hard
ceiling). The expected figure assumes replies shaped like the prompts ask: each question about
25 tokens; a long-form answer about two fifths of its section, between 30 and 150 tokens (the
few-shot examples quote two sentences); a factoid answer one sentence; an MCQ four short
options and a one-sentence rationale; plus the JSON around them. Requests already in the cache
are listed apart: they are replayed and cost nothing. Repair requests are not planned, so a run
that needs them sends a few more calls than the table says.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from qagen.llm.pricing import estimate_tokens
from qagen.records import TYPE_SHORT_NAMES

QUESTION_TOKENS = 25
ITEM_JSON_TOKENS = 12  # keys, quotes and braces of one item
REPLY_JSON_TOKENS = 6
FACTOID_ANSWER_TOKENS = 35
MCQ_OPTION_TOKENS = 10
MCQ_RATIONALE_TOKENS = 40
LONG_FORM_ANSWER_SHARE = 0.4
LONG_FORM_ANSWER_MIN, LONG_FORM_ANSWER_MAX = 30, 150


def expected_completion(kind: str, section_text: str, n_questions: int, max_tokens: int) -> int:
    """The completion tokens a reply to one request of ``kind`` is expected to take (see the module docs)."""
    if kind == "long_form":
        share = int(LONG_FORM_ANSWER_SHARE * estimate_tokens(section_text))
        answer = min(LONG_FORM_ANSWER_MAX, max(LONG_FORM_ANSWER_MIN, share))
        tokens = n_questions * (QUESTION_TOKENS + answer + ITEM_JSON_TOKENS)
    elif kind == "factoid":
        tokens = QUESTION_TOKENS + FACTOID_ANSWER_TOKENS + ITEM_JSON_TOKENS
    elif kind in ("multi_hop", "comparison"):  # one question, an answer of two facts, a quoted sentence of each passage
        tokens = QUESTION_TOKENS + 2 * FACTOID_ANSWER_TOKENS + 2 * MCQ_RATIONALE_TOKENS + ITEM_JSON_TOKENS
    else:
        tokens = QUESTION_TOKENS + 4 * MCQ_OPTION_TOKENS + MCQ_RATIONALE_TOKENS + 2 * ITEM_JSON_TOKENS
    return min(max_tokens, tokens + REPLY_JSON_TOKENS)


def dry_run_estimate(
    engine: Any,
    planned: Sequence[Any],
    sections: Mapping[str, Any],
    long_form_per_section: int,
    default_prices: Mapping[str, list[float]] | None = None,
    label_judge: bool = False,
) -> dict[str, Any]:
    """The table ``--dry-run`` prints: per item type and in total, with the price and where it came from.

    Args:
        engine: The :class:`~qagen.llm.LLMEngine` that would run the requests (its cache decides
            what is already paid for).
        planned: The planned requests (``kind``, ``request``, ``response_model``, ``section_ids``).
        sections: Sections by id (the anchor section sizes the expected long-form answers).
        long_form_per_section: Questions asked per long-form request.
        default_prices: qagen's built-in price table, to tell the user whose price is used.
        label_judge: Add the label judge's requests (``generate.label_judge``): one per
            :data:`qagen.generate.labels.BATCH` multiple-choice requests, sized by their passages.
    """
    from qagen.llm.base import Usage
    from qagen.llm.pricing import cost_of, price_name

    price = engine.price
    rows: dict[str, dict[str, Any]] = {}
    for kind in ("long_form", "multi_hop", "comparison", "factoid", "mcq"):
        group = [p for p in planned if p.kind == kind]
        if not group:
            continue
        requests, models = [p.request for p in group], [p.response_model for p in group]
        cached = engine.cached_keys(requests, models)  # the cache is read once per type
        est = engine.estimate(requests, models, cached)
        todo = [p for p, hit in zip(group, cached, strict=True) if not hit]
        expected = sum(
            expected_completion(
                kind,
                sections[p.section_ids[0]].text if p.section_ids and p.section_ids[0] in sections else "",
                long_form_per_section,
                p.request.max_tokens,
            )
            for p in todo
        )
        rows[kind] = {
            "requests": est["requests"],
            "cached": est["cached"],
            "to_send": est["to_send"],
            "prompt_tokens": est["prompt_tokens"],
            "completion_tokens_expected": expected,
            "completion_tokens_max": est["completion_tokens_max"],
            "cost_usd_expected": None
            if price is None
            else round(cost_of(Usage(est["prompt_tokens"], expected), price), 6),
            "cost_usd_max": est["cost_usd_max"],
        }
    labels = _label_judge_row(planned, sections, engine, label_judge)
    if labels is not None:
        rows["labels"] = labels
    total: dict[str, Any] = {}
    for key in (
        "requests",
        "cached",
        "to_send",
        "prompt_tokens",
        "completion_tokens_expected",
        "completion_tokens_max",
    ):
        total[key] = sum(r[key] for r in rows.values())
    for key in ("cost_usd_expected", "cost_usd_max"):
        total[key] = None if price is None else round(sum(r[key] or 0.0 for r in rows.values()), 6)
    model = engine.llm.model
    source = None
    if price is not None:
        defaults = default_prices or {}
        named = price_name(model, engine.config.prices)
        builtin = named in defaults and list(defaults[named]) == list(engine.config.prices[named])
        where = "qagen's built-in price table" if builtin else "llm.prices in your configuration"
        source = f"{named}: ${price[0]:g} prompt / ${price[1]:g} completion per million tokens ({where})"
    return {
        "backend": engine.stats.backend,
        "model": model,
        "price": source,
        "by_type": rows,
        "total": total,
        "max_repair_requests": total["to_send"] * engine.config.repair_attempts,
    }


def _label_judge_row(
    planned: Sequence[Any], sections: Mapping[str, Any], engine: Any, label_judge: bool
) -> dict[str, Any] | None:
    """The label judge's requests, estimated before any MCQ exists: each MCQ request may give one item, judged
    with its passages (cut to :data:`~qagen.generate.labels.PASSAGE_CHARS`) in batches of
    :data:`~qagen.generate.labels.BATCH`; about 40 completion tokens a question."""
    from qagen.generate.labels import BATCH, PASSAGE_CHARS
    from qagen.llm.base import Usage
    from qagen.llm.pricing import cost_of

    mcqs = [p for p in planned if p.kind == "mcq"]
    if not label_judge or not mcqs:
        return None
    n = math.ceil(len(mcqs) / BATCH)
    prompt = 300 * n + sum(
        estimate_tokens(" ".join(sections[s].text[:PASSAGE_CHARS] for s in p.section_ids if s in sections)) + 120
        for p in mcqs
    )
    # every MCQ request cached: the same items, so the same judge requests, answered last time
    cached = n if all(engine.cached_keys([p.request for p in mcqs], [p.response_model for p in mcqs])) else 0
    if cached:
        prompt = expected = maximum = 0
    else:
        expected = 40 * len(mcqs)
        maximum = n * (engine.config.max_tokens or expected)
    price = engine.price
    return {
        "requests": n,
        "cached": cached,
        "to_send": n - cached,
        "prompt_tokens": prompt,
        "completion_tokens_expected": expected,
        "completion_tokens_max": maximum,
        "cost_usd_expected": None if price is None else round(cost_of(Usage(prompt, expected), price), 6),
        "cost_usd_max": None if price is None else round(cost_of(Usage(prompt, maximum), price), 6),
    }


def format_estimate(estimate: dict[str, Any]) -> str:
    """The dry run's table, for the console."""
    from qagen.formatting import format_cost

    def cost(value: float | None) -> str:
        return "?" if value is None else format_cost(value)

    header = (
        f"{'type':<10} {'requests':>8} {'cached':>7} {'to send':>8} {'prompt tok':>11} "
        f"{'completion tok (expected / max)':>32} {'cost (expected / max)':>24}"
    )
    lines = [f"dry run: generation would make these requests with {estimate['backend']} (nothing was sent)", header]
    rows = [(TYPE_SHORT_NAMES.get(k, k), r) for k, r in estimate["by_type"].items()] + [("total", estimate["total"])]
    for name, r in rows:
        completion = f"{r['completion_tokens_expected']:,} / {r['completion_tokens_max']:,}"
        costs = f"{cost(r['cost_usd_expected'])} / {cost(r['cost_usd_max'])}"
        lines.append(
            f"{name:<10} {r['requests']:>8,} {r['cached']:>7,} {r['to_send']:>8,} {r['prompt_tokens']:>11,} "
            f"{completion:>32} {costs:>24}"
        )
    lines.append(
        "cached requests are replayed and cost nothing; expected = replies shaped as the prompts ask, "
        f"max = every reply at llm.max_tokens; repairs may add up to {estimate['max_repair_requests']:,} calls"
    )
    lines.append(f"price: {estimate['price']}" if estimate["price"] else "price: unknown (set llm.prices) ")
    return "\n".join(lines)
