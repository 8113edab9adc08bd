"""Language detection and resolution for generation."""

from __future__ import annotations

import pytest

from qagen.generate.language import detect_language, language_name, resolve_language


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Please call us if you cannot come to your appointment, so that we can help another patient.", "en"),
        ("Bel de polikliniek als u uw afspraak niet kunt nakomen, dan kunnen wij een andere patiënt helpen.", "nl"),
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


def test_resolve_language() -> None:
    assert resolve_language("auto", ["Wat moet ik meenemen naar de afspraak en wanneer moet u er zijn?"]) == "nl"
    assert resolve_language("NL", ["anything"]) == "nl"
    with pytest.raises(ValueError, match=r"generate\.language must be 'auto' or a language code"):
        resolve_language("Dutch!", [])


def test_language_names() -> None:
    assert language_name("nl") == "Dutch"
    assert language_name("en-GB") == "English"
    assert language_name("xx") == "xx"
