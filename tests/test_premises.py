"""False-premise questions: made from accepted factoids and clozes, contradicted by their source, labelled."""

from __future__ import annotations

import csv
import dataclasses
import json
from pathlib import Path

import pytest

from qagen import build
from qagen.generate.premises import achieved, check_claim, cloze_claim, factoid_claim, make_false_premises, plan_false
from qagen.records import GeneratorInfo, Item, Section, Source
from tests.support.fast import EXAMPLES, FAST


def factoid(k: int, question: str, value: str, kind: str = "phone", doc: str = "d1", language: str = "en") -> Item:
    return Item(
        id=f"f{k}",
        type="factoid",
        question=question,
        answer=f"Call {value}.",
        source=Source(doc, (f"{doc}-s{k}",), ()),
        fold=1,
        split="validation",
        generator=GeneratorInfo("extractive"),
        entity=value,
        entity_kind=kind,
        language=language,
    )


def cloze(k: int, sentence: str, right: str, wrong: tuple[str, ...], doc: str = "d1") -> Item:
    return Item(
        id=f"m{k}",
        type="mcq",
        question=f'Which command completes this statement about the bussproofs package: "{sentence}"?',
        answer=right,
        source=Source(doc, (f"{doc}-s{k}",), ()),
        fold=2,
        split="test",
        generator=GeneratorInfo("extractive"),
        options=(right, *wrong),
        answer_index=0,
        bloom="B1",
        scenario="S1",
    )


def section(sid: str, doc: str, text: str) -> Section:
    return Section(sid, doc, f"{doc}.pdf", "Contact", text, 1, 1, 0)


@pytest.mark.parametrize(
    ("question", "told"),
    [
        (
            "What is the phone number of the appointments desk at the Cardiology Outpatient Clinic?",
            "I was told the phone number of the appointments desk at the Cardiology Outpatient Clinic is X. "
            "Is that right?",
        ),
        (
            "For IT Helpdesk, which e-mail address can I write to about lost or stolen devices?",
            "For IT Helpdesk, I was told the e-mail address to write to about lost or stolen devices is X. "
            "Is that right?",
        ),
        (
            "What is the e-mail address of R Schlicht, who wrote the microtype package?",
            "I was told the e-mail address of R Schlicht, who wrote the microtype package, is X. Is that right?",
        ),
        (
            "For IT Helpdesk, where can I find the self-service portal online?",
            "For IT Helpdesk, I was told the web address of the self-service portal is X. Is that right?",
        ),
        (
            "On which website can I register my router?",
            "I was told the website where I can register my router is X. Is that right?",
        ),
    ],
)
def test_a_factoid_in_one_of_the_generators_frames_asserts_the_wrong_value(question: str, told: str) -> None:
    claim = factoid_claim(factoid(1, question, "+31 20 794 3120"), "X")
    assert claim is not None and claim.question == told
    assert claim.answer.startswith("No: ") and claim.answer.endswith("is +31 20 794 3120, not X.")


def test_the_answer_says_the_askers_words_back_to_them() -> None:
    claim = factoid_claim(factoid(1, "On which website can I register my router?", "linkhaven.example.net"), "X")
    assert claim is not None
    assert claim.answer == "No: the website where you can register your router is linkhaven.example.net, not X."


def test_a_question_in_another_wording_gets_the_value_offered_after_it() -> None:
    other = factoid_claim(factoid(1, "Who answers the phone at night?", "+31 20 794 3120"), "X")
    assert other is not None and other.question == "Who answers the phone at night? I was told it is X. Is that right?"
    assert other.answer == "No: +31 20 794 3120, not X."
    assert factoid_claim(factoid(1, "Phone number of the night desk", "+31 20 794 3120"), "X") is None
    assert cloze_claim(cloze(1, "Use ____ at the end.", "\\DisplayProof", ("\\AxiomC",)), "\\AxiomC")
    wh = cloze(2, "x", "\\DisplayProof", ("\\AxiomC",))
    wh = Item(**{**wh.__dict__, "question": "In the bussproofs package, which command displays a proof?"})
    assert cloze_claim(wh, "\\AxiomC") is None


def test_a_cloze_puts_a_distractor_in_the_gap_and_the_reference_gives_the_source() -> None:
    sentence = "To display a proof you must use ____, placed at the end of the proof-building commands."
    claim = cloze_claim(cloze(1, sentence, "\\DisplayProof", ("\\AxiomC", "\\cdots")), "\\AxiomC")
    assert claim is not None
    assert claim.question == (
        'Is this right about the bussproofs package: "To display a proof you must use \\AxiomC, placed at the end '
        'of the proof-building commands."?'
    )
    assert claim.answer.startswith("No: \\DisplayProof, not \\AxiomC.") and "use \\DisplayProof, placed" in claim.answer
    source = sentence.replace("____", "\\DisplayProof")
    assert check_claim(claim, source) is None
    assert (
        check_claim(claim, source + " The \\AxiomC command starts a proof.")
        == "the wrong value is in the source section too"
    )
    assert check_claim(claim, "Nothing about it.") == "the source does not hold the right value"


def test_the_wrong_value_comes_from_another_document_and_is_said_nowhere_near_what_is_asked() -> None:
    asked = factoid(1, "What is the phone number of the appointments desk at the Cardiology Clinic?", "020 794 3120")
    sections = {"d1-s1": section("d1-s1", "d1", "Appointments desk: 020 794 3120. Switchboard: 020 794 3000.")}
    values = {
        "phone": [
            ("d1", "020 794 3120", "+31207943120", "Appointments desk: 020 794 3120."),
            ("d1", "020 794 3000", "+31207943000", "Switchboard: 020 794 3000."),
            ("d2", "020 794 3000", "+31207943000", "Switchboard: 020 794 3000."),  # the source's own document has it
            ("d3", "030 111 2222", "+31301112222", "The appointments desk of the other clinic: 030 111 2222."),
            ("d4", "040 555 6666", "+31405556666", "Parking office: 040 555 6666."),
        ]
    }
    made, failed = make_false_premises([asked], 1.0, sections, values, seed=0)
    assert failed == [] and len(made) == 1
    premise = made[0]
    assert premise.premise_claim == "040 555 6666" and "is 040 555 6666. Is that right?" in premise.question
    assert (premise.premise, premise.variant_of, premise.entity, premise.fold) == ("false", "f1", "020 794 3120", 1)
    # with the parking office gone, nothing is left that is surely wrong: recorded, not made
    made, failed = make_false_premises([asked], 1.0, sections, {"phone": values["phone"][:4]}, seed=0)
    assert made == [] and failed[0][1] == "no value of the same kind from another document"


def test_the_share_follows_the_mix_and_other_languages_are_recorded() -> None:
    assert plan_false(17, 0.15) == 3 and plan_false(0, 0.5) == 0 and plan_false(5, 1.0) == 5
    items = [factoid(k, "What is the phone number of the ward?", f"020 794 31{k:02d}", doc=f"d{k}") for k in range(8)]
    sections = {f"d{k}-s{k}": section(f"d{k}-s{k}", f"d{k}", f"Ward: 020 794 31{k:02d}.") for k in range(8)}
    values = {"phone": [(f"d{k}", f"020 794 31{k:02d}", f"+312079431{k:02d}", "Ward") for k in range(8)]}
    values["phone"] = [(d, t, n, "Reception") for d, t, n, _ in values["phone"]]
    made, failed = make_false_premises(items, 0.2, sections, values, seed=1)
    assert len(made) == 2 and failed == []  # 8 originals: 0.2 / 0.8 * 8 = 2
    assert achieved(items + made, {"true": 0.8, "false": 0.2})["false"] == {"asked": 0.2, "items": 2, "share": 0.2}
    dutch = [factoid(1, "Wat is het telefoonnummer van de afdeling?", "020 794 3101", language="nl")]
    made, failed = make_false_premises(dutch, 1.0, sections, values, seed=1)
    assert failed == [] and made[0].question.startswith("Wat is het telefoonnummer van de afdeling? Ik hoorde dat het")
    assert made[0].question.endswith("is. Klopt dat?") and made[0].answer.startswith("Nee: 020 794 3101, niet ")
    japanese = [factoid(1, "病棟の電話番号は何ですか?", "020 794 3101", language="ja")]
    made, failed = make_false_premises(japanese, 1.0, sections, values, seed=1)
    assert (
        made == []
        and failed[0][1] == "no false-premise wording in ja (wording in qagen/generate/lang/ja/premises.json)"
    )


@pytest.mark.parametrize(
    ("language", "question", "told", "answer"),
    [
        (
            "it",
            "Quale comando manca in questa frase su Tutorial di Beamer: «Il tema si dichiara con ____.»?",
            "È corretto questo su Tutorial di Beamer: «Il tema si dichiara con \\huge.»?",
            "No: \\usetheme, non \\huge. La fonte dice: «Il tema si dichiara con \\usetheme.»",
        ),
        (
            "es",
            "¿Qué comando completa esta frase sobre Babel spanish: «El tema se declara con ____.»?",
            "¿Es correcto esto sobre Babel spanish: «El tema se declara con \\huge.»?",
            "No: \\usetheme, no \\huge. La fuente dice: «El tema se declara con \\usetheme.»",
        ),
        (
            "nl",
            'Welk commando hoort op de open plek in deze zin over de handleiding: "Gebruik ____ in de preambule."?',
            'Klopt dit over de handleiding: "Gebruik \\huge in de preambule."?',
            'Nee: \\usetheme, niet \\huge. De bron zegt: "Gebruik \\usetheme in de preambule."',
        ),
    ],
)
def test_a_cloze_in_another_language_is_asked_back_in_that_language(language, question, told, answer) -> None:
    item = dataclasses.replace(
        cloze(1, "x ____ y", "\\usetheme", ("\\huge", "\\bibliography")), question=question, language=language
    )
    claim = cloze_claim(item, "\\huge")
    assert claim is not None and (claim.question, claim.answer, claim.kind) == (told, answer, "command")
    assert check_claim(claim, question.replace("____", "\\usetheme")) is None  # the source contradicts it


@pytest.fixture(scope="module")
def premise_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("premises") / "out"
    build(EXAMPLES, out, overrides=[*FAST, "generate.premise_mix={true=0.85, false=0.15}"])
    return out


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def test_a_build_meets_the_premise_mix_and_labels_every_output(premise_build: Path, tmp_path: Path) -> None:
    funnel = json.loads((premise_build / "funnel.json").read_text())
    row = funnel["premise"]["false"]
    assert row["items"] and abs(row["share"] - row["asked"]) <= 0.05, row
    items = {it["id"]: it for it in _jsonl(premise_build / "items.jsonl")}
    sections = {s["id"]: s for s in _jsonl(premise_build / "sections.jsonl")}
    false = [it for it in items.values() if it["premise"] == "false"]
    for it in false:  # the source holds the right value and not the asserted one
        text = " ".join(sections[s]["text"] for s in it["source"]["section_ids"])
        original = items[it["variant_of"]]
        assert it["premise_claim"] in it["question"] and it["premise_claim"] not in text
        assert (it["fold"], it["split"], it["source"]) == (original["fold"], original["split"], original["source"])
    crosseval = json.loads((premise_build / "crosseval.json").read_text())
    placed = [q for it in crosseval["iterations"] for q in _jsonl(premise_build / it["questions"])]
    behaviours = {(q["role"], q["expected_behavior"]) for q in placed if q["premise"] == "false"}
    assert behaviours == {("answerable", "correct_premise"), ("unanswerable", "refuse")}
    from qagen.commands.export import export

    export(premise_build, "csv", tmp_path / "csv")
    rows = [r for f in (tmp_path / "csv").glob("*_iteration_*[0-9].csv") for r in csv.DictReader(f.open())]
    corrected = [r for r in rows if r["premise"] == "false" and r["answerable"] == "True"]
    assert corrected and all(r["expected_behavior"] == "correct_premise" and r["premise_claim"] for r in corrected)


def test_score_counts_a_false_premise_corrected_only_when_the_answer_gives_the_sources_value(premise_build: Path):
    from qagen.score import score
    from qagen.score.dataset import load_dataset

    answers = []
    for it in load_dataset(premise_build).iterations:
        for q in it.questions:
            if q.item.premise != "false" or not q.answerable:
                continue
            # half the chatbot's answers go along with the wrong value, half give the source's
            text = f"No, it is {q.item.entity}." if len(answers) % 2 == 0 else f"Yes, {q.item.premise_claim}."
            answers.append({"iteration": it.name, "item_id": q.item.id, "answer": text})
    path = premise_build / "answers-premise.jsonl"
    path.write_text("".join(json.dumps(a) + "\n" for a in answers), encoding="utf-8")
    scores = score(premise_build, path)
    block = scores["overall"]["false_premise"]
    assert block["n"] == len(answers) and block["corrected"] == (len(answers) + 1) // 2
    assert set(scores["by_premise"]) == {"false"}


def test_the_wrong_value_is_a_near_miss_of_the_right_one_when_one_can_be_made() -> None:
    asked = factoid(
        2, "For IT Helpdesk, which e-mail address can I write to about lost or stolen devices?",
        "servicedesk@northwind.nl", kind="email",
    )  # fmt: skip
    sections = {"d1-s2": section("d1-s2", "d1", "Lost or stolen devices: write to servicedesk@northwind.nl.")}
    values = {"email": [("d1", "servicedesk@northwind.nl", "servicedesk@northwind.nl", "Lost or stolen devices"),
                        ("d4", "press@aquaboil.com", "press@aquaboil.com", "Press enquiries")]}  # fmt: skip
    made, failed = make_false_premises([asked], 1.0, sections, values, seed=0)
    assert failed == [] and len(made) == 1
    wrong = made[0].premise_claim
    # another mailbox of the same domain, not the kettle maker's press address
    assert wrong != "servicedesk@northwind.nl" and wrong.endswith("@northwind.nl"), wrong
