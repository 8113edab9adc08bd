"""Refusal detection: did the chatbot decline to answer?

An answer declines when it is empty, or when one of the configured phrases
(``score.refusal_phrases``, case-insensitive, curly quotes read as straight ones) or the
dataset's own refusal answer starts within its first ``score.refusal_window_chars`` characters:
chatbots decline up front ("I'm sorry, the documents do not contain information on ..."),
while the same words deep inside a long answer are usually part of the answer. With an LLM
refusal judge (``score.refusal_judge``: by default an LLM MCQ judge) the LLM decides instead
(:mod:`qagen.score.judge`); phrases remain the fallback where its request fails.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

EMPTY = "<empty answer>"
_SPACE = re.compile(r"\s+")
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u201c": '"', "\u201d": '"'})


def normalize(text: str) -> str:
    """Case-folded text with straight quotes and single spaces."""
    return _SPACE.sub(" ", text.translate(_QUOTES).casefold()).strip()


class RefusalDetector:
    """Finds the refusal phrase an answer opens with.

    Args:
        phrases: Phrases that mark a refusal (``score.refusal_phrases``).
        window: A phrase counts only when it starts within the first ``window`` characters.
        refusal_answer: The dataset's expected refusal (``crosseval.json``); always a phrase.

    Raises:
        ValueError: ``window`` < 1.
    """

    def __init__(self, phrases: Sequence[str], window: int = 300, refusal_answer: str = "") -> None:
        if window < 1:
            raise ValueError(f"score.refusal_window_chars must be >= 1; got {window}")
        self.window = window
        extra = [normalize(refusal_answer).rstrip(".!")] if refusal_answer.strip() else []
        self.phrases = tuple(dict.fromkeys(p for p in (*extra, *map(normalize, phrases)) if p))

    def find(self, answer: str) -> str | None:
        """The phrase that makes ``answer`` a refusal (:data:`EMPTY` for an empty one), else None."""
        text = normalize(answer)
        if not text:
            return EMPTY
        return next((p for p in self.phrases if 0 <= text.find(p) < self.window), None)

    def __call__(self, answer: str) -> bool:
        return self.find(answer) is not None
