"""Reply models (strict validation) and their conversion into items and rejections."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from qagen.config import GenerateConfig
from qagen.generate.context import GenerationContext, item_id
from qagen.generate.replies import items_from_results
from qagen.generate.reply_models import FactoidReply, LongFormCandidate, LongFormReply, MCQReply
from qagen.generate.requests import plan_requests
from qagen.records import FoldAssignment, Page, Rejection, Section

PROMPTS = Path(__file__).resolve().parents[1] / "prompts"


def make_ctx() -> GenerationContext:
    sections = [
        Section("a-0", "doc-a", "a.pdf", "Opening hours", "Open 8:00 to 18:00. Call +31 20 794 3500.", 1, 2, 0),
        Section("a-1", "doc-a", "a.pdf", "Parking", "Parking costs 2.50 euro per hour.", 2, 2, 1),
        Section("b-0", "doc-b", "b.md", "Visiting", "Visitors are welcome from 15:00. Parking in P1.", 1, 1, 0),
    ]
    pages = [Page("p1", "doc-a", ("a-0", "a-1"), "", 10, 0, 1, 2), Page("p2", "doc-b", ("b-0",), "", 5)]
    assignments = [
        FoldAssignment("a-0", 4, "p1", "kept", 1, "test", sampled=True),
        FoldAssignment("a-1", 4, "p1", "kept", 1, "test", sampled=False),
        FoldAssignment("b-0", 4, "p2", "kept", 1, "test", sampled=True),
    ]
    config = GenerateConfig(min_section_words=0, phone_region="NL", personas=["visitor"])
    return GenerationContext.build(sections, pages, assignments, seed=3, config=config, language="en")


def long_form(n: int = 3) -> LongFormReply:
    return LongFormReply(
        candidates=[
            LongFormCandidate(question=f"When can I visit? ({i})", answer="From 15:00.", score=i + 2) for i in range(n)
        ]
    )


MCQ = MCQReply(
    question="From what time are visitors welcome on the wards of the hospital?",
    correct_answer="15:00",
    distractors=["14:00", "16:00", "11:00"],
    rationale="Visitors are welcome from 15:00.",
)


def plan(types: list[str]):
    ctx = make_ctx()
    config = GenerateConfig(min_section_words=0, types=types, phone_region="NL", personas=["visitor"])
    return ctx, plan_requests(ctx, PROMPTS, config)


def test_long_form_reply_becomes_ranked_items_with_provenance() -> None:
    ctx, planned = plan(["long_form"])
    items, rejections = items_from_results(planned[:1], [long_form()], ctx, "openai:test", "gpt-test")
    assert rejections == [] and len(items) == 3
    item = items[0]
    assert item.type == "long_form" and [i.score for i in items] == [2.0, 3.0, 4.0]
    assert item.source.doc_id == "doc-a" and item.source.section_ids == ("a-0",)
    assert item.source.page_ids == ("p1",) and item.source.pdf_pages == (1, 2) and item.source.topic_id == 4
    assert item.source.doc_path == "a.pdf" and (item.fold, item.split) == (1, "test")
    assert item.generator.backend == "openai:test" and item.generator.model == "gpt-test"
    assert item.generator.persona == "visitor" and item.generator.prompt_hash == planned[0].meta["prompt_hash"]
    assert item.id == item_id("long_form", ["a-0"], item.question)
    assert item.language == "en"


def test_factoid_reply_records_the_entity() -> None:
    ctx, planned = plan(["factoid"])
    reply = FactoidReply(question="What is the pharmacy's phone number?", answer="Call +31 20 794 3500.")
    items, _ = items_from_results(planned, [reply], ctx, "x", "m")
    assert (items[0].entity, items[0].entity_kind) == ("+31 20 794 3500", "phone")
    assert items[0].generator.persona is None


def test_mcq_options_are_shuffled_with_the_seed_and_indexed() -> None:
    ctx, planned = plan(["mcq"])
    items, _ = items_from_results(planned, [MCQ] * len(planned), ctx, "x", "m")
    for item in items:
        assert len(item.options) == 4 and set(item.options) == {"15:00", "14:00", "16:00", "11:00"}
        assert item.options[item.answer_index] == "15:00" == item.answer
        assert item.bloom in ("B1", "B2", "B3", "B4") and item.scenario in ("S1", "S2", "S3")
        assert item.rationale
    again, _ = items_from_results(planned, [MCQ] * len(planned), ctx, "x", "m")
    assert again == items


def test_shuffle_puts_the_answer_everywhere() -> None:
    ctx, planned = plan(["mcq"])
    positions = set()
    for k in range(12):
        reply = MCQ.model_copy(update={"question": f"{MCQ.question} (variant {k})"})
        items, _ = items_from_results(planned[:1], [reply], ctx, "x", "m")
        positions.add(items[0].answer_index)
    assert positions == {0, 1, 2, 3}


def test_failed_requests_become_generation_rejections() -> None:
    ctx, planned = plan(["long_form", "mcq"])
    values = [None] * len(planned)
    errors = ["reply does not match the schema: score: too big"] + [None] * (len(planned) - 1)
    items, rejections = items_from_results(planned, values, ctx, "x", "m", errors=errors)
    assert items == [] and len(rejections) == len(planned)
    assert all(isinstance(r, Rejection) and r.filter == "generation" for r in rejections)
    assert rejections[0].reason == "reply does not match the schema: score: too big"
    assert rejections[1].reason == "the request failed without a reply"
    assert len({r.id for r in rejections}) == len(rejections)
    mcq = [r for r in rejections if r.type == "mcq"]
    assert all(r.bloom and r.scenario for r in mcq)


def test_length_and_type_mismatches_are_errors() -> None:
    ctx, planned = plan(["long_form"])
    with pytest.raises(ValueError, match="one entry per planned request"):
        items_from_results(planned, [], ctx, "x", "m")
    with pytest.raises(TypeError, match="must be a LongFormReply"):
        items_from_results(planned[:1], [MCQ], ctx, "x", "m")


@pytest.mark.parametrize(
    ("model", "data", "message"),
    [
        (LongFormReply, {"candidates": [{"question": "Can I park here?", "answer": "Yes.", "score": 6}]}, "less than"),
        (LongFormReply, {"candidates": [{"question": "Can I park here?", "answer": "Yes.", "score": "4"}]}, "integer"),
        (LongFormReply, {"candidates": []}, "at least 1"),
        (LongFormReply, {"candidates": [{"question": "Can I?", "answer": "Y", "score": 3, "x": 1}]}, "Extra inputs"),
        (FactoidReply, {"question": "Which number?", "answer": "   "}, "at least 1 character"),
        (MCQReply, {**MCQ.model_dump(), "distractors": ["a", "b"]}, "at least 3"),
        (MCQReply, {**MCQ.model_dump(), "distractors": ["14:00", "14:00", "11:00"]}, "four different options"),
        (MCQReply, {**MCQ.model_dump(), "distractors": ["15:00", "16:00", "11:00"]}, "four different options"),
    ],
)
def test_reply_models_are_strict(model: type, data: dict, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        model.model_validate(data)


def test_reply_strings_are_stripped() -> None:
    reply = FactoidReply.model_validate({"question": "  Which number do I call?  ", "answer": " Call 112. "})
    assert (reply.question, reply.answer) == ("Which number do I call?", "Call 112.")


def test_options_differing_only_in_case_are_distinct_when_they_are_code() -> None:
    """LaTeX's \\Hat and \\hat are two commands (a capable model's MCQ was refused as four options not distinct);
    words that differ only in case are still one option."""
    reply = {
        "question": "Which command puts a hat over its argument?",
        "rationale": "It says so.",
        "correct_answer": "\\hat{xyz}",
        "distractors": ["\\Hat{xyz}", "\\widehat{xyz}", "\\check{xyz}"],
    }
    assert MCQReply.model_validate(reply)
    words = {**reply, "correct_answer": "Until 8 pm", "distractors": ["until 8 PM", "Until 6 pm", "Never"]}
    with pytest.raises(ValidationError, match="four different options"):
        MCQReply.model_validate(words)
