"""Naming what a question is about: the page's thing, a name, or the corpus's product (rules own_product,
name_the_thing, question_names_thing)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from qagen.generate.offline.reading import fold, namelike

if TYPE_CHECKING:
    from qagen.generate.offline.phrases import Page


def names_something(page: Page, values: Iterable[str]) -> bool:
    """The question's own words name what it is about: the page's thing, a name, or a command."""
    said = " ".join(values)
    if page.thing is not None and fold(page.thing.name) in fold(said):
        return True
    return any(namelike(w) or w.startswith("\\") for w in said.split())


def named_question(question: str, mark: str, page: Page) -> str | None:
    """ "How can I show a hyphen character?" of the metrix package's manual -> "... with the metrix package?";
    of the corpus's product -> "... in GIMP?"; unchanged when there is neither (a corpus of one organisation's
    pages), None when the document is not about the corpus's product and names nothing."""
    thing = page.thing
    if thing is not None and thing.titled:
        said = {"thing": thing.said(page.lang), "thing_dat": thing.said(page.lang, dative=True)}
        extra = (page.lang.frame("with_thing") or "").format(**said)
    elif page.product:
        extra = (page.lang.frame("in_product") or "").format(product=page.product)
    else:
        return None if page.unnamed else question
    body = question[: -len(mark)].rstrip() if question.endswith(mark) else question
    spacing = page.lang.frame("question_mark") or "?"
    return f"{body}{extra}{spacing}" if extra else question
