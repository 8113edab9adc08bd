"""A hand-made dataset for the score tests (built with the real splits code) and the answers a "chatbot" gave."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

from qagen.config import SplitsConfig
from qagen.embed import normalize_rows
from qagen.io import write_json
from qagen.records import FoldAssignment, GeneratorInfo, Item, Page, Section, Source
from qagen.splits import build_splits, write_splits

IT1, IT2 = "validation_iteration_1", "validation_iteration_2"
REFUSAL = SplitsConfig().refusal_answer
TEXTS = {
    "d1-s0": "The IT helpdesk is open from 9 to 5 on weekdays. Call the helpdesk on +31 20 794 3120 when urgent.",
    "d1-s1": "Every employee gets 25 days of paid leave per year. Unused days expire after one year.",
    "d1-s2": "Laptops are replaced every four years by the facilities team.",
    "d2-s0": "Visitors park in garage P2 next to the main entrance. "
    "Parking permits are requested at parking@lindenhof.example.org.",
    "d2-s1": "The hospital shop sells flowers and newspapers in the main hall.",
}
PAGES = {"d1-p0": ["d1-s0", "d1-s1"], "d1-p1": ["d1-s2"], "d2-p0": ["d2-s0"], "d2-p1": ["d2-s1"]}
TOPICS = {0: "it helpdesk", 1: "leave", 2: "parking", 3: "hospital shop"}


def _item(iid, kind, fold, sid, page, topic, question, answer, **kw):
    source = Source(sid[:2], (sid,), (page,), topic)
    generator = GeneratorInfo("extractive")
    return Item(id=iid, type=kind, question=question, answer=answer, fold=fold, split="validation", source=source,
                generator=generator, **kw)  # fmt: skip


ITEMS = [
    _item("f1", "factoid", 1, "d1-s0", "d1-p0", 0, "Which number do I call for urgent IT problems?",
          "Call the helpdesk on +31 20 794 3120.", entity="+31 20 794 3120", entity_kind="phone"),
    _item("l1", "long_form", 1, "d1-s0", "d1-p0", 0, "When is the IT helpdesk open?",
          "The helpdesk is open from 9 to 5 on weekdays."),
    _item("m1", "mcq", 1, "d1-s1", "d1-p0", 1, "How many days of paid leave does an employee get per year?",
          "25 days", options=("25 days", "20 days", "30 days", "15 days"), answer_index=0, bloom="B1", scenario="S1"),
    _item("f2", "factoid", 2, "d2-s0", "d2-p0", 2, "Where do I request a parking permit?",
          "Write to parking@lindenhof.example.org.", entity="parking@lindenhof.example.org", entity_kind="email"),
    _item("l2", "long_form", 2, "d2-s0", "d2-p0", 2, "Where do visitors park?",
          "Visitors park in garage P2 next to the main entrance."),
    _item("m2", "mcq", 2, "d2-s1", "d2-p1", 3, "What does the hospital shop sell?", "Flowers and newspapers",
          options=("Flowers and newspapers", "Medicines", "Parking permits", "Hot meals"), answer_index=0, bloom="B2",
          scenario="S2"),
]  # fmt: skip

# a false-premise variant of f1: it asserts a number the helpdesk page contradicts
FALSE_PREMISE = _item("p1", "factoid", 1, "d1-s0", "d1-p0", 0,
                      "Is +31 20 555 0199 the number to call for urgent IT problems?",
                      "Call the helpdesk on +31 20 794 3120.",
                      entity="+31 20 794 3120", entity_kind="phone", premise="false", premise_claim="+31 20 555 0199",
                      variant_of="f1")  # fmt: skip

ANSWERS = [
    # iteration 1: f1, l1, m1 answerable; f2, l2, m2 unanswerable
    {"item_id": "f1", "iteration": IT1, "answer": "Call 020 794 3120.", "retrieved_page_ids": ["d1-p1", "d1-p0"]},
    {"item_id": "l1", "iteration": IT1, "answer": "The helpdesk is open from 9 to 5.", "retrieved_page_ids": ["d1-p0"],
     "latency_s": 1.0},
    {"item_id": "m1", "iteration": IT1, "answer": "You get 25 days of leave per year.", "latency_s": 2.0},
    {"item_id": "f2", "iteration": IT1, "answer": REFUSAL},  # declined: TP
    {"item_id": "l2", "iteration": IT1, "answer": "Unfortunately I have no details about visitor parking."},  # FN
    {"item_id": "m2", "iteration": IT1, "answer": "I cannot answer that from these documents."},  # TP
    # iteration 2: f2, l2, m2 answerable; f1, l1, m1 unanswerable
    {"item_id": "f2", "iteration": IT2, "answer": "Permits: parking@Lindenhof.example.org",
     "retrieved_page_ids": ["d2-p1"]},
    {"item_id": "l2", "iteration": IT2, "answer": "Sorry, I don\u2019t know.",  # FP (a curly apostrophe)
     "retrieved_page_ids": ["d2-p0", "d1-p0"]},  # d1-p0 is not in iteration 2's corpus
    # right in meaning (option A), but its only word in common with an option is "parking" (option C)
    {"item_id": "m2", "iteration": IT2, "answer": "Bouquets, plus today's papers, close to the parking garage."},
    {"item_id": "f1", "iteration": IT2, "answer": "I do not know."},  # TP
    {"item_id": "l1", "iteration": IT2, "answer": "The documents do not contain information about the helpdesk."},  # TP
    {"item_id": "m1", "iteration": IT2, "answer": ""},  # empty: TP
]  # fmt: skip


class BagOfWords:
    """A deterministic embedder: word counts over the call's vocabulary, L2-normalised."""

    id = "bow"

    def __init__(self) -> None:
        self.calls = 0

    def embed(self, texts):
        self.calls += 1
        tokens = [re.findall(r"\w+", t.casefold()) for t in texts]
        vocab = {w: i for i, w in enumerate(sorted({w for ts in tokens for w in ts}))}
        out = np.zeros((len(texts), max(len(vocab), 1)), dtype=np.float32)
        for i, ts in enumerate(tokens):
            for w in ts:
                out[i, vocab[w]] += 1
        return normalize_rows(out)


def corpus() -> tuple[dict[str, Section], list[Page], list[FoldAssignment]]:
    """The sections, pages and fold assignments of :data:`TEXTS` (d1 in fold 1, d2 in fold 2), for build_splits."""
    sections = {sid: Section(sid, sid[:2], f"{sid[:2]}.pdf", "Heading", text, 1, 1, 0) for sid, text in TEXTS.items()}
    pages = [Page(pid, pid[:2], tuple(sids), "\n\n".join(TEXTS[s] for s in sids), 50) for pid, sids in PAGES.items()]
    assignments = [
        FoldAssignment(sid, 0, pid, "kept", 1 if pid.startswith("d1") else 2, "validation")
        for pid, sids in PAGES.items()
        for sid in sids
    ]
    return sections, pages, assignments


def make_out(root: Path, items: list[Item] | None = None) -> Path:
    """A qagen output folder holding only what scoring reads: crosseval.json, splits/, topics.json
    (``items``: other items than :data:`ITEMS`)."""
    sections, pages, assignments = corpus()
    no_scope = SplitsConfig(out_of_scope_share=0)  # worked out by hand without off-domain questions (test_scope.py)
    result = build_splits(ITEMS if items is None else items, pages, assignments, no_scope, sections=sections)
    assert result.leakage["flagged"] == 0
    write_json(root / "crosseval.json", write_splits(result, root))
    write_json(root / "topics.json", {"topics": [{"id": k, "label": v} for k, v in TOPICS.items()]})
    return root


def write_answers(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path
