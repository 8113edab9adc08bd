"""Words the contact factoids and the query variants share: headings that name no topic, "your" said as "my",
the article a phrase takes, the changelog and contact headings (English), the Dutch heading frame."""

from __future__ import annotations

import re

from qagen.generate.forms import forms
from qagen.generate.subjects import (
    namelike,
)
from qagen.generate.text import word_set

_MASS_NOUNS = word_set(
    "leave parking relief information advice equipment software hardware insurance care support help "
    "feedback luggage furniture water milk coffee time work traffic transport access security privacy "
    "maintenance training guidance treatment medication physiotherapy absence pay tax research data "
    "energy health safety behaviour conduct evidence money cash wifi wi-fi internet power consent approval "
    "availability lunch advice flexibility ergonomics accommodation"
)


_ING_NOUNS = word_set(
    "parking waiting meeting training building booking opening warning living dining sitting visiting "
    "cleaning washing heating cooling shopping recycling charging operating shipping billing packing nursing "
    "boarding landing ceiling clothing evening morning housing funding marketing engineering"
)


_DETERMINERS = {"a", "an", "the", "my", "your", "our", "their", "his", "her", "its", "this", "these", "those", "some"}


_CONTACT_HEADINGS = re.compile(
    r"^(?:contact(?: details| us| information)?|contacts|questions|more information|further information|"
    r"customer service|help|support|need help)$",
    re.IGNORECASE,
)


_SKIP_HEADINGS = re.compile(
    r"^(?:introduction|about (?:this|these) .+|welcome(?: aboard)?|purpose(?: and principles)?|"
    r"scope(?: of this policy)?|summary|overview|contents|table of contents|appendix|notes?|"
    r"implementation|the implementation|identification|acknowledge?ments?|licen[cs]e|copyright|"
    r"(?:change|version|revision) (?:history|log)|changes|changelog|references|bibliography|index|abstract|"
    r"(?:developer|user|minor|major|other|new|recent|incompatible) changes|"
    r"bug ?fix(?:es)?|fixes|fix(?:ed|es)? .*\bbugs?\b.*|"
    r"(?:the |a |package )?history|(?:the )?reference|"
    r"preface|the code|driver|the driver|documentation|the documentation|author|authors|"
    r"contributions?|contributing|contributors|feedback|thanks|to[- ]?do(?:[- ]?list)?|future (?:work|plans)|copying|"
    r"credits?(?: where (?:it'?s|it’s) due)?|incomplete|unfinished|wish ?list|open (?:issues|questions)|"
    r"users?'?s?’?s? guide|user manual|reference manual|tutorial|examples?|an example|miscellaneous|misc|"
    # discourse labels: the rationale or background of what? ("Can you explain the rationale in diffcoeff?")
    r"rationale|motivation|background|discussion|(?:general |final |some )?remarks|details|basics|generalities|"
    r"preliminaries|philosophy|(?:general|basic|key|main|some) concepts|"
    r"conclusions?|concluding remarks|(?:summary and )?outlook|epilogue|final (?:words|thoughts)|"
    # labels of a note, not topics ("What should I know about the important note in gb4e?"), and legal text
    r"(?:an? |some )?(?:important|general|short|final|additional|further) (?:notes?|remarks?|comments?)|"
    # the installation steps every package of one bundle repeats ("Refresh file name databases")
    r"refresh(?:ing)? (?:the )?file ?name databases?|some details for the interested|"
    r"caveats?|disclaimers?|legal (?:rubbish|stuff|notices?|matters|information|status(?: of .+)?)|"
    r"inleiding|inhoud|inhoudsopgave|einleitung|inhalt|inhaltsverzeichnis|sommaire|introducción|índice|"
    r"introduzione|indice|introdução|sumário|"
    # the same boilerplate in the other languages with forms: acknowledgements, authors, licence, references
    r"ringraziamenti|agradecimientos|agradecimentos|dankwoord|danksagung|remerciements|"
    r"autori|autores|auteurs?|autoren|licenza|licencia|licença|licentie|lizenz|"
    r"bibliografia|bibliografía|bibliographie|literatur|literatuur|referencias|referências|riferimenti)$",
    re.IGNORECASE,
)


_PRONOUNS = [
    (r"\byou are\b", "I am"),
    (r"\byou were\b", "I was"),
    (r"\byou're\b", "I'm"),
    (r"\byou’re\b", "I’m"),
    (r"\byou've\b", "I've"),
    (r"\byourself\b", "myself"),
    (r"\byours\b", "mine"),
    (r"\byour\b", "my"),
    (r"\bare you\b", "am I"),
    (r"\bwere you\b", "was I"),
]


_SUBJECT_YOU = re.compile(
    r"(^|\b(?:if|when|and|or|that|because|before|after|until|unless|where|whether|so|while|once|as|"
    r"what|how|which|who|can|do|should|will|may|must|could|would)\s+)you\b"
    r"|\byou(?=\s+(?:may|might|can|cannot|can't|could|will|would|should|must|need|want|have|had|use|get|"
    r"feel|make|do|don't|did|see|know|think|like|go|come|are|were|receive|pay|bring|take|buy|lose|forget)\b)",
    re.IGNORECASE,
)


def to_first_person(text: str) -> str:
    """Second person to first person: "your appointment" -> "my appointment"."""
    for pattern, repl in _PRONOUNS:
        text = re.sub(pattern, lambda m, r=repl: _match_case(m.group(0), r), text, flags=re.IGNORECASE)
    text = _SUBJECT_YOU.sub(lambda m: f"{m.group(1) or ''}I", text)
    return re.sub(r"\byou\b", "me", text)


def _match_case(found: str, repl: str) -> str:
    return repl[0].upper() + repl[1:] if found[0].isupper() else repl


def lower_first(text: str) -> str:
    """Lower-case the first word unless it looks like a name or acronym (ECG, AromaVita)."""
    first = text.split(" ", 1)[0]
    return text if namelike(first) else text[:1].lower() + text[1:]


def _head_noun(phrase: str) -> str:
    """The last word before a preposition, relative clause or conjunction: "tests I may have" -> "tests"."""
    first = re.split(r"\s+(?:for|of|in|on|at|with|during|after|before|to|within|I|that|which|who)\b|,", phrase)[0]
    first = first.split(" and ")[0]
    return first.split()[-1].lower() if first.split() else ""


def _plural(word: str) -> bool:
    return (word.endswith("s") and not word.endswith(("ss", "us", "is"))) or word in ("children", "people")


def the(phrase: str) -> str:
    """Prefix "the" unless the phrase starts with a determiner or a gerund, or is headed by a mass or plural noun."""
    words = phrase.split()
    if not words:
        return phrase
    first = words[0].lower()
    if first.startswith("\\") or (len(words) == 1 and re.search(r"[a-z][A-Z]|\w\(", phrase)):
        return phrase  # "\\unichar", "KeepTogether(flowables)": names take no article
    if re.fullmatch(r"[a-z]+[A-Z]\w*", words[0]):
        return phrase  # "saveState and restoreState": a method's name first, no "the saveState" (round 33)
    head = _head_noun(phrase)
    gerund_first = first.endswith("ing") and first not in _ING_NOUNS
    if first in _DETERMINERS or gerund_first or head.endswith("ing") or head in _MASS_NOUNS or _plural(head):
        return phrase
    return f"the {phrase}"


_CHANGELOG_START = r"(?:changes (?:in|since|for|over|from) )?(?:version|release|v)\s*\d"


_CHANGELOG_ENTRY = re.compile(_CHANGELOG_START, re.IGNORECASE)


def changelog_heading(heading: str) -> bool:
    """True for a changelog entry's heading ("Version 2.12.9 [2005 Jan 6: Feast of Epiphany", "Changes in v1.2")."""
    return _CHANGELOG_ENTRY.match(heading.strip()) is not None


def cut_heading(heading: str) -> bool:
    """True for a raw heading cut inside a word at a line end ("... Diagram of SI unit relation-").

    Such a "heading" is the first line of a reference or a sentence the parser took for one;
    its section is the rest of that line ("ships: http://..."), nothing to ask about.
    """
    return re.search(r"[a-z]-\s*$", heading) is not None


def skipped_heading(heading: str) -> bool:
    """True for boilerplate headings no question is asked about (introduction, implementation, change history)."""
    return _SKIP_HEADINGS.match(heading.strip().rstrip(".:")) is not None


def topic_heading(heading: str) -> bool:
    """True when a (cleaned) heading names a topic a question can be about.

    Not a changelog entry ("Version 2.1"), a sentence fragment, a phrase about something
    unnamed ("Some details for the interested") or parser debris ("\\mathopen{}.12").
    """
    if not heading:
        return False
    if heading.endswith("?") and not re.match(r"(?i:what|how) about\s", heading):
        return True
    if heading.count("(") != heading.count(")") or heading.count('"') % 2:
        return False  # "Fix SourceForge bug (http": a heading cut inside a bracket or a quote
    if re.search(r"\.\.\.|…", heading) and re.search(r"\\[A-Za-z@]+[(\[{]", heading):
        return False  # "\left( ... \right) or \left[ ... \right]": a display of code read as a heading
    return not (_NOT_A_TOPIC.search(heading) or _NOT_A_NAME.search(heading))


# Changelog entries, and sentence fragments a parser took for headings ("users is that the ...").
_NOT_A_TOPIC = re.compile(
    rf"(?i:^{_CHANGELOG_START}|\bversion\s+\d+\.\d)|"
    r"\s(?:is|are|was|were|has|have)\s|^[a-z]+\s+[a-z]+\s+[a-z]+\s+[a-z]+\s+[a-z]+\s+[a-z]+|[,;]$|,\s+(?:and|or)\s"
    r"|(?i:^(?:from|to|of|on|in|at|by|with|and|or|but|the)\s+(?:version|v\d|[a-z]+\s+(?:to|and)\b))"
    r"|(?i:\b(?:table|figure|fig\.|algorithm|listing|example|exercise)\s*\d)",
)


# A heading that is a phrase about something unnamed ("Some details for the interested", "A few
# things missing from ...", "More options"), or parser debris ("\\mathopen{}.12").
_NOT_A_NAME = re.compile(
    r"(?i:^(?:a|an|some|a few|few|several|more|other|others|further|various|many|additional|already|still|"
    r"now|also|just|not|yet|again|what about|how about)\s)|[{}]|\.\d+$|^\[|\d{4}/\d{2}/\d{2}|\w/\w"
    # a heading cut before its object ("Feature provided by"), a formula ("V = Vi j"), a list of commands
    r"|(?i:\s(?:by|of|to|for|with|in|on|at|from|the|a|an|and|or))$|[=∂∑∏∫√≤≥≠≈^]|,.*\\|\\.*,"
    # "the issue", "the fix", "the full name": a noun that points back into text the asker never saw
    r"|(?i:\bthe (?:full )?(?:issue|problem|fix|solution|rationale|idea|answer|result|rest|details|basics|trick|"
    r"reason|point|patch|bug|name|example|remedy|workaround)s?$)"
    # a title-page byline ("... Email: see top of the source file Printed October 31, 2022"), a
    # changelog line ("Option 'pdfnewwindow' changed")
    r"|(?i:\be-?mail\b|\bprinted\b)"
    r"|(?i:\s(?:changed|added|removed|fixed|deprecated|renamed|updated|dropped)$)"
    # a discourse label: "Discussion of Methods", "Notes on fonts" (which methods? the asker cannot tell)
    r"|(?i:^(?:a |the |some )?(?:discussion|notes|remarks|comments|thoughts) (?:of|on|about)\s)"
    # one of several answers to something the asker never saw: "Second solution", "Another approach"
    r"|(?i:^(?:the )?(?:first|second|third|fourth|fifth|next|last|final|another|alternative|other) "
    r"(?:solution|proof|approach|method|attempt|try|way|variant|version|example|case|step|idea|answer)s?$)"
)


_IMPERATIVE_VERBS = word_set(
    "install use configure set change add remove create define emulate load enable disable select choose print "
    "save open close connect update reset replace clean insert write typeset draw make build run test call format "
    "customize customise adjust specify declare redefine include import export convert combine align number "
    "refresh rebuild compile generate avoid obtain upgrade migrate apply invoke fix debug edit modify extend override "
    "register start stop restart move copy delete rename find hide mark store keep suppress prevent switch get check "
    "handle send"
)


# Dutch headings are phrased in code (the rules above); this is their default question
HEADING_FRAME_NL = "Wat moet ik weten over {heading} bij {subject}?"


def heading_frame(language: str) -> str:
    """The default offline question around a heading in ``language`` ("Cosa devo sapere su «{heading}» in
    {subject}?"), or "" for English (phrased by rules) or a language without one."""
    if language == "nl":
        return HEADING_FRAME_NL
    return str(forms(language).get("heading") or "") if language != "en" else ""
