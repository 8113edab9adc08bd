"""Finding and normalising entities of any kind in a text."""

from __future__ import annotations

import re
from collections.abc import Iterable

from qagen.entities.addresses import (
    TRAILING,
    URL_SCHEME,
    CodeLines,
    find_emails,
    find_urls,
    normalize_email,
    trim_url,
    url_key,
)
from qagen.entities.base import Entity, check_kinds, overlaps
from qagen.entities.phones import find_phones, normalize_phone


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
    check_kinds(kinds)
    code = CodeLines(text)
    found: list[Entity] = []
    taken: list[tuple[int, int]] = []
    if "email" in kinds or "url" in kinds:
        emails = list(find_emails(text))
        taken += [(e.start, e.end) for e in emails]
        if "email" in kinds:
            found += emails
    if "url" in kinds or "phone" in kinds:
        urls = [u for u in find_urls(text, code) if not overlaps(u.start, u.end, taken)]
        taken += [(u.start, u.end) for u in urls]
        if "url" in kinds:
            found += urls
    if "phone" in kinds:
        found += [p for p in find_phones(text, region) if not overlaps(p.start, p.end, taken)]
    found = [e for e in found if not code.at(e.start)]
    return sorted(found, key=lambda e: (e.start, e.end))


def normalize_entity(kind: str, text: str, region: str) -> str | None:
    """The normalised form of one entity written as ``text``; None when it is not one.

    ``normalize_entity("phone", "020-7943120", "NL") == "+31207943120"``;
    ``normalize_entity("url", "https://bugs.debian", "NL") is None`` (no known suffix).
    """
    check_kinds([kind])
    text = text.strip()
    if not text:
        return None
    if kind == "phone":
        return normalize_phone(text, region)
    if kind == "email":
        return normalize_email(text.removeprefix("mailto:"))
    raw = trim_url(text)
    if raw != text.rstrip(TRAILING):
        return None
    return url_key(raw, bare=not URL_SCHEME.match(raw))


# A footnote or a reference: a line opening with a footnote mark or number ("* email: ...", "23 See ...",
# "[4] Lamport, ...") rather than a sentence or a contact line.
_NOTE_LINE = re.compile(r"^\s*(?:[∗*†‡§]+|\[\d{1,3}\]|\d{1,3}(?=\s+[^\W\d]))")


def incidental(text: str, entity: Entity, example_markers: Iterable[str] = ()) -> str | None:
    """Why ``entity`` (found in ``text``) is no one's contact a user would ask for, or None when it may be.

    A value a marker of the language calls an example ("e.g.", "z. B.", "bijv.") or one on a footnote or
    reference line ("* email: ...", "23 http://...", "[4] ..."). (A domain reserved for examples is no sign:
    made-up organisations in guides and test documents use example.org for their real contacts.)
    """
    before = text[max(0, entity.start - 40) : entity.start].casefold()
    if any(m.casefold() in before for m in example_markers if m):
        return "an example value"
    end = text.find("\n", entity.start)
    line = text[text.rfind("\n", 0, entity.start) + 1 : end if end >= 0 else len(text)]
    if _NOTE_LINE.match(line):
        return "a footnote or reference"
    return None
