"""MCQ quality: no answer a test-wise reader can spot without knowing the subject.

Two giveaways are rejected per item: a correct option much longer than every distractor
(more than ``filter.mcq_max_length_ratio`` times the longest one), and a correct option
that alone repeats a run of at least ``filter.mcq_giveaway_words`` words of the question.
Whether the correct option is *systematically* the longest is a property of the set:
:func:`mcq_stats` reports that share (about 25% when unbiased) and the answer positions.
"""

from __future__ import annotations

from collections import Counter
from difflib import SequenceMatcher
from typing import TYPE_CHECKING, Any

from qagen.filters.base import FilterContext, ItemFilter, Reject
from qagen.filters.grounding import tokenize
from qagen.records import Item

if TYPE_CHECKING:
    from qagen.config import FilterConfig


def _split(item: Item) -> tuple[str, list[str]] | None:
    options = list(item.options or ())
    index = item.answer_index
    if item.type != "mcq" or index is None or not 0 <= index < len(options) or len(options) < 2:
        return None
    return options[index], [o for i, o in enumerate(options) if i != index]


def check_length(item: Item, ctx: FilterContext, config: FilterConfig) -> Reject | None:
    """Reject when the correct option is more than ``mcq_max_length_ratio`` times the longest distractor."""
    parts = _split(item)
    if parts is None:
        return None
    correct, distractors = parts
    longest = max(len(d.strip()) for d in distractors)
    ratio = len(correct.strip()) / max(longest, 1)
    if ratio > config.mcq_max_length_ratio:
        return Reject("correct option much longer than the distractors", ratio)
    return None


def verbatim_run(question: str, option: str) -> int:
    """Length in words of the longest run of consecutive question words found verbatim in ``option``."""
    q, o = tokenize(question), tokenize(option)
    if not q or not o:
        return 0
    return SequenceMatcher(None, q, o, autojunk=False).find_longest_match(0, len(q), 0, len(o)).size


def check_giveaway(item: Item, ctx: FilterContext, config: FilterConfig) -> Reject | None:
    """Reject when only the correct option repeats ``mcq_giveaway_words``+ consecutive question words."""
    parts = _split(item)
    if parts is None:
        return None
    correct, distractors = parts
    run = verbatim_run(item.question, correct)
    if run >= config.mcq_giveaway_words and run > max(verbatim_run(item.question, d) for d in distractors):
        return Reject("correct option repeats the question verbatim", float(run))
    return None


def check_mcq_quality(item: Item, ctx: FilterContext, config: FilterConfig) -> Reject | None:
    """Both giveaway checks; the first failure is the verdict."""
    return check_length(item, ctx, config) or check_giveaway(item, ctx, config)


def mcq_stats(items: list[Item]) -> dict[str, Any]:
    """Share of MCQs whose correct option is the strictly longest, and answer positions."""
    mcqs = [(it, _split(it)) for it in items if it.type == "mcq"]
    mcqs = [(it, p) for it, p in mcqs if p is not None]
    if not mcqs:
        return {"mcq": 0}
    longest = sum(len(c.strip()) > max(len(d.strip()) for d in ds) for _, (c, ds) in mcqs)
    positions = Counter(int(it.answer_index or 0) for it, _ in mcqs)
    return {
        "mcq": len(mcqs),
        "correct_longest_share": round(longest / len(mcqs), 4),
        "answer_positions": {str(k): positions.get(k, 0) for k in range(4)},
    }


MCQ_QUALITY = ItemFilter("mcq_quality", check_mcq_quality)
