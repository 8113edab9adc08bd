"""MCQ quality: no answer a test-wise reader can spot without knowing the subject.

A correct option that alone repeats a run of at least ``filter.mcq_giveaway_words`` words of the question is
rejected. A correct option much longer than every distractor (more than ``filter.mcq_max_length_ratio`` times the
longest one, and by three words or more) is rejected only when that ratio is set: off by default, since readers
with the strict brief found 5 of the 6 items it rejected in three rounds of a capable model's replies good (the
key right, the distractors wrong but plausible; a length cue is no error of the item).
Whether the correct option is *systematically* the longest is a property of the set:
:func:`mcq_stats` reports that share (about 25% when unbiased) and the answer positions.
"""

from __future__ import annotations

from collections import Counter
from difflib import SequenceMatcher
from typing import TYPE_CHECKING, Any

from qagen.filters.base import FilterContext, ItemFilter, Reject
from qagen.records import Item

if TYPE_CHECKING:
    from qagen.config import FilterConfig


MIN_EXTRA_WORDS = 3  # words the correct option must have beyond the longest distractor to give itself away


def _split(item: Item) -> tuple[str, list[str]] | None:
    options = list(item.options or ())
    index = item.answer_index
    if item.type != "mcq" or index is None or not 0 <= index < len(options) or len(options) < 2:
        return None
    return options[index], [o for i, o in enumerate(options) if i != index]


def check_length(item: Item, ctx: FilterContext, config: FilterConfig) -> Reject | None:
    """Reject when the correct option is more than ``mcq_max_length_ratio`` times the longest distractor."""
    parts = _split(item)
    if parts is None or config.mcq_max_length_ratio is None:
        return None
    correct, distractors = parts
    longest = max(len(d.strip()) for d in distractors)
    ratio = len(correct.strip()) / max(longest, 1)
    more_words = len(correct.split()) - max(len(d.split()) for d in distractors)
    # a word or two more is no giveaway among short options ("Virgule flottante 32 bits" / "Entiers 32 bits")
    if ratio > config.mcq_max_length_ratio and more_words >= MIN_EXTRA_WORDS:
        return Reject("correct option much longer than the distractors", ratio)
    return None


def verbatim_run(question: str, option: str) -> int:
    """Length in words of the longest run of consecutive question words found verbatim in ``option``."""
    q, o = _words(question), _words(option)
    if not q or not o:
        return 0
    return SequenceMatcher(None, q, o, autojunk=False).find_longest_match(0, len(q), 0, len(o)).size


def _words(text: str) -> list[str]:
    """Words as written between spaces, edge punctuation off: "libbar.so.2" is one word, not three."""
    words = (w.strip(".,;:!?()[]{}\"'«»“”„‘’").casefold() for w in text.split())
    return [w for w in words if w]


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
