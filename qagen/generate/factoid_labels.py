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
    _CONTACT_HEADINGS,
    _IMPERATIVE_VERBS,
    lower_first,
    the,
    to_first_person,
    topic_heading,
)
from qagen.generate.subjects import clean_heading, document_subject, namelike
from qagen.generate.text import clean_line, fields, join_wrapped, last_heading, split_sentences

_GENERIC_LABELS = re.compile(
    r"^(?:phone|tel|telephone|telephone number|phone number|call|fax|mobile|e-?mail|mail|e-?mail address|"
    r"website|web site|web|internet|url|online|more information|information|contact|chat|address)$",
    re.IGNORECASE,
)
ROLE_WORDS = re.compile(
    r"\b(?:desk|line|team|office|service|services|department|clinic|ward|helpdesk|officer|suite|reception|nurse|"
    r"centre|center|unit|pharmacy|support|switchboard|secretariat|hotline|helpline|counsellor|finance|hr|it|"
    r"facilities|people|security|sales|billing|agency|portal|intranet|shop|store|app)\b",
    re.IGNORECASE,
)
_THE_PLACES = {
    "netherlands",
    "united kingdom",
    "united states",
    "united states and canada",
    "czech republic",
    "philippines",
    "uk",
    "us",
    "usa",
}
_NP = r"((?:the|your|our) [\w'’ -]{2,45}?|[A-Z][\w'’-]*(?: [A-Z][\w'’-]*){0,4})"
_OBJECT_PATTERNS = [
    # "call the Delivery Suite directly on", "contact the Boston HR team at"
    re.compile(
        rf"\b(?:call|calling|contact|contacting|reach|reaching|phone|ring|text|e-?mail|write to|mail)\s+{_NP}"
        r"(?:\s+directly)?\s+(?:on|at|via|by phone on|by e-mail at)\s*$"
    ),
    # "can be sent to the People team:", "send the police report to security@"
    re.compile(rf"\b(?:sent|send|write|go) to {_NP}(?:\s+(?:at|on|via))?\s*:?\s*$"),
    # "the confidential counsellor can be reached on", "the Emergency Department on"
    re.compile(rf"{_NP}\s+(?:can be reached|is available|is open|is staffed)[^.;]*?\s+(?:on|at|via)\s*$"),
    re.compile(r"\b(the [\w'’ -]{2,45}?)(?:\s+directly)?\s+(?:on|at|via)\s*$"),
    re.compile(r"\b(the [\w'’ -]{2,45}?)\s*\($"),  # "in the patient portal (https://...)"
]
_CUT_AT = re.compile(r"\s+(?:within|during|after|before|for|from|outside|in case|if|when|by)\b.*$", re.IGNORECASE)
# ... or a phrase cut after a participle ("the XML format specified"): what was specified, the asker cannot tell
_LABEL_END = re.compile(
    r"\b(?:to|at|on|and|or|of|for|in|by|via|with|the|a|an|specified|described|given|listed|shown|defined|found|"
    r"provided|available|used|mentioned|documented|explained|published)$",
    re.IGNORECASE,
)
_LABEL_VERBS = re.compile(r"\b(?:send|sent|call|report|contact|write|go|visit|use)\b", re.IGNORECASE)


def _clean_label(label: str) -> str | None:
    """A label cut before trailing qualifiers ("the IT helpdesk within one hour"); None if it is not a name."""
    label = _CUT_AT.sub("", label.strip()).strip(" ,;:-")
    if not label or len(label.split()) > 6 or _LABEL_END.search(label) or _LABEL_VERBS.search(label):
        return None
    if _BAD_LABEL_WORDS.search(label) or _GENERIC_LABELS.match(label):
        return None
    return label


_ANYWHERE = re.compile(r"\b(?:reach|contact|call|e-?mail|write to)\s+(the [\w'’ -]{2,40}?)\s+(?:by|on|at|via)\b")
ACTION = re.compile(
    r"(?:^|[,;.]\s*|\band\s+)(?:please\s+)?(?:you can\s+(?:also\s+)?)?((?:register|order|book|plan|find|read|check|"
    r"download|apply for|submit|report|request|create|change|manage|renew|buy|view|watch|track|log in to|"
    r"sign up for|update)\b[^,;:]{0,60}?)(?:\s+online)?\s+(?:at|on|via|through|from|in)\s*$",
    re.IGNORECASE,
)
_NOT_PLACE = re.compile(
    r"\b(?:see|note|figure|table|section|chapter|page|example|appendix|copyright|license|licence|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|daily|weekdays?|toll|free|hours?|open|"
    r"january|february|march|april|may|june|july|august|september|october|november|december)\b",
    re.IGNORECASE,
)
_BAD_LABEL_WORDS = re.compile(r"\b(?:by|through|via|or|with|can|is|are|be|will|should|must|if|when)\b", re.IGNORECASE)


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
    if not label or not plain or len(label.split()) > 5 or _BAD_LABEL_WORDS.search(label):
        return None
    if re.match(r"(?:on|at|in|as|to|for|from|of|via|and|or)\b", label):
        return None  # "on ctan as pgf:": the tail of a sentence, not a label
    if not colon and re.search(r"\b(?:on|at|to|via|by|in|for|from|call|contact)$", label, re.IGNORECASE):
        return None
    if _NOT_PLACE.search(label) and not ROLE_WORDS.search(label):
        return None
    return label


# A phrase that is the complement of another word ("documentation of the library", "on the Debian
# web mirrors at"): the address is for that other thing, not for the phrase.
_COMPLEMENT = re.compile(
    r"(?:\bof|\b(?:available|found|published|hosted|kept|stored|located|mirrored)\s+(?:on|in|at|from|via))\s+$",
    re.IGNORECASE,
)  # ("log a ticket in the self-service portal at URL": the portal's address; kept)


def contact_label(
    prefix: str, line_prefix: str, after: str, others: list[Entity], kind: str = ""
) -> tuple[str, str] | None:
    """(mode, label): "role" for a desk or person, "place" for a country or city; None if unknown.

    For a web address, only a label that is the subject of its clause names what the address is:
    in "the documentation of the library is available at URL" the URL is not the library's.
    """
    label = _line_label(line_prefix, others)
    if label is None:
        for k, pattern in enumerate(_OBJECT_PATTERNS):
            m = pattern.search(prefix)
            cleaned = _clean_label(m.group(1)) if m else None
            if cleaned and kind == "url" and k >= 2 and _COMPLEMENT.search(prefix[: m.start(1)]):
                continue
            if cleaned:
                return "role", cleaned
        place = re.match(r"^\s*\(([A-Z][\w ]{1,30}?)[,)]", after)
        if place and not _NOT_PLACE.search(place.group(1)):
            return "place", place.group(1)
        found = [c for c in map(_clean_label, _ANYWHERE.findall(prefix)) if c]
        return ("role", found[-1]) if found else None
    if _GENERIC_LABELS.match(label):
        return None
    words = label.split()
    if not ROLE_WORDS.search(label) and all(w[:1].isupper() or w in ("and", "of") for w in words):
        return "place", label
    return "role", label


def contact_topic(heading: str, title: str) -> str | None:
    """What the section is about, for a question that names no owner of the entity; None if the heading is no topic."""
    heading = clean_heading(last_heading(heading)).rstrip(".:")
    if heading and not topic_heading(heading):
        return None
    question_like = re.match(
        r"^(?:how|what|when|where|who|why|which|is|are|can|do|does|should|before|after|during|if)\b",
        heading,
        re.IGNORECASE,
    )
    if not heading or heading.endswith("?") or question_like or _CONTACT_HEADINGS.match(heading):
        return document_subject(title) or "this service"
    heading = re.sub(r"^(?:contact|questions about)\s+", "", heading, flags=re.IGNORECASE)
    introduced = re.match(
        r"^(?:(?:an?|the)\s+)?(?:introduction|overview|getting started|welcome)\s+(?:to|of|with)\s+(\S.*)$",
        heading,
        re.IGNORECASE,
    )
    if introduced:
        # "Introduction to Ubuntu Development": the topic is Ubuntu development, not its introduction; a
        # name the title also capitalises keeps its case and takes no article
        words = introduced.group(1).split()
        title_words = set(title.split())
        if words[0][:1].isupper() and words[0] in title_words:
            return " ".join([words[0], *(w if namelike(w) else w.lower() for w in words[1:])])
        heading = introduced.group(1)
    first = heading.split()[0].casefold() if heading.split() else ""
    if len(heading.split()) > 7 or first in _IMPERATIVE_VERBS:
        # "Get a Launchpad account" is an instruction, not a topic ("about the get a Launchpad account");
        # a long heading is usually a byline or a sentence the parser took for one
        return document_subject(title) or "this service"
    return the(to_first_person(lower_first(heading)))


def role_phrase(label: str) -> str:
    words = label.split()
    titled = len(words) > 1 and all(w[:1].isupper() or w in ("and", "of") for w in words)
    phrase = label if titled else lower_first(label)
    return the(to_first_person(phrase))


def place_phrase(label: str) -> str:
    return f"the {label}" if label.lower() in _THE_PLACES else label


TEMPLATES = {
    ("phone", "role"): "What is the phone number of {label}?",
    ("phone", "place"): "Which phone number can I call in {label} for {topic}?",
    ("phone", None): "Which phone number can I call about {topic}?",
    ("email", "role"): "What is the e-mail address of {label}?",
    ("email", "place"): "Which e-mail address can I use in {label} for {topic}?",
    ("email", None): "Which e-mail address can I write to about {topic}?",
    ("url", "action"): "On which website can I {label}?",
    ("url", "role"): "Where can I find {label} online?",
    ("url", "place"): "Which website is for {topic} in {label}?",
    ("url", None): "Which website has information about {topic}?",
    ("phone", "person"): "What is the phone number of {label}?",
    ("email", "person"): "What is the e-mail address of {label}, who wrote {subject}?",
    ("url", "person"): "Which website belongs to {label}, who wrote {subject}?",
    ("email", "author"): "At which e-mail address can I reach the author of {subject}?",
    ("url", "author"): "Which website belongs to the author of {subject}?",
}
