"""E-mail addresses and web addresses: found, checked against the public suffix list, normalised."""

from __future__ import annotations

import functools
import ipaddress
import re
from urllib.parse import urlsplit

from qagen.entities.base import Entity, line_before, overlaps
from qagen.ingest.kinds import is_code_line

_LABEL = r"[^\W_](?:[\w-]{0,61}[^\W_])?"
_TLD = r"[^\W\d_]{2,63}"
_URL_CHARS = r"[^\s<>\"'`|{}\\^]"
_EMAIL = re.compile(
    rf"(?<![\w.+$%=/&#:-])[A-Za-z0-9][A-Za-z0-9._%+-]{{0,63}}@(?:{_LABEL}\.)+{_TLD}(?![\w-]|\.[^\W_]|:\w)"
)
# http(s)/ftp with scheme, or starting with "www."; not inside a longer token ("proxy=http://...")
URL_SCHEME = re.compile(
    rf"(?:(?<![^\W\d_])(?<![@=/\\.+_-])(?:https?|ftp)://|(?<![\w@=/\\.+-])www\.){_URL_CHARS}*", re.IGNORECASE
)
# a bare host, with an optional path: "ctan.org/pkg/url", "ftp.dante.de"
_URL_BARE = re.compile(rf"(?<![\w@./\\:#$%&=~+-])(?:{_LABEL}\.)+{_TLD}(?:/{_URL_CHARS}*)?(?![\w@(-])")
TRAILING = ".,;:!?'\"”’»"
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


@functools.lru_cache(maxsize=1)
def _psl():
    from publicsuffixlist import PublicSuffixList

    # unknown suffixes ("bugs.debian", "ndb3.intern") are not public: only listed ones count
    return PublicSuffixList(accept_unknown=False)


class CodeLines:
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


_ADDRESS_LIKE = re.compile(rf"{_EMAIL.pattern}|{URL_SCHEME.pattern}|{_URL_BARE.pattern}", re.IGNORECASE)


def _is_code(line: str) -> bool:
    """:func:`is_code_line` with each address taken as a word, so that "?pr=latex/2346" or
    "Squid_LDAP_Authentication" in a URL, ``<...>`` around an e-mail address or a leading
    footnote mark does not make a line of references or contacts code."""
    masked = _ADDRESS_LIKE.sub("address", line)
    masked = re.sub(r"<\s*address\s*>", "address", masked)
    masked = re.sub(r"^\s*[∗†‡§¶]+", "", masked)  # a footnote mark: "∗E-mail: ..."
    return is_code_line(masked)


# --- e-mail addresses -------------------------------------------------------------------


def find_emails(text: str):
    for m in _EMAIL.finditer(text):
        raw, start = m.group(0).rstrip("."), m.start()
        if _NOT_EMAIL_BEFORE.search(line_before(text, start)[-40:]):
            continue  # a Usenet message id: "Message-ID: <a84us0$plqcm$7@ID-30533.news.dfncis.de>"
        marker = re.match(r"\d{1,2}(?=[A-Za-z])", raw)
        if marker and not line_before(text, start).strip() and not text[m.end() :].split("\n", 1)[0].strip(" ."):
            raw, start = raw[marker.end() :], start + marker.end()  # a footnote: "1mail@example.org"
        norm = normalize_email(raw)
        if norm:
            yield Entity("email", raw, norm, start, start + len(raw))


def normalize_email(raw: str) -> str | None:
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


def find_urls(text: str, code: CodeLines):
    spans: list[tuple[int, int]] = []
    for pattern, bare in ((URL_SCHEME, False), (_URL_BARE, True)):
        for m in pattern.finditer(text):
            if overlaps(m.start(), m.end(), spans) or code.at(m.start()):
                continue
            joined, end = _join_breaks(text, m.group(0), m.end())
            raw = trim_url(joined)
            end -= len(joined) - len(raw)
            if not raw or end <= m.start():
                continue
            if bare and _code_token(text, m.start(), end):
                continue
            norm = url_key(raw, bare)
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
    word = piece.rstrip(TRAILING + ")]}")
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


def trim_url(raw: str) -> str:
    """Drop sentence punctuation and unbalanced closing brackets from the end of a URL."""
    while raw:
        closing = raw[-1] in ")]}" and raw.count("([{"[")]}".index(raw[-1])]) < raw.count(raw[-1])
        if raw[-1] not in TRAILING and not closing:
            break
        raw = raw[:-1]
    return raw


def _code_token(text: str, start: int, end: int) -> bool:
    """A bare ``name.tld`` that is a code token: "xpart ndb3.se", "x = ndb3.se", "f(ndb3.se)"."""
    before = line_before(text, start)
    after = text[end : end + 4]
    return bool(
        _CODE_WORDS.search(before) or re.search(r"(?:\S\s*[=+*]|\w\()\s*$", before) or re.match(r"\s*:?=", after)
    )


def url_key(raw: str, bare: bool) -> str | None:
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
