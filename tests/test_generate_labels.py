"""The label judge: batches of multiple-choice items judged by the LLM, labels set to what the questions ask."""

from __future__ import annotations

from qagen.config import GenerateConfig, LLMConfig
from qagen.generate.labels import BATCH, LabelReply, fitted, label_requests, relabelled
from qagen.generate.prompts import default_prompts_dir, load_prompt
from tests.test_generate_requests import _product_ctx


def _mcqs(n: int):
    from qagen.records import GeneratorInfo, Item, Source

    return [
        Item(
            id=f"m{k}",
            type="mcq",
            question=f"Which tool crops image {k} in PixelForge?",
            answer="Crop",
            source=Source("crop", ("crop-0",), "crop.html"),
            fold=0,
            split="test",
            generator=GeneratorInfo(backend="replay"),
            options=("Crop", "Blur", "Print", "Layers"),
            answer_index=0,
            bloom="B4",
            scenario="S2",
        )
        for k in range(n)
    ]


def test_items_are_judged_in_batches_with_their_sources() -> None:
    ctx = _product_ctx(GenerateConfig())
    items = _mcqs(BATCH + 3)
    batches = label_requests(items, ctx, load_prompt(default_prompts_dir(), "labels"), LLMConfig())
    assert [len(b) for b, _ in batches] == [BATCH, 3]
    user = batches[1][1].messages[1].content
    assert "Question 3: Which tool crops image 10 in PixelForge?" in user and "Correct answer: Crop" in user
    assert "drag a rectangle" in user  # the passage it was written from
    assert batches[0][1].schema_name == "label_reply" and "$" not in user


def test_judged_labels_replace_the_structural_ones_and_a_missing_judgement_keeps_them() -> None:
    ctx = _product_ctx(GenerateConfig())
    items = _mcqs(3)
    batches = label_requests(items, ctx, load_prompt(default_prompts_dir(), "labels"), LLMConfig())
    reply = LabelReply.model_validate(
        {
            "labels": [
                {"question": 1, "bloom": "B1", "scenario": "S1", "reason": "one fact"},
                {"question": 2, "bloom": "B4", "scenario": "S1", "reason": "compares"},
            ]
        }
    )
    asked = {it.id: "B4/S2" for it in items}
    out, counts = relabelled(items, batches, [reply], asked)
    assert [(it.bloom, it.scenario, it.labels_asked) for it in out] == [
        ("B1", "S1", "B4/S2"),
        ("B3", "S1", "B4/S2"),  # B4 at one fact contradicts itself: the nearest level S1 allows
        ("B4", "S2", None),  # no judgement: the structural labels stay, counted as failed
    ]
    assert counts == {"label_judged": 2, "label_changed": 2, "label_judge_failed": 1}
    failed, counts = relabelled(items, batches, [None], asked)  # the request failed for good
    assert failed == items and counts["label_judge_failed"] == 3


def test_a_fitted_pair_never_contradicts_itself() -> None:
    from qagen.generate.mix import COMPATIBLE

    for scenario, allowed in COMPATIBLE.items():
        for bloom in ("B1", "B2", "B3", "B4"):
            assert fitted(bloom, scenario) in allowed
            assert fitted(bloom, scenario) == bloom or bloom not in allowed
    assert fitted("B1", "S2") == "B2" and fitted("B4", "S1") == "B3"


def test_the_judge_sees_the_part_of_a_long_passage_its_rationale_quotes():
    """A cut after the first 1,500 characters hid a long section's end from the label judge (its helpers said the
    answer was not in the passage); the excerpt is taken around what the rationale quotes, cuts marked."""
    from qagen.generate.labels import PASSAGE_CHARS, excerpt

    evidence = "The colaction option enables the docolaction command, because it changes the aux file."
    text = "Opening words of the section. " * 80 + evidence.replace(" the ", "\nthe ", 1) + " Closing words." * 200
    shown = excerpt(text, f'"{evidence}"')
    assert evidence.replace(" the ", "\nthe ", 1) in shown and shown.startswith("…") and shown.endswith("…")
    assert len(shown) <= PASSAGE_CHARS + 2
    assert excerpt(text, "a quote from nowhere in this section at all") == text[:PASSAGE_CHARS] + "…"
    assert excerpt("A short section.", evidence) == "A short section."
