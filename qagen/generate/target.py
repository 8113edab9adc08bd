"""The size target (``generate.questions``): ask sections in rounds until the filters keep N test items.

With a target, the folds stage samples every kept section; this module orders them and says how many
to ask next. The order is seeded and spreads over every fold and split by its share, and within each
over the documents in turn (a document's second section comes after every document's first), so a
short build still hears from every document. Each round asks enough sections for what is missing, by
the share of asked test sections that gave an accepted item so far; it stops at the target, at the
corpus's ceiling (every section asked) or after :data:`MAX_ROUNDS`, and :func:`shortfall` says which.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

MAX_ROUNDS = 6
FIRST_YIELD = 0.5  # accepted test items per asked test section assumed before any round has run
MARGIN = 1.25  # ask a quarter more than the measured yield says: a round short by a few costs a whole round
MIN_TEST_SECTIONS = 4  # the smallest round, in test sections


def ask_order(
    sampled: Sequence[str], folds: Mapping[str, tuple[int, str]], doc_of: Mapping[str, str], seed: int
) -> list[str]:
    """``sampled`` in the order to ask them: each (fold, split) by its share, documents in turn within each."""
    rng = random.Random(f"{seed}:questions")
    groups: dict[tuple[int, str], list[str]] = defaultdict(list)
    for sid in sampled:
        groups[folds[sid]].append(sid)
    keyed: list[tuple[float, int, str]] = []
    for g, key in enumerate(sorted(groups)):
        members = sorted(groups[key])
        rng.shuffle(members)
        docs = sorted({doc_of[s] for s in members})
        rng.shuffle(docs)
        doc_rank = {d: i for i, d in enumerate(docs)}
        seen: dict[str, int] = defaultdict(int)
        turns = []
        for sid in members:  # a document's k-th section goes in the k-th turn over the documents
            turns.append((seen[doc_of[sid]], doc_rank[doc_of[sid]], sid))
            seen[doc_of[sid]] += 1
        turns.sort()
        keyed += [((i + 0.5) / len(turns), g, sid) for i, (*_, sid) in enumerate(turns)]
    return [sid for *_, sid in sorted(keyed)]


@dataclass
class Rounds:
    """The state of a size-targeted build: what was asked, what the filters kept, each round's row."""

    target: int
    order: list[str]
    is_test: Mapping[str, bool]
    asked: int = 0
    got: int = 0
    rows: list[dict] = field(default_factory=list)
    conflicts: int = 0  # sections the folds left out because their unit holds sections of both folds' topics

    def next_batch(self) -> list[str]:
        """The next sections to ask (empty when done: target reached, every section asked, or rounds used up)."""
        if self.got >= self.target or self.asked >= len(self.order) or len(self.rows) >= MAX_ROUNDS:
            return []
        test_asked = sum(self.is_test[s] for s in self.order[: self.asked])
        if not self.rows:
            need = math.ceil(self.target / FIRST_YIELD)
        elif self.got and test_asked:
            need = math.ceil((self.target - self.got) / (self.got / test_asked) * MARGIN)
        else:  # nothing kept yet: ask as many again
            need = test_asked
        if len(self.rows) == MAX_ROUNDS - 1:
            need = len(self.order)  # the last round asks what is left
        need = max(need, MIN_TEST_SECTIONS)
        end, tests = self.asked, 0
        while end < len(self.order) and tests < need:
            tests += self.is_test[self.order[end]]
            end += 1
        batch = self.order[self.asked : end]
        self.asked = end
        return batch

    def record(self, batch: Sequence[str], candidates: int, got: int) -> None:
        """What the round gave: its sections, the candidates so far, the accepted test items so far."""
        self.got = got
        self.rows.append(
            {"round": len(self.rows) + 1, "sections": len(batch), "candidates": candidates, "accepted_test": got}
        )

    def shortfall(self, stopped: str | None = None) -> str | None:
        """Why the build has fewer test items than asked, in one line; None when it has enough.

        ``stopped``: why generation stopped before every section was asked (an LLM limit), if it did.
        """
        if self.got >= self.target:
            return None
        if self.asked >= len(self.order) and not stopped:
            lost = (
                f"; {self.conflicts} more sections are in no fold (fold conflicts: their page or document holds "
                "sections of both folds' topics; fewer, broader topics keep more)"
                if self.conflicts
                else ""
            )
            return (
                f"asked for {self.target} test questions (generate.questions), got {self.got}: every one of the "
                f"{len(self.order)} usable sections was asked; that is this corpus's ceiling with these filters "
                f"and generator (more documents or item types give more, and offline, an LLM backend){lost}"
            )
        return (
            f"asked for {self.target} test questions (generate.questions), got {self.got} after {len(self.rows)} "
            f"rounds over {self.asked} of {len(self.order)} usable sections: {stopped or 'rounds used up'}"
            + (" (what the earlier rounds left of the build's budget)" if stopped and len(self.rows) > 1 else "")
        )

    def to_dict(self) -> dict:
        return {
            "questions": self.target,
            "accepted_test": self.got,
            "sections_asked": self.asked,
            "sections_usable": len(self.order),
            "sections_in_fold_conflicts": self.conflicts,
            "rounds": self.rows,
        }
