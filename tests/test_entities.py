"""Entity extraction and normalisation: phone numbers, e-mail addresses, URLs."""

from __future__ import annotations

from pathlib import Path

import phonenumbers
import pytest

from qagen.generate.entities import ENTITY_KINDS, extract_entities, normalize_entity

ALL = list(ENTITY_KINDS)
DOCS = Path(__file__).resolve().parents[1] / "examples" / "docs"


def phones(text: str, region: str) -> list[str]:
    return [e.normalized for e in extract_entities(text, ["phone"], region)]


@pytest.mark.parametrize(
    ("text", "region", "expected"),
    [
        ("Bel 020-1234567 voor een afspraak.", "NL", "+31201234567"),
        ("Call +31 20 123 4567 today.", "NL", "+31201234567"),
        ("Call +31 20 123 4567 today.", "US", "+31201234567"),
        ("Outpatient clinic: (020) 794 3320", "NL", "+31207943320"),
        ("nurse line +31 (0)20 794 3125 during office hours", "US", "+31207943125"),
        ("mobiel 06-12345678", "NL", "+31612345678"),
        ("Netherlands: 030 281 7700", "NL", "+31302817700"),
        ("United States: (555) 123-4567", "US", "+15551234567"),
        ("Boston office (617) 555-0142.", "US", "+16175550142"),
        ("toll free 1-800-555-0199", "US", "+18005550199"),
        ("Boston: +1 617-555-0142, people-us@x.example.com", "NL", "+16175550142"),
        ("UK: +44 20 7946 0958", "US", "+442079460958"),
        ("tel:+31207943120", "NL", "+31207943120"),
    ],
)
def test_phone_formats_are_found_and_normalised_to_e164(text: str, region: str, expected: str) -> None:
    assert phones(text, region) == [expected]


@pytest.mark.parametrize(
    "text",
    [
        "Effective 12-03-2024, updated 2024-03-12 and 03/12/2024 (1 January 2024).",
        "Firmware version 2.4.1 replaces v1.12.0 and 10.0.19045.",
        "See pages 112-118, p. 12 and pp. 40-45.",
        "Open 8:30 to 16:30, 08.00–17.00 uur, 9:00-17:30.",
        "Parking costs €2.50 per hour, maximum €15.00; fee $1,100.",
        "Serial number LH-AX18-0042731, model BAR-300-EU, serial 23A0417.",
        "IBAN NL91 ABNA 0417 1643 00, order no. 4012345678, invoice 2024001234.",
        "Spaarnelaan 40, 1054 KT Amsterdam; ISBN 978-3-16-148410-0.",
        "Heel prick between 72 and 168 hours; 1450 W, 15 bar, 220 to 240 V.",
    ],
)
@pytest.mark.parametrize("region", ["NL", "US"])
def test_no_phone_false_positives(text: str, region: str) -> None:
    assert phones(text, region) == []


def test_national_numbers_need_the_right_region() -> None:
    assert phones("Call 020-1234567.", "US") == []
    assert phones("Call (617) 555-0142.", "NL") == []


@pytest.mark.parametrize("region", ["NL", "US", "DE", "GB", "BE", "FR"])
@pytest.mark.parametrize("fmt", [phonenumbers.PhoneNumberFormat.NATIONAL, phonenumbers.PhoneNumberFormat.INTERNATIONAL])
def test_library_example_numbers_round_trip(region: str, fmt: int) -> None:
    number = phonenumbers.example_number_for_type(region, phonenumbers.PhoneNumberType.FIXED_LINE)
    written = phonenumbers.format_number(number, fmt)
    e164 = phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)
    found = extract_entities(f"Please call us on {written} during office hours.", ["phone"], region)
    assert [e.normalized for e in found] == [e164]
    assert normalize_entity("phone", written, region) == e164


def test_emails_are_lowercased_and_trimmed() -> None:
    found = extract_entities("Mail Info@Lindenhof.Example.org. Or x.y+z@kestrel.example.com, thanks", ALL, "NL")
    assert [(e.kind, e.text, e.normalized) for e in found] == [
        ("email", "Info@Lindenhof.Example.org", "info@lindenhof.example.org"),
        ("email", "x.y+z@kestrel.example.com", "x.y+z@kestrel.example.com"),
    ]
    assert normalize_entity("email", "mailto:Info@X.example.org", "NL") == "info@x.example.org"
    assert normalize_entity("email", "not an address", "NL") is None


def test_urls_with_and_without_scheme() -> None:
    text = (
        "See https://www.lindenhof.example.org/parking/. Book at www.x.example.com/a?b=1). "
        "Manual: linkhaven.example.net/manuals, admin page http://192.168.1.1 and (https://mijn.example.org)."
    )
    assert [(e.text, e.normalized) for e in extract_entities(text, ["url"], "NL")] == [
        ("https://www.lindenhof.example.org/parking/", "lindenhof.example.org/parking"),
        ("www.x.example.com/a?b=1", "x.example.com/a?b=1"),
        ("linkhaven.example.net/manuals", "linkhaven.example.net/manuals"),
        ("http://192.168.1.1", "192.168.1.1"),
        ("https://mijn.example.org", "mijn.example.org"),
    ]


def test_url_normalisation_ignores_scheme_www_case_and_trailing_slash() -> None:
    forms = ["https://WWW.Example.org/help/", "http://example.org/help", "www.example.org/help", "example.org/help"]
    assert {normalize_entity("url", f, "NL") for f in forms} == {"example.org/help"}
    assert normalize_entity("url", "not a url", "NL") is None


def test_no_url_false_positives() -> None:
    text = "Run setup.exe, read manual.pdf (e.g. page 3), use Node.js, version 2.4.1, 1.8 litres, a.m. and p.m."
    assert extract_entities(text, ["url"], "NL") == []


def test_email_domain_is_not_a_url_and_digits_in_urls_are_not_phones() -> None:
    text = "Write to support@linkhaven.example.net or visit http://example.org/call/0201234567 now."
    found = extract_entities(text, ALL, "NL")
    assert [e.kind for e in found] == ["email", "url"]


def test_offsets_and_normalisation_are_consistent() -> None:
    text = (DOCS / "patient_rights_and_complaints.md").read_text(encoding="utf-8")
    found = extract_entities(text, ALL, "NL")
    assert len(found) >= 8
    for e in found:
        assert text[e.start : e.end] == e.text
        assert normalize_entity(e.kind, e.text, "NL") == e.normalized
    assert [e.start for e in found] == sorted(e.start for e in found)


def test_example_faq_entities() -> None:
    text = (DOCS / "linkhaven_faq.txt").read_text(encoding="utf-8")
    nl = {e.normalized for e in extract_entities(text, ["phone"], "NL")}
    us = {e.normalized for e in extract_entities(text, ["phone"], "US")}
    assert nl == {"+31107995020", "+493090162280"}  # no serial numbers, dates or versions
    assert us == nl | {"+15551234567"}
    urls = {e.normalized for e in extract_entities(text, ["url"], "NL")}
    assert urls == {"support.linkhaven.example.net/security", "support.linkhaven.example.net"}


def test_kinds_are_respected_and_checked() -> None:
    text = "Call +31 20 123 4567 or mail a@b.example.org, see www.example.org"
    assert [e.kind for e in extract_entities(text, ["email"], "NL")] == ["email"]
    assert [e.kind for e in extract_entities(text, ["url", "phone"], "NL")] == ["phone", "url"]
    with pytest.raises(ValueError, match="entity kinds must be among"):
        extract_entities(text, ["fax"], "NL")
