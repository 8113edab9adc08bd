"""What a contact entity belongs to, read from its surroundings: a line's label, a verb's object, a place.

:func:`contact_label` reads the label of a contact line ("Appointments desk: +31 20 794 3120"), the
object of a verb ("call the Delivery Suite on ..."), or a place ("Belgium: +32 2 588 4410");
:func:`contact_topic` falls back to the section heading or the document's subject.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from qagen.entities import Entity
from qagen.generate.factoid_words import (
    contact_headings,
    lower_first,
    the,
    to_first_person,
    topic_heading,
)
from qagen.generate.lang import compiled, every, patterns
from qagen.generate.subjects import clean_heading, document_subject, namelike
from qagen.generate.text import clean_line, fields, join_wrapped, last_heading, split_sentences

_I = re.IGNORECASE


# The words of labels are the languages' (contacts.json of qagen/generate/lang/<code>/), read together.
def _words(key: str, frame: str = r"\b(?:{})\b", flags: int = _I) -> re.Pattern[str]:
    return compiled("contacts", key, frame, flags)


def role_words() -> re.Pattern[str]:
    """A word that names a role or a desk ("helpdesk", "team", "pharmacy")."""
    return _words("role_words")


def action() -> tuple[re.Pattern[str], ...]:
    """What a web address lets one do ("register ... at"), its group 1."""
    return patterns("contacts", "action", _I)


def _clean_label(label: str) -> str | None:
    """A label cut before trailing qualifiers ("the IT helpdesk within one hour"); None if it is not a name."""
    label = _words("label_cut", r"\s+(?:{})\b.*$").sub("", label.strip()).strip(" ,;:-")
    if not label or len(label.split()) > 6 or _words("label_end", r"\b(?:{})$").search(label):
        return None
    if _words("label_verbs").search(label):
        return None
    if _words("bad_label_words").search(label) or _words("generic_labels", "^(?:{})$").match(label):
        return None
    return label


@dataclass(frozen=True)
class EntityQuestion:
    question: str
    answer: str
    score: float


def entity_context(text: str, entity: Entity) -> tuple[str, str]:
    """The logical line holding the entity and the sentence (within it) that does."""
    for line in join_wrapped(text):
        if entity.text in line:
            line = next((f for f in fields(clean_line(line)) if entity.text in f), clean_line(line))
            for sentence in split_sentences(line):
                if entity.text in sentence:
                    return line, sentence
            return line, line
    return entity.text, entity.text


def _line_label(line_prefix: str, others: list[Entity]) -> str | None:
    """The label before an entity on a contact line or table row ("Appointments desk:")."""
    if "|" in line_prefix:  # a table row: the first cell names the row ("People team | +31 ...")
        line_prefix = line_prefix.split("|")[0]
    rest = line_prefix
    for other in others:
        rest = rest.replace(other.text, " ")
    rest = re.sub(r"\s*\([^)]*\)", "", rest)
    rest = re.sub(r"[\s,;]+$", "", re.sub(r"\s+", " ", rest)).strip()
    colon = re.match(r"^(.{2,50}?)\s*[:–-]$", rest)
    label = colon.group(1) if colon else rest
    plain = re.fullmatch(r"[\w'’ &-]{2,40}", label) is not None
    if not label or not plain or len(label.split()) > 5 or _words("bad_label_words").search(label):
        return None
    if any(p.match(label) for p in patterns("contacts", "sentence_tail")):
        return None  # "on ctan as pgf:": the tail of a sentence, not a label
    if not colon and any(p.search(label) for p in patterns("contacts", "unlabelled_end", _I)):
        return None
    if _words("not_place").search(label) and not role_words().search(label):
        return None
    return label


def contact_label(
    prefix: str, line_prefix: str, after: str, others: list[Entity], kind: str = ""
) -> tuple[str, str] | None:
    """(mode, label): "role" for a desk or person, "place" for a country or city; None if unknown.

    For a web address, only a label that is the subject of its clause names what the address is:
    in "the documentation of the library is available at URL" the URL is not the library's.
    """
    label = _line_label(line_prefix, others)
    if label is None:
        # a phrase that is the complement of another word ("documentation of the library", "on the Debian web
        # mirrors at"): the address is for that other thing, not for the phrase (a verb's object, the first
        # two patterns, is not one)
        complement = patterns("contacts", "complement", _I)
        for k, pattern in enumerate(patterns("contacts", "object_patterns")):
            m = pattern.search(prefix)
            cleaned = _clean_label(m.group(1)) if m else None
            if cleaned and kind == "url" and k >= 2 and any(c.search(prefix[: m.start(1)]) for c in complement):
                continue
            if cleaned:
                return "role", cleaned
        place = re.match(r"^\s*\(([A-Z][\w ]{1,30}?)[,)]", after)
        if place and not _words("not_place").search(place.group(1)):
            return "place", place.group(1)
        anywhere = [f for p in patterns("contacts", "anywhere") for f in p.findall(prefix)]
        found = [c for c in map(_clean_label, anywhere) if c]
        return ("role", found[-1]) if found else None
    if _words("generic_labels", "^(?:{})$").match(label):
        return None
    words = label.split()
    minor = every("contacts", "title_words")
    if not role_words().search(label) and all(w[:1].isupper() or w in minor for w in words):
        return "place", label
    return "role", label


def contact_topic(heading: str, title: str) -> str | None:
    """What the section is about, for a question that names no owner of the entity; None if the heading is no topic."""
    heading = clean_heading(last_heading(heading)).rstrip(".:")
    if heading and not topic_heading(heading):
        return None
    question_like = any(p.match(heading) for p in patterns("contacts", "question_opening", _I))
    no_topic = every("contacts", "no_topic")[:1] or ("",)
    if not heading or heading.endswith("?") or question_like or contact_headings().match(heading):
        return document_subject(title) or no_topic[0]
    for prefix in patterns("contacts", "contact_prefix", _I):
        heading = prefix.sub("", heading)
    introduced = next((m for p in patterns("contacts", "introduced", _I) if (m := p.match(heading))), None)
    if introduced:
        # "Introduction to Ubuntu Development": the topic is Ubuntu development, not its introduction; a
        # name the title also capitalises keeps its case and takes no article
        words = introduced.group(1).split()
        title_words = set(title.split())
        if words[0][:1].isupper() and words[0] in title_words:
            return " ".join([words[0], *(w if namelike(w) else w.lower() for w in words[1:])])
        heading = introduced.group(1)
    first = heading.split()[0].casefold() if heading.split() else ""
    if len(heading.split()) > 7 or first in every("contacts", "imperative_verbs"):
        # "Get a Launchpad account" is an instruction, not a topic ("about the get a Launchpad account");
        # a long heading is usually a byline or a sentence the parser took for one
        return document_subject(title) or no_topic[0]
    return the(to_first_person(lower_first(heading)))


def role_phrase(label: str) -> str:
    words = label.split()
    minor = every("contacts", "title_words")
    titled = len(words) > 1 and all(w[:1].isupper() or w in minor for w in words)
    phrase = label if titled else lower_first(label)
    return the(to_first_person(phrase))


def place_phrase(label: str) -> str:
    places = every("contacts", "the_places")
    return label if label.lower() not in places else the_label(label)


def the_label(label: str) -> str:
    """A name with the language's article ("the Netherlands")."""
    articled = every("contacts", "articled")
    return articled[0].format(phrase=label) if articled else label
