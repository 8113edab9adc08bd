"""Language detection (py3langid) and resolution for generation: per text, per document, forced."""

from __future__ import annotations

import pytest

from qagen.language import (
    LANGUAGE_NAMES,
    detect_language,
    document_languages,
    identify,
    language_name,
    resolve_language,
    resolve_languages,
)
from qagen.records import Section

EN = "Please call us if you cannot come to your appointment, so that we can help another patient."
NL = "Bel de polikliniek als u uw afspraak niet kunt nakomen, dan kunnen wij een andere patiënt helpen."


@pytest.mark.parametrize(
    ("text", "code"),
    [
        (EN, "en"),
        (NL, "nl"),
        ("Bitte rufen Sie uns an, wenn Sie den Termin nicht wahrnehmen können, damit wir helfen können.", "de"),
        ("Veuillez nous appeler si vous ne pouvez pas venir à votre rendez-vous, pour que nous puissions aider.", "fr"),
        ("Por favor llámenos si no puede venir a su cita, para que podamos ayudar a otro paciente.", "es"),
    ],
)
def test_detects_common_languages(text: str, code: str) -> None:
    assert detect_language([text]) == code


def test_majority_over_many_texts_and_default() -> None:
    texts = ["The pharmacy is open from 8:00.", "You can order online.", "De apotheek is open."]
    assert detect_language(texts) == "en"
    assert detect_language([]) == "en"
    assert detect_language(["12345 --- !!!"], default="nl") == "nl"
    assert identify("12345 --- !!!") is None and identify("") is None
    assert identify("Contact") is None  # one word: not sure of any language


def test_resolve_language() -> None:
    assert resolve_language("auto", ["Wat moet ik meenemen naar de afspraak en wanneer moet u er zijn?"]) == "nl"
    assert resolve_language("NL", ["anything"]) == "nl"
    with pytest.raises(ValueError, match=r"generate\.language must be 'auto' or a language code"):
        resolve_language("Dutch!", [])
    with pytest.raises(ValueError, match=r"generate\.language must be 'auto' or a language code"):
        resolve_languages("Dutch!", [])


def test_language_names() -> None:
    assert language_name("nl") == "Dutch"
    assert language_name("en-GB") == "English"
    assert language_name("pcm") == "Nigerian Pidgin"
    assert language_name("xx") == "the language with code 'xx'"


def test_every_detectable_language_has_a_name() -> None:
    from qagen.language import _identifier

    labels = set(_identifier().labels) - {"zxx"}  # zxx: no linguistic content, never returned by identify
    assert not labels - set(LANGUAGE_NAMES)


def _doc(doc_id: str, texts: list[str]) -> list[Section]:
    return [Section(f"{doc_id}-{k}", doc_id, f"{doc_id}.pdf", f"Part {k}", t, 1, 1, k) for k, t in enumerate(texts)]


def test_each_document_gets_its_own_language_and_the_corpus_a_majority() -> None:
    sections = _doc("leaflet", [NL, NL]) + _doc("guide", [EN, EN, EN]) + _doc("scan", ["0612 34 56 78", "---"])
    languages, majority = document_languages(sections)
    assert languages == {"guide": "en", "leaflet": "nl", "scan": "en"}  # no text to judge: the majority
    assert majority == "en"  # most of the detected text
    assert document_languages(sections) == (languages, majority)  # deterministic
    assert document_languages(reversed(sections)) == (languages, majority)  # order of sections does not matter
    assert document_languages([], default="nl") == ({}, "nl")


def test_document_detection_reads_only_the_start_of_each_document() -> None:
    sections = _doc("report", [EN] * 40 + [NL] * 200)
    assert document_languages(sections, max_chars=2000) == ({"report": "en"}, "en")


def test_auto_detects_per_document_and_a_code_forces_one_language() -> None:
    sections = _doc("a", [EN]) + _doc("b", [NL, NL])
    assert resolve_languages("auto", sections) == ({"a": "en", "b": "nl"}, "nl")
    assert resolve_languages(" De ", sections) == ({}, "de")
