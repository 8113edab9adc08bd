"""Entity extraction and normalisation (phone numbers, e-mail addresses, URLs) and their distractors."""

from __future__ import annotations

import random
import re
from pathlib import Path

import phonenumbers
import pytest

from qagen.entities import (
    ENTITY_KINDS,
    entity_distractors,
    entity_key,
    extract_entities,
    normalize_entity,
    registrable_domain,
    usable_distractor,
)
from qagen.ingest.kinds import is_code_line

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


# --- web addresses: a known public suffix, whole, never from code ---------------------------


def urls(text: str) -> list[str]:
    return [e.text for e in extract_entities(text, ["url"], "NL")]


@pytest.mark.parametrize(
    "text",
    [
        "xpart ndb3.se",
        "The x coordinate is xpart ndb3.se and the y coordinate ypart ndb3.se here.",
        "z1 = ndb3.se; z2 = ndb3.nw;",
    ],
)
def test_code_tokens_are_not_web_addresses(text: str) -> None:
    assert urls(text) == []


def test_a_url_with_a_known_suffix_is_found_whole() -> None:
    found = extract_entities("Report it at https://bugs.debian.org/123.", ALL, "NL")
    assert [(e.kind, e.text, e.normalized) for e in found] == [
        ("url", "https://bugs.debian.org/123", "bugs.debian.org/123")
    ]


@pytest.mark.parametrize(
    "address",
    ["https://bugs.debian", "https://www.intern/gosa", "http://www.ams", "https://www/munin/", "a.se", "bugs.debian"],
)
def test_hosts_without_a_registrable_domain_are_rejected(address: str) -> None:
    assert urls(f"Go to {address} now.") == []
    assert normalize_entity("url", address, "NL") is None


def test_registrable_domain_uses_the_public_suffix_list() -> None:
    assert registrable_domain("bugs.debian.org") == "debian.org"
    assert registrable_domain("www.example.co.uk") == "example.co.uk"
    assert registrable_domain("mutonufoai.github.io") == "mutonufoai.github.io"  # a private suffix
    for host in ("bugs.debian", "a.se", "co.uk", "localhost", "ndb3.intern", "192.168.1.1", "-x.org"):
        assert registrable_domain(host) is None, host


def test_bare_hosts_need_a_common_suffix_and_no_file_look() -> None:
    text = (
        "Mirrors: ftp.dante.de, ftp.tex.ac.uk and crunch.ikp.physik.tu-darmstadt.de. Members in "
        "Switzerland join debian.ch. Read wiki.debian.org/UnattendedUpgrades first."
    )
    assert urls(text) == [
        "ftp.dante.de",
        "ftp.tex.ac.uk",
        "crunch.ikp.physik.tu-darmstadt.de",
        "debian.ch",
        "wiki.debian.org/UnattendedUpgrades",
    ]
    files = (
        "Run splitindex.pl, unpack auxhook.tds.zip, edit psfonts.map and pdftex.map, load tex.pro, read readme.md; "
        "set table.frame.border.style and xref.properties, call is.na, open profile.nc; the end.Next part."
    )
    assert urls(files) == []


def test_scheme_urls_keep_any_known_suffix_and_ip_addresses() -> None:
    text = "See https://www.example.photography/a, ftp://ftp.ams.org/pub/tex/ and http://10.0.2.2:3128/ now."
    assert [e.normalized for e in extract_entities(text, ["url"], "NL")] == [
        "example.photography/a",
        "ftp.ams.org/pub/tex",
        "10.0.2.2:3128",
    ]
    assert urls("Boot with mirror/http/proxy=http://10.0.2.2:3128/ set.") == []  # part of a parameter


def test_url_fragments_are_kept_apart() -> None:
    keys = {
        normalize_entity("url", u, "NL") for u in ("https://x.example.org/doc#faq", "https://x.example.org/doc#policy")
    }
    assert keys == {"x.example.org/doc#faq", "x.example.org/doc#policy"}


# --- addresses broken across a line break ---------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "[1] The ltshipout package. http://mirrors.ctan.org/\nmacros/latex/base/lthooks-doc.pdf\n[2] F.",
            "http://mirrors.ctan.org/macros/latex/base/lthooks-doc.pdf",
        ),
        ("e http://www.ams.\norg/tex/author-info.html.\nSe siete", "http://www.ams.org/tex/author-info.html"),
        ("si veda http://www. ams.org/tex/amsfonts.html. Per la", "http://www.ams.org/tex/amsfonts.html"),
        ("report bugs at https://github.\ncom/maieul/eledform/issues.", "https://github.com/maieul/eledform/issues"),
        ("errori (http://kohm.de.tf/markus/texidate. html).", "http://kohm.de.tf/markus/texidate.html"),
        ("zoals uiteengezet in wiki.debian.org/- UnattendedUpgrades.", "wiki.debian.org/UnattendedUpgrades"),
        (
            "described at https:// tex.stackexchange.com/questions/217757#217763 (thanks",
            "https://tex.stackexchange.com/questions/217757#217763",
        ),
        (
            "http://www.ams.org/cgi-bin/bookpromo?fn=91&arg1=\nbookvideo&itmc=MLTEX, Boston",
            "http://www.ams.org/cgi-bin/bookpromo?fn=91&arg1=bookvideo&itmc=MLTEX",
        ),
        (
            "Zie https://hosted.weblate.org/ projects/debian-edu/bookworm-manual/ voor",
            "https://hosted.weblate.org/projects/debian-edu/bookworm-manual/",
        ),
        (
            "vindt u op https://wiki.debian.org/DebianEdu/Help/\nProfessionalHelp.",
            "https://wiki.debian.org/DebianEdu/Help/ProfessionalHelp",
        ),
    ],
)
def test_a_url_broken_across_lines_is_joined(text: str, expected: str) -> None:
    (found,) = extract_entities(text, ALL, "NL")
    assert found.text == expected
    assert found.normalized == normalize_entity("url", expected, "NL")
    # the offsets span the break in the source; the text is the address without it
    assert re.sub(r"\s+", "", text[found.start : found.end]).replace("/-", "/") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "archieven via https://lists.debian.org/debian-user/ \nkunt u de archieven",
            "https://lists.debian.org/debian-user/",
        ),
        ("Visit https://example.org. It explains more.", "https://example.org"),
        ("See https://example.org/page.\nNext we install it.", "https://example.org/page"),
        ("Robertson http://wspr.io/fontspec/\n2022/01/15 v2.8a", "http://wspr.io/fontspec/"),
        ("online: https://ltsp.org/man/ltsp.conf/\nVoeg configuratie-items toe", "https://ltsp.org/man/ltsp.conf/"),
        ("Guide http://www.sagehill.net/docbookxsl/ Context-sensitive help", "http://www.sagehill.net/docbookxsl/"),
        ("going to https://launchpad.net/~ and looking for it", "https://launchpad.net/~"),
        (
            "Format: http://www.debian.org/doc/copyright-format/1.0/\nUpstream-Name: Hello",
            "http://www.debian.org/doc/copyright-format/1.0/",
        ),
        (
            "1. on ctan: http://mirrors.ctan.org/graphics/pgf/\n2. on ctan as koma-script",
            "http://mirrors.ctan.org/graphics/pgf/",
        ),
    ],
)
def test_a_url_is_not_joined_with_the_words_after_it(text: str, expected: str) -> None:
    assert urls(text)[0] == expected


def test_a_continuation_line_of_code_is_not_joined() -> None:
    text = "See http://www.example.org/docs/\n\\newcommand{\\x}{y_z} % code"
    assert urls(text) == ["http://www.example.org/docs/"]


# --- e-mail addresses ----------------------------------------------------------------------


def emails(text: str) -> list[str]:
    return [e.normalized for e in extract_entities(text, ALL, "NL") if e.kind == "email"]


def test_valid_email_addresses() -> None:
    text = (
        "Write to name+tag@sub.example.co.uk, Thorsten.Ohl@Physik.TU-Darmstadt.de or < debian-admin@lists.debian.org >."
    )
    assert emails(text) == [
        "name+tag@sub.example.co.uk",
        "thorsten.ohl@physik.tu-darmstadt.de",
        "debian-admin@lists.debian.org",
    ]
    assert normalize_entity("email", "name+tag@sub.example.co.uk", "NL") == "name+tag@sub.example.co.uk"


@pytest.mark.parametrize(
    "text",
    [
        "a..b@example.org",
        "x@localhost",
        "jdoe@postoffice.intern",
        "Joe Pallas <pallas@edu.stanford.neon>",
        "debian- lijst-onderwerp -REQUEST@lists.debian.org.",
        "Message-ID: <a84us0$plqcm$7@ID-30533.news.dfncis.de>",
        "Fonte: Message-ID: <8557097.gEimXdBtjU@ID-107054.user.dfncis.de>",
        "in GIT op: git@salsa.debian.org:ddp-team/debian-faq.git en meer",
        "the \\ver@array.sty macro",
    ],
)
def test_invalid_or_not_email_addresses_are_rejected(text: str) -> None:
    assert emails(text) == []


@pytest.mark.parametrize("address", ["a..b@example.org", "x@localhost", "jdoe@postoffice.intern", ".a@example.org"])
def test_normalize_rejects_invalid_emails(address: str) -> None:
    assert normalize_entity("email", address, "NL") is None


def test_a_footnote_mark_before_an_email_on_its_own_line_is_dropped() -> None:
    (found,) = extract_entities("bibleref-german.\n1mail@sebastian-kuhnert.de", ["email"], "NL")
    assert (found.text, found.normalized) == ("mail@sebastian-kuhnert.de", "mail@sebastian-kuhnert.de")


# --- nothing from code lines ------------------------------------------------------------------


def test_url_in_a_sentence_with_url_markup_counts() -> None:
    assert urls("See \\url{https://ctan.org/pkg/hyperref} for details.") == ["https://ctan.org/pkg/hyperref"]


@pytest.mark.parametrize(
    "line",
    [
        "\\newcommand{\\homepage}{https://ctan.org/pkg/hyperref}",
        "$ gpg --send-keys --keyserver keyserver.ubuntu.com 43CDE61D",
        'url = "https://example.org/api";',
        "\\def\\authormail{info@example.org}",
        '  mail_to = "info@example.org";',
        "{0.38197 \\paperwidth-0.38197\\LA@LarghezzaTesto}",
    ],
)
def test_code_lines_give_no_entities(line: str) -> None:
    assert is_code_line(line)
    assert extract_entities(f"Some prose first.\n{line}\nMore prose after.", ALL, "NL") == []


def test_addresses_do_not_make_a_line_code() -> None:
    # a URL with "?pr=" or "Squid_LDAP" alone on a line is a reference, not code
    text = (
        "http://www.uni-mainz.de/cgi-bin/ltxbugs2html?pr=latex/2346\n"
        "• https://wiki.debian.org/DebianEdu/HowTo/Squid_LDAP_Authentication\n"
        " < debian-admin@lists.debian.org > ."
    )
    assert [e.text for e in extract_entities(text, ALL, "NL")] == [
        "http://www.uni-mainz.de/cgi-bin/ltxbugs2html?pr=latex/2346",
        "https://wiki.debian.org/DebianEdu/HowTo/Squid_LDAP_Authentication",
        "debian-admin@lists.debian.org",
    ]


# --- phone numbers in Dutch and Italian contact lines ---------------------------------------------


@pytest.mark.parametrize(
    ("text", "region", "expected"),
    [
        ("Telefoon: 020 794 3120 (werkdagen), e-mail: balie@example.nl", "NL", ["+31207943120", "balie@example.nl"]),
        (
            "Bel ons op 020-7943120 of mail naar info@ziekenhuis.example.nl.",
            "NL",
            ["+31207943120", "info@ziekenhuis.example.nl"],
        ),
        ("Per informazioni: tel. 02 1234 5678, email info@example.it.", "IT", ["+390212345678", "info@example.it"]),
        ("Telefono: 06 6988 1234 - Fax: 06 6988 4321", "IT", ["+390669881234", "+390669884321"]),
        (
            "Dept. of Computer Science, P.O. Box 80.089 3508 TB Utrecht, "
            "Telefono: +31 30 2531806 Telefax: +31 30 2513791",
            "IT",
            ["+31302531806", "+31302513791"],
        ),
    ],
)
def test_contact_lines_in_dutch_and_italian(text: str, region: str, expected: list[str]) -> None:
    assert [e.normalized for e in extract_entities(text, ALL, region)] == expected


@pytest.mark.parametrize(
    ("text", "region"),
    [
        ("0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35", "US"),
        ("Character\n0 1 2 3 4 5 6 7 8 9\nA B C D E F", "IT"),
        ("Age: 20 35 45 55 70 No. tested: 50 50 50 50 50", "US"),
        ("x1 25136 45801 and 28359 58591", "US"),
        ("one period is 9 192 631 770 cycles", "US"),
        ("Nucl. Phys. 83 (1994) 45–58 and (2017) 030002", "US"),
        ("the ratio 0.38197 of the width", "IT"),
    ],
)
def test_rows_of_numbers_are_not_phones(text: str, region: str) -> None:
    assert phones(text, region) == []


# --- distractors: whole values of the same kind ------------------------------------------------

URL_POOL = [
    "https://bugs.debian",  # no known suffix
    "a.se",  # a public suffix, not a host
    "https://bugs.debian.org",  # a prefix of the answer
    "bugs.debian.org/123",  # the answer without scheme
    "HTTPS://BUGS.DEBIAN.ORG/123/",  # the answer after normalisation
    "https://bugs.debian.org/1234",  # an extension of the answer
    "https://lists.debian.org/debian-user/",
    "https://www.debian.org/releases",
    "https://wiki.debian.org/DebianEdu",
    "http://www.ctan.org/pkg/splitindex",
    "ftp.dante.de",
]


def assert_whole_distractors(value: str, kind: str, chosen: list[str], region: str | None = None) -> None:
    keys = [entity_key(kind, c, region) for c in chosen]
    assert None not in keys and len(set(keys)) == len(keys), chosen
    assert entity_key(kind, value, region) not in keys
    for option in chosen:
        assert normalize_entity(kind, option, region or "US") is not None, option
        assert option.lower() not in value.lower() and value.lower() not in option.lower(), option
        assert usable_distractor(value, option, kind, region), option


@pytest.mark.parametrize("seed", range(20))
def test_url_distractors_are_whole_addresses_never_fragments(seed: int) -> None:
    value = "https://bugs.debian.org/123"
    chosen = entity_distractors(value, "url", URL_POOL, random.Random(seed))
    assert len(chosen) == 3
    assert_whole_distractors(value, "url", chosen)
    assert set(chosen) <= set(URL_POOL[6:])  # the pool has enough whole ones: nothing made up
    assert "a.se" not in chosen and "https://bugs.debian" not in chosen


def test_usable_distractor_rules() -> None:
    value = "https://bugs.debian.org/123"
    assert [usable_distractor(value, c, "url") for c in URL_POOL[:6]] == [False] * 6
    assert usable_distractor(value, "https://lists.debian.org/debian-user/", "url")
    assert not usable_distractor("info@example.org", "example.org", "email")
    assert not usable_distractor("info@example.org", "INFO@Example.org", "email")
    assert usable_distractor("info@example.org", "support@example.org", "email")
    assert not usable_distractor("+31 20 794 3120", "794 3120", "phone")
    assert not usable_distractor("+31 20 794 3120", "020 794 3120", "phone", "NL")
    assert usable_distractor("+31 20 794 3120", "+31 20 794 3500", "phone", "NL")


def test_distractors_prefer_the_same_shape() -> None:
    pool = ["+32 2 588 4410", "+31 20 794 3500", "+44 20 7946 0958", "+31 10 799 5020"]
    chosen = entity_distractors("+31 20 794 3120", "phone", pool, random.Random(1), n=2)
    assert sorted(chosen) == ["+31 10 799 5020", "+31 20 794 3500"]  # the same country code first


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize(
    ("value", "region"), [("+31 20 794 3120", None), ("020 794 3120", "NL"), ("02 1234 5678", "IT")]
)
def test_phone_variants_are_valid_numbers_written_alike(value: str, region: str | None, seed: int) -> None:
    chosen = entity_distractors(value, "phone", [], random.Random(seed), region=region)
    assert len(chosen) == 3
    assert_whole_distractors(value, "phone", chosen, region)
    for option in chosen:
        number = phonenumbers.parse(option, region or "ZZ")
        assert phonenumbers.is_valid_number(number), option
        assert re.sub(r"\d", "0", option) == re.sub(r"\d", "0", value)  # the same layout
        assert option[:-4] == value[:-4]  # only the last digits change


@pytest.mark.parametrize("seed", range(10))
def test_url_and_email_variants_when_the_pool_runs_out(seed: int) -> None:
    rng = random.Random(seed)
    for value, kind in [
        ("https://bugs.debian.org/123", "url"),
        ("https://latex-project.org", "url"),
        ("info@example.org", "email"),
    ]:
        chosen = entity_distractors(value, kind, [], rng)
        assert len(chosen) >= 2, (value, chosen)
        assert_whole_distractors(value, kind, chosen)
    assert entity_distractors("info@example.org", "email", [], random.Random(seed), variants=False) == []


def test_distractors_are_deterministic() -> None:
    first = entity_distractors("https://bugs.debian.org/123", "url", URL_POOL, random.Random(7))
    again = entity_distractors("https://bugs.debian.org/123", "url", list(reversed(URL_POOL)), random.Random(7))
    assert first == again
    with pytest.raises(ValueError, match="entity kinds"):
        entity_distractors("24 hours", "duration", [], random.Random(0))


@pytest.mark.parametrize(
    ("text", "markers", "reason"),
    [
        ("Sets the email (e.g., rbt@sent.as) associated with the author.", ["e.g."], "an example value"),
        ("Die Adresse (z. B. info@firma.de) steht oben.", ["z. B."], "an example value"),
        ("* email: Mark.Trettin@gmx.de", [], "a footnote or reference"),
        ("23 http://www.latex-project.org/cgi-bin/ltxbugs2html?pr=latex/2618", [], "a footnote or reference"),
        ("[4] L. Lamport, see https://latex-project.org/guides", [], "a footnote or reference"),
        ("Write to support@example.org for help.", [], None),
        ("Questions? Write to help@ctan.org.", ["e.g."], None),
        ("1. Call +1 212 555 0100 for help with your order.", [], None),
        ("Appointments desk: +31 20 794 3120", [], None),
    ],
)
def test_an_example_or_a_footnote_address_is_incidental(text, markers, reason):
    from qagen.entities import incidental

    found = extract_entities(text, ["phone", "email", "url"], "NL")
    assert found and incidental(text, found[0], markers) == reason
