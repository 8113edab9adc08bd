"""The review labels (after the paper's expert study), the verdict record and item content hashes.

Reviewers give each item exactly one label, the first that applies in this order:

==============  =================================  =============================================
code            paper wording                      meaning
==============  =================================  =============================================
irrelevant      irrelevant question                a user of these documents would not ask it
too_specific    too specific                       only answerable with this exact passage in hand
wrong           wrong answer                       the reference answer is incorrect or unsupported
incomplete      incomplete or ambiguous answer     right in part, missing key facts, or ambiguous
correct         correct answer                     relevant question, complete and correct answer
==============  =================================  =============================================

Only ``correct`` approves an item (see :mod:`qagen.review.approved`).

Besides the label, reviewers may answer two yes/no checks (:data:`CHECKS`; blank = not judged):

- ``natural``: a natural, self-contained question a real user would ask a chatbot that never
  saw this document (it names what it is about; no section numbers, no "this section").
- ``answerable``: the source passage answers it.

They are reported beside the labels and do not change which items are approved.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from qagen.errors import QagenError
from qagen.io import stable_hash
from qagen.records import Item

Label = Literal["irrelevant", "too_specific", "wrong", "incomplete", "correct"]
LABELS: tuple[str, ...] = ("irrelevant", "too_specific", "wrong", "incomplete", "correct")
APPROVED_LABEL = "correct"
LABEL_NAMES: dict[str, str] = {
    "irrelevant": "Irrelevant question",
    "too_specific": "Too specific",
    "wrong": "Wrong answer",
    "incomplete": "Incomplete or ambiguous answer",
    "correct": "Correct answer",
}
LABEL_HELP: dict[str, str] = {
    "irrelevant": "A user of these documents would not ask this question.",
    "too_specific": "Only answerable with this exact passage in hand (e.g. it refers to 'this section').",
    "wrong": "The reference answer is incorrect or not supported by the passage.",
    "incomplete": "The answer is right in part, misses key information, or can be read two ways.",
    "correct": "A relevant question with a complete and correct answer.",
}
# Other spellings accepted in a ``label`` column or as a label column's header (normalised first).
_ALIASES: dict[str, str] = {
    "irrelevant_question": "irrelevant",
    "wrong_answer": "wrong",
    "incorrect": "wrong",
    "ambiguous": "incomplete",
    "incomplete_or_ambiguous": "incomplete",
    "incomplete_or_ambiguous_answer": "incomplete",
    "correct_answer": "correct",
}
# The optional yes/no checks, and what a reviewer reads about each.
CHECKS: tuple[str, ...] = ("natural", "answerable")
CHECK_NAMES: dict[str, str] = {"natural": "Natural question", "answerable": "Answered by the passage"}
CHECK_HELP: dict[str, str] = {
    "natural": "yes if a real user could ask it of a chatbot that never saw this document: it names what it is "
    "about, no section numbers, no 'this section'; no otherwise.",
    "answerable": "yes if the source passage answers the question; no otherwise.",
}
# Accepted in a check column (case-insensitive, surrounding spaces ignored); empty means not judged.
YES = frozenset({"yes", "y", "1", "true", "ja"})
NO = frozenset({"no", "n", "0", "false", "nee"})
REVIEWER_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
REVIEWS_FILE = "reviews.jsonl"


class ReviewError(QagenError, ValueError):
    """A review problem with a message that says what to do next."""


@dataclass(frozen=True)
class Verdict:
    """One reviewer's label for one item (a line of ``reviews.jsonl``).

    Attributes:
        item_id: The item's id in ``items.jsonl``.
        reviewer: Who labelled it.
        label: One of :data:`LABELS`.
        comment: The reviewer's free comment.
        item_hash: :func:`item_hash` of the item as the reviewer saw it; a verdict whose hash no
            longer matches the item (the item was regenerated) is stale and ignored.
        source_file: Name of the review file the verdict was imported from.
        natural: The reviewer's ``natural`` check (a question a real user would ask, on its
            own); None when not judged.
        answerable: The reviewer's ``answerable`` check (the source passage answers it); None
            when not judged.
    """

    item_id: str
    reviewer: str
    label: Label
    comment: str = ""
    item_hash: str = ""
    source_file: str = ""
    natural: bool | None = None
    answerable: bool | None = None


def normalize_key(text: str) -> str:
    """Lower case, words joined by underscores: 'Too specific' -> 'too_specific'."""
    return "_".join(re.split(r"[\s_\-/]+", text.strip().lower())).strip("_")


def parse_label(text: str) -> str | None:
    """The label code for a code, the paper's wording or an alias; None when unknown."""
    key = normalize_key(text)
    key = _ALIASES.get(key, key)
    return key if key in LABELS else None


def parse_yes_no(text: str) -> bool | None:
    """True for yes/y/1/true/ja, False for no/n/0/false/nee (any case), None for an empty cell.

    Raises:
        ValueError: For any other text.
    """
    value = text.strip().lower()
    if not value:
        return None
    if value in YES:
        return True
    if value in NO:
        return False
    raise ValueError(text)


def item_hash(item: Item) -> str:
    """What the reviewer judged: 16 hex digits over question, answer and MCQ options."""
    data = [item.type, item.question, item.answer, list(item.options or ()), item.answer_index]
    return stable_hash(data)[:16]


def check_reviewer(name: str, where: str = "reviewer") -> str:
    """The name, stripped; raises :class:`ReviewError` unless it is a safe file-name word."""
    name = name.strip()
    if not REVIEWER_PATTERN.match(name):
        raise ReviewError(
            f"{where} must be 1-64 letters, digits, '.', '_' or '-' (starting with a letter or digit); got {name!r}"
        )
    return name


def load_reviews(out_dir: str | os.PathLike[str]) -> list[Verdict]:
    """The verdicts in ``OUT/reviews.jsonl`` (none when the file does not exist)."""
    from qagen.io import read_jsonl

    path = Path(out_dir) / REVIEWS_FILE
    return read_jsonl(path, Verdict) if path.is_file() else []
