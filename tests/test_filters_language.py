"""The wrong_language filter: items in another language than their document's are rejected."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from qagen import build
from qagen.filters.language import check_language, other_language, prose
from qagen.records import GeneratorInfo, Item, Source
from qagen.runner import BuildError
from tests.support.fast import FAST_COMPONENTS
from tests.support.llm_server import FakeOpenAIServer

# One question per language, as a user would ask it.
QUESTIONS = {
    "en": "What should I bring to my first appointment at the cardiology clinic?",
    "nl": "Wat moet ik meenemen naar mijn eerste afspraak bij de polikliniek cardiologie?",
    "de": "Was muss ich zu meinem ersten Termin in der kardiologischen Ambulanz mitbringen?",
    "fr": "Que dois-je apporter à mon premier rendez-vous à la consultation de cardiologie ?",
    "es": "¿Qué debo llevar a mi primera cita en la consulta de cardiología?",
    "it": "Cosa devo portare al mio primo appuntamento nell'ambulatorio di cardiologia?",
    "pt": "O que devo levar para a minha primeira consulta no ambulatório de cardiologia?",
}
LLM = GeneratorInfo(backend="openai", model="m", prompt_hash="h", persona=None)


def item(question: str, language: str, answer: str = "", backend: GeneratorInfo = LLM) -> Item:
    source = Source(doc_id="d", section_ids=("s",), doc_path="d.pdf")
    return Item(
        id="i",
        type="long_form",
        question=question,
        answer=answer or question,
        source=source,
        fold=1,
        split="validation",
        generator=backend,
        language=language,
    )


@pytest.mark.parametrize("language", sorted(QUESTIONS))
def test_a_question_in_its_documents_language_passes(language):
    assert check_language(item(QUESTIONS[language], language), None, None) is None


@pytest.mark.parametrize("language", sorted(QUESTIONS))
def test_a_question_in_another_language_is_rejected(language):
    other = "de" if language == "en" else "en"
    verdict = check_language(item(QUESTIONS[other], language), None, None)
    assert verdict is not None and verdict.reason == "wrong_language"
    assert verdict.value.startswith(f"question: {other}")


def test_a_rationale_quoted_from_a_mixed_language_section_is_not_judged():
    """A German help page that keeps an English paragraph: an MCQ's rationale quotes it, the item is German."""
    from dataclasses import replace

    from qagen.filters import FilterContext
    from qagen.records import Section

    english = "Lock pixels: When the button is pressed down, you cannot use any brush-based tool on the layer."
    section = Section("s", "d", "d.html", "Ebenen sperren", f"Sperren. {english} Weitere Hinweise folgen.", 1, 1, 0)
    ctx = FilterContext(sections={"s": section}, embed=None)
    question = "Was verhindert in GIMP die Option „Pixel sperren“, wenn man auf einer Ebene malen möchte?"
    quoted_item = replace(item(question, "de"), type="mcq", rationale=english)
    assert check_language(quoted_item, ctx, None) is None
    made_up = replace(quoted_item, rationale="When pixels are locked, no brush tool can change the layer at all.")
    verdict = check_language(made_up, ctx, None)
    assert verdict is not None and verdict.value.startswith("rationale: en")


def test_an_english_answer_to_a_german_question_is_rejected():
    answer = "Bring your insurance card, a list of your medicines and a letter from your doctor."
    verdict = check_language(item(QUESTIONS["de"], "de", answer=answer), None, None)
    assert verdict is not None and verdict.value.startswith("answer: en")


def test_quotes_code_addresses_and_short_texts_are_not_judged():
    assert prose('Wie setze ich \\columnbreak in "the last column of the page" ein?') == "Wie setze ich in ein"
    assert other_language("What is \\multicolsep?", "de") is None  # too few words to tell
    assert other_language("Welke website: https://www.example.org/help/contact-us", "nl") is None
    # offline answers are quotes of the section: only the question is judged
    offline = GeneratorInfo(backend="extractive", model="", prompt_hash="", persona=None)
    quoted = item(QUESTIONS["nl"], "nl", answer="The clinic is open on weekdays from eight to five.", backend=offline)
    assert check_language(quoted, None, None) is None


def test_close_languages_are_not_told_apart():
    assert other_language("Hoe laat gaan die deure van die kliniek oop in die oggend?", "nl") is None  # Afrikaans


GERMAN = {
    "Öffnungszeiten": "Die Ambulanz ist von Montag bis Freitag zwischen acht und siebzehn Uhr geöffnet. "
    "Am Wochenende ist die Ambulanz geschlossen und Sie wenden sich an die Notaufnahme.",
    "Parken": "Neben dem Krankenhaus gibt es ein Parkhaus mit zweihundert Plätzen für Besucher. "
    "Das Parken kostet zwei Euro pro Stunde und Sie bezahlen mit Karte an der Ausfahrt.",
    "Medikamente": "Bringen Sie eine Liste aller Medikamente mit, die Sie zurzeit einnehmen. "
    "Die Apotheke in der Eingangshalle druckt Ihnen eine solche Liste gerne aus.",
}


CLINICS = ["Herzzentrum Lindenhof", "Augenklinik Sonnenberg", "Kinderklinik Rosental", "Hautklinik Talblick"]
CLINICS += ["Zahnklinik Bergheim", "Frauenklinik Seeblick"]


def _german_docs(root: Path) -> Path:
    docs = root / "docs"
    docs.mkdir()
    themes = list(GERMAN.items())
    for k in range(6):
        heading, text = themes[k % 3]
        body = "\n\n".join(f"## {heading} Teil {j}\n\n{text} Abteilung {k} beantwortet Fragen." for j in range(3))
        (docs / f"broschuere_{k}.md").write_text(f"# {CLINICS[k]}\n\n{body}\n", encoding="utf-8")
    return docs


def _english_reply(body: dict) -> dict:
    """A model that was told to write in German and wrote in English anyway."""
    return {
        "candidates": [
            {
                "question": "What are the opening hours and the parking fees at the clinic?",
                "answer": "The clinic is open on weekdays from eight to five and parking costs two euros an hour.",
                "score": 5,
            }
        ]
    }


def _german_reply(body: dict) -> dict:
    """A model that writes in the documents' language, its answer copied from the section it was shown."""
    prompt = next(m["content"] for m in body["messages"] if m["role"] == "user")
    section = re.findall(r'"""\n(.*?)\n"""', prompt, re.S)[-1]
    heading = next(h for h in GERMAN if h in prompt)
    answer = section.split(". ")[0].strip() + "."
    document = re.findall(r"^Document: (.*)$", prompt, re.M)[-1].strip()
    return {
        "candidates": [
            {"question": f"Was muss ich über {heading} bei {document} wissen?", "answer": answer, "score": 5}
        ]
    }


OVERRIDES = [
    *FAST_COMPONENTS[:-1],
    "topics.n_clusters=3",
    "folds.samples_total=18",
    'generate.types=["long_form"]',
    "generate.long_form_per_section=1",
]


def test_a_model_answering_in_the_wrong_language_gets_nothing_accepted(tmp_path):
    docs = _german_docs(tmp_path)
    no_items = r"no items: the filters rejected all \d+ candidates \(wrong_language \d+"
    with FakeOpenAIServer(_english_reply) as server, pytest.raises(BuildError, match=no_items):
        build(docs, tmp_path / "out", overrides=[*OVERRIDES, f'llm.backend="openai:fake-model@{server.url}"'])
    rejected = [json.loads(x) for x in (tmp_path / "out" / "rejected.jsonl").read_text().splitlines()]
    assert rejected and all(r["reason"] == "wrong_language" and r["language"] == "de" for r in rejected)


def test_a_model_answering_in_the_documents_language_is_accepted(tmp_path):
    docs = _german_docs(tmp_path)
    with FakeOpenAIServer(_german_reply) as server:
        build(docs, tmp_path / "out", overrides=[*OVERRIDES, f'llm.backend="openai:fake-model@{server.url}"'])
    items = [json.loads(x) for x in (tmp_path / "out" / "items.jsonl").read_text().splitlines()]
    assert items and all(i["language"] == "de" for i in items)


@pytest.mark.parametrize(
    ("question", "language", "opens"),
    [
        ("What should I know about uso de spanish para babel at Babel spanish (1)?", "es", "en"),
        ("Which statement about espaciado at Babel spanish is correct?", "es", "en"),
        ("How can I contact frontespizio at Come comporre?", "it", "en"),
        ("¿Qué debo saber sobre «Nombres» en Babel spanish?", "es", None),
        ("Bij “Handleiding Debian Edu”: hoe voeg ik een LTSP-chroot toe?", "nl", None),
        ("Was ist die Öffnungszeit der Ambulanz?", "de", None),  # "was" is English too: one is not enough
        ("O que devo saber sobre «Usando Temas» em Tutorial de Beamer?", "pt", None),
        ("Que dois-je apporter à mon premier rendez-vous ?", "fr", None),
        ("Windows Update: wat moet ik doen?", "nl", None),
    ],
)
def test_a_question_that_opens_in_another_language_is_caught_when_its_words_are_mixed(question, language, opens):
    """Half the words of a mixed question are the document's: the identifier is unsure, its opening is not."""
    from qagen.filters.language import opens_in

    assert opens_in(question, language) == opens
    verdict = check_language(item(question, language), None, None)
    if opens:
        assert verdict is not None and verdict.value == f"question: opens in {opens}, not {language}"
    else:
        assert verdict is None
