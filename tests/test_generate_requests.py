"""LLM request planning: prompts, personas, entities, the Bloom x scenario mix and S3 partners."""

from __future__ import annotations

import dataclasses
import shutil
from collections import Counter
from pathlib import Path

import pytest
from pydantic import ValidationError

from qagen.config import GenerateConfig, LLMConfig
from qagen.generate.context import GenerationContext
from qagen.generate.prompts import PromptError, load_prompt
from qagen.generate.reply_models import FactoidReply, LongFormReply, MCQReply
from qagen.generate.requests import NO_S3_PARTNER, plan_requests
from qagen.records import FoldAssignment, Page, Section

PROMPTS = Path(__file__).resolve().parents[1] / "prompts"
TOPICS = {"heart": 0, "pharmacy": 0, "leave": 1, "expenses": 1, "router": 2}  # doc -> topic
TEXTS = {
    "heart": "Bring your medication list and insurance card. Call the clinic on +31 20 794 3120 if you cannot come.",
    "pharmacy": "The pharmacy is open from 8:00 to 18:00. Order repeat prescriptions at www.example.org/repeat.",
    "leave": "Request leave in the HR portal two weeks in advance. Questions: people@example.com.",
    "expenses": "Submit claims within 60 days. Mileage is paid at 0.23 euro per km.",
    "router": "Press the reset button for ten seconds. Support: +31 10 799 5020 or help@example.net.",
}


def make_ctx(config: GenerateConfig | None = None, sections_per_doc: int = 4, seed: int = 0) -> GenerationContext:
    sections, pages, assignments = [], [], []
    for doc, topic in TOPICS.items():
        for k in range(sections_per_doc):
            sid = f"{doc}-{k}"
            sections.append(
                Section(
                    id=sid,
                    doc_id=doc,
                    doc_path=f"{doc}.pdf",
                    heading=f"{doc.title()} part {k}",
                    text=f"{TEXTS[doc]} Detail {k} about {doc}.",
                    page_start=k + 1,
                    page_end=k + 1,
                    order=k,
                )
            )
            pages.append(Page(id=f"p-{sid}", doc_id=doc, section_ids=(sid,), text="", n_tokens=10))
            fold = 0 if topic < 2 else 1
            split = "validation" if k < sections_per_doc - 1 else "test"
            assignments.append(FoldAssignment(sid, topic, f"p-{sid}", "kept", fold, split, sampled=True))
    return GenerationContext.build(
        sections, pages, assignments, seed=seed, config=config or GenerateConfig(min_section_words=0), language="en"
    )


def test_request_counts_per_type() -> None:
    config = GenerateConfig(min_section_words=0, mcq_per_section=2, factoid_per_section=1, phone_region="NL")
    ctx = make_ctx(config)
    planned = plan_requests(ctx, PROMPTS, config)
    kinds = Counter(p.kind for p in planned)
    assert kinds["long_form"] == 20 and kinds["mcq"] == 40
    assert kinds["factoid"] == 16  # one per section (capped) in the four documents with entities
    models = {p.kind: p.response_model for p in planned}
    assert issubclass(models["long_form"], LongFormReply)
    assert (models["factoid"], models["mcq"]) == (FactoidReply, MCQReply)
    assert all(p.request.schema == p.response_model.model_json_schema() for p in planned)
    # a long-form request allows no more candidates than it asks for (the config's 3 here)
    long_form = next(p for p in planned if p.kind == "long_form")
    assert long_form.request.schema["properties"]["candidates"]["maxItems"] == 3
    assert "3 different questions" in long_form.request.messages[-1].content


def test_a_long_form_request_for_what_the_section_keeps_allows_one_candidate() -> None:
    """With ``filter.keep_per_section`` 1, a request asks for one question and its schema allows one candidate:
    a model that wrote three gave two for the quota to throw away (issue 42's fourth round)."""
    config = GenerateConfig(min_section_words=0, types=["long_form"])
    planned = plan_requests(make_ctx(config), PROMPTS, config, keep_per_section=1)
    schema = planned[0].request.schema
    assert schema["properties"]["candidates"]["maxItems"] == 1
    reply = {"candidates": [{"question": f"How do I set option {n}?", "answer": "So.", "score": 4} for n in range(2)]}
    with pytest.raises(ValidationError, match="at most 1 item"):
        planned[0].response_model.model_validate(reply)
    assert planned[0].response_model.model_validate({"candidates": reply["candidates"][:1]})


def test_only_configured_types_are_planned() -> None:
    config = GenerateConfig(min_section_words=0, types=["factoid"], phone_region="NL")
    planned = plan_requests(make_ctx(config), PROMPTS, config)
    assert {p.kind for p in planned} == {"factoid"}
    for p in planned:
        assert p.meta["entity"] in p.request.messages[1].content
        assert p.meta["entity_kind"] in ("phone", "email", "url")


def test_planning_is_deterministic_and_seeded() -> None:
    config = GenerateConfig(min_section_words=0, personas=["a", "b", "c", "d", "e"])
    one = plan_requests(make_ctx(config), PROMPTS, config)
    two = plan_requests(make_ctx(config), PROMPTS, config)
    assert [p.request for p in one] == [p.request for p in two]
    assert [p.meta for p in one] == [p.meta for p in two]
    other = plan_requests(make_ctx(config, seed=1), PROMPTS, config)
    assert [p.meta.get("persona") for p in one] != [p.meta.get("persona") for p in other]


def test_personas_come_from_the_config_and_reach_the_prompt() -> None:
    config = GenerateConfig(min_section_words=0, types=["long_form"], personas=["worried parent", "night-shift nurse"])
    planned = plan_requests(make_ctx(config), PROMPTS, config)
    assert {p.meta["persona"] for p in planned} == {"worried parent", "night-shift nurse"}
    for p in planned:
        assert p.meta["persona"] in p.request.messages[0].content
        assert p.request.messages[0].role == "system" and p.request.messages[1].role == "user"


def test_a_persona_mix_is_met_by_construction_and_reaches_the_prompt() -> None:
    # DataMorgana-style user categories: target shares, one persona per long-form request
    mix = {"first-time user": 0.6, "experienced professional": 0.3, "pharmacist": 0.1}
    config = GenerateConfig(min_section_words=0, types=["long_form"], persona_mix=mix)
    planned = plan_requests(make_ctx(config, sections_per_doc=5), PROMPTS, config)
    got = Counter(p.meta["persona"] for p in planned)
    n = len(planned)
    assert n >= 20 and set(got) == set(mix)
    assert all(abs(got[k] - n * w) < 1 for k, w in mix.items())  # each within one of its quota
    assert all(p.meta["persona"] in p.request.messages[-1].content for p in planned)
    by_doc = Counter((p.section_ids[0].split("-")[0], p.meta["persona"]) for p in planned)
    assert len(by_doc) > len(mix)  # a document's sections do not all get one persona


def test_mix_is_exact_per_cell() -> None:
    config = GenerateConfig(min_section_words=0, types=["mcq"], mcq_per_section=3)
    planned = plan_requests(make_ctx(config, sections_per_doc=5), PROMPTS, config)
    n = len(planned)
    cells = Counter((p.meta["bloom"], p.meta.get("scenario_requested", p.meta["scenario"])) for p in planned)
    for b in ("B1", "B2", "B3", "B4"):  # each level a quarter, each scenario a third, no contradicting pair
        assert abs(sum(cells[(b, s)] for s in ("S1", "S2", "S3")) - n / 4) < 1.5
    for s in ("S1", "S2", "S3"):
        assert abs(sum(cells[(b, s)] for b in ("B1", "B2", "B3", "B4")) - n / 3) < 1.5
    assert cells[("B4", "S1")] == cells[("B1", "S2")] == cells[("B1", "S3")] == 0


def test_s3_requests_span_documents_of_one_topic_fold_and_split() -> None:
    config = GenerateConfig(
        min_section_words=0,
        types=["mcq"],
        scenario_mix={"S3": 1},
        bloom_mix={"B2": 1, "B3": 1, "B4": 1},
        s3_documents=2,
    )
    ctx = make_ctx(config)
    planned = plan_requests(ctx, PROMPTS, config)
    real = [p for p in planned if p.meta["scenario"] == "S3"]
    fallback = [p for p in planned if p.meta.get("scenario_fallback")]
    # the router document is alone in its topic: its sections cannot be S3
    assert {p.section_ids[0].split("-")[0] for p in fallback} == {"router"}
    assert all(p.meta["scenario"] == "S2" and p.meta["scenario_fallback"] == NO_S3_PARTNER for p in fallback)
    assert len(real) == 16
    for p in real:
        docs = {ctx.sections[s].doc_id for s in p.section_ids}
        assert len(docs) == 2
        assert len({ctx.topic(s) for s in p.section_ids}) == 1
        assert len({ctx.folds[s] for s in p.section_ids}) == 1
        assert "S3" in p.request.messages[0].content
        for s in p.section_ids:
            assert ctx.sections[s].heading in p.request.messages[1].content


def test_the_mcq_instruction_follows_the_assigned_level_and_scenario() -> None:
    """The user message asks for what the labels promise: not "one fact" for S2/S3, a
    situation for B3, a comparison for B4; and always a self-contained question."""
    config = GenerateConfig(min_section_words=0, types=["mcq"], mcq_per_section=3)
    planned = plan_requests(make_ctx(config, sections_per_doc=5), PROMPTS, config)
    seen = set()
    for p in planned:
        user = p.request.messages[1].content
        bloom, scenario = p.meta["bloom"], p.meta["scenario"]
        seen.add((bloom, scenario))
        assert ("one fact" in user) is (scenario == "S1"), (bloom, scenario)
        assert ("two different documents" in user) is (scenario == "S3")
        assert ("two or more facts" in user) is (scenario == "S2")
        assert ("concrete situation" in user) is (bloom == "B3")
        assert ("compare or relate" in user) is (bloom == "B4")
        assert 'never "the passage" or "the text"' in user and "all/none of the above" in user
        assert "$" not in user  # every placeholder filled
    assert len(seen) == 9  # every compatible pair (qagen.generate.mix.COMPATIBLE), no other


def test_s2_uses_a_neighbour_from_the_same_document() -> None:
    config = GenerateConfig(
        min_section_words=0, types=["mcq"], scenario_mix={"S2": 1}, bloom_mix={"B2": 1, "B3": 1, "B4": 1}
    )
    ctx = make_ctx(config)
    for p in plan_requests(ctx, PROMPTS, config):
        assert {ctx.sections[s].doc_id for s in p.section_ids} == {ctx.sections[p.section_ids[0]].doc_id}
        assert len({ctx.folds[s] for s in p.section_ids}) == 1


def test_s2_pairs_a_neighbour_only_when_it_is_about_the_same_thing() -> None:
    """A neighbour of another topic, or one that shares almost no words, is not asked with the section: their
    facts would make a glued question; the S2 request then goes over the section alone."""
    config = GenerateConfig(min_section_words=0, types=["mcq"], scenario_mix={"S2": 1}, bloom_mix={"B2": 1})
    ctx = make_ctx(config)
    paired = {p.section_ids for p in plan_requests(ctx, PROMPTS, config) if len(p.section_ids) == 2}
    assert paired  # the fixture's sections of one document share their words
    unrelated = "Mileage for travel abroad follows the tax office's tariff, published every January."
    moved = {**ctx.sections, "heart-1": ctx.sections["heart-1"].__class__(**{**ctx.sections["heart-1"].__dict__,
             "text": unrelated})}  # fmt: skip
    ctx2 = dataclasses.replace(ctx, sections=moved)
    plans = plan_requests(ctx2, PROMPTS, config)
    assert not [p for p in plans if len(p.section_ids) == 2 and "heart-1" in p.section_ids]
    other_topic = dataclasses.replace(ctx, topics={**ctx.topics, "heart-1": 5})
    assert not [p for p in plan_requests(other_topic, PROMPTS, config) if "heart-1" in p.section_ids[1:]]


def test_language_and_llm_settings_reach_the_request() -> None:
    config = GenerateConfig(min_section_words=0, types=["long_form", "mcq"])
    ctx = make_ctx(config)
    ctx = GenerationContext(**{**ctx.__dict__, "language": "nl"})
    planned = plan_requests(ctx, PROMPTS, config, llm=LLMConfig(temperature=0.2, max_tokens=777))
    for p in planned:
        assert "Dutch" in p.request.messages[0].content
        assert (p.request.temperature, p.request.max_tokens, p.request.seed) == (0.2, 777, 0)


def test_long_sections_are_cut() -> None:
    config = GenerateConfig(min_section_words=0, types=["long_form"], max_section_chars=300)
    ctx = make_ctx(config)
    long = ctx.sections["heart-0"].__class__(**{**ctx.sections["heart-0"].__dict__, "text": "word " * 500})
    ctx = GenerationContext(**{**ctx.__dict__, "sections": {**ctx.sections, "heart-0": long}})
    planned = plan_requests(ctx, PROMPTS, config)
    user = planned[0].request.messages[1].content
    assert "…" in user and user.count("word") < 80


def test_prompt_hash_follows_the_prompt_file(tmp_path: Path) -> None:
    shutil.copytree(PROMPTS, tmp_path / "prompts")
    config = GenerateConfig(min_section_words=0, types=["factoid"], phone_region="NL")
    before = plan_requests(make_ctx(config), tmp_path / "prompts", config)
    assert {p.meta["prompt_hash"] for p in before} == {load_prompt(tmp_path / "prompts", "factoid").hash}
    path = tmp_path / "prompts" / "factoid.md"
    path.write_text(path.read_text(encoding="utf-8").replace("short factual", "brief factual"), encoding="utf-8")
    after = plan_requests(make_ctx(config), tmp_path / "prompts", config)
    assert before[0].meta["prompt_hash"] != after[0].meta["prompt_hash"]
    assert before[0].request != after[0].request


def test_few_shot_file_is_used_and_hashed(tmp_path: Path) -> None:
    shots = tmp_path / "shots.json"
    shots.write_text('[{"question": "Can I park for free?", "answer": "Yes, for 30 minutes."}]', encoding="utf-8")
    base = GenerateConfig(min_section_words=0, types=["long_form"])
    custom = GenerateConfig(min_section_words=0, types=["long_form"], few_shot_file=str(shots))
    default = plan_requests(make_ctx(base), PROMPTS, base)[0]
    mine = plan_requests(make_ctx(custom), PROMPTS, custom)[0]
    assert "Can I park for free?" in mine.request.messages[1].content
    assert mine.meta["prompt_hash"] != default.meta["prompt_hash"]
    with pytest.raises(PromptError, match="few_shot_file not found"):
        plan_requests(
            make_ctx(custom), PROMPTS, GenerateConfig(min_section_words=0, few_shot_file=str(tmp_path / "missing.json"))
        )
    shots.write_text('{"not": "a list"}', encoding="utf-8")
    with pytest.raises(PromptError, match="must be a JSON list"):
        plan_requests(make_ctx(custom), PROMPTS, custom)


def test_malformed_prompt_files_are_reported(tmp_path: Path) -> None:
    shutil.copytree(PROMPTS, tmp_path / "p")
    (tmp_path / "p" / "mcq.md").write_text("no markers here", encoding="utf-8")
    with pytest.raises(PromptError, match="must contain a '=== system ===' line"):
        plan_requests(make_ctx(), tmp_path / "p", GenerateConfig(min_section_words=0, types=["mcq"]))
    (tmp_path / "p" / "mcq.md").write_text("=== system ===\n$unknown\n=== user ===\nhi", encoding="utf-8")
    with pytest.raises(PromptError, match=r"uses the placeholder \$unknown"):
        plan_requests(make_ctx(), tmp_path / "p", GenerateConfig(min_section_words=0, types=["mcq"]))
    with pytest.raises(PromptError, match="prompt file not found"):
        plan_requests(make_ctx(), tmp_path / "nowhere", GenerateConfig(min_section_words=0, types=["mcq"]))


NL_TEXTS = {
    "heart": "Neem uw medicijnlijst en uw verzekeringspas mee. Bel de polikliniek op +31 20 794 3120 als u niet "
    "kunt komen, dan kunnen wij een andere patiënt helpen.",
    "pharmacy": "De apotheek is open van 8:00 tot 18:00 uur. U kunt herhaalrecepten bestellen via "
    "www.example.org/herhaal en ze de volgende dag ophalen bij de balie.",
}


def mixed_ctx(config: GenerateConfig, language: str | None = None) -> GenerationContext:
    """An English pharmacy leaflet and a Dutch heart-clinic leaflet, one topic, fold and split."""
    sections, assignments = [], []
    for doc, lang in (("heart", "nl"), ("pharmacy", "en")):
        for k in range(3):
            sid = f"{doc}-{k}"
            text = NL_TEXTS[doc] if lang == "nl" else TEXTS[doc] + " We are happy to help you with your questions."
            sections.append(Section(sid, doc, f"{doc}.pdf", f"{doc.title()} {k}", text, k + 1, k + 1, k))
            assignments.append(FoldAssignment(sid, 0, f"p-{sid}", "kept", 0, "validation", sampled=True))
    return GenerationContext.build(sections, [], assignments, seed=0, config=config, language=language)


def _languages_in(planned: list) -> dict[str, set[str]]:
    """Per document of the anchor section: the "Write in X" phrases of its prompts."""
    found: dict[str, set[str]] = {}
    for p in planned:
        text = "\n".join(m.content for m in p.request.messages)
        names = {name for name in ("English", "Dutch", "German") if f"Write in {name}." in text}
        found.setdefault(p.section_ids[0].split("-")[0], set()).update(names)
    return found


def test_each_prompt_is_in_the_language_of_its_document() -> None:
    config = GenerateConfig(min_section_words=0, mcq_per_section=2, scenario_mix={"S1": 1, "S3": 1}, phone_region="NL")
    ctx = mixed_ctx(config)
    assert dict(ctx.doc_languages) == {"heart": "nl", "pharmacy": "en"}
    planned = plan_requests(ctx, PROMPTS, config)
    assert {p.kind for p in planned} == {"long_form", "factoid", "mcq"}
    assert _languages_in(planned) == {"heart": {"Dutch"}, "pharmacy": {"English"}}
    for p in planned:
        assert p.meta["language"] == ctx.doc_languages[ctx.sections[p.section_ids[0]].doc_id]
    # the two leaflets share no words (qagen.generate.requests.S3_MIN_SHARED): never glued into one S3 question
    asked_s3 = [p for p in planned if p.kind == "mcq" and p.meta.get("scenario_requested") == "S3"]
    assert asked_s3 and all(p.meta["scenario"] == "S2" and p.meta.get("scenario_fallback") for p in asked_s3)


def test_an_explicit_language_is_used_for_every_prompt() -> None:
    config = GenerateConfig(min_section_words=0, language="de", mcq_per_section=1, phone_region="NL")
    ctx = mixed_ctx(config)
    assert ctx.language == "de" and dict(ctx.doc_languages) == {}
    planned = plan_requests(ctx, PROMPTS, config)
    assert _languages_in(planned) == {"heart": {"German"}, "pharmacy": {"German"}}
    assert {p.meta["language"] for p in planned} == {"de"}
    assert _languages_in(
        plan_requests(mixed_ctx(GenerateConfig(min_section_words=0), language="de"), PROMPTS, config)
    ) == {
        "heart": {"German"},
        "pharmacy": {"German"},
    }


def test_language_detection_and_planning_are_deterministic() -> None:
    config = GenerateConfig(min_section_words=0, mcq_per_section=1, phone_region="NL")
    one, two = mixed_ctx(config), mixed_ctx(config)
    assert (one.doc_languages, one.language) == (two.doc_languages, two.language)
    assert [p.request for p in plan_requests(one, PROMPTS, config)] == [
        p.request for p in plan_requests(two, PROMPTS, config)
    ]


def test_prompts_ask_for_questions_that_stand_on_their_own() -> None:
    """Every prompt names the document and asks for a question that names its product,
    organisation or package, with no section number and no "this section" / "the text"."""
    config = GenerateConfig(min_section_words=0, mcq_per_section=1, phone_region="NL")
    ctx = make_ctx(config)
    planned = plan_requests(ctx, PROMPTS, config)
    assert {p.kind for p in planned} == {"long_form", "factoid", "mcq"}
    for p in planned:
        user = p.request.messages[1].content
        assert "$" not in user and "$" not in p.request.messages[0].content  # every placeholder filled
        for sid in p.section_ids:
            doc = ctx.sections[sid]
            title = ctx.title(doc.doc_id) or doc.doc_path
            assert (f"Document: {title}" if p.kind != "mcq" else f'document: "{title}"') in user
        assert ("product" in user and "organisation" in user) if not ctx.subject else ctx.subject in user
        assert "section number" in user
        assert '"this section"' in user or '"the passage"' in user
        assert '"the text"' in user or p.kind == "factoid"


def test_few_shot_questions_name_their_subject() -> None:
    """The examples show what the prompts ask for: each section opens with its document's name
    ("Northwind staff handbook."), and the question names it."""
    import json
    import re

    from qagen.config import FilterConfig
    from qagen.filters import FilterContext
    from qagen.filters.self_contained import check_self_contained, find_subject
    from qagen.records import GeneratorInfo, Item, Source

    examples = json.loads((PROMPTS / "few_shot_long_form.json").read_text(encoding="utf-8"))
    sections = {
        f"ex{i}": Section(f"ex{i}", f"doc{i}", f"doc{i}.pdf", "", ex["section"], 1, 1, 0)
        for i, ex in enumerate(examples)
    }
    titles = {f"doc{i}": re.split(r"[.:,]", ex["section"])[0] for i, ex in enumerate(examples)}
    ctx = FilterContext(sections=sections, titles=titles)
    for i, ex in enumerate(examples):
        item = Item(
            id=str(i),
            type="long_form",
            question=ex["question"],
            answer=ex["answer"],
            source=Source(f"doc{i}", (f"ex{i}",), ()),
            fold=1,
            split="validation",
            generator=GeneratorInfo("openai:m"),
        )
        assert check_self_contained(item, ctx, FilterConfig()) is None, ex["question"]
        assert find_subject(item, ctx)[1].startswith("title word"), (ex["question"], titles[f"doc{i}"])


def test_long_form_examples_are_in_the_language_of_the_section() -> None:
    config = GenerateConfig(min_section_words=0, types=["long_form"], phone_region="NL")
    planned = plan_requests(mixed_ctx(config), PROMPTS, config)
    text = {p.section_ids[0].split("-")[0]: "\n".join(m.content for m in p.request.messages) for p in planned}
    assert "Mijn knie is nog dik" in text["heart"] and "My knee is still swollen" not in text["heart"]
    assert "My knee is still swollen" in text["pharmacy"] and "Mijn knie" not in text["pharmacy"]


def test_every_language_example_file_is_valid_and_changes_the_prompt_hash(tmp_path) -> None:
    from qagen.generate.prompts import language_few_shots, load_few_shot

    files = language_few_shots(PROMPTS)
    assert set(files) >= {"nl", "de", "fr", "es", "it", "pt"}
    for path in files.values():
        assert load_few_shot(path)[0]
    config = GenerateConfig(min_section_words=0, types=["long_form"], phone_region="NL")
    before = plan_requests(mixed_ctx(config), PROMPTS, config)[0].meta["prompt_hash"]
    shutil.copytree(PROMPTS, tmp_path / "p")
    (tmp_path / "p" / "few_shot_long_form.nl.json").write_text('[{"question": "Wat?", "answer": "Dit."}]')
    after = plan_requests(mixed_ctx(config), tmp_path / "p", config)[0].meta["prompt_hash"]
    assert before != after


def _product_ctx(config: GenerateConfig) -> GenerationContext:
    """Four help pages of one product (its name in every page) and one page that is only a heading and a line."""
    texts = {
        "crop": "To crop an image in PixelForge, choose the Crop tool and drag a rectangle over the part you keep.",
        "blur": "PixelForge blurs a selection with the Blur filter: choose Filters, then Blur, and set the radius.",
        "print": "PixelForge prints the image at the size set in the Print Size dialog of the Image menu.",
        "layers": "Every image in PixelForge has layers; add one with New Layer in the Layer menu or the dialog.",
        "stub": "See the Tools menu.",
    }
    sections = [Section(f"{d}-0", d, f"{d}.html", d.title(), t, 1, 1, 0) for d, t in texts.items()]
    assignments = [FoldAssignment(s.id, 0, s.id, "kept", 0, "test", sampled=True) for s in sections]
    return GenerationContext.build(sections, [], assignments, seed=0, config=config, language="en")


def test_personas_fit_the_corpus_and_no_default_has_a_domain() -> None:
    assert GenerateConfig().personas == []  # no "recovering patient" asking about office software
    config = GenerateConfig(types=["long_form"])
    ctx = _product_ctx(config)
    assert ctx.subject == "PixelForge"
    planned = plan_requests(ctx, PROMPTS, config)
    personas = {p.meta["persona"] for p in planned}
    assert personas and all("PixelForge" in persona for persona in personas), personas
    assert all("private life" in p.request.messages[0].content for p in planned)
    assert all("names PixelForge where a user would" in p.request.messages[1].content for p in planned)
    given = GenerateConfig(types=["long_form"], personas=["night-shift nurse"])
    assert {p.meta["persona"] for p in plan_requests(_product_ctx(given), PROMPTS, given)} == {"night-shift nurse"}


def test_a_heading_and_a_line_is_not_sent_and_a_request_asks_for_what_is_kept() -> None:
    config = GenerateConfig(types=["long_form", "mcq"], long_form_per_section=3)
    ctx = _product_ctx(config)
    planned = plan_requests(ctx, PROMPTS, config, keep_per_section=1)
    assert "stub-0" not in {s for p in planned for s in p.section_ids}
    long_form = [p for p in planned if p.kind == "long_form"]
    assert len(long_form) == 4 and all("Write one question that" in p.request.messages[1].content for p in long_form)
    wider = plan_requests(ctx, PROMPTS, config, keep_per_section=3)
    assert all("Write 3 different questions" in p.request.messages[1].content for p in wider if p.kind == "long_form")


def test_an_mcq_scenario_is_what_its_quoted_evidence_shows() -> None:
    from qagen.generate.replies import achieved_scenario

    ctx = _product_ctx(GenerateConfig())
    ids = ("crop-0", "blur-0")
    one = "To crop an image in PixelForge, choose the Crop tool and drag a rectangle over the part you keep."
    two = one + " PixelForge blurs a selection with the Blur filter: choose Filters, then Blur, and set the radius."
    assert achieved_scenario("S3", two, ids, ctx) == "S3"  # quotes both documents
    assert achieved_scenario("S3", one, ids, ctx) == "S1"  # one sentence of one document
    assert achieved_scenario("S2", one, ids, ctx) == "S1"
    assert achieved_scenario("S1", two, ids, ctx) == "S1"  # never raised
    # two sentences quoted, but the key is in one of them: it rests on one fact
    assert achieved_scenario("S3", two, ids, ctx, answer="the Blur filter") == "S1"
    assert achieved_scenario("S3", two, ids, ctx, answer="Crop, then Blur with a radius") == "S3"


def test_an_mcq_level_is_lowered_to_what_one_quoted_fact_allows() -> None:
    from qagen.generate.replies import achieved_bloom

    quote = "Flatten Image merges all visible layers into one and discards the invisible ones."
    assert achieved_bloom("B4", "S1", "It discards the invisible ones", quote) == "B1"  # recall, word for word
    assert achieved_bloom("B4", "S1", "They are lost for good", quote) == "B2"  # one fact in other words
    assert achieved_bloom("B2", "S1", "merges all visible layers into one", quote) == "B1"
    assert achieved_bloom("B2", "S1", "They are lost for good", quote) == "B2"
    assert achieved_bloom("B4", "S2", "merges all visible layers into one", quote) == "B4"  # two facts: may relate
    assert achieved_bloom("B3", "S1", "merges all visible layers into one", quote) == "B3"  # the stem's situation


def test_a_relabelled_mcq_records_what_was_asked() -> None:
    from qagen.generate.replies import items_from_results
    from qagen.generate.reply_models import MCQReply

    config = GenerateConfig(types=["mcq"], scenario_mix={"S2": 1}, bloom_mix={"B4": 1})
    ctx = _product_ctx(config)
    plan = plan_requests(ctx, PROMPTS, config)[0]
    text = ctx.sections[plan.section_ids[0]].text
    first = text.split(". ")[0].rstrip(".") + "."
    reply = MCQReply(question="What does PixelForge do first?", correct_answer=first[:40],
                     distractors=["Nothing at all", "It closes", "It prints"], rationale=first)  # fmt: skip
    items, _ = items_from_results([plan], [reply], ctx, "replay", "m", [None])
    assert items[0].scenario == "S1" and items[0].bloom == "B1" and items[0].labels_asked == "B4/S2"


def test_a_document_that_never_names_the_corpus_product_is_not_asked_about_it() -> None:
    """A mixed folder (four PixelForge pages and a packaging policy): the policy's requests name no PixelForge and
    its personas are no PixelForge users."""
    config = GenerateConfig(types=["long_form", "mcq"], min_section_words=0)
    ctx = _product_ctx(config)
    policy = Section("policy-0", "policy", "policy.pdf", "Maintainer scripts",
                     "Every package must install its maintainer scripts with mode 755 and never ask questions.",
                     1, 1, 0)  # fmt: skip
    ctx = dataclasses.replace(
        ctx,
        sections={**ctx.sections, policy.id: policy},
        folds={**ctx.folds, policy.id: (0, "test")},
        topics={**ctx.topics, policy.id: 0},
        sampled=(*ctx.sampled, policy.id),
    )
    assert ctx.subject == "PixelForge" and ctx.subject_of("policy") is None and ctx.subject_of("crop") == "PixelForge"
    planned = plan_requests(ctx, PROMPTS, config)
    mine = [p for p in planned if p.section_ids[0] == "policy-0"]
    assert {p.kind for p in mine} == {"long_form", "mcq"}
    assert not any("PixelForge" in m.content for p in mine if p.kind == "long_form" for m in p.request.messages)
    assert not any("names PixelForge" in p.request.messages[1].content for p in mine)  # an MCQ partner may quote it
    others = [p for p in planned if p.kind == "long_form" and p.section_ids[0] == "crop-0"]
    assert others and all("PixelForge" in p.meta["persona"] for p in others)
