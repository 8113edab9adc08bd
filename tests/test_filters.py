"""Each filter with items that must pass and items that must fail, boundaries included;
then run_filters as a whole: funnel arithmetic, determinism, skip, format."""

from __future__ import annotations

import dataclasses
import itertools
import random
import re
import zlib

import numpy as np
import pytest

from qagen.config import FilterConfig
from qagen.filters import FILTER_NAMES, FilterContext, format_funnel, greedy_dedup, mcq_stats, rouge_recall, run_filters
from qagen.filters.dedup import DEDUP
from qagen.filters.factoid import check_factoid_entity, check_long_form_factoid
from qagen.filters.grounding import UnicodeTokenizer, Vocabulary, check_grounding, content_words
from qagen.filters.mcq import check_giveaway, check_length, verbatim_run
from qagen.filters.prompt_copy import check_copied_from_prompt, prompt_reference_texts
from qagen.filters.rank import TOP_PER_SECTION, carries_persona
from qagen.filters.self_contained import check_self_contained
from qagen.filters.validity import check_mcq, check_schema, check_text, normalize_text
from qagen.records import GeneratorInfo, Item, Section, Source

SECTION_TEXT = (
    "Contact the helpdesk on +31 20 794 3120 or e-mail help@lindenhof.example.org. "
    "The clinic is open Monday to Friday from 8:00 to 17:00. "
    "Patients can park their car for free in garage P2 next to the main entrance. "
    "Bring your insurance card and a list of your medicines to every appointment."
)
SECTIONS = {
    "s1": Section("s1", "d1", "d1.pdf", "Visiting the clinic", SECTION_TEXT, 1, 1, 0),
    "s2": Section("s2", "d1", "d1.pdf", "Een Nederlandse sectie", "Bel één keer per week naar de huisarts.", 2, 2, 1),
}


def fake_embed(texts: list[str]) -> np.ndarray:
    """Deterministic hashing bag-of-words embedder, L2-normalised."""
    out = np.zeros((len(texts), 256), dtype=np.float32)
    for i, text in enumerate(texts):
        for tok in re.findall(r"\w+", text.lower()):
            out[i, zlib.crc32(tok.encode()) % 256] += 1.0
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.where(norms > 0, norms, 1.0)


CTX = FilterContext(sections=SECTIONS, embed=fake_embed, phone_region="NL")
CFG = FilterConfig()


def item(
    id: str = "i1",
    type: str = "long_form",
    question: str = "When is the clinic open for visitors?",
    answer: str = "The clinic is open Monday to Friday from 8:00 to 17:00, so plan a weekday visit.",
    section: str = "s1",
    score: float | None = 0.5,
    generator: GeneratorInfo | None = None,
    **kw,
) -> Item:
    return Item(
        id=id,
        type=type,
        question=question,
        answer=answer,
        source=Source("d1", (section,), ("p1",)),
        fold=1,
        split="validation",
        generator=generator or GeneratorInfo("extractive"),
        score=score,
        **kw,
    )


def mcq(
    options=("Monday to Friday", "Only on weekends", "Every evening after 20:00", "On public holidays"),
    index=0,
    **kw,
) -> Item:
    kw.setdefault("question", "On which days is the clinic open?")
    return item(type="mcq", answer=options[index], options=tuple(options), answer_index=index, **kw)


def factoid(answer="You can call the helpdesk on 020 794 3120.", entity="+31 20 794 3120", **kw) -> Item:
    kw.setdefault("question", "Which number do I call for the helpdesk?")
    return item(type="factoid", answer=answer, entity=entity, entity_kind="phone", **kw)


# --- validity ----------------------------------------------------------------------------


def test_valid_items_pass_every_validity_check():
    for it in (item(), mcq(), factoid()):
        assert check_schema(it, CTX, CFG) is None
        assert check_text(it, CTX, CFG) is None
        assert check_mcq(it, CTX, CFG) is None


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"type": "essay"}, "schema: invalid field"),
        ({"section": "missing"}, "schema: unknown source section"),
        ({"type": "mcq"}, "schema: mcq needs options and answer_index"),
        ({"type": "factoid"}, "schema: factoid needs entity and entity_kind"),
    ],
)
def test_schema_failures(changes, reason):
    verdict = check_schema(item(**changes), CTX, CFG)
    assert verdict is not None and verdict.reason == reason


@pytest.mark.parametrize(
    ("question", "answer", "ok"),
    [
        ("", "x", False),
        ("   ", "x", False),
        ("When is it open?", "   ", False),
        ("When open?", "x", True),  # exactly min_question_chars (10)
        ("Open when?"[1:], "x", False),  # 9 chars
        ("W" * 399 + "?", "x", True),  # exactly max_question_chars (400)
        ("W" * 400 + "?", "x", False),
        ("When is it open?", "a" * 2000, True),  # exactly max_answer_chars
        ("When is it open?", "a" * 2001, False),
        ("When is it open.", "x", False),
        ("Tell me when it is open", "x", False),
        ('Is it "open?"', "x", True),  # closing quote after the mark
        ("¿Cuándo abre la clínica?", "x", True),
        ("診療所は何時に開きますか？", "x", True),  # full-width question mark
        ("متى تفتح العيادة؟", "x", True),
    ],
)
def test_text_checks_with_boundaries(question, answer, ok):
    assert (check_text(item(question=question, answer=answer), CTX, CFG) is None) is ok


@pytest.mark.parametrize(
    "question",
    [
        "What is the section?",
        "What does this text say about visiting hours?",
        "Wat staat er in deze tekst over bezoek?",
    ],
)
def test_questions_about_the_source_text_are_left_to_self_contained(question):
    """Validity checks form; a question about "this section" is the self_contained filter's
    (reason refers_to_text, tested with the other languages in test_filters_self_contained.py)."""
    assert check_text(item(question=question), CTX, CFG) is None
    verdict = check_self_contained(item(question=question), CTX, CFG)
    assert verdict is not None and verdict.reason == "refers_to_text"


def test_greek_question_mark_only_for_greek():
    question = "Πότε είναι ανοιχτή η κλινική;"
    assert check_text(item(question=question, language="el"), CTX, CFG) is None
    assert check_text(item(question=question), CTX, CFG) is not None


@pytest.mark.parametrize(
    ("options", "index", "reason"),
    [
        (("A day", "B day", "C day"), 0, "mcq: needs exactly 4 options"),
        (("A day", "B day", "C day", "D day", "E day"), 0, "mcq: needs exactly 4 options"),
        (("Monday", "monday.", "Tuesday", "Friday"), 0, "mcq: options not distinct"),
        (("Monday", "  MONDAY ", "Tuesday", "Friday"), 2, "mcq: options not distinct"),
        (("Monday", "", "Tuesday", "Friday"), 0, "mcq: empty option"),
        (("Monday", "Sunday", "Tuesday", "All of the above"), 0, "mcq: 'all/none of the above' option"),
        (("Monday", "Sunday", "None of these", "Friday"), 0, "mcq: 'all/none of the above' option"),
        (("Monday", "Sunday", "Both A and B", "Friday"), 0, "mcq: 'all/none of the above' option"),
    ],
)
def test_mcq_option_failures(options, index, reason):
    it = item(type="mcq", answer=options[index] or "Monday", options=options, answer_index=index)
    verdict = check_mcq(it, CTX, CFG)
    assert verdict is not None and verdict.reason == reason


def test_mcq_answer_must_be_the_option_at_answer_index():
    options = ("Monday", "Sunday", "Tuesday", "Friday")
    assert check_mcq(item(type="mcq", answer="monday", options=options, answer_index=0), CTX, CFG) is None
    wrong = check_mcq(item(type="mcq", answer="Sunday", options=options, answer_index=0), CTX, CFG)
    assert wrong.reason.startswith("mcq: answer does not match") and wrong.value == "answer is option 1"
    absent = check_mcq(item(type="mcq", answer="Saturday", options=options, answer_index=0), CTX, CFG)
    assert absent.value == "answer is not an option"
    # an answer that merely contains the option is not that option ("8" is not "open 8 to 17")
    hours = ("8", "9", "10", "11")
    longer = check_mcq(item(type="mcq", answer="open 8 to 17", options=hours, answer_index=0), CTX, CFG)
    assert longer is not None and longer.value == "answer is not an option"
    for index in (-1, 4):
        bad = item(type="mcq", answer="Monday", options=options, answer_index=index)
        assert check_mcq(bad, CTX, CFG).reason == "mcq: answer_index out of range"


def test_option_normalisation():
    assert normalize_text("  Monday,   the 1st! ") == normalize_text("monday the 1st")
    assert normalize_text("Ｍｏｎｄａｙ") == "monday"  # NFKC full-width
    assert normalize_text("Monday") != normalize_text("Mondays")


# --- long-form that is really a factoid (paper B.1) ---------------------------------------


def test_short_long_form_answer_with_entity_is_a_factoid():
    verdict = check_long_form_factoid(item(answer="Call +31 20 794 3120."), CTX, CFG)
    assert verdict is not None and verdict.value == "+31 20 794 3120"
    assert check_long_form_factoid(item(answer="Mail help@lindenhof.example.org"), CTX, CFG) is not None


def test_long_form_factoid_word_boundary():
    base = "You can reach the helpdesk on +31 20 794 3120"  # 10 whitespace words
    at_limit = base + " " + " ".join(["today"] * 15)  # 25 words
    over = at_limit + " please"  # 26 words
    assert len(at_limit.split()) == CFG.factoid_max_answer_words
    assert check_long_form_factoid(item(answer=at_limit), CTX, CFG) is not None
    assert check_long_form_factoid(item(answer=over), CTX, CFG) is None


def test_short_answer_without_entity_and_other_types_pass():
    assert check_long_form_factoid(item(answer="Monday to Friday."), CTX, CFG) is None
    assert check_long_form_factoid(factoid(), CTX, CFG) is None


# --- grounding ---------------------------------------------------------------------------


def test_grounded_answer_passes_and_unrelated_answer_fails():
    assert check_grounding(item(), CTX, CFG) is None
    bad = check_grounding(item(answer="Quantum chromodynamics describes gluons binding quarks."), CTX, CFG)
    assert bad.reason == "answer not grounded in the source" and bad.value == 0.0


def test_grounding_threshold_boundary():
    # 1 of 5 answer tokens in the section: recall 0.2 == threshold -> pass; 1 of 6 -> fail
    # (the content-word rule off: these answers are made of words no section holds)
    rouge_only = FilterConfig(content_recall=0.0)
    assert rouge_recall("clinic zzz yyy xxx www", SECTION_TEXT) == pytest.approx(0.2)
    assert check_grounding(item(answer="clinic zzz yyy xxx www"), CTX, rouge_only) is None
    verdict = check_grounding(item(answer="clinic zzz yyy xxx www vvv"), CTX, rouge_only)
    assert verdict is not None and verdict.value == pytest.approx(1 / 6, abs=1e-4)
    assert check_grounding(item(answer="clinic zzz yyy xxx www"), CTX, CFG).reason.startswith(
        "answer content words not in the source"
    )


def test_rouge_type_is_configurable():
    # all words present but in reverse order: ROUGE-1 recall 1, ROUGE-L recall low
    reversed_answer = "garage in free for car their park can patients"
    assert rouge_recall(reversed_answer, SECTION_TEXT, "rouge1") == 1.0
    assert rouge_recall(reversed_answer, SECTION_TEXT, "rougeL") < 0.3
    strict = FilterConfig(grounding_threshold=0.5)
    assert check_grounding(item(answer=reversed_answer), CTX, strict) is not None
    loose = FilterConfig(grounding_threshold=0.5, rouge_type="rouge1")
    assert check_grounding(item(answer=reversed_answer), CTX, loose) is None
    with pytest.raises(ValueError, match="rouge_type"):
        rouge_recall("a", "a", "rouge2")


@pytest.mark.parametrize("rouge_type", ["rougeL", "rouge1"])
def test_rouge_recall_matches_rouge_score(rouge_type):
    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer([rouge_type], tokenizer=UnicodeTokenizer())
    rng = random.Random(0)
    words = [f"w{i}" for i in range(30)]
    for _ in range(50):
        a = " ".join(rng.choice(words) for _ in range(rng.randint(1, 40)))
        b = " ".join(rng.choice(words) for _ in range(rng.randint(1, 120)))
        assert rouge_recall(a, b, rouge_type) == pytest.approx(scorer.score(a, b)[rouge_type].recall)
    real = "The clinic is open Monday to Friday from 8:00 to 17:00, so plan a weekday visit."
    expected = scorer.score(real, SECTION_TEXT)[rouge_type].recall
    assert rouge_recall(real, SECTION_TEXT, rouge_type) == pytest.approx(expected)


def test_rouge_keeps_non_ascii_words():
    # rouge-score's default tokenizer would drop "één" entirely
    assert rouge_recall("één keer", "Bel één keer per week") == 1.0
    it = item(question="Hoe vaak bel ik de huisarts?", answer="Bel één keer per week.", section="s2", language="nl")
    assert check_grounding(it, CTX, CFG) is None


def test_mcq_grounding():
    assert check_grounding(mcq(), CTX, CFG) is None
    unsupported = mcq(options=("Saturday mornings", "Only on weekends", "Every evening", "On holidays"))
    assert check_grounding(unsupported, CTX, CFG).reason == "correct option not grounded in the source"


def test_mcq_distractor_support_boundary():
    # 10-token distractors: 9 tokens in order from the section -> recall 0.9 >= 0.9 -> reject; 8 -> pass
    nine = "patients can park their car for free in garage zzz"
    eight = "patients can park their car for free in yyy zzz"
    assert rouge_recall(nine, SECTION_TEXT) == pytest.approx(0.9)
    bad = mcq(options=("Monday to Friday", nine, "Every evening", "On holidays"))
    verdict = check_grounding(bad, CTX, CFG)
    assert verdict.reason == "distractor supported by the source (option 1)" and verdict.value == pytest.approx(0.9)
    assert check_grounding(mcq(options=("Monday to Friday", eight, "Every evening", "On holidays")), CTX, CFG) is None


def test_an_answer_sharing_only_common_words_is_not_grounded():
    """ROUGE-L recall >= 0.2 is met by "the", "on", "a" and "for": the content words decide."""
    answer = "Never put ice directly on the skin, and wrap it in a cloth for the first days."
    assert rouge_recall(answer, SECTION_TEXT) >= CFG.grounding_threshold
    verdict = check_grounding(item(answer=answer), CTX, CFG)
    assert verdict.reason == "answer content words not in the source (ice, skin, wrap, cloth, days)"
    assert verdict.value == 0.0


def test_content_recall_boundary():
    # content words clinic, garage, zzz, yyy: 2 of 4 found == 0.5 -> pass; clinic, zzz, yyy: 1 of 3 -> fail
    assert CFG.content_recall == 0.5
    assert check_grounding(item(answer="The clinic and the garage, zzz yyy"), CTX, CFG) is None
    verdict = check_grounding(item(answer="The clinic and the zzz yyy"), CTX, CFG)
    assert verdict.value == pytest.approx(1 / 3, abs=1e-4)
    assert check_grounding(item(answer="The clinic and the zzz yyy"), CTX, FilterConfig(content_recall=0.3)) is None


def test_content_words_match_inflections_and_the_document_title():
    vocab = Vocabulary.of(["Visiting the clinic: one appointment a day, direct cars only."])
    for word in ("visit", "visiting", "appointments", "directly", "car", "clinic"):
        assert vocab.has(word), word
    for word in ("park", "vis", "appointing", "garage"):
        assert not vocab.has(word), word
    # the document's title counts as source: "hospital" is only there
    strict = FilterConfig(content_recall=1.0)
    answer = item(answer="Lindenhof hospital: open Monday.")
    assert check_grounding(answer, CTX, strict).reason == "answer content words not in the source (hospital)"
    titled = FilterContext(sections=SECTIONS, titles={"d1": "Lindenhof hospital"})
    assert check_grounding(answer, titled, strict) is None


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        ("When does the clinic open in the morning?", "en", ["clinic", "morning"]),
        ("Neem nooit ijs direct op de huid.", "nl", ["ijs", "direct", "huid"]),
        ("Wann öffnet die Klinik am Morgen?", "de", ["öffnet", "klinik"]),
        ("¿Cuándo abre la clínica por la mañana?", "es", ["abre", "clínica", "mañana"]),
        ("Quando apre la clinica al mattino?", "it", ["apre", "clinica", "mattino"]),
        ("Quand la clinique ouvre-t-elle le matin ?", "fr", ["clinique", "ouvre", "matin"]),
        ("Quando abre a clínica de manhã?", "pt", ["abre", "clínica", "manhã"]),
        ("When does the clinic open in the morning?", "xx", ["clinic", "morning"]),  # no list: English
    ],
)
def test_content_words_leave_out_the_languages_stop_words(text, language, expected):
    assert content_words(text, language) == expected


def test_text_measures_tokenise_every_script():
    """Accents kept, ß folded, ligatures and full-width letters folded, Chinese and Japanese per character."""
    from qagen.filters.grounding import tokenize

    expected = ["grüsse", "aus", "der", "strasse", "file", "abc", "café"]
    assert tokenize("Grüße aus der Straße, ﬁle ＡＢＣ café") == expected
    assert tokenize("日本語のテキスト") == ["日", "本", "語", "の", "テ", "キ", "ス", "ト"]
    assert tokenize("한국어 문장") == ["한국어", "문장"]  # Korean writes spaces between words
    section = "诊所的营业时间是上午九点到下午五点。"
    assert rouge_recall("营业时间是上午九点", section) == 1.0  # copied: every character found
    assert rouge_recall("周末关门", section) == 0.0  # "closed at weekends": nothing of it in the section
    assert rouge_recall("Die Straße ist gesperrt", "Die Strasse ist gesperrt.") == 1.0


def test_dutch_answers_need_their_content_words_in_the_section():
    ok = item(question="Hoe vaak bel ik de huisarts?", answer="Bel één keer per week.", section="s2", language="nl")
    assert check_grounding(ok, CTX, CFG) is None
    copied = item(question="Hoe vaak bel ik?", answer="Bel nooit met ijs op de huid.", section="s2", language="nl")
    assert rouge_recall(copied.answer, SECTIONS["s2"].text) >= CFG.grounding_threshold
    verdict = check_grounding(copied, CTX, CFG)
    assert verdict.reason == "answer content words not in the source (ijs, huid)"
    assert verdict.value == pytest.approx(1 / 3, abs=1e-4)


def test_factoid_answers_are_checked_without_their_entity():
    # "020 794 3120" is written differently in the section; "helpdesk" is there
    assert check_grounding(factoid(), CTX, CFG) is None
    other = factoid(answer="Ring the dentist at 020 794 3120.")
    assert check_grounding(other, CTX, CFG).reason == "answer content words not in the source (dentist)"


def test_mcq_correct_option_must_be_quoted_and_rationale_grounded():
    assert check_grounding(mcq(options=("8:00 to 17:00", "Sunday", "Never", "At noon")), CTX, CFG) is None
    # not a span, but every content word in the section
    assert check_grounding(mcq(options=("Friday and Monday", "Sunday", "Never", "At noon")), CTX, CFG) is None
    paraphrase = mcq(options=("Weekdays from breakfast", "Only on weekends", "Every evening", "On holidays"))
    assert rouge_recall("Weekdays from breakfast", SECTION_TEXT) >= CFG.grounding_threshold
    verdict = check_grounding(paraphrase, CTX, CFG)
    assert verdict.reason == "correct option not quoted from the source (weekdays, breakfast)"
    good = mcq(rationale="The clinic is open Monday to Friday from 8:00 to 17:00.")
    assert check_grounding(good, CTX, CFG) is None
    bad = mcq(rationale="Wrap the ice pack in a cloth before cooling the knee.")
    assert check_grounding(bad, CTX, CFG).reason == "rationale not quoted from the source"


def test_an_mcq_is_judged_by_its_quoted_evidence():
    """With a rationale: a paraphrased key passes when the quote supports it; a distractor is rejected only when
    the quote states it, not because its words occur elsewhere in the source."""
    quote = "The clinic is open Monday to Friday from 8:00 to 17:00."
    paraphrase = mcq(options=("Every weekday, Monday to Friday", "Only on weekends", "Every evening", "On holidays"))
    assert check_grounding(paraphrase, CTX, CFG).reason.startswith("correct option not quoted")  # words alone
    assert check_grounding(dataclasses.replace(paraphrase, rationale=quote), CTX, CFG) is None
    # a distractor made of the source's words (the garage sentence), but not what the quote states: wrong, kept
    garage = mcq(
        options=("Every weekday, Monday to Friday", "In garage P2", "Every evening", "On holidays"), rationale=quote
    )
    assert check_grounding(garage, CTX, CFG) is None
    # the quote states the distractor and not the key: the distractor answers as well, rejected
    stated = mcq(options=("Open from 8:00", "Monday to Friday", "Every evening", "On holidays"), rationale=quote)
    assert check_grounding(stated, CTX, CFG).reason == "distractor stated by the quoted rationale (option 1)"
    # a key the quote does not support at all
    wrong = mcq(options=("Every evening", "Only on weekends", "At noon", "On holidays"), rationale=quote)
    assert check_grounding(wrong, CTX, CFG).reason == "correct option not supported by the quoted rationale"
    # the quote may differ in spacing and case
    spaced = dataclasses.replace(paraphrase, rationale="the clinic is open  Monday to Friday from 8:00 to 17:00")
    assert check_grounding(spaced, CTX, CFG) is None


# --- copied from the prompt -------------------------------------------------------------------

PROMPT_TEXTS = prompt_reference_texts()
# a section about something else that shares "skin", "put", "directly" and "never" with the few-shot example
CREAM = "Apply the cream directly on clean skin twice a day. Put the tube in the fridge; never freeze it."
LATEX = (
    "The multicol package defines the multicols environment. Use \\columnbreak to end a column early; "
    "the option balancingshow reports each balancing attempt on the terminal."
)
COPY_SECTIONS = {
    "cream": Section("cream", "d1", "d1.pdf", "Using the cream", CREAM, 1, 1, 0),
    "latex": Section("latex", "d1", "d1.pdf", "2.3 The option multicol", LATEX, 2, 2, 1),
    "knee": Section("knee", "d1", "d1.pdf", "Cooling", "Cool the knee. Never put ice directly on the skin.", 3, 3, 2),
}
COPY_CTX = FilterContext(sections=COPY_SECTIONS, embed=fake_embed, prompt_texts=PROMPT_TEXTS)


def test_prompt_reference_texts_hold_instructions_and_examples_without_placeholders():
    assert all("$" not in t for t in PROMPT_TEXTS)
    assert "Never put ice directly on the skin." in PROMPT_TEXTS  # a few-shot section sentence
    assert "Until 20:00" in PROMPT_TEXTS  # the MCQ example's correct option
    assert "Reply with JSON only." in PROMPT_TEXTS
    assert any(t.startswith("Write that a would ask about what the section above says") for t in PROMPT_TEXTS)
    assert any(t.startswith("a question that needs two or more facts") for t in PROMPT_TEXTS)  # filled in by qagen


def test_prompt_reference_texts_follow_the_configured_files(tmp_path):
    import shutil

    from qagen.generate.prompts import default_prompts_dir

    folder = tmp_path / "prompts"
    shutil.copytree(default_prompts_dir(), folder)
    path = folder / "factoid.md"
    path.write_text(path.read_text(encoding="utf-8") + "\nAlways answer like a friendly pirate captain.\n")
    shots = tmp_path / "shots.json"
    shots.write_text('[{"question": "Can I park for free?", "answer": "Yes, for thirty minutes in garage P2."}]')
    texts = prompt_reference_texts(folder, shots)
    assert "Always answer like a friendly pirate captain." in texts
    assert "Yes, for thirty minutes in garage P2." in texts
    assert "Never put ice directly on the skin." not in texts  # the default few-shot file is replaced


def test_replayed_prompt_copies_are_rejected():
    """The reported failure: replies copied from anywhere in the prompt passed grounding."""
    instruction = "Write 3 different questions that a curious customer would ask about what the section above says."
    verdict = check_copied_from_prompt(item(answer=instruction, section="latex"), COPY_CTX, CFG)
    assert verdict.reason == "answer copied from the prompt"
    assert verdict.value.startswith("Write that a would ask about what the section above says")
    ice = item(answer="Never put ice directly on the skin.", section="cream")
    assert check_grounding(ice, COPY_CTX, CFG) is None  # shares "skin" and common words with the cream section
    verdict = check_copied_from_prompt(ice, COPY_CTX, CFG)
    assert verdict.reason == "answer copied from the prompt" and verdict.value == "Never put ice directly on the skin."
    result = run_filters([ice], COPY_CTX, CFG)
    assert not result.accepted and result.rejected[0].filter == "copied_from_prompt"
    # the same sentence, held by its own section, is no copy
    assert check_copied_from_prompt(item(answer=ice.answer, section="knee"), COPY_CTX, CFG) is None
    # nor is an answer from the section
    assert (
        check_copied_from_prompt(
            item(answer="Use \\columnbreak to end a column early.", section="latex"), COPY_CTX, CFG
        )
        is None
    )


def test_copies_in_rationales_options_and_questions():
    options = ("Until 20:00", "Until 18:00", "Until 22:00", "Until midnight")
    until = mcq(options=options, question="Until when does multicol balance columns?", section="latex")
    assert check_copied_from_prompt(until, COPY_CTX, CFG).reason == "answer copied from the prompt"
    rationale = mcq(
        options=("multicols", "tabular", "minipage", "figure"),
        question="Which environment does the multicol package define?",
        rationale="Visiting hours are 15:00-20:00.",
        section="latex",
    )
    assert check_copied_from_prompt(rationale, COPY_CTX, CFG).reason == "rationale copied from the prompt"
    shot = "My knee is still swollen after my operation at the Elmbrook clinic. How should I cool it, and how often?"
    asked = item(question=shot, answer="Use \\columnbreak to end a column early.", section="latex")
    assert check_copied_from_prompt(asked, COPY_CTX, CFG).reason == "question copied from the prompt"
    # six words in common with a few-shot question ("what do I have to do") is not a copy
    own = item(
        question="What do I have to do to end a multicol column early?", answer="Use \\columnbreak.", section="latex"
    )
    assert check_copied_from_prompt(own, COPY_CTX, CFG) is None
    # a two-word phrase the instructions quote ("the text") is no copy when it is an answer
    text = mcq(options=("the text", "the title", "the figure", "the table"), question="What does multicol balance?")
    assert check_copied_from_prompt(text, COPY_CTX, CFG) is None
    # without prompt texts the filter has nothing to compare with
    assert check_copied_from_prompt(item(answer=ICE_SENTENCE, section="cream"), CTX, CFG) is None


ICE_SENTENCE = "Never put ice directly on the skin."


# --- factoid back-check (paper B.2) ------------------------------------------------------


def test_factoid_entity_in_answer_and_section_in_any_format():
    assert check_factoid_entity(factoid(), CTX, CFG) is None  # "020 794 3120" in answer, "+31 20 ..." in section
    email = item(
        type="factoid",
        question="What is the helpdesk e-mail address?",
        answer="Write to HELP@lindenhof.example.org.",
        entity="help@lindenhof.example.org",
        entity_kind="email",
    )
    assert check_factoid_entity(email, CTX, CFG) is None


@pytest.mark.parametrize(
    ("kw", "reason"),
    [
        ({"answer": "You can call the helpdesk any time."}, "entity not in the answer"),
        ({"answer": "Call 020 123 4567.", "entity": "020 123 4567"}, "entity not in the source section"),
        ({"entity": "12"}, "entity cannot be normalised"),
        ({"answer": "Call 010 794 3120.", "entity": "020 794 3120"}, "entity not in the answer"),
    ],
)
def test_factoid_entity_failures(kw, reason):
    verdict = check_factoid_entity(factoid(**kw), CTX, CFG)
    assert verdict is not None and verdict.reason == reason


# --- MCQ quality ---------------------------------------------------------------------------


LENGTH_CFG = FilterConfig(mcq_max_length_ratio=1.5)  # the length check is off by default


def test_the_length_of_the_key_rejects_nothing_by_default():
    """Readers with the strict brief found 5 of the 6 items the length check rejected good: it is off unless set."""
    over = mcq(options=("aaaa aaaa a a a a a a a a a a a a a a", "xxx xxx xxx", "yy yy yy", "z z z"))
    assert CFG.mcq_max_length_ratio is None and check_length(over, CTX, CFG) is None
    assert check_length(over, CTX, LENGTH_CFG) is not None


def test_correct_option_length_ratio_boundary():
    distractors = ["xxx xxx xxx", "yy yy yy", "z z z"]  # the longest: 11 characters, 3 words
    at_ratio = mcq(options=("a a a a a a a a", *distractors))  # 15 / 11 < 1.5 -> pass
    over = mcq(options=("aaaa aaaa a a a a", *distractors))  # 17 / 11 > 1.5, 6 words against 3
    assert check_length(at_ratio, CTX, LENGTH_CFG) is None
    verdict = check_length(over, CTX, LENGTH_CFG)
    assert verdict.reason == "correct option much longer than the distractors" and verdict.value == 17 / 11


def test_a_word_or_two_more_in_a_short_key_is_no_giveaway():
    """Short options differ by a word: 'Virgule flottante 32 bits' among 'Entiers 32 bits' is 1.7 times as long."""
    short = mcq(options=("Virgule flottante 32 bits", "Entiers 32 bits", "Entiers 8 bits", "Entiers 16 bits"))
    assert check_length(short, CTX, LENGTH_CFG) is None
    long = mcq(options=("Virgule flottante 32 bits, pour les valeurs hors de l'intervalle", "Entiers 32 bits",
                        "Entiers 8 bits", "Entiers 16 bits"))  # fmt: skip
    assert check_length(long, CTX, LENGTH_CFG) is not None


def test_giveaway_run_boundary():
    q = "Where can patients park their car for free?"
    four = mcq(question=q, options=("park their car for in P2", "At the station", "In the street", "Nowhere"))
    three = mcq(question=q, options=("park their car in P2", "At the station", "In the street", "Nowhere"))
    assert verbatim_run(q, "park their car for in P2") == 4
    assert check_giveaway(four, CTX, CFG).value == 4.0
    assert check_giveaway(three, CTX, CFG) is None
    shared = mcq(question=q, options=("park their car for in P2", "park their car for a fee", "In the street", "No"))
    assert check_giveaway(shared, CTX, CFG) is None  # a distractor repeats as much: no giveaway


def test_mcq_stats_reports_longest_share_and_positions():
    items = [
        mcq(id="a", options=("a long correct answer", "b", "c", "d")),
        mcq(id="b", options=("a", "b long", "c", "d"), index=1),
        mcq(id="c", options=("a", "b", "c", "d much longer"), index=2),
        item(id="d"),
    ]
    stats = mcq_stats(items)
    assert stats["mcq"] == 3
    assert stats["correct_longest_share"] == pytest.approx(2 / 3, abs=1e-4)
    assert stats["answer_positions"] == {"0": 1, "1": 1, "2": 1, "3": 0}


# --- near-duplicates --------------------------------------------------------------------


def _brute_force(x: np.ndarray, thr: float) -> np.ndarray:
    x = x / np.linalg.norm(x, axis=1, keepdims=True)
    sims = x @ x.T
    keep = np.zeros(len(x), bool)
    for i in range(len(x)):
        keep[i] = not np.any(sims[i, :i][keep[:i]] > thr)
    return keep


def test_dedup_threshold_and_chain():
    def unit(deg):
        return [np.cos(np.radians(deg)), np.sin(np.radians(deg))]

    # A at 0 deg, B at 18 deg (cos 0.951), C at 36 deg (cos A-C 0.809, B-C 0.951)
    res = greedy_dedup(np.array([unit(0), unit(18), unit(36)]), 0.9)
    assert res.keep.tolist() == [True, False, True]  # B goes; then no pair above 0.9 remains
    assert res.duplicate_of.tolist() == [-1, 0, -1]
    assert res.similarity[1] == pytest.approx(np.cos(np.radians(18)), abs=1e-6)
    # boundary: similarity just below / above the threshold
    cos_just_below = np.degrees(np.arccos(0.899))
    cos_just_above = np.degrees(np.arccos(0.901))
    assert greedy_dedup(np.array([unit(0), unit(cos_just_below)]), 0.9).keep.tolist() == [True, True]
    assert greedy_dedup(np.array([unit(0), unit(cos_just_above)]), 0.9).keep.tolist() == [True, False]


@pytest.mark.parametrize(("block", "chunk"), [(1, 8192), (7, 5), (64, 16), (4096, 8192)])
def test_blockwise_equals_brute_force(block, chunk):
    rng = np.random.default_rng(3)
    base = rng.normal(size=(120, 16))
    x = np.concatenate([base, base[:60] + rng.normal(scale=0.15, size=(60, 16))])
    x = x[rng.permutation(len(x))]
    res = greedy_dedup(x, 0.95, block_size=block, chunk_size=chunk)
    np.testing.assert_array_equal(res.keep, _brute_force(x, 0.95))
    assert 0 < (~res.keep).sum() <= 60
    kept = x[res.keep] / np.linalg.norm(x[res.keep], axis=1, keepdims=True)
    sims = kept @ kept.T
    np.fill_diagonal(sims, 0)
    assert sims.max() <= 0.95


def test_greedy_dedup_rejects_bad_arguments():
    with pytest.raises(ValueError, match="threshold"):
        greedy_dedup(np.eye(2), 0)
    with pytest.raises(ValueError, match="2-d"):
        greedy_dedup(np.ones(3), 0.5)


def test_dedup_filter_drops_the_lower_ranked_item():
    q = "When is the clinic open for visitors?"
    items = [item(id="low", question=q, score=0.2), item(id="high", question=q + " ", score=0.9)]
    for order in (items, items[::-1]):
        kept, rejected = DEDUP.apply(list(order), CTX, CFG)
        assert [k.id for k in kept] == ["high"]
        assert rejected[0].id == "low" and rejected[0].reason == "near-duplicate question (of higher-ranked high)"
        assert rejected[0].value == pytest.approx(1.0)


def test_dedup_scope_type_or_all():
    q = "When is the clinic open for visitors?"
    items = [item(id="lf", question=q), mcq(id="mc", question=q)]
    assert len(DEDUP.apply(items, CTX, CFG)[0]) == 2
    kept, rejected = DEDUP.apply(items, CTX, FilterConfig(dedup_scope="all"))
    assert len(kept) == 1 and rejected[0].id == "mc"  # same score: ties broken by id ("lf" < "mc")


def test_dedup_needs_an_embedder():
    with pytest.raises(ValueError, match="embed"):
        DEDUP.apply([item()], FilterContext(sections=SECTIONS), CFG)


# --- top per section ---------------------------------------------------------------------


def test_top_per_section_keeps_best_ranked_per_section_and_type():
    items = [
        item(id="a", score=0.5),
        item(id="b", score=0.9),
        item(id="c", score=None),
        item(id="d", score=0.9),  # ties with b: id decides
        mcq(id="m"),
        item(id="e", section="s2", score=0.1),
    ]
    kept, rejected = TOP_PER_SECTION.apply(items, CTX, CFG)
    assert sorted(k.id for k in kept) == ["b", "e", "m"]
    assert {r.id: r.reason for r in rejected}["c"] == "over keep_per_section (rank 4 in its section)"
    kept2, _ = TOP_PER_SECTION.apply(items, CTX, FilterConfig(keep_per_section=2))
    assert sorted(k.id for k in kept2) == ["b", "d", "e", "m"]


@pytest.mark.parametrize(
    ("question", "persona", "told"),
    [
        (
            "As someone using GIMP for the first time, how do I open an image?",
            "person using GIMP for the first time",
            True,
        ),
        ("I keep my sick child's medicine doses in a sheet; how do I add a column?", "parent of a sick child", True),
        ("As an experienced user, what is the fastest way to crop?", "experienced GIMP user", True),
        ("How do I open an image in GIMP?", "person using GIMP for the first time", False),
        ("What happens the first time I start GIMP?", "person using GIMP for the first time", False),  # 2 of 4
        ("How can a GIMP user crop an image?", "experienced GIMP user", False),  # the product is no persona word
        ("Comment ouvrir une image ?", None, False),
    ],
)
def test_a_question_that_tells_its_persona_is_found(question, persona, told):
    assert carries_persona(question, persona) is told


def test_a_question_that_tells_its_persona_ranks_below_its_sections_others():
    persona = "experienced GIMP user"
    told = item(id="a", score=0.9, question="As an experienced user, how do I crop?",
                generator=GeneratorInfo("llm", persona=persona))  # fmt: skip
    plain = item(id="b", score=0.6, question="How do I crop an image to a selection?",
                 generator=GeneratorInfo("llm", persona=persona))  # fmt: skip
    kept, rejected = TOP_PER_SECTION.apply([told, plain], CTX, CFG)
    assert [k.id for k in kept] == ["b"]
    assert rejected[0].reason == "over keep_per_section (rank 2 in its section; its question tells its persona)"
    alone, _ = TOP_PER_SECTION.apply([told], CTX, CFG)  # a penalty, not a veto
    assert [k.id for k in alone] == ["a"]


# --- run_filters ---------------------------------------------------------------------------


def candidates() -> list[Item]:
    return [
        item(id="lf1", score=0.9),
        item(id="lf2", score=0.8, question="When is the clinic open for visitors??"),  # near-dup of lf1
        item(id="lf3", score=0.7, question="Where can I park my car?", answer="Patients park for free in garage P2."),
        item(id="lf4", answer="Call +31 20 794 3120."),  # really a factoid
        item(id="lf5", question="What is the capital of France?", answer="Paris, obviously."),
        item(id="lf6", question="Tell me about parking", answer="Patients can park for free in garage P2."),
        factoid(id="f1"),
        factoid(id="f2", answer="You can call the helpdesk on 020 123 4567.", entity="020 123 4567"),
        mcq(id="m1"),
        mcq(id="m2", options=("Monday to Friday", "Sunday", "All of the above", "Never")),
        mcq(id="m3", options=("Monday to Friday from eight to five in the clinic", "Sunday", "Never", "Nope")),
    ]


def test_run_filters_funnel_and_partition():
    cands = candidates()
    res = run_filters(cands, CTX, LENGTH_CFG)  # with the length check on
    accepted = {i.id for i in res.accepted}
    rejected = {r.id: r.filter for r in res.rejected}
    assert accepted == {"lf1", "f1", "m1"}
    assert rejected == {
        "lf2": "dedup",
        "lf3": "top_per_section",
        "lf4": "long_form_factoid",
        "lf5": "grounding",
        "lf6": "validity",
        "f2": "factoid_entity",
        "m2": "validity",
        "m3": "mcq_quality",
    }
    assert accepted.isdisjoint(rejected) and len(accepted) + len(rejected) == len(cands)
    # funnel: per type, each filter's "in" is the previous filter's "out"
    for t in ("long_form", "factoid", "mcq"):
        rows = [r for r in res.funnel if r["type"] == t]
        assert [r["filter"] for r in rows] == list(FILTER_NAMES)
        assert rows[0]["in"] == sum(c.type == t for c in cands)
        for prev, row in itertools.pairwise(rows):
            assert row["in"] == prev["out"]
        for row in rows:
            assert row["in"] - row["out"] == row["rejected"] == sum(row["reasons"].values())
        assert rows[-1]["out"] == sum(a.type == t for a in res.accepted)
    assert res.stats["mcq"] == 1
    assert all(r.reason and r.filter in FILTER_NAMES for r in res.rejected)


def test_run_filters_is_deterministic_under_input_order():
    cands = candidates()
    base = run_filters(cands, CTX, CFG)
    shuffled = cands[:]
    random.Random(1).shuffle(shuffled)
    other = run_filters(shuffled, CTX, CFG)
    assert sorted(i.id for i in other.accepted) == sorted(i.id for i in base.accepted)
    assert sorted((r.id, r.filter, r.reason) for r in other.rejected) == sorted(
        (r.id, r.filter, r.reason) for r in base.rejected
    )
    assert [i.id for i in other.accepted] == [i.id for i in shuffled if i.id in {a.id for a in base.accepted}]


def test_skip_and_input_errors():
    res = run_filters(candidates(), CTX, FilterConfig(skip=["dedup", "top_per_section"]))
    assert {"lf2", "lf3"} <= {i.id for i in res.accepted}
    assert {r["filter"] for r in res.funnel}.isdisjoint({"dedup", "top_per_section"})
    # without the dedup filter, no embedder is needed
    assert run_filters([item()], FilterContext(sections=SECTIONS), FilterConfig(skip=["dedup"])).accepted
    twice = run_filters([item(), item(), item(id="i2", section="s2", question="Hoe vaak bel ik?")], CTX, CFG)
    assert [r.reason for r in twice.rejected if r.id == "i1"] == ["repeated id: same type, section and question"]
    assert [a.id for a in twice.accepted] == ["i1"]  # i2's answer is not grounded in s2
    assert twice.funnel[0]["in"] == 3 and twice.funnel[0]["out"] == 2
    with pytest.raises(ValueError, match=r"filter\.skip"):
        run_filters([item()], CTX, FilterConfig(skip=["grounding"]), filters=[DEDUP])
    with pytest.raises(ValueError):
        FilterConfig(skip=["no_such_filter"])


def test_format_funnel():
    res = run_filters(candidates(), CTX, CFG)
    text = format_funnel(res.funnel)
    lines = text.splitlines()
    assert "long_form" in lines[0] and "total" in lines[0]
    assert len(lines) == 1 + len(FILTER_NAMES)
    validity = next(line for line in lines if line.strip().startswith("validity"))
    assert "11 -> 9" in validity and "not a question" in validity
    assert format_funnel([]) == "  (no candidates)"
    assert run_filters([], CTX, CFG).funnel == []


def test_a_quote_joined_with_an_ellipsis_is_quoted():
    from qagen.filters.grounding import QUOTE_MIN_RATIO, quoted

    source = (
        "Open the dialog from the image menu: Windows, Dockable Dialogs, Layers. It has many options. If a "
        "detached Layers dialog is open, you can raise it from the image menu: Windows, Layers."
    )
    joined = "Open the dialog from the image menu: Windows, Dockable Dialogs, Layers, … If a detached Layers dialog"
    assert quoted(joined, source) >= QUOTE_MIN_RATIO
    assert quoted(joined.replace("…", "..."), source) >= QUOTE_MIN_RATIO
    wrong = "Open the dialog from the file menu … and it closes every other dialog at once"
    assert quoted(wrong, source) < QUOTE_MIN_RATIO


def test_a_listing_quoted_line_by_line_is_quoted():
    from qagen.filters.grounding import QUOTE_MIN_RATIO, quoted

    source = (
        "The hook keeps packages like hyperref happy.\n181 \\def\\@LN@setlabel{%\n182 \\let\\@LN@ExtraItems\\@empty\n"
        "183 \\global\\advance\\c@linenumber\\@ne\n189 \\protected@write\\@auxout{}{\\string\\newlabel}"
    )
    joined = "182 \\let\\@LN@ExtraItems\\@empty 189 \\protected@write\\@auxout{}{\\string\\newlabel}"
    assert quoted(joined, source) >= QUOTE_MIN_RATIO
    made_up = "182 \\let\\@LN@ExtraItems\\relax 189 \\immediate\\write\\@mainaux{\\string\\label}"
    assert quoted(made_up, source) < QUOTE_MIN_RATIO


# Which options are one and the same: (options, index of the key, the verdict's reason or None)
DISTINCT_OPTIONS = [
    # options of a notation differ in their symbols and where they stand
    (("S := a, aS", "S -> a ; aS", "S ::= a | aS", "a | aS ::= S"), 2, None),
    (("x := 1", "x := 1.", "x <- 1", "x = 1"), 0, "mcq: options not distinct"),
    (("3 + 5", "(+ 3 5)", "(3 + 5)", "+(3 5)"), 1, None),  # a prefix form is no infix one
    (("Paris.", "«Paris»", "Lyon", "Nice"), 0, "mcq: options not distinct"),
    # LaTeX's \\Hat and \\hat are two commands; "Monday" and "monday" stay one option
    (("\\hat{xyz}", "\\Hat{xyz}", "\\widehat{xyz}", "\\check{xyz}"), 0, None),
    (("Monday", "monday", "Tuesday", "Friday"), 0, "mcq: options not distinct"),
    # a space inside code is part of it ("empty brackets must hold no space"); a run of spaces is one
    (("\\mfpic[2]", "\\mfpic[2][]", "\\mfpic[ ][2]", "\\mfpic[][2]"), 3, None),
    (("\\mfpic[ ][2]", "\\mfpic[  ][2]", "\\mfpic[2]", "\\mfpic"), 2, "mcq: options not distinct"),
]


@pytest.mark.parametrize(("options", "index", "reason"), DISTINCT_OPTIONS)
def test_which_options_are_distinct(options, index, reason):
    verdict = check_mcq(mcq(options=options, index=index), CTX, CFG)
    assert (verdict.reason if verdict else None) == reason


def test_punctuation_inside_a_word_keeps_two_options_apart():
    assert normalize_text("/etc/cron.d/acme_sync") != normalize_text("/etc/cron.d/acme.sync")
    assert normalize_text("Paris.") == normalize_text("paris") == normalize_text(" «Paris» ")
    apart = mcq(options=("/etc/cron.d/acme_sync", "/etc/cron.d/acme.sync", "/etc/crontab", "/etc/cron.hourly/acme"))
    assert check_mcq(apart, CTX, CFG) is None
    same = mcq(options=("Every evening", "every evening.", "On Mondays", "On Sundays"))
    assert check_mcq(same, CTX, CFG) is not None


def test_a_run_counts_words_as_written():
    """ "libbar.so.2" is one word: a key sharing "to libbar.so.2" with the stem repeats two words, not four."""
    question = "The SONAME changes from libbar.so.1 to libbar.so.2 in a new release: how is the symbols file updated?"
    assert verbatim_run(question, "Set library-soname to libbar.so.2 and review the minimal versions") == 2
    assert verbatim_run(question, "how is the symbols file updated") == 6
