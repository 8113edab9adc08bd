"""Phone numbers: matched and normalised with ``phonenumbers``, told from dates, ranges and table numbers."""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING

from qagen.entities.base import Entity

if TYPE_CHECKING:
    from qagen.config import GenerateConfig

_PHONE_WORDS = re.compile(
    r"\b(?:phone|tel|telephone|call|calling|ring|fax|mobile|cell|hotline|helpline|line|whatsapp|sms|text|"
    r"dial|number|bel|bellen|telefoon|telefoonnummer|mobiel|nummer|anrufen|telefon|appeler|téléphone|"
    r"telefono|telefax|cellulare|chiamare|chiamate|teléfono|llame|llamar|móvil|celular|ligue|ligar)\b",
    re.IGNORECASE,
)
# Words that name a phone number outright (not "line" or "number"): a number after one may be
# grouped in any way ("Tel. 020 79 43 120").
_PHONE_LABEL = re.compile(
    r"\b(?:phone|tel|telephone|fax|mobile|cell|hotline|helpline|whatsapp|bel|bellen|telefoon|telefoonnummer|"
    r"mobiel|telefon|téléphone|telefono|telefax|cellulare|teléfono|móvil|celular)\b\W{0,12}$",
    re.IGNORECASE,
)
_NOT_PHONE_BEFORE = re.compile(
    r"\b(?:pages?|pp?|p\.|pp\.|version|versions?|v|rev|release|isbn|issn|iban|serial|invoice|order|article|"
    r"art|model|ref|reference|item|sku|code|postcode|zip|account|policy|case|box|postbus|bus|casella|"
    r"apartado|caixa|cp|cap)\W{0,3}$",
    re.IGNORECASE,
)
_DATE = re.compile(r"^\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}$")
_TIME_RANGE = re.compile(r"^\d{1,2}[.:h]\d{2}\s*[-–—]\s*\d{1,2}[.:h]\d{2}$")
_VERSION = re.compile(r"^v?\d+(?:\.\d+){2,}$", re.IGNORECASE)
_RANGE = re.compile(r"^\d{1,5}\s*[-–—]\s*\d{1,5}$")
_DECIMAL = re.compile(r"^\d{1,3}[.,]\d{1,6}$")
_NANP_LIKE = re.compile(r"^(?:\+?1[\s.-]?)?\(\d{3}\)\s?\d{3}[\s.-]\d{4}$|^(?:1[\s.-])?\d{3}[.-]\d{3}[.-]\d{4}$")


# --- phone numbers ------------------------------------------------------------------------


def normalize_phone(text: str, region: str) -> str | None:
    import phonenumbers

    try:
        number = phonenumbers.parse(text, region.upper())
    except phonenumbers.NumberParseException:
        return None
    valid = phonenumbers.is_valid_number(number)
    if not (valid or (number.country_code == 1 and phonenumbers.is_possible_number(number))):
        return None
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)


def find_phones(text: str, region: str):
    import phonenumbers

    matcher = phonenumbers.PhoneNumberMatcher(text, region.upper(), leniency=phonenumbers.Leniency.POSSIBLE)
    for match in matcher:
        raw = match.raw_string
        if _looks_like_phone(text, match.start, raw, match.number):
            e164 = phonenumbers.format_number(match.number, phonenumbers.PhoneNumberFormat.E164)
            yield Entity("phone", raw, e164, match.start, match.end)


def _looks_like_phone(text: str, start: int, raw: str, number) -> bool:
    """Reject dates, time ranges, versions, page ranges, decimals, table numbers and digit runs."""
    import phonenumbers

    if any(p.match(raw) for p in (_DATE, _TIME_RANGE, _VERSION, _RANGE, _DECIMAL)):
        return False
    end = start + len(raw)
    if (start > 0 and (text[start - 1].isalnum() or text[start - 1] in "-_/.")) or (
        end < len(text) and (text[end].isalnum() or text[end] in "-_/")
    ):
        return False  # part of a longer token: "LH-AX18-0042731", "ISBN978..."
    before = text[max(0, start - 40) : start]
    if _NOT_PHONE_BEFORE.search(before) or re.search(r"[\d./]$", before):
        return False
    if not raw.startswith("+") and (
        re.search(r"(?:^|\s)\d{1,2}\s+$", before) or re.match(r"\s+\d{1,2}(?:\s|$)", text[end : end + 5])
    ):
        return False  # one stretch of a row of numbers: "28 29 30 31 32 33 34 35"
    groups = [int(g) for g in re.findall(r"\d+", raw)]
    if len(groups) >= 4 and all(b - a == 1 for a, b in itertools.pairwise(groups)):
        return False  # counting: "0 1 2 3 4 5 6 7 8 9"
    valid = phonenumbers.is_valid_number(number)
    announced = bool(_PHONE_WORDS.search(before)) or before.rstrip().endswith(":")
    if re.fullmatch(r"\d+", raw):  # no separators at all: order numbers, serials, amounts
        return valid and announced
    international = raw.startswith(("+", "00"))
    if not international and not _PHONE_LABEL.search(before) and not _grouped_like(raw, number):
        return False  # "25136 45801", "9 192 631 770", "83 (1994) 45–58": numbers, not a phone
    if valid:
        return True
    # possible but not valid: only the fictional North American 555 style, "(555) 123-4567"
    return number.country_code == 1 and bool(_NANP_LIKE.match(raw))


def _grouped_like(raw: str, number) -> bool:
    """The digit groups of ``raw``, a number in national format, are the groups its country
    writes, some perhaps run together ("020-7943120" for "020 794 3120"), none split ("02 07 94
    31 20")."""
    import phonenumbers

    expected = re.findall(r"\d+", phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.NATIONAL))
    got = re.findall(r"\d+", raw)
    want, have = "".join(expected), "".join(got)
    if not have.endswith(want):
        return False
    offset = len(have) - len(want)  # a trunk or country prefix written before: "1-800-555-0199"
    bounds = {sum(map(len, expected[: i + 1])) for i in range(len(expected))}
    cuts = [sum(map(len, got[: i + 1])) - offset for i in range(len(got))]
    return all(c <= 0 or c in bounds for c in cuts)


def infer_phone_region(texts: Iterable[str], fallback: str = "US") -> str:
    """The region most numbers in ``texts`` are written for, judged by their country codes.

    Numbers written internationally (``+31 20 …``) name their country; the most common one
    is the likely home region of the national-format numbers beside them (``020 …``).
    Returns ``fallback`` when no number carries a country code.
    """
    import phonenumbers

    counts: Counter[str] = Counter()
    for text in texts:
        for match in phonenumbers.PhoneNumberMatcher(text, "ZZ", leniency=phonenumbers.Leniency.VALID):
            region = phonenumbers.region_code_for_number(match.number)
            if region and region != "ZZ":
                counts[region] += 1
    if not counts:
        return fallback
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]


def resolve_phone_region(config: GenerateConfig, texts: Iterable[str]) -> GenerateConfig:
    """The ``[generate]`` section with ``phone_region = auto`` resolved from ``texts`` (the corpus)."""
    if config.phone_region != "auto":
        return config
    return config.model_copy(update={"phone_region": infer_phone_region(texts)})
