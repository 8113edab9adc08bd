"""Entities in text: phone numbers, e-mail addresses and URLs, found and normalised.

Factoid questions are built on these, and the filter stage back-checks factoids with
them, so the same text always gives the same entities.

- Phone numbers are matched and normalised to E.164 with ``phonenumbers``; dates, times,
  version numbers, page ranges, postcodes, decimals, runs of table numbers and bare digit
  runs (order or serial numbers) are not phone numbers.
- E-mail addresses must pass ``email-validator`` (syntax only, nothing is looked up) and
  their domain must be registrable under a known public suffix.
- Web addresses (``http``, ``https``, ``ftp`` or ``www.``) are judged with the public suffix
  list (``publicsuffixlist``, bundled, no network): a host needs a registrable domain under a
  known suffix ("bugs.debian.org", not "bugs.debian" or "a.se"); an IP address is accepted
  only after a scheme. An address without scheme or ``www.`` ("ctan.org/pkg/url") must also
  be lower-case ASCII under a common suffix (:data:`_BARE_TLDS`) and is refused when it looks
  like a file name ("splitindex.pl", "psfonts.map") or a code token ("xpart ndb3.se",
  "table.frame.border.style"). An address broken across a line break is joined when the
  continuation clearly belongs to it ("http://www.ams." + "org/tex/", ".../questions/" +
  "96680#284787"), and trailing punctuation is dropped.

Nothing is taken from lines that are code or markup (:func:`qagen.ingest.kinds.is_code_line`):
an address inside ``\\url{...}`` in a sentence counts, a line of code does not.

:func:`entity_distractors` picks wrong options for a multiple-choice question about an
entity: whole values of the same kind, never fragments of the right one.
"""

from __future__ import annotations

import functools
import ipaddress
import itertools
import random
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from qagen.ingest.kinds import is_code_line

if TYPE_CHECKING:
    from qagen.config import GenerateConfig

ENTITY_KINDS = ("phone", "email", "url")

# --- patterns ---------------------------------------------------------------------------

_LABEL = r"[^\W_](?:[\w-]{0,61}[^\W_])?"
_TLD = r"[^\W\d_]{2,63}"
_URL_CHARS = r"[^\s<>\"'`|{}\\^]"
_EMAIL = re.compile(
    rf"(?<![\w.+$%=/&#:-])[A-Za-z0-9][A-Za-z0-9._%+-]{{0,63}}@(?:{_LABEL}\.)+{_TLD}(?![\w-]|\.[^\W_]|:\w)"
)
# http(s)/ftp with scheme, or starting with "www."; not inside a longer token ("proxy=http://...")
_URL_SCHEME = re.compile(
    rf"(?:(?<![^\W\d_])(?<![@=/\\.+_-])(?:https?|ftp)://|(?<![\w@=/\\.+-])www\.){_URL_CHARS}*", re.IGNORECASE
)
# a bare host, with an optional path: "ctan.org/pkg/url", "ftp.dante.de"
_URL_BARE = re.compile(rf"(?<![\w@./\\:#$%&=~+-])(?:{_LABEL}\.)+{_TLD}(?:/{_URL_CHARS}*)?(?![\w@(-])")
_TRAILING = ".,;:!?'\"”’»"
# Top-level domains that are also common file extensions: "splitindex.pl", "auxhook.tds.zip",
# "psfonts.map" are files, so a bare host with no path under one of these is not an address.
_FILE_SUFFIX_NAMES = "ac am app cc gf ly map md mk ml mo mov mp ms pk pl pm pro ps py rs sh so tf zip"
_FILE_SUFFIXES = frozenset(_FILE_SUFFIX_NAMES.split())
# Top-level domains accepted without scheme or "www." (the suffix must still be a known one):
# generic ones and country codes that are widely used for web hosts. Dotted names in code
# and settings end in other suffixes far more often than hosts do: "table.frame.border.style",
# "xref.properties", "is.na", "footer.hr", "profile.nc", "object.id".
_BARE_TLD_NAMES = (
    "com org net edu gov mil info biz eu io nl be de fr uk us ca au ch at es it dk se fi ie pl pt lu nz no "
    "cz sk hu gr ru jp cn br mx za il kr tw hk sg ro bg si ee lv lt tr ua co tv"
)
_BARE_TLDS = frozenset(_BARE_TLD_NAMES.split())
# Words of METAFONT and MetaPost that put a variable with a dotted suffix after them ("xpart ndb3.se").
_CODE_WORDS = re.compile(
    r"\b(?:xpart|ypart|xxpart|xypart|yxpart|yypart|penpos|shifted|rotated|scaled|slanted|xscaled|yscaled|"
    r"zscaled|transformed|reflectedabout|rotatedaround|precontrol|postcontrol|directionpoint|cutbefore|"
    r"cutafter|intersectionpoint|intersectiontimes|dotlabel|drawarrow|drawdblarrow|filldraw|unfill|pickup)\s*$"
)
_WEB_EXTENSIONS = re.compile(r"^(?:html?|php|aspx?|jsp|cgi|pdf|txt|xml|json|gz|zip|tar|ps|tex|md)(?![\w])")
_NOT_EMAIL_BEFORE = re.compile(r"(?:message-id|msg-id|news|references|in-reply-to)\s*:?\s*<?\s*$", re.IGNORECASE)

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


@dataclass(frozen=True)
class Entity:
    """One entity occurrence: ``text`` as found at ``start:end``, and its normalised form.

    ``normalized`` is E.164 for phones (``+31207943120``), the lower-cased address for
    e-mails, and a comparison key for URLs (lower-case host without scheme or ``www.``,
    path, query and fragment kept, no trailing slash: ``lindenhof.example.org/parking``).

    ``text == source[start:end]``, except for a URL broken across a line break: its ``text``
    is the address joined back together ("http://www.ams.org/tex/"), while ``start:end``
    spans the break.
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
        URLs inside them, URLs over the digits inside them. Nothing on a code line.
    """
    _check_kinds(kinds)
    code = _CodeLines(text)
    found: list[Entity] = []
    taken: list[tuple[int, int]] = []
    if "email" in kinds or "url" in kinds:
        emails = list(_emails(text))
        taken += [(e.start, e.end) for e in emails]
        if "email" in kinds:
            found += emails
    if "url" in kinds or "phone" in kinds:
        urls = [u for u in _urls(text, code) if not _overlaps(u.start, u.end, taken)]
        taken += [(u.start, u.end) for u in urls]
        if "url" in kinds:
            found += urls
    if "phone" in kinds:
        found += [p for p in _phones(text, region) if not _overlaps(p.start, p.end, taken)]
    found = [e for e in found if not code.at(e.start)]
    return sorted(found, key=lambda e: (e.start, e.end))


def normalize_entity(kind: str, text: str, region: str) -> str | None:
    """The normalised form of one entity written as ``text``; None when it is not one.

    ``normalize_entity("phone", "020-7943120", "NL") == "+31207943120"``;
    ``normalize_entity("url", "https://bugs.debian", "NL") is None`` (no known suffix).
    """
    _check_kinds([kind])
    text = text.strip()
    if not text:
        return None
    if kind == "phone":
        return _normalize_phone(text, region)
    if kind == "email":
        return _normalize_email(text.removeprefix("mailto:"))
    raw = _trim_url(text)
    if raw != text.rstrip(_TRAILING):
        return None
    return _url_key(raw, bare=not _URL_SCHEME.match(raw))


def registrable_domain(host: str) -> str | None:
    """The domain a host belongs to under a known public suffix, or None.

    ``registrable_domain("bugs.debian.org") == "debian.org"``; ``"bugs.debian"`` (unknown
    suffix), ``"a.se"`` (itself a public suffix) and ``"localhost"`` give None.
    """
    host = host.lower().rstrip(".")
    labels = host.split(".")
    if len(labels) < 2 or not all(re.fullmatch(_LABEL, label) for label in labels):
        return None
    if not re.fullmatch(_TLD, labels[-1]):
        return None
    return _psl().privatesuffix(host)


# --- shared parts ------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _psl():
    from publicsuffixlist import PublicSuffixList

    # unknown suffixes ("bugs.debian", "ndb3.intern") are not public: only listed ones count
    return PublicSuffixList(accept_unknown=False)


def _check_kinds(kinds: list[str] | tuple[str, ...]) -> None:
    unknown = [k for k in kinds if k not in ENTITY_KINDS]
    if unknown:
        raise ValueError(f"entity kinds must be among {list(ENTITY_KINDS)}; got {unknown}")


def _overlaps(start: int, end: int, spans: list[tuple[int, int]]) -> bool:
    return any(start < e and s < end for s, e in spans)


class _CodeLines:
    """Whether the line holding a position of ``text`` is code or markup, judged once per line."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._known: dict[int, bool] = {}

    def at(self, pos: int) -> bool:
        start = self.text.rfind("\n", 0, pos) + 1
        if start not in self._known:
            end = self.text.find("\n", pos)
            self._known[start] = _is_code(self.text[start : end if end >= 0 else len(self.text)])
        return self._known[start]


_ADDRESS_LIKE = re.compile(rf"{_EMAIL.pattern}|{_URL_SCHEME.pattern}|{_URL_BARE.pattern}", re.IGNORECASE)


def _is_code(line: str) -> bool:
    """:func:`is_code_line` with each address taken as a word, so that "?pr=latex/2346" or
    "Squid_LDAP_Authentication" in a URL, ``<...>`` around an e-mail address or a leading
    footnote mark does not make a line of references or contacts code."""
    masked = _ADDRESS_LIKE.sub("address", line)
    masked = re.sub(r"<\s*address\s*>", "address", masked)
    masked = re.sub(r"^\s*[∗†‡§¶]+", "", masked)  # a footnote mark: "∗E-mail: ..."
    return is_code_line(masked)


def _line_before(text: str, start: int) -> str:
    return text[text.rfind("\n", 0, start) + 1 : start]


# --- e-mail addresses -------------------------------------------------------------------


def _emails(text: str):
    for m in _EMAIL.finditer(text):
        raw, start = m.group(0).rstrip("."), m.start()
        if _NOT_EMAIL_BEFORE.search(_line_before(text, start)[-40:]):
            continue  # a Usenet message id: "Message-ID: <a84us0$plqcm$7@ID-30533.news.dfncis.de>"
        marker = re.match(r"\d{1,2}(?=[A-Za-z])", raw)
        if marker and not _line_before(text, start).strip() and not text[m.end() :].split("\n", 1)[0].strip(" ."):
            raw, start = raw[marker.end() :], start + marker.end()  # a footnote: "1mail@example.org"
        norm = _normalize_email(raw)
        if norm:
            yield Entity("email", raw, norm, start, start + len(raw))


def _normalize_email(raw: str) -> str | None:
    from email_validator import EmailNotValidError, validate_email

    if not _EMAIL.fullmatch(raw):
        return None
    try:
        checked = validate_email(raw, check_deliverability=False)
    except EmailNotValidError:
        return None
    if registrable_domain(checked.domain) is None:
        return None  # "pallas@edu.stanford.neon", "jdoe@postoffice.intern"
    return raw.lower()


# --- web addresses ------------------------------------------------------------------------


def _urls(text: str, code: _CodeLines):
    spans: list[tuple[int, int]] = []
    for pattern, bare in ((_URL_SCHEME, False), (_URL_BARE, True)):
        for m in pattern.finditer(text):
            if _overlaps(m.start(), m.end(), spans) or code.at(m.start()):
                continue
            joined, end = _join_breaks(text, m.group(0), m.end())
            raw = _trim_url(joined)
            end -= len(joined) - len(raw)
            if not raw or end <= m.start():
                continue
            if bare and _code_token(text, m.start(), end):
                continue
            norm = _url_key(raw, bare)
            if norm:
                spans.append((m.start(), end))
                yield Entity("url", raw, norm, m.start(), end)


_CONTINUATION = re.compile(rf"[ \t]*\n?[ \t]*({_URL_CHARS}+)")


def _join_breaks(text: str, raw: str, end: int) -> tuple[str, int]:
    """``raw`` (ending at ``end``) with its continuations after line breaks; the new end."""
    for _ in range(4):
        m = _CONTINUATION.match(text, end)
        if not m or m.start(1) == end:
            break
        piece = m.group(1)
        joined = _continues(raw, piece, "\n" in text[end : m.start(1)])
        if joined is None:
            break
        line_end = text.find("\n", m.start(1))
        rest = text[m.start(1) : line_end if line_end >= 0 else len(text)]
        if _is_code(rest.replace(piece, "address", 1)):
            break  # the next line is code: "draw ..." after "ndb3."
        raw, end = joined, m.end(1)
    return raw, end


def _continues(raw: str, piece: str, newline: bool) -> str | None:
    """``raw`` joined with ``piece`` (the next word after a break) if it clearly continues it.

    ``newline`` tells a line break from a space; a space may be a line break the parser
    joined, but also just a space, so words after one need stronger signs of a path.
    """
    if not re.match(r"[^\W_]|[~#%]", piece) or "://" in piece or piece.endswith(":"):
        return None  # not a path, another address ("8https://..."), a label ("Upstream-Name:")
    if raw.endswith("://"):
        return raw + piece  # "https://" + "tex.stackexchange.com/..."
    body = re.sub(r"^(?:(?:https?|ftp)://)", "", raw, flags=re.IGNORECASE)
    word = piece.rstrip(_TRAILING + ")]}")
    if raw.endswith("."):
        if "/" not in body:  # inside the host: "http://www.ams." + "org/tex/"
            before, after = _host(raw[:-1]), _host(raw + piece)
            if before and registrable_domain(before):
                return None  # "see https://example.org. It ..." ends a sentence
            return raw + piece if after and registrable_domain(after) else None
        return raw + piece if _WEB_EXTENSIONS.match(piece) else None  # "texidate." + "html"
    if raw.endswith("/-"):
        return raw[:-1] + piece  # a hyphen added where the line broke: "wiki.debian.org/-" "Unattended..."
    if raw[-1] in "-_=&?#~%":
        return raw + piece if newline or not re.fullmatch(r"[^\W\d_]+", word) else None
    if raw.endswith("/"):
        if re.match(r"\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}\b", word):
            return None  # a date on the next line: "http://wspr.io/fontspec/" "2022/01/15 v2.8a"
        pathy = re.search(r"[/#?=&_~%]|[\w-]{2,}\.[a-z0-9]{2,5}\b", word)
        # after a line break, a hyphenated or CamelCase word is a page name: "Help/" "ProfessionalHelp"
        named = newline and re.search(r"[a-z][A-Z]|\w-\w", word)
        return raw + piece if pathy or named else None
    return None


def _host(raw: str) -> str | None:
    candidate = raw if re.match(r"^[a-z][a-z0-9+.-]*://", raw, re.IGNORECASE) else f"http://{raw}"
    try:
        return urlsplit(candidate).hostname
    except ValueError:
        return None


def _trim_url(raw: str) -> str:
    """Drop sentence punctuation and unbalanced closing brackets from the end of a URL."""
    while raw:
        closing = raw[-1] in ")]}" and raw.count("([{"[")]}".index(raw[-1])]) < raw.count(raw[-1])
        if raw[-1] not in _TRAILING and not closing:
            break
        raw = raw[:-1]
    return raw


def _code_token(text: str, start: int, end: int) -> bool:
    """A bare ``name.tld`` that is a code token: "xpart ndb3.se", "x = ndb3.se", "f(ndb3.se)"."""
    before = _line_before(text, start)
    after = text[end : end + 4]
    return bool(
        _CODE_WORDS.search(before) or re.search(r"(?:\S\s*[=+*]|\w\()\s*$", before) or re.match(r"\s*:?=", after)
    )


def _url_key(raw: str, bare: bool) -> str | None:
    """The comparison key of a URL, or None when it is not a usable web address."""
    candidate = raw if re.match(r"^[a-z][a-z0-9+.-]*://", raw, re.IGNORECASE) else f"http://{raw}"
    try:
        parts = urlsplit(candidate)
        host = (parts.hostname or "").lower().rstrip(".")
        port = parts.port
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https", "ftp") or parts.username or parts.password:
        return None
    if _is_ip(host):
        if bare or raw.lower().startswith("www."):
            return None
    elif registrable_domain(host) is None:
        return None  # "https://bugs.debian", "https://www.intern", "a.se"
    elif bare:
        written = raw.split("/", 1)[0]
        name = registrable_domain(host).split(".", 1)[0]
        named = re.fullmatch(r"[A-Za-z][A-Za-z0-9-]{2,}\.(?:com|org|net)", written)  # "Python.org", "arXiv.org"
        if not (re.fullmatch(r"[a-z0-9.-]+", written) or named) or written.count(".") > 5:
            return None  # plain lower-case ASCII: not "end.Next", "zjP.bm", "a.b.c.d.e.f.info" (glued words)
        if len(name) < 3 or host.rsplit(".", 1)[-1] not in _BARE_TLDS:
            return None  # a name of 3 or more and a common suffix: not "is.na", "footer.hr", "xref.properties"
        if not parts.path.strip("/") and host.rsplit(".", 1)[-1] in _FILE_SUFFIXES:
            return None  # a file name: "splitindex.pl", "auxhook.tds.zip", "psfonts.map"
    host = host.removeprefix("www.")
    if port not in (None, 80, 443):
        host = f"{host}:{port}"
    path = parts.path.replace("∼", "~").rstrip("/")
    query = f"?{parts.query}" if parts.query else ""
    fragment = f"#{parts.fragment}" if parts.fragment else ""
    return f"{host}{path}{query}{fragment}"


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


# --- phone numbers ------------------------------------------------------------------------


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


# --- distractors --------------------------------------------------------------------------


def entity_key(kind: str, text: str, region: str | None = None) -> str | None:
    """The normalised form of a whole entity, for comparing options; None when ``text`` is none.

    Like :func:`normalize_entity`, but a phone number in national format with no ``region``
    is keyed by its digits.
    """
    if kind != "phone" or region:
        return normalize_entity(kind, text, region or "US")
    text = text.strip()
    if text.startswith("+"):
        return _normalize_phone(text, "ZZ")
    digits = re.sub(r"\D", "", text)
    if re.fullmatch(r"[\d\s().\-/]+", text) and 6 <= len(digits) <= 15:
        return digits
    return None


def usable_distractor(value: str, candidate: str, kind: str, region: str | None = None) -> bool:
    """Whether ``candidate`` can be a wrong option for a question whose answer is ``value``.

    It must be a whole, valid entity of ``kind`` (not "https://bugs.debian" or "a.se"),
    differ from ``value`` after normalisation, and be neither a part nor an extension of it
    ("https://bugs.debian.org" for "https://bugs.debian.org/123").
    """
    if kind not in ENTITY_KINDS:
        return bool(candidate.strip()) and candidate.strip().lower() != value.strip().lower()
    mine, theirs = entity_key(kind, value, region), entity_key(kind, candidate, region)
    if theirs is None or theirs == mine:
        return False
    a, b = value.strip().lower(), candidate.strip().lower()
    if a in b or b in a:
        return False
    if mine is None:
        return True
    if kind == "phone":
        da, db = re.sub(r"\D", "", mine), re.sub(r"\D", "", theirs)
        return not (da.endswith(db) or db.endswith(da))
    return not (mine.startswith(theirs) or theirs.startswith(mine))


def entity_distractors(
    value: str,
    kind: str,
    pool: Sequence[str],
    rng: random.Random,
    n: int = 3,
    *,
    region: str | None = None,
    variants: bool = True,
) -> list[str]:
    """Up to ``n`` wrong options for a question whose answer is the entity ``value``.

    Whole values of the same kind from ``pool`` come first (those alike first: the same
    country code, e-mail domain or web host), then, when ``variants`` is set and the pool
    runs out, well-formed variants of ``value``: a phone number with other final digits that
    is still valid for its region, another web path or top-level domain, another mailbox.
    Never a fragment or an extension of ``value``, never two options equal after
    normalisation. ``region`` is the region of phone numbers written without country code.
    """
    if kind not in ENTITY_KINDS:
        raise ValueError(f"entity kinds must be among {list(ENTITY_KINDS)}; got {kind!r}")
    chosen: list[str] = []
    keys = {entity_key(kind, value, region)} - {None}

    def take(options: Iterable[str]) -> None:
        for option in options:
            if len(chosen) == n:
                return
            key = entity_key(kind, option, region)
            if key in keys or not usable_distractor(value, option, kind, region):
                continue
            if any(not usable_distractor(other, option, kind, region) for other in chosen):
                continue
            chosen.append(option.strip())
            keys.add(key)

    candidates = sorted({p.strip() for p in pool if p and p.strip()})
    shape = _shape(kind, value)
    alike = [c for c in candidates if _shape(kind, c) == shape]
    rest = [c for c in candidates if _shape(kind, c) != shape]
    rng.shuffle(alike)
    rng.shuffle(rest)
    take(alike)
    take(rest)
    if variants and len(chosen) < n:
        take(_variants(value, kind, candidates, rng, region))
    return chosen


def _shape(kind: str, text: str) -> str:
    low = text.strip().lower()
    if kind == "phone":
        m = re.match(r"\+\d{1,3}", low)
        return m.group(0) if m else "national"
    if kind == "email":
        return low.rsplit("@", 1)[-1]
    return re.sub(r"^(?:(?:https?|ftp)://)?(?:www\.)?", "", low).split("/", 1)[0]


_MAILBOXES = ("info", "support", "contact", "help", "office", "service", "admin", "webmaster", "team")
_SWAP_TLDS = ("org", "com", "net")


def _variants(value: str, kind: str, pool: list[str], rng: random.Random, region: str | None) -> list[str]:
    if kind == "phone":
        return _phone_variants(value, rng, region)
    if kind == "email":
        local, _, domain = value.strip().rpartition("@")
        out = [f"{box}@{domain}" for box in _MAILBOXES if box != local.lower()]
        rng.shuffle(out)
        return out + [f"{local}@{d}" for d in _other_tlds(domain)]
    return _url_variants(value.strip(), pool, rng)


def _other_tlds(host: str) -> list[str]:
    """``host`` with another generic top-level domain: "example.org" -> "example.com"."""
    name, _, tld = host.rpartition(".")
    if not name or tld.lower() not in _SWAP_TLDS:
        return []
    return [f"{name}.{t}" for t in _SWAP_TLDS if t != tld.lower()]


def _url_variants(value: str, pool: list[str], rng: random.Random) -> list[str]:
    m = re.match(r"^((?:(?:https?|ftp)://)?)([^/?#]+)(.*)$", value, re.IGNORECASE)
    if not m:
        return []
    scheme, host, rest = m.groups()
    out: list[str] = []
    digits = list(re.finditer(r"\d+", rest))
    if digits:  # "https://tex.stackexchange.com/q/624940" -> ".../q/624317"
        d = digits[-1]
        for _ in range(4):
            new = _other_digits(d.group(0), rng)
            out.append(f"{scheme}{host}{rest[: d.start()]}{new}{rest[d.end() :]}")
    segment = re.search(r"/([^/?#]+)/?$", rest)
    if segment:  # the last path segment of another address in the pool
        others = sorted({s for p in pool for s in re.findall(r"/([A-Za-z][\w.-]{2,})/?$", p)} - {segment.group(1)})
        rng.shuffle(others)
        out += [f"{scheme}{host}{rest[: segment.start(1)]}{s}{rest[segment.end(1) :]}" for s in others[:6]]
    out += [f"{scheme}{h}{rest}" for h in _other_tlds(host)]
    return out


def _other_digits(digits: str, rng: random.Random) -> str:
    """A digit string of the same length, changed in its last digits (leading digit kept)."""
    keep = max(1, len(digits) - 3) if len(digits) > 1 else 0
    tail = "".join(rng.choice("0123456789") for _ in range(len(digits) - keep))
    return digits[:keep] + tail


def _phone_variants(value: str, rng: random.Random, region: str | None) -> list[str]:
    """``value`` with other final digits, written the same way, still a valid number."""
    import phonenumbers

    text = value.strip()
    parse_region = "ZZ" if text.startswith("+") else (region or "").upper()
    if not parse_region:
        return []
    positions = [i for i, c in enumerate(text) if c.isdigit()]
    if len(positions) < 6:
        return []
    out: list[str] = []
    for _ in range(60):
        chars = list(text)
        for i in positions[-4:]:
            chars[i] = rng.choice("0123456789")
        variant = "".join(chars)
        try:
            number = phonenumbers.parse(variant, parse_region)
        except phonenumbers.NumberParseException:
            continue
        if phonenumbers.is_valid_number(number) and variant not in out:
            out.append(variant)
        if len(out) == 6:
            break
    return out
