"""Multi-hop questions: two sections of one topic, a quote from each, an answer that needs both."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from qagen.config import FilterConfig, GenerateConfig
from qagen.filters import FilterContext
from qagen.filters.multi_hop import check_multi_hop
from qagen.generate.requests import plan_requests
from qagen.records import GeneratorInfo, Item, Section, Source
from tests.test_generate_requests import PROMPTS, make_ctx

ONE = "The Barista 300 descales in 25 minutes. Use only AromaVita descaler tablets."
TWO = "The descaling programme starts when you hold the steam button for five seconds."


def hop(answer: str, quote_1: str, quote_2: str, hops: str = "multi") -> Item:
    return Item(
        id="h1",
        type="long_form",
        question="For the AromaVita Barista 300, how do I descale it and how long does it take?",
        answer=answer,
        source=Source("d", ("d-s1", "d-s2"), ()),
        fold=1,
        split="validation",
        generator=GeneratorInfo("openai:m"),
        rationale=f"1: {quote_1}\n2: {quote_2}",
        hops=hops,
    )


def ctx() -> FilterContext:
    sections = {
        "d-s1": Section("d-s1", "d", "d.pdf", "Descaling", ONE, 1, 1, 0),
        "d-s2": Section("d-s2", "d", "d.pdf", "Buttons", TWO, 2, 2, 1),
    }
    return FilterContext(sections=sections, embed=lambda texts: [[1.0]] * len(texts))


def test_an_answer_that_needs_both_sections_is_kept() -> None:
    answer = "Hold the steam button for five seconds; descaling then takes 25 minutes."
    assert check_multi_hop(hop(answer, ONE.split(". ")[0] + ".", TWO), ctx(), FilterConfig()) is None


def test_one_section_answering_alone_or_an_invented_quote_is_rejected() -> None:
    one_only = "The Barista 300 descales in 25 minutes with AromaVita descaler tablets."
    verdict = check_multi_hop(hop(one_only, ONE, TWO), ctx(), FilterConfig())
    assert verdict is not None and verdict.reason == "multi-hop: passage 1 alone answers it"
    invented = "Press the descale key twice and wait until the light turns green."
    verdict = check_multi_hop(hop("Hold the steam button; it takes 25 minutes.", ONE, invented), ctx(), FilterConfig())
    assert verdict is not None and verdict.reason == "multi-hop: the quote from passage 2 is not in it"
    assert check_multi_hop(hop("x", ONE, TWO, hops="single"), ctx(), FilterConfig()) is None  # not its business


def test_planned_pairs_share_a_topic_and_a_fold() -> None:
    config = GenerateConfig(types=["long_form"], multi_hop_share=0.5)
    context = make_ctx(config)
    planned = plan_requests(context, PROMPTS, config)
    hops = [p for p in planned if p.kind == "multi_hop"]
    singles = [p for p in planned if p.kind == "long_form"]
    assert len(hops) == round(0.5 * len(singles))
    for p in hops:
        a, b = p.section_ids
        assert a != b and context.topic(a) == context.topic(b) and context.folds[a] == context.folds[b]
        assert "Passage 1" in p.request.messages[-1].content and "Passage 2" in p.request.messages[-1].content
    assert Counter(context.sections[a].doc_id == context.sections[b].doc_id for a, b in (p.section_ids for p in hops))[
        True
    ]  # its own document first


def test_comparison_pairs_are_two_documents_of_one_topic_and_fold() -> None:
    config = GenerateConfig(types=["long_form"], comparison_share=0.5)
    context = make_ctx(config)
    pairs = [p for p in plan_requests(context, PROMPTS, config) if p.kind == "comparison"]
    assert pairs
    for p in pairs:
        a, b = p.section_ids
        assert context.sections[a].doc_id != context.sections[b].doc_id
        assert context.topic(a) == context.topic(b) and context.folds[a] == context.folds[b]
        assert "compare" in p.request.messages[-1].content


def _passages(body: dict) -> list[str]:
    user = body["messages"][-1]["content"]
    return re.findall(r'Passage \d[^\n]*\n"""\n(.*?)\n"""', user, re.S)


def careful_model(body: dict):
    """A model answering qagen's prompts: multi-hop replies from the two passages' first sentences."""
    from tests.support.grounded import grounded_responder

    schema = json.dumps(body.get("response_format") or {})
    if "evidence_1" not in schema:
        return grounded_responder(body)
    one, two = (re.split(r"(?<=[.!?])\s+", p.strip())[0] for p in _passages(body))
    title = re.search(r'Passage 1 \(document: "([^"]+)"', body["messages"][-1]["content"])[1]
    return {
        "question": f"For {title}, what do these two sections say together?",
        "answer": f"{one} {two}",
        "evidence_1": one,
        "evidence_2": two,
    }


@pytest.fixture(scope="module")
def llm_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from qagen import build
    from tests.support.fast import EXAMPLES, FAST
    from tests.support.llm_server import FakeOpenAIServer

    out = tmp_path_factory.mktemp("hops") / "out"
    with FakeOpenAIServer(careful_model) as server:
        mp = pytest.MonkeyPatch()
        mp.setenv("OPENAI_API_KEY", "sk-test")
        try:
            build(EXAMPLES, out, overrides=[*FAST, f'llm.backend="openai:fake-model@{server.url}"',
                                            "generate.multi_hop_share=0.3", "generate.comparison_share=0.3",
                                            "llm.max_retries=0"])  # fmt: skip
        finally:
            mp.undo()
    return out


def test_multi_hop_items_through_a_local_server_carry_both_sections_into_the_splits(llm_build: Path, tmp_path):
    items = [json.loads(x) for x in (llm_build / "items.jsonl").read_text().splitlines()]
    assert {it["hops"] for it in items} >= {"single", "multi", "comparison"}
    compared = [it for it in items if it["hops"] == "comparison"]
    assert all(len({s.split("-s")[0] for s in it["source"]["section_ids"]}) == 2 for it in compared)  # two documents
    hops = [it for it in items if it["hops"] == "multi"]
    rejected = [json.loads(x) for x in (llm_build / "rejected.jsonl").read_text().splitlines()]
    judged = hops + [r for r in rejected if r["hops"] == "multi" and r["filter"] == "multi_hop"]
    assert hops and judged, "no multi-hop candidate was judged by its filter"
    assert all(len(it["source"]["section_ids"]) == 2 and it["type"] == "long_form" for it in hops)
    for r in (r for r in rejected if r["filter"] == "multi_hop"):
        assert r["reason"].startswith("multi-hop: ")
    crosseval = json.loads((llm_build / "crosseval.json").read_text())
    placed = [q for it in crosseval["iterations"] for q in map(json.loads, (llm_build / it["questions"]).open())]
    answerable = [q for q in placed if q["hops"] == "multi" and q["role"] == "answerable"]
    assert all(len(q["contexts"]) == 2 for q in answerable)
    from qagen.commands.export import export

    export(llm_build, "csv", tmp_path / "csv")
    import csv

    rows = [r for f in (tmp_path / "csv").glob("*_iteration_*[0-9].csv") for r in csv.DictReader(f.open())]
    assert {r["hops"] for r in rows} == {"single", "multi", "comparison"}
    assert {it["id"] for it in hops} == {r["id"] for r in rows if r["hops"] == "multi" and r["answerable"] == "True"}
