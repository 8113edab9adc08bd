"""What the contact factoids and the query variants share: headings that name no topic, "your" said as "my",
the article a phrase takes, the changelog and contact headings, a language's heading frame."""

from __future__ import annotations

import re

from qagen.generate.lang import compiled, every, first, part, patterns
from qagen.generate.subjects import (
    namelike,
)

# The words are the languages' (contacts.json and headings.json of qagen/generate/lang/<code>/), read
# together whatever the language of the text: a language adds to these tables by listing its words.
_I = re.IGNORECASE


def _set(key: str) -> frozenset[str]:
    return frozenset(every("contacts", key))


def contact_headings() -> re.Pattern[str]:
    """A contact section's heading ("Contact us", "Customer service"): it names no topic of its own."""
    return compiled("contacts", "contact_headings", "^(?:{})$", _I)


def to_first_person(text: str) -> str:
    """Second person to first person: "your appointment" -> "my appointment"."""
    for pattern, repl in every("contacts", "second_person"):
        text = re.sub(pattern, lambda m, r=repl: _match_case(m.group(0), r), text, flags=re.IGNORECASE)
    subject_as = first("contacts", "subject_you_as")
    for subject_you in patterns("contacts", "subject_you", _I):
        text = subject_you.sub(lambda m: f"{m.group(1) or ''}{subject_as}", text)
    for pattern, repl in every("contacts", "object_you"):
        text = re.sub(pattern, repl, text)
    return text


def _match_case(found: str, repl: str) -> str:
    return repl[0].upper() + repl[1:] if found[0].isupper() else repl


def lower_first(text: str) -> str:
    """Lower-case the first word unless it looks like a name or acronym (ECG, AromaVita)."""
    first = text.split(" ", 1)[0]
    return text if namelike(first) else text[:1].lower() + text[1:]


def _head_noun(phrase: str) -> str:
    """The last word before a preposition, relative clause or conjunction: "tests I may have" -> "tests"."""
    ends = first("contacts", "head_noun_ends")
    cut = re.split(ends, phrase)[0] if ends else phrase
    joins = first("contacts", "head_noun_joins")
    cut = cut.split(joins)[0] if joins else cut
    return cut.split()[-1].lower() if cut.split() else ""


def _plural(word: str) -> bool:
    suffix = first("contacts", "plural_suffix")
    regular = bool(suffix) and word.endswith(suffix) and not word.endswith(every("contacts", "not_plural_suffixes"))
    return regular or word in every("contacts", "plural_words")


def the(phrase: str) -> str:
    """Prefix "the" unless the phrase starts with a determiner or a gerund, or is headed by a mass or plural noun."""
    words = phrase.split()
    if not words:
        return phrase
    opening = words[0].lower()
    if opening.startswith("\\") or (len(words) == 1 and re.search(r"[a-z][A-Z]|\w\(", phrase)):
        return phrase  # "\\unichar", "KeepTogether(flowables)": names take no article
    if re.fullmatch(r"[a-z]+[A-Z]\w*", words[0]):
        return phrase  # "saveState and restoreState": a method's name first, no "the saveState" (round 33)
    head = _head_noun(phrase)
    gerund = first("contacts", "gerund_suffix") or "\0"
    gerund_first = opening.endswith(gerund) and opening not in _set("ing_nouns")
    if opening in _set("determiners") or gerund_first or head.endswith(gerund) or head in _set("mass_nouns"):
        return phrase
    articled = first("contacts", "articled")
    return phrase if _plural(head) or not articled else articled.format(phrase=phrase)


def changelog_heading(heading: str) -> bool:
    """True for a changelog entry's heading ("Version 2.12.9 [2005 Jan 6: Feast of Epiphany", "Changes in v1.2")."""
    return any(p.match(heading.strip()) for p in patterns("headings", "changelog", _I))


def cut_heading(heading: str) -> bool:
    """True for a raw heading cut inside a word at a line end ("... Diagram of SI unit relation-").

    Such a "heading" is the first line of a reference or a sentence the parser took for one;
    its section is the rest of that line ("ships: http://..."), nothing to ask about.
    """
    return re.search(r"[a-z]-\s*$", heading) is not None


def skipped_heading(heading: str) -> bool:
    """True for boilerplate headings no question is asked about (introduction, implementation, change history)."""
    return compiled("headings", "boilerplate", "^(?:{})$", _I).match(heading.strip().rstrip(".:")) is not None


def topic_heading(heading: str) -> bool:
    """True when a (cleaned) heading names a topic a question can be about.

    Not a changelog entry ("Version 2.1"), a sentence fragment, a phrase about something
    unnamed ("Some details for the interested") or parser debris ("\\mathopen{}.12").
    """
    if not heading:
        return False
    if heading.endswith("?") and not any(p.match(heading) for p in patterns("headings", "asks_about")):
        return True
    if heading.count("(") != heading.count(")") or heading.count('"') % 2:
        return False  # "Fix SourceForge bug (http": a heading cut inside a bracket or a quote
    if re.search(r"\.\.\.|…", heading) and re.search(r"\\[A-Za-z@]+[(\[{]", heading):
        return False  # "\left( ... \right) or \left[ ... \right]": a display of code read as a heading
    return not any(
        p.search(heading) for p in (*patterns("headings", "not_a_topic"), *patterns("headings", "not_a_name"))
    )


def heading_frame(language: str) -> str:
    """The default offline question around a heading in ``language`` ("Cosa devo sapere su «{heading}» in
    {subject}?": ``frame`` of its headings.json), or "" for a language without one."""
    return str(part(language, "headings").get("frame") or "")
