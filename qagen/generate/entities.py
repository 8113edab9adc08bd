"""Entities in text: phone numbers, e-mail addresses and URLs, found and normalised.

Factoid questions are built on these, and the filter stage back-checks factoids with
them, so the same text always gives the same entities. Phone numbers are matched and
normalised to E.164 with ``phonenumbers``; dates, times, version numbers, page ranges and
bare digit runs (order or serial numbers) are not phone numbers.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

ENTITY_KINDS = ("phone", "email", "url")

# Top-level domains accepted for URLs written without scheme or "www." (e.g. "shop.example.com/help").
_BARE_TLDS = "com|org|net|edu|gov|info|io|eu|nl|be|de|fr|uk|us|ca|au|ch|at|es|it|dk|se|fi|ie|pl|pt|lu|nz|example"
_EMAIL = re.compile(r"(?<![\w.+-])[A-Za-z0-9._%+-]+@(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}(?![\w-])")
_URL_SCHEME = re.compile(r"(?:https?://|www\.)[^\s<>\"'`]+", re.IGNORECASE)
_URL_BARE = re.compile(
    rf"(?<![\w@./-])(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+(?:{_BARE_TLDS})(?:/[^\s<>\"'`]*)?(?![\w@-])",
    re.IGNORECASE,
)
_TRAILING = ".,;:!?'\"”’»"
_PHONE_WORDS = re.compile(
    r"\b(?:phone|tel|telephone|call|calling|ring|fax|mobile|cell|hotline|helpline|line|whatsapp|sms|text|"
    r"dial|number|bel|bellen|telefoon|telefoonnummer|mobiel|nummer|anrufen|telefon|appeler|téléphone)\b",
    re.IGNORECASE,
)
_NOT_PHONE_BEFORE = re.compile(
    r"\b(?:pages?|pp?|p\.|pp\.|version|versions?|v|rev|release|isbn|issn|iban|serial|invoice|order|article|"
    r"art|model|ref|reference|item|sku|code|postcode|zip|account|policy|case)\W{0,3}$",
    re.IGNORECASE,
)
_DATE = re.compile(r"^\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}$")
_TIME_RANGE = re.compile(r"^\d{1,2}[.:h]\d{2}\s*[-–—]\s*\d{1,2}[.:h]\d{2}$")
_VERSION = re.compile(r"^v?\d+(?:\.\d+){2,}$", re.IGNORECASE)
_RANGE = re.compile(r"^\d{1,5}\s*[-–—]\s*\d{1,5}$")
_NANP_LIKE = re.compile(r"^(?:\+?1[\s.-]?)?\(\d{3}\)\s?\d{3}[\s.-]\d{4}$|^(?:1[\s.-])?\d{3}[.-]\d{3}[.-]\d{4}$")


@dataclass(frozen=True)
class Entity:
    """One entity occurrence: ``text`` as found at ``start:end``, and its normalised form.

    ``normalized`` is E.164 for phones (``+31207943120``), the lower-cased address for
    e-mails, and a comparison key for URLs (lower-case host without scheme or ``www.``,
    path kept, no trailing slash: ``lindenhof.example.org/parking``).
    """

    kind: str
    text: str
    normalized: str
    start: int
    end: int


def extract_entities(text: str, kinds: list[str] | tuple[str, ...], region: str) -> list[Entity]:
    """Find entities of the given kinds in ``text``, in order of position.

    Args:
        text: Any text (a section, an answer).
        kinds: Entity kinds to look for, a subset of :data:`ENTITY_KINDS`.
        region: ISO 3166 region for phone numbers written without country code ("NL", "US").

    Returns:
        Non-overlapping entities sorted by start offset. E-mail addresses win over the
        URLs inside them, URLs over the digits inside them.
    """
    _check_kinds(kinds)
    found: list[Entity] = []
    taken: list[tuple[int, int]] = []
    if "email" in kinds or "url" in kinds:
        emails = list(_emails(text))
        taken += [(e.start, e.end) for e in emails]
        if "email" in kinds:
            found += emails
    if "url" in kinds or "phone" in kinds:
        urls = [u for u in _urls(text) if not _overlaps(u.start, u.end, taken)]
        taken += [(u.start, u.end) for u in urls]
        if "url" in kinds:
            found += urls
    if "phone" in kinds:
        found += [p for p in _phones(text, region) if not _overlaps(p.start, p.end, taken)]
    return sorted(found, key=lambda e: (e.start, e.end))


def normalize_entity(kind: str, text: str, region: str) -> str | None:
    """The normalised form of one entity written as ``text``; None when it is not one.

    ``normalize_entity("phone", "020-7943120", "NL") == "+31207943120"``.
    """
    _check_kinds([kind])
    text = text.strip()
    if not text:
        return None
    if kind == "phone":
        return _normalize_phone(text, region)
    if kind == "email":
        match = _EMAIL.search(text.removeprefix("mailto:"))
        return match.group(0).lower() if match and match.group(0) == text.removeprefix("mailto:") else None
    return _normalize_url(text.rstrip(_TRAILING))


def _check_kinds(kinds: list[str] | tuple[str, ...]) -> None:
    unknown = [k for k in kinds if k not in ENTITY_KINDS]
    if unknown:
        raise ValueError(f"entity kinds must be among {list(ENTITY_KINDS)}; got {unknown}")


def _overlaps(start: int, end: int, spans: list[tuple[int, int]]) -> bool:
    return any(start < e and s < end for s, e in spans)


def _emails(text: str):
    for m in _EMAIL.finditer(text):
        raw = m.group(0).rstrip(".")
        yield Entity("email", raw, raw.lower(), m.start(), m.start() + len(raw))


def _urls(text: str):
    spans: list[tuple[int, int]] = []
    for pattern in (_URL_SCHEME, _URL_BARE):
        for m in pattern.finditer(text):
            raw = _trim_url(m.group(0))
            start, end = m.start(), m.start() + len(raw)
            if _overlaps(start, end, spans):
                continue
            norm = _normalize_url(raw)
            if norm:
                spans.append((start, end))
                yield Entity("url", raw, norm, start, end)


def _trim_url(raw: str) -> str:
    """Drop sentence punctuation and unbalanced closing brackets from the end of a URL."""
    while raw:
        closing = raw[-1] in ")]}" and raw.count("([{"[")]}".index(raw[-1])]) < raw.count(raw[-1])
        if raw[-1] not in _TRAILING and not closing:
            break
        raw = raw[:-1]
    return raw


def _normalize_url(raw: str) -> str | None:
    candidate = raw if re.match(r"^[a-z][a-z0-9+.-]*://", raw, re.IGNORECASE) else f"http://{raw}"
    try:
        parts = urlsplit(candidate)
        host = (parts.hostname or "").lower()
        port = parts.port
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or "." not in host or not re.fullmatch(r"[a-z0-9.-]+", host):
        return None
    host = host.removeprefix("www.")
    if port not in (None, 80, 443):
        host = f"{host}:{port}"
    path = parts.path.rstrip("/")
    query = f"?{parts.query}" if parts.query else ""
    return f"{host}{path}{query}"


def _normalize_phone(text: str, region: str) -> str | None:
    import phonenumbers

    try:
        number = phonenumbers.parse(text, region.upper())
    except phonenumbers.NumberParseException:
        return None
    valid = phonenumbers.is_valid_number(number)
    if not (valid or (number.country_code == 1 and phonenumbers.is_possible_number(number))):
        return None
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)


def _phones(text: str, region: str):
    import phonenumbers

    matcher = phonenumbers.PhoneNumberMatcher(text, region.upper(), leniency=phonenumbers.Leniency.POSSIBLE)
    for match in matcher:
        raw = match.raw_string
        valid = phonenumbers.is_valid_number(match.number)
        nanp = match.number.country_code == 1
        if _looks_like_phone(text, match.start, raw, valid, nanp):
            e164 = phonenumbers.format_number(match.number, phonenumbers.PhoneNumberFormat.E164)
            yield Entity("phone", raw, e164, match.start, match.end)


def _looks_like_phone(text: str, start: int, raw: str, valid: bool, nanp: bool) -> bool:
    """Reject dates, time ranges, versions, page ranges and unannounced digit runs."""
    if _DATE.match(raw) or _TIME_RANGE.match(raw) or _VERSION.match(raw) or _RANGE.match(raw):
        return False
    end = start + len(raw)
    if (start > 0 and (text[start - 1].isalnum() or text[start - 1] in "-_/.")) or (
        end < len(text) and (text[end].isalnum() or text[end] in "-_/")
    ):
        return False  # part of a longer token: "LH-AX18-0042731", "ISBN978..."
    before = text[max(0, start - 40) : start]
    if _NOT_PHONE_BEFORE.search(before) or re.search(r"[\d./]$", before):
        return False
    if re.fullmatch(r"\d+", raw):  # no separators at all: order numbers, serials, amounts
        announced = bool(_PHONE_WORDS.search(before)) or before.rstrip().endswith(":")
        return valid and announced
    if valid:
        return True
    # possible but not valid: only the fictional North American 555 style, "(555) 123-4567"
    return nanp and bool(_NANP_LIKE.match(raw))


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
