"""Multi-hop and comparison: a question over two sections whose answer needs both (``hops = "multi"`` or
``"comparison"``, the sections then of two documents).

A multi-hop item carries, in its rationale, the sentence of each passage its answer rests on
("1: ..." and "2: ..."). It is kept when each quote is found in its own section (ROUGE-L recall
at least ``QUOTE_RECALL``: quoted, not invented), and when neither section alone holds
``ONE_SECTION`` of the answer's content words (both together are checked by ``grounding``): a
question one passage answers is a single-hop question, whatever its label says.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from qagen.filters.base import FilterContext, ItemFilter, Reject
from qagen.filters.grounding import Vocabulary, content_recall, rouge_recall
from qagen.records import Item

if TYPE_CHECKING:
    from qagen.config import FilterConfig

QUOTE_RECALL = 0.8
ONE_SECTION = 0.9  # the share of the answer's content words one section may hold (names shared by both count)
_EVIDENCE = re.compile(r"^1: (?P<one>.*?)\n2: (?P<two>.*)$", re.S)


def check_multi_hop(item: Item, ctx: FilterContext, config: FilterConfig) -> Reject | None:
    """Both quotes in their sections, and the answer needing both sections (``config`` is not read)."""
    if item.hops == "single":
        return None
    ids = item.source.section_ids
    m = _EVIDENCE.match(item.rationale or "")
    if len(ids) != 2 or any(s not in ctx.sections for s in ids) or m is None:
        return Reject("multi-hop: two source sections and a quote from each are needed")
    texts = [ctx.sections[s].text for s in ids]
    for n, (quote, text) in enumerate(zip((m["one"], m["two"]), texts, strict=True), 1):
        recall = rouge_recall(quote, text, "rougeL")
        if recall < QUOTE_RECALL:
            return Reject(f"multi-hop: the quote from passage {n} is not in it", recall)
    for n, text in enumerate(texts, 1):
        share, _ = content_recall(item.answer, Vocabulary.of([text]), item.language)
        if share >= ONE_SECTION:
            return Reject(f"multi-hop: passage {n} alone answers it", share)
    return None


MULTI_HOP = ItemFilter("multi_hop", check_multi_hop)
