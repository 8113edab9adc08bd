"""Turning headings and sentences into the questions a reader would ask (English, Dutch).

Rules, not a model: a heading such as "Preparing for an exercise test" becomes "How do I
prepare for an exercise test?", "What to bring to your appointment" becomes "What should
I bring to my appointment?", and a sentence "If you cannot come, please call ..." gives
"What should I do if I cannot come?". Each function returns None when no rule fits.
"""

from __future__ import annotations

import functools
import itertools
import re

from qagen.generate.forms import contract, forms, subject_in
from qagen.generate.subjects import (
    capitalize,
    clean_heading,
    document_subject,
    lower_article,
    namelike,
    names_subject,
    subject_preposition,
    with_subject,
)
from qagen.generate.text import lemmas, word_set
from qagen.io import sha256_text

# Gerunds whose base form is not the gerund minus "ing" (and British doubled "l").
_GERUNDS = {
    "getting": "get",
    "setting": "set",
    "putting": "put",
    "running": "run",
    "stopping": "stop",
    "planning": "plan",
    "shopping": "shop",
    "dropping": "drop",
    "cutting": "cut",
    "sitting": "sit",
    "fitting": "fit",
    "swimming": "swim",
    "submitting": "submit",
    "forgetting": "forget",
    "adding": "add",
    "travelling": "travel",
    "cancelling": "cancel",
    "labelling": "label",
    "controlling": "control",
    "modelling": "model",
    "levelling": "level",
    "dialling": "dial",
    "counselling": "counsel",
    "lying": "lie",
    "dying": "die",
    "being": "be",
    "having": "have",
    "seeing": "see",
    "using": "use",
    "focusing": "focus",
    "pouring": "pour",
    "treating": "treat",
    "eating": "eat",
    "heating": "heat",
}
# Verbs ending in a silent e that the spelling rules below miss (making -> make).
_E_VERBS = word_set(
    "make take prepare change store save choose manage use leave arrive give write move drive receive "
    "share close secure configure replace reduce remove create complete continue type come become care "
    "compare decide describe escape exercise measure practise promote provide purchase refuse require "
    "reserve restore retire serve combine declare dispose exchange examine include involve issue note "
    "place produce pursue release rinse rule shape size tune vote wipe breathe bathe live believe achieve "
    "argue assume cause cease charge invite judge license lose notice pause phone pose pressure queue "
    "revoke scale trade wake excuse feature subscribe upgrade welcome ensure cure descale code decode encode "
    "encode type typeset determine rename define redefine"
)
# A gerund followed by one of these is an adjective: "Opening hours", "Parking garage".
_GERUND_ADJ_NOUNS = word_set(
    "hours times signs garage garages room rooms area areas list card cards light lights instructions example examples "
    "style styles "
    "conditions requirements address process procedure period pattern schedule options method methods "
    "guide tips costs fees rates days day permit permits space spaces allowance"
)
_LIST_NOUNS = word_set(
    "checks codes specifications holidays rates instructions effects contacts signs hours times options "
    "requirements rules steps tariffs prices costs fees levels parts contents limits conditions dates "
    "types lights"
)
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
_DOC_WORDS = re.compile(
    r"\s+(?:user manual|setup guide|quick start guide|guide|leaflet|manual|handbook|brochure|policy document|"
    r"frequently asked questions|faq)$",
    re.IGNORECASE,
)
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
# Release notes' entries are telegraphic ("Fix \newcolumn", "Fix for amsmath operators", "Do not
# reset \operator@font"); a how-to heading takes an article ("Fix a paper jam").
_CHANGE_ENTRY = re.compile(
    r"^(?:fix(?:ed|es)?|do not|don't|does not|no longer)\s+(?!(?:a|an|the|your|my|this|these|common)\b)",
    re.IGNORECASE,
)
_AUX = r"(?:can|cannot|can't|does|do|did|is|are|was|were|will|would|should|must|may|might|has|have)"

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


def _command_entry(heading: str, body: str) -> bool:
    """A command reference entry: a lower-case heading that the section's first line repeats as its
    syntax ("debug" over "‘debug [.n.]|off’", "draw essay" over "‘draw essay "text"’")."""
    if not re.fullmatch(r"[a-z][\w.-]*(?: [a-z][\w.-]*){0,3}", heading):
        return False
    first = body.lstrip().split("\n", 1)[0]
    return re.match(rf"[‘'`\"]?{re.escape(heading)}(?:[\s‘’'`\"]|$)", first) is not None and len(first) < 120


def _sentence_case(heading: str, title: str, body: str | None) -> str:
    """A heading in sentence case ("Test and Submit your Work" -> "test and submit your work").

    Names keep their capitals: acronyms and camelCase (namelike), and words the title or the body
    capitalise where no sentence starts ("Ubuntu" in "packages for Ubuntu"). A heading with no capital
    after its first word only loses its first capital (lower_first).
    """
    words = heading.split()
    # "C code", "R objects": a one-letter language name keeps its capital ("A" and "I" are words)
    named_first = bool(words) and len(words[0]) == 1 and words[0].isupper() and words[0] not in "AI"
    text = f"{title}\n{body or ''}"

    def keep(word: str) -> bool:
        bare = word.strip("()[]{}.,;:!?\"'“”‘’")
        if not bare or namelike(bare) or bare in title.split():
            return True
        if len(bare) == 1 and bare.isupper() and bare != "A":  # "The D command", "Appendix B": a name
            return True
        return re.search(rf"(?<=[a-z,;] ){re.escape(bare)}\b", text) is not None

    if not any(w[:1].isupper() for w in words[1:]):
        # "Python code": a first word the body capitalises inside its sentences is a name (a title in
        # title case capitalises every word: no sign of a name)
        first = words[0].strip("()[]{}.,;:!?\"'“”‘’") if words else ""
        named_first = named_first or bool(first and re.search(rf"(?<=[a-z,;] ){re.escape(first)}\b", body or ""))
        return heading if named_first else lower_first(heading)

    return " ".join(w if (i == 0 and named_first) or keep(w) else w.lower() for i, w in enumerate(words))


def lower_title(text: str) -> str:
    """Title case to sentence case, keeping names and acronyms ("IT Helpdesk" -> "IT helpdesk")."""
    words = text.split()
    # a single capital after the first word names something ("State C", "Appendix B"): kept
    return " ".join(w if namelike(w) or (i and len(w) == 1 and w.isupper()) else w.lower() for i, w in enumerate(words))


def base_verb(gerund: str) -> str | None:
    """The base form of an English gerund ("preparing" -> "prepare"); None if not a gerund."""
    word = gerund.lower()
    if word in _GERUNDS:
        return _GERUNDS[word]
    if not word.endswith("ing") or len(word) < 6:
        return None
    stem = word[:-3]
    if stem + "e" in _E_VERBS:
        return stem + "e"
    if len(stem) > 3 and stem[-1] == stem[-2] and stem[-1] not in "lsfzaeiou":
        return stem[:-1]  # resetting -> reset
    # the dictionary's word: "abbreviating" -> "abbreviate", "figuring" -> "figure"
    verbs = lemmas(word).get("VERB", ())
    for candidate in (stem, stem + "e"):
        if candidate in verbs:
            return candidate
    needs_e = (
        stem.endswith(("v", "dg", "iz", "rc", "nc"))
        or (re.search(r"[^aeiou]l$", stem) is not None and not stem.endswith("ll"))  # recycl -> recycle
        or re.search(r"[^aeiou]at$", stem) is not None  # updat -> update
        or re.search(r"[^aeiou][aeiou]s$", stem) is not None  # advis -> advise
    )
    return stem + "e" if needs_e else stem


def third_to_base(verb: str) -> str:
    """ "covers" -> "cover", "applies" -> "apply", "reaches" -> "reach"."""
    if verb.endswith("ies") and len(verb) > 4:
        return verb[:-3] + "y"
    if verb.endswith(("ches", "shes", "sses", "xes", "zes", "oes")):
        return verb[:-2]
    return verb[:-1]


def subject_of(title: str) -> str:
    """The subject of a document from its title, with an article: "the Cardiology Outpatient Clinic"."""
    head = re.split(r"[:|–—]|\s-\s", title, maxsplit=1)[0].strip()
    head = re.sub(r"^(?:welcome to|about|your|our)\s+", "", head, flags=re.IGNORECASE).strip()
    head = _DOC_WORDS.sub("", head).strip()
    return the(head) if head else ""


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


_THIS_DOCUMENT = re.compile(
    r"\bthis (?:package|class|bundle|module|library|program|tool|software|document|manual|guide)\b", re.IGNORECASE
)


def heading_question(heading: str, title: str, language: str = "en", body: str | None = None) -> tuple[str, int] | None:
    """A question for a section heading (see :func:`_heading_question`), "How do I ...?" said in two ways.

    One how-to question in three asks "How can I ...?": users say both, and a dataset where every
    procedure opens the same way tests one phrasing only.
    """
    asked = _heading_question(heading, title, language, body)
    if asked and language == "en" and asked[0].startswith("How do I ") and int(sha256_text(heading)[:8], 16) % 3 == 0:
        return "How can I " + asked[0][len("How do I ") :], asked[1]
    return asked


def _heading_question(
    heading: str, title: str, language: str = "en", body: str | None = None
) -> tuple[str, int] | None:
    """A question for a section heading, naming the document's subject, with a score (5 best).

    The heading loses its section number first ("2.3 Options" -> "Options"); a question that
    does not name the subject of ``title`` gets it ("For the multicol package, ..."). None when
    no rule fits or the heading is boilerplate (introduction, implementation, index, ...).
    With the section's ``body``, a gerund heading becomes a how-to question only when the body
    uses the verb ("Formatting layers" over a text that describes four layers is a topic).
    """
    if cut_heading(heading) or heading.rstrip().endswith(":"):
        return None  # ... or a run-in label ("\\right resp.:"): the start of a sentence (0 of 4 verdicts natural)
    heading = clean_heading(heading)
    heading = re.sub(r"\s+", " ", heading).strip().rstrip(".:")
    # ". defaults": a lost number (".Internal and .Primitive" keeps its R names' dots)
    heading = re.sub(r"^(?:[.,;:\-–—]+\s+|[,;:\-–—]+)", "", heading)
    heading = re.sub(r"\b(\w+) \1\b", r"\1", heading)  # "booktabs and and the colortbl package"
    heading = re.split(r"\.\s+(?=[A-Z])", heading)[-1]  # "Mixed arithmetic. The recycling rule": two headings
    if re.search(r"[→⇒←↔⟶⟹]", heading):
        return None  # "strict → strict": an example's output, not a topic
    manpage = re.fullmatch(r"([a-z][\w.+-]*) [-–—] ([a-z]+s) .+", heading)
    if language == "en" and manpage:
        # "dpkg-source - packs and unpacks Debian source packages": a manual page's NAME line
        return with_subject(f"What does {manpage.group(1)} do?", document_subject(title)), 4
    tagged = re.fullmatch(r"(.+?) [—–] ([a-z0-9]{2,6})", heading)
    if tagged:  # "Alternates — salt": a feature and its OpenType tag (or option name)
        heading = tagged.group(1)
    if language == "en" and re.fullmatch(r"[A-Z]?[a-z]+(?:, [A-Za-z][a-z]+)+", heading):
        # "Limitations, warnings": a list of labels, said as one ("limitations and warnings")
        head, _, last = heading.rpartition(", ")
        heading = f"{head} and {last}"
    # "Load the package (and loading options)", "The template ‘absolute’ (object type measure)": a remark
    # a user leaves out (round 35, both readers), in brackets after the topic or an "(and ...)" inside it
    # ("Variable (and synonym) completion")
    heading = re.sub(r"(?<=\S)\s+\((?:and |or )?[a-z][a-z-]*(?: [a-z][a-z-]*)+\)$", "", heading)
    heading = re.sub(r"(?<=\S)\s+\((?:and|or) [a-z][a-z -]*\)(?=\s\w)", "", heading)
    if re.fullmatch(r"(?:which|what|who) (?:would|could|should|will|might|may|can|must) [a-z]+", heading, re.I):
        return None  # "Which would produce (using plain-derivatives)": a sentence's start read as a heading
    if changelog_heading(heading):
        return None  # "Version 2.12.9 [2005 Jan 6: Feast of Epiphany": a changelog entry, not its date's name
    if ":" in heading and not heading.endswith("?"):  # "Shrinking and growing: the scale operation"
        head, tail = (part.strip() for part in heading.split(":", 1))
        heading = tail if len(tail.split()) >= 2 else head
    if ";" in heading:  # "Ordinary slash-fraction derivatives; template DIFS": the topic, then a label
        heading = heading.split(";", 1)[0].strip()
    if language == "en":
        # "Basic Overview of the debian/ Directory": the topic is the directory, not "the basic overview"
        heading = re.sub(
            r"^(?:an? |the )?(?:(?:basic|brief|short|quick|general) )?"
            r"(?:overview|introduction|summary) (?:of|to) (?=\S)",
            "",
            heading,
            flags=re.IGNORECASE,
        )
    if re.fullmatch(
        r"(?:state|step|stage|phase|part|appendix|level|case|example|figure|table|chapter|section|item)"
        r"\s+(?:[A-Z]|\d{1,3}|[IVX]{1,4})",
        heading,
        re.IGNORECASE,
    ):
        return None  # "State B: Discussion", "Step 3": a label; "What does X say about the state B?" asks nothing
    if body is not None and language == "en":
        body_words = body.casefold()
        glued = re.findall(r"\b[a-z]{6,}\b|\b[A-Z][a-z]+[A-Z][a-z]{4,}\b", heading)
        if any(not lemmas(w.lower()) and w.casefold() not in body_words for w in glued):
            # "Sans serifstyle", "Unicode mathsfont setup", "TrueTypefonts with Asian characters": words
            # run together, which the text never uses
            return None
    if not heading or len(heading) > 120 or _SKIP_HEADINGS.match(heading) or not re.search(r"[^\W\d_]{4}", heading):
        return None
    if language == "en" and _CHANGE_ENTRY.match(heading):
        return None  # a release note's entry ("multicol: Fix \newcolumn"): "How do I fix \newcolumn?" asks nothing
    if not topic_heading(heading) or re.search(r"<[^>]*>|⟨", heading):
        return None  # ... or a syntax placeholder ("IUPAC<formula or name>"): no question echoes it
    if " " not in heading and heading.casefold() in _function_words(language):
        return None  # "while", "if", "for": a keyword of the documented language, not a topic
    if language != "en" and _POINTS_BACK_IN.search(heading):
        # round 24: "Quarta sezione" (itnumpar), "Een noot over meer complexe opstellingen", "Osservazioni di
        # carattere generale", "Wat bedoelt u daarmee?": a place in the document, a note's label, or a question
        # about what came before
        return None
    if body is not None and re.fullmatch(r"[A-Z][a-z]+(?:[A-Z][a-z]+)+", heading) and heading not in body:
        return None  # "NamingConvention": two words the parser ran together, not a name the text uses
    subject = document_subject(title)
    if subject and _fold_eq(heading, subject):
        return None
    if heading.endswith("?"):
        if len(heading.split()) < 3:
            return None  # "What?", "Why bother?": a label for what follows, not a question a user asks
        this = _THIS_DOCUMENT.search(heading)
        if this and language == "en":  # "What does this package do?" -> "What does the ulqda package do?"
            if not subject:
                return None
            return capitalize(heading[: this.start()] + lower_article(subject) + heading[this.end() :]), 5
        return with_subject(heading, subject, language), 5
    if language == "nl":
        return _heading_question_nl(heading, title, subject)
    if language != "en":
        subject = lower_article(subject_in(subject, language))  # no English article in a German question
        template = forms(language).get("heading")
        if template is None or not subject:
            return None
        heading = re.sub(r"^[«“\"](.*)[»”\"]$", r"\1", heading)  # the frame quotes it: no ««Pecados Capitales»»
        asks = _HEADING_ASKS.get(language)
        if asks is not None and asks.match(heading):  # "Cosa è fancyhdr": the heading is the question
            question = capitalize(heading) + "?"
            question = ("¿" + question) if language == "es" and not question.startswith("¿") else question
            return with_subject(question, subject, language), 4
        if _one_word(heading) and language != "de":
            # "Cosa devo sapere su «Radici»?": one word echoed (round 24: none of these natural); a German
            # compound ("Spaltenumbruch") is a phrase in one word
            return None
        task = _TASK_FRAMES.get(language)
        first = heading.split()[0].casefold()
        if task is not None and first in _TASK_VERBS[language] and len(heading.split()) >= 2:
            # "Installare PSfrag" -> "Come posso installare PSfrag?": a task, asked as users ask it
            return contract(with_subject(task.format(task=lower_first(heading)), subject, language), language), 4
        if forms(language).get("noun_headings") is False:
            # "Cosa devo sapere su «Frazioni continue» in ...?": readers found none of 36 such questions
            # natural in Italian, Spanish and Portuguese (rounds 24-25); tasks and questions stay
            return None
        return capitalize(contract(template.format(heading=heading, subject=subject), language)), 3
    if body is not None and _command_entry(heading, body):
        # "draw essay" over "‘draw essay "text"|reset’ Draw indicated text ...": a command reference entry
        about = f" in {lower_article(subject)}" if subject else ""
        return f"What does the {heading} command do{about}?", 4
    low = _sentence_case(heading, title, body)
    low = re.sub(r"^The\b", "the", low)  # "The begin-end Construct", "The SI prefixes": not "say about The ..."
    kind_first = re.fullmatch(r"(style|option|environment|command|key|mode|format|counter|length) ([a-z][\w-]*)", low)
    if kind_first:  # "Style dots" -> "the dots style", not "say about style dots"
        low = f"{kind_first.group(2)} {kind_first.group(1)}"
    if _CONTACT_HEADINGS.match(heading):
        return (f"Who can I contact about {subject}?", 4) if subject else None
    if re.fullmatch(r"(?:package |program |short )?(?:description|synopsis)", heading, re.IGNORECASE):
        # "Description" over "This package provides ...": what the subject does, not "the description package"
        return (
            (f"What {'do' if _plural_subject(subject) else 'does'} {lower_article(subject)} do?", 4)
            if subject
            else None
        )
    if re.match(r"(?:we|i|you|they|he|she) [a-z]+\b", heading, re.IGNORECASE) or re.match(
        r"[\w-]+ing (?:myself|yourself|oneself|ourselves|yourselves|themselves|it|them)\b", heading, re.IGNORECASE
    ):
        return None  # "We recommend to use", "Introducing myself": a sentence or an activity, no topic
    fixed = _fixed_rules(low)
    if fixed:
        return with_subject(fixed[0], subject), fixed[1]
    asked = _wh_heading(low)
    if asked:
        return with_subject(asked, subject), 4
    process = _process_question(low, subject)
    if process:
        return process, 4
    verb = low.split(" ", 1)
    # "Check Valve" over "Nodes defined for the check valve ...": a thing the text names, not a task
    as_noun = rf"\b(?:the|a|an|each|this) {re.escape(low.casefold())}\b"
    noun_in_body = body is not None and re.search(as_noun, body.casefold())
    if subject and len(verb) == 2 and verb[0].casefold() in _IMPERATIVE_VERBS and not noun_in_body:
        obj = to_first_person(verb[1])
        if re.fullmatch(r"the (?:package|class|bundle)", obj, re.IGNORECASE):
            return f"How do I {verb[0].casefold()} {lower_article(subject)}?", 4  # "Load the package"
        asked = f"How do I {verb[0].casefold()} {obj}?"
        if subject_preposition(subject) == "with":  # a package is a tool one does things with
            return f"{asked[:-1]} with {subject}?", 4
        # a guide is none: not "How do I configure my shell with the Ubuntu Packaging Guide?"
        return with_subject(asked, subject), 4
    gerund = _gerund_question(low, title)
    words = low.split()
    # "Placing gri-mode.el where Emacs can find it", "Adding any other shortcut to the nomenclature
    # list": a verb with its object and more is a task, whatever words the text uses for it (as a topic,
    # 0 of 8 verdicts natural, rounds 20-36); "Formatting inside the paragraph" stays a topic
    task = (
        len(words) >= 4
        and words[1].casefold() not in _MINOR_WORDS | _PLACE_WORDS
        and any(w in _CLAUSE_WORDS for w in words[2:])
        and (body is None or " ".join(words[:2]).casefold() not in body.casefold())  # "floating point ..."
    )
    if gerund and body is not None and not task and not _uses_verb(gerund, body):
        gerund = None
    if gerund:
        generic = re.match(r"^(How do I .+?) the (?:package|class|module|library|software|program|product)\?$", gerund)
        if generic and subject:  # "Loading the package" -> "How do I load the nnext package?"
            return f"{generic.group(1)} {subject}?", 4
        return with_subject(gerund, subject), 4
    if low.split()[0].casefold() in _LEADING_LINKS:
        return None  # "With formalism", "And finally": a fragment, "What does X say about the with formalism?"
    if re.search(r"\b(?:should|must|shall|will|may|might|cannot|can't)\b.*\b(?:this|that|it|these)\b", low):
        return None  # "All users should do this at some time": a sentence set as a heading, no topic
    if _RULE_STATED.search(low):
        return None  # "License Must Not Be Specific to Debian": a rule stated as a heading, no topic
    if body is not None and re.fullmatch(r"[a-z][\w@-]*", low):
        named = re.search(rf"\b{re.escape(low)}(?:\.(sty|cls)| (package|class))\b", body)
        if named:  # heading "cite" over "cite.sty cannot be used with hyperref": a package, not "the cite"
            kind = "class" if "cls" in (named.group(1) or "") or named.group(2) == "class" else "package"
            low = f"{low} {kind}"
        elif kind_named := re.search(rf"\b{re.escape(low)} ({_NAME_KINDS})\b", body):
            low = f"{low} {kind_named.group(1)}"  # "repeat" over "The repeat statement causes ...": the statement
        elif described := _DESCRIBES_A.search(body[:200]):
            # "Essential" over "This is a boolean field which ...", "Config-Version" over "... this field in
            # dpkg's status file records ...": the section describes a field, not "the essential"
            low = f"{heading if heading[:1].isupper() else low} {described.group(1).lower()}"
        elif (re.match(r"(?:this|the) package\b", body, re.IGNORECASE) and not lemmas(low)) or re.search(r"[\d-]", low):
            # "ntheorem-hyper" over "This package ...": a package's section ("Commands" is what it offers)
            low = f"{low} package"
    if _plain_word(low):
        # "What should I know about the essential / the obsolete / the debug in X?": one ordinary word echoed.
        # Readers found 29 % of these natural on held-out manuals (34 verdicts, rounds 20-23), against 71 %
        # for a one-word name or term ("nabla", "Config-Version") and 70-78 % for longer headings
        return None
    return _noun_question(low, subject), 3


# A subject that is a document, not what it documents ("the testbed requirements of the Ubuntu Packaging Guide")
_A_DOCUMENT = re.compile(
    r"\b(?:guide|manual|handbook|policy|documentation|definition|reference|tutorial|faq|book|specification)\b",
    re.IGNORECASE,
)
# A rule set as a heading ("License Must Not Be Specific to Debian"): a statement, no topic
_RULE_STATED = re.compile(
    r"\b(?:must|shall|should|may|might|cannot|will)\s+(?:not\s+)?be\b|\b(?:must|shall)\s+not\b", re.IGNORECASE
)

# What a one-word heading in lower case names, when the section's text says so ("the repeat statement")
_NAME_KINDS = "statement|function|loop|command|keyword|operator|method|environment|option|macro|key|counter"
# A section whose text says what its one-word heading names: "This is a boolean field ...", "... this field ..."
_DESCRIBES_A = re.compile(
    r"^this is an? (?:[\w-]+ ){0,2}?(field|variable|setting|parameter|directive|property|attribute|value)\b"
    r"|\bthis (field|variable|setting|parameter|directive|property|attribute)\b",
    re.IGNORECASE,
)

# Words no noun-phrase heading opens with: the heading is a fragment of a sentence or of a pair
_LEADING_LINKS = word_set("with without for from by to and or but nor of at as via into onto against than then")


# Parts of a document whose subsections are no topics a user asks about: release notes' entries
# ("Bug fixes › Using \DeclareUnicodeCharacter with C1 control points") and documented source code
# ("macro package source code › implementation rules")
_ENTRIES_UNDER = re.compile(
    r"^(?:(?:\d+(?:\.\d+)*\.?|[A-Z]\.)\s+)?(?:(?:.* )?source code|(?:the )?implementation|the code|"
    r"(?:bug ?fix(?:es)?|fixes|changes|(?:change|version|revision) (?:history|log)|changelog|release notes|"
    r"what'?s new|new features|news)(?: .*)?)$",
    re.IGNORECASE,
)
# A newsletter or release notes: its headings are news items ("Class proc supports twoside")
_NEWS_TITLE = re.compile(r"\b(?:news|newsletter|release notes|changelog|change log|what'?s new)\b", re.IGNORECASE)


def entry_heading(path: list[str], title: str) -> bool:
    """True when a section's heading is an entry of release notes or of documented code.

    ``path`` is the section's headings from the outermost; a heading under "Bug fixes",
    "Changes" or "... source code", or any heading of a newsletter ("LaTeX News"), names a
    change or a piece of code, which "What does X say about ...?" only echoes.
    """
    return bool(_NEWS_TITLE.search(title)) or any(_ENTRIES_UNDER.match(part.strip()) for part in path[:-1])


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


@functools.lru_cache(maxsize=16)
def _function_words(language: str) -> frozenset[str]:
    import stopwordsiso

    return frozenset(stopwordsiso.stopwords(language) or stopwordsiso.stopwords("en"))


def _fold_eq(a: str, b: str) -> bool:
    def norm(t: str) -> str:
        return re.sub(r"^(?:the|a|an)\s+|[“”\"]", "", t.casefold()).strip()

    return norm(a) == norm(b)


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

# Nouns naming something one does: "Installation" -> "How do I install the multicol package?"
_PROCESS_NOUNS = {
    "installation": "install",
    "install": "install",
    "usage": "use",
    "use": "use",
    "configuration": "configure",
    "setup": "set up",
    "set-up": "set up",
    "customization": "customize",
    "customisation": "customise",
    "maintenance": "maintain",
    "troubleshooting": "troubleshoot",
    "uninstallation": "uninstall",
    "removal": "remove",
    "activation": "activate",
    "registration": "register",
    "getting started": "get started with",
    "distribution": "get",
    "availability": "get",
    "obtaining": "get",
    "download": "download",
    "downloading": "download",
    "customize": "customize",
    "customizing": "customize",
    "customising": "customise",
    "configuring": "configure",
    "loading": "load",
}
# Plural nouns for things a package or product offers: "Options" -> "Which options does X provide?"
_OFFER_NOUNS = word_set(
    "options commands macros features settings functions parameters environments symbols keys arguments "
    "modes styles variants tools components accessories modules extensions hooks counters fonts shortcuts "
    "controls buttons indicators programs"
)


_IMPERATIVE_VERBS = word_set(
    "install use configure set change add remove create define emulate load enable disable select choose print "
    "save open close connect update reset replace clean insert write typeset draw make build run test call format "
    "customize customise adjust specify declare redefine include import export convert combine align number "
    "refresh rebuild compile generate avoid obtain upgrade migrate apply invoke fix debug edit modify extend override "
    "register start stop restart move copy delete rename find hide mark store keep suppress prevent switch get check "
    "handle send"
)


def _process_question(low: str, subject: str) -> str | None:
    usage = re.match(r"^(?:usage|use) (in|with|inside|within|on) (.+)$", low, re.IGNORECASE)
    if usage and subject:  # "Usage in section headings and captions" -> "How do I use chemnum in section ..."
        return f"How do I use {lower_article(subject)} {usage.group(1)} {to_first_person(usage.group(2))}?"
    key = re.sub(r"^(?:the|package|software|product)\s+", "", low.casefold()).strip()
    verb = _PROCESS_NOUNS.get(key)
    if verb is None and key.split() and key.split()[-1] in _PROCESS_NOUNS and len(key.split()) <= 2:
        verb = _PROCESS_NOUNS[key.split()[-1]]
    if verb is None or not subject:
        return None
    return f"How do I {verb} {subject}?"


def _fixed_rules(low: str) -> tuple[str, int] | None:
    rules = [
        (r"^how to (.+)$", "How do I {}?", 5),
        (r"^what to (.+)$", "What should I {}?", 5),
        (r"^when to (.+)$", "When should I {}?", 5),
        (r"^where to (.+)$", "Where can I {}?", 5),
        (r"^who to (.+)$", "Who should I {}?", 5),
        (r"^(?:what'?s |what is )?in the box$", "What is in the box?", 5),
        (r"^contact (.+)$", "How can I contact {}?", 4),
        (r"^questions (?:about|on|regarding) (.+)$", "Who can I contact with questions about {}?", 4),
        (r"^information (?:about|on) (.+)$", "What should I know about {}?", 3),
        (r"^about (.+)$", "What should I know about {}?", 3),
        (r"^before (.+)$", "What should I do before {}?", 4),
        (r"^after (.+)$", "What happens after {}?", 4),
        (r"^during (.+)$", "What happens during {}?", 4),
        (r"^if (.+)$", "What should I do if {}?", 4),
        (r"^no (.+)$", "What should I do if there is no {}?", 4),
    ]
    for pattern, template, score in rules:
        m = re.match(pattern, low, flags=re.IGNORECASE)
        if m:
            return _capital(template.format(*(to_first_person(g) for g in m.groups()))), score
    return None


def _wh_heading(low: str) -> str | None:
    """ "What the warranty covers" -> "What does the warranty cover?"."""
    m = re.match(r"^(what|why|how|when|where|who|which)\s+(.+)$", low, flags=re.IGNORECASE)
    if not m:
        return None
    wh, rest = m.group(1).capitalize(), m.group(2)
    if re.match(rf"^{_AUX}\b", rest):
        return _capital(to_first_person(f"{wh} {rest}")) + "?"
    aux = re.match(rf"^(.+?)\s+({_AUX})\b(.*)$", rest)
    if aux:
        verb, tail = aux.group(2), aux.group(3)
        if verb in ("cannot", "can't"):
            verb, tail = "can", f" not{tail}"
        return to_first_person(f"{wh} {verb} {aux.group(1)}{tail}").rstrip() + "?"
    verb = re.match(r"^(.+?)\s+([a-z]+[^s\W]s)\b(.*)$", rest)
    if verb:
        return to_first_person(f"{wh} does {verb.group(1)} {third_to_base(verb.group(2))}{verb.group(3)}") + "?"
    return None


# What follows a gerund's object in a task ("Placing X where ...", "Adding X to ...")
_CLAUSE_WORDS = word_set("where when to into onto from for in on with")
# Prepositions a gerund heading may go on with, with no object ("Formatting inside the paragraph")
_PLACE_WORDS = word_set("inside within between across around without under over after before through beyond")
# "-ing" words that describe the noun after them rather than name an action on it
_PARTICIPLE_ADJECTIVES = word_set(
    "missing existing remaining following corresponding underlying outstanding pending leading trailing "
    "surrounding preceding enclosing containing"
)


def _gerund_question(low: str, title: str) -> str | None:
    if re.match(r"^\w+ing and ", low):
        return None  # "Shrinking and growing: the scale operation" is a topic, not an action
    m = re.match(r"^(\w+ing)(?: or (\w+ing))?(?=\s|$)(.*)$", low)
    if not m:
        return None
    if m.group(1).lower() in _PARTICIPLE_ADJECTIVES:
        return None  # "Missing data": data that is missing, not "How do I miss data?" (round 34)
    rest_words = m.group(3).split()
    if rest_words and rest_words[0].lower() in _GERUND_ADJ_NOUNS:
        return None  # "Opening hours" is a noun phrase
    if rest_words and rest_words[0].lower() == "of":
        return None  # "Copying of attributes" names a topic; "How do I copy of attributes?" is no question
    first = base_verb(m.group(1))
    second = base_verb(m.group(2)) if m.group(2) else None
    if first is None or (m.group(2) and second is None):
        return None
    verbs = f"{first} or {second}" if second else first
    rest = to_first_person(m.group(3).strip())
    if rest:
        return _capital(f"How do I {verbs} {rest}?")
    product = re.split(r"[:|–—]", title, maxsplit=1)
    if len(product) == 2 and any(namelike(w) for w in product[0].split()):
        return _capital(f"How do I {verbs} the {product[0].strip()}?")  # "How do I descale the AromaVita ..."
    return f"How does {m.group(1).lower()} work?"


def _uses_verb(question: str, body: str) -> bool:
    """Whether ``body`` uses the verb a "How do I VERB ..." question asks about (any form but the gerund noun)."""
    # the verb, and the word after it (its object's first word, past an article)
    m = re.match(r"^How (?:do|does) (?:I )?(\w+)(?: (?:the |a |an )?([a-z]+))?", question)
    if not m or m.group(1).lower() in ("work", "make", "get", "take", "have", "do", "give", "go", "keep", "set"):
        return True  # a light verb ("Making a complaint") rarely recurs in the steps it heads
    if re.search(r"\byou (?:can|should|must|need|may|have to|will need)\b|\bplease\b", body, re.IGNORECASE):
        return True  # instructions in other words
    verb = m.group(1).lower()
    stem = verb[:-1] if verb.endswith("e") else verb
    # "-ing" before the heading's own next word is the compound noun ("Mailing lists are ...",
    # "floating point values"), no use of the verb
    noun = rf"|{re.escape(m.group(2).rstrip('s'))}\w*" if m.group(2) else ""
    forms = rf"\b(?:{re.escape(verb)}(?:s|es|d|ed)?|{re.escape(stem)}(?:es|ed|ing(?!\s+(?:of{noun})\b)))\b"
    return re.search(forms, body, re.IGNORECASE) is not None


# Words a Title Case heading leaves in lower case ("Limitations and Issues", "Prerequisites and Conventions")
_MINOR_WORDS = word_set(
    "a an the and or nor but of in on at to for by with from as vs via into per your my our their its"
)


_FILE_NAME = re.compile(r"[\w-]+\.(?:sty|cls|tex|dtx|ins|bib|bst|cfg|def|fd|mp|el|py|sh|txt)")


def _plain_word(phrase: str) -> bool:
    """One ordinary English word (in lemminflect's dictionary), not a name, term or what a package offers."""
    word = re.sub(r"^(?:the|a|an) ", "", phrase, flags=re.IGNORECASE)
    if not re.fullmatch(r"[A-Za-z]+", word) or word.lower() in _OFFER_NOUNS or word.lower() in _LIST_NOUNS:
        return False
    return bool(lemmas(word.lower()))


def _plural_subject(subject: str) -> bool:
    last = subject.split()[-1] if subject else ""
    return subject.startswith("the ") and last.islower() and _plural(last)  # "the shapes macros"


def _noun_question(low: str, subject: str) -> str:
    if all(w[:1].isupper() for w in low.split()[1:] if w[:1].isalpha() and w not in _MINOR_WORDS):
        low = lower_title(low)  # Title Case -> sentence case, names kept
    phrase = to_first_person(low)
    if re.fullmatch(r"the [a-z]+", phrase, re.IGNORECASE) and _head_noun(phrase) in _OFFER_NOUNS:
        phrase = phrase.split()[1]  # "The commands": what the package offers, not "say about the commands"
    words = phrase.split()
    head = _head_noun(phrase)
    first_free = words[0].lower() not in _DETERMINERS
    plain_np = not re.search(r"\b(?:to|be|been|is|are)\b", phrase)  # not "commands to be adapted"
    does = "do" if _plural_subject(subject) else "does"
    offers = subject and not _A_DOCUMENT.search(subject)  # "Which emacs lisp programs does the Policy Manual provide?"
    if offers and head in _OFFER_NOUNS and first_free and plain_np and " and " not in phrase and len(words) <= 4:
        return f"Which {lower_title(phrase)} {does} {subject} provide?"
    if head in _LIST_NOUNS and " and " not in phrase and first_free:
        if not subject:
            return _capital(f"What are the {phrase}?")
        if not _A_DOCUMENT.search(subject):  # a package or a clinic has requirements; a guide describes some
            return _capital(f"What are the {phrase} of {subject}?")
    if not subject:
        return _capital(f"What should I know about {the(phrase)}?")
    if _FILE_NAME.fullmatch(phrase):  # "cgloss4e.sty": a file is named, not "the cgloss4e.sty"
        return _capital(f"What {does} {subject} say about {phrase}?")
    # No "What is/are X in Y?": it asks for a definition, and a section under a noun heading more
    # often describes how X is used (readers marked half of those answers incomplete, rounds 4-9).
    forms = (
        "What should I know about {np} {prep} {subject}?",
        "Can you explain {np} {prep} {subject}?",
        "What {does} {subject} say about {np}?",
        "What do I need to know about {np} {prep} {subject}?",
    )
    if not re.match(r"(?:the |[“\"])", subject):
        # a bare name ("MFPIC", "ReportLab PDF Generation") is a product, not a document that "says" things
        forms = tuple(f for f in forms if "say about" not in f)
    lead = subject.split()[0]
    product = (namelike(lead) or lead[:1].isupper()) and len(lead) >= 3 and lead != "The"
    if product and re.search(rf"(?<!\w){re.escape(lead)}(?!\w)", phrase):
        # the heading names the product ("The ReportLab graphics library", "Gri discussion group"): no
        # "... in ReportLab PDF Generation" after it (rounds 33-34)
        forms = tuple(f.replace(" {prep} {subject}", "") for f in forms if "say about" not in f)
    pick = int(sha256_text(f"{low}|{subject}")[:8], 16) % len(forms)
    np = the(phrase)
    if product and re.match(rf"{re.escape(lead)}(?: (?:in|on|at|for|and|with|under|versus|vs\.?)\b|$)", phrase):
        np = phrase  # "Gri in the press": the product's name takes no article
    prep = "in" if subject_preposition(subject) == "with" else subject_preposition(subject)
    return _capital(forms[pick].format(np=np, subject=subject, prep=prep, does=does))


def _heading_question_nl(heading: str, title: str, subject: str) -> tuple[str, int] | None:
    low = lower_first(heading)
    if re.match(r"^(?:hoe|wat|wanneer|waar|wie|waarom|welke|kan|mag|moet) ", low):
        return with_subject(_capital(low) + "?", subject, "nl"), 4
    if re.match(r"^(?:contact|contactgegevens|vragen)$", low):
        head = re.split(r"[:|–—]", title, maxsplit=1)[0].strip()
        return (f"Hoe kan ik contact opnemen met {lower_title(head)}?", 4) if head else None
    if _one_word(heading):
        return None  # "Wat moet ik weten over wiki?", "... over beschikbaarheid?": one word echoed (round 24)
    low = re.sub(r"\buw\b", "mijn", low)
    imperative = _NL_IMPERATIVE.match(low)
    if imperative:  # "Voeg een LTSP-chroot toe" -> "Hoe voeg ik een LTSP-chroot toe?"
        question = f"Hoe {imperative.group(1)} ik {imperative.group(2)}?"
        return with_subject(question, subject, "nl"), 3
    if _nl_infinitive(low):  # "Op de hoogte blijven van ...", "Wachtwoorden instellen": a task
        return with_subject(f"Hoe kan ik {low}?", subject, "nl"), 3
    if _NL_PREPOSITION.match(low):  # "Bij een opstelling zonder clients": no "weten over bij ..."
        question = f"Wat moet ik weten {low}?"
        if subject and not names_subject(question, subject):
            question = f"Wat moet ik weten {low} in {lower_article(subject)}?"
        return _capital(question), 3
    question = HEADING_FRAME_NL.split(" bij ")[0].format(heading=low) + "?"
    if subject and not names_subject(question, subject):
        question = HEADING_FRAME_NL.format(heading=low, subject=lower_article(subject))
    return _capital(question), 3


# The other languages' headings that name a place in the document or a note's label, or ask about
# what the text before said (the English rules are _NOT_A_NAME and _SKIP_HEADINGS)
_POINTS_BACK_IN = re.compile(
    r"^(?:prim[oa]|second[oa]|terz[oa]|quart[oa]|quint[oa]|primer[oa]?|segund[oa]|tercer[oa]?|cuart[oa]|"
    r"terceir[oa]|eerste|tweede|derde|vierde|vijfde|premi[eè]re?|deuxième|troisième|erste[rs]?|zweite[rs]?|"
    r"dritte[rs]?)\s+(?:sezione|parte|capitolo|sección|parte|capítulo|secção|seção|capítulo|sectie|deel|"
    r"hoofdstuk|section|partie|chapitre|abschnitt|teil|kapitel)\b"
    r"|^(?:(?:een|de|una?|une|la|le|las|os|as|les|des|eine?)\s+)?(?:noot|opmerkingen?|waarschuwing|nota|note|"
    r"avvertenz[ae]|osservazion[ei]|advertencia|observaci[oó]n(?:es)?|observaç(?:ão|ões)|aviso|remarques?|"
    r"anmerkung(?:en)?|hinweise?|bemerkung(?:en)?)\b"
    r"|\b(?:daarmee|daarvan|daarover|hiermee|hiervan|ciò|esto|eso|ello|isso|isto|cela|ceci)\b",
    re.IGNORECASE,
)


def _one_word(heading: str) -> bool:
    """One word, with no sign of being a name or a command ("Radici", "xelatex", "wiki")."""
    return re.fullmatch(r"[^\W\d_]+", heading) is not None and not re.search(r"[A-Z].*[A-Z]", heading)


# A task heading in the other languages opens with an infinitive ("Installare PSfrag", "Instalar el
# paquete"): the verbs manuals name tasks with, and the question users ask about one
_TASK_FRAMES = {
    "it": "Come posso {task}?",
    "es": "¿Cómo puedo {task}?",
    "pt": "Como posso {task}?",
    "fr": "Comment puis-je {task} ?",
}
_TASK_VERBS = {
    language: frozenset(words.split())
    for language, words in {
        "it": "installare usare utilizzare configurare impostare cambiare modificare creare aggiungere rimuovere "
        "eliminare definire ridefinire scrivere comporre caricare ottenere scaricare inserire personalizzare "
        "attaccare numerare stampare compilare aggiornare gestire evitare scegliere selezionare disegnare "
        "costruire collegare citare allineare centrare spostare ruotare convertire generare produrre "
        "preparare cominciare iniziare mettere trasformare includere",
        "es": "instalar usar utilizar configurar cambiar modificar crear añadir agregar quitar eliminar definir "
        "redefinir escribir componer cargar obtener descargar insertar personalizar numerar imprimir compilar "
        "actualizar gestionar evitar elegir seleccionar dibujar construir citar alinear centrar mover girar "
        "convertir generar producir preparar empezar incluir poner",
        "pt": "instalar usar utilizar configurar mudar alterar modificar criar adicionar acrescentar remover "
        "eliminar definir redefinir escrever compor carregar obter baixar inserir personalizar numerar imprimir "
        "compilar atualizar gerenciar evitar escolher selecionar desenhar construir citar alinhar centralizar "
        "mover converter gerar produzir preparar começar incluir colocar",
        "fr": "installer utiliser configurer changer modifier créer ajouter supprimer définir redéfinir écrire "
        "composer charger obtenir télécharger insérer personnaliser numéroter imprimer compiler mettre gérer "
        "éviter choisir sélectionner dessiner construire citer aligner centrer déplacer convertir générer "
        "produire préparer commencer inclure",
    }.items()
}


# A heading that is a question without its question mark ("Cosa è fancyhdr", "Cómo cambiar el estilo")
_HEADING_ASKS = {
    "it": re.compile(r"^(?:cosa|che cosa|come|quando|perché|quale|quali|chi|dove|quanto)\b", re.IGNORECASE),
    "es": re.compile(r"^¿?(?:qué|cómo|cuándo|por qué|cuál|cuáles|quién|dónde|cuánto)\b", re.IGNORECASE),
    "pt": re.compile(r"^(?:o que|como|quando|por que|porque|qual|quais|quem|onde|quanto)\b", re.IGNORECASE),
    "fr": re.compile(r"^(?:qu['’]est-ce|comment|pourquoi|quand|quel|quelle|qui|où|combien)\b", re.IGNORECASE),
    "de": re.compile(r"^(?:was|wie|wann|warum|welche|welcher|welches|wer|wo|wieviel)\b", re.IGNORECASE),
}


# Dutch verbs manuals name tasks with, in the infinitive ("Wachtwoorden instellen"): a heading with one
# at its end, or before its complement ("... blijven van ...", "... gebruiken die ..."), is a task
_NL_VERB_LIST = """instellen installeren configureren gebruiken toevoegen verwijderen wijzigen aanpassen maken aanmaken
    zoeken beheren opwaarderen bijwerken starten opstarten herstarten inloggen aanmelden afmelden kopiëren
    downloaden openen sluiten blijven houden krijgen vinden kiezen vergroten verkleinen controleren activeren
    uitschakelen inschakelen afdrukken printen delen koppelen vervangen herstellen bewaren opslaan schrijven
    lezen vertalen melden testen uitvoeren updaten upgraden beveiligen versleutelen exporteren importeren
    inperken ontlasten ondersteunen plaatsen zetten stellen veranderen regelen aanvragen ophalen verzenden
    versturen ontvangen invullen aanzetten uitzetten inrichten opzetten uitbreiden verplaatsen hernoemen"""
_NL_VERBS = frozenset(_NL_VERB_LIST.split())
_NL_COMPLEMENT = frozenset(("van", "om", "die", "dat", "met", "op", "in", "voor", "via", "zonder", "naar", "bij"))


def _nl_infinitive(heading: str) -> bool:
    words = re.findall(r"[\w’'-]+", heading.casefold())
    if len(words) < 2 or words[0] in _NL_VERBS:
        return False  # one word, or a verb first (an imperative, handled apart)
    pairs = itertools.pairwise(words[1:])
    return words[-1] in _NL_VERBS or any(w in _NL_VERBS and nxt in _NL_COMPLEMENT for w, nxt in pairs)


# A Dutch heading that opens with a preposition, or with a verb in the imperative ("Voeg ... toe",
# "Installeer ..."; not "Gebruik van ...", a noun)
_NL_PREPOSITION = re.compile(r"^(?:bij|voor|met|zonder|tijdens|na|in|op|onder|via|tegen|naar|door|aan|uit|van|over)\s")
_NL_IMPERATIVE = re.compile(
    r"^(voeg|installeer|configureer|stel|kies|wijzig|verwijder|bewerk|controleer|activeer|schakel|zet|kopieer|"
    r"download|meld|sluit|voer|geef|bekijk|herstart|koppel|selecteer|zoek|vervang|bewaar|maak|verander|haal|"
    r"gebruik)\s+(?!van\b)(\S.*)$"
)


# Dutch headings are phrased in code (the rules above); this is their default question
HEADING_FRAME_NL = "Wat moet ik weten over {heading} bij {subject}?"


def heading_frame(language: str) -> str:
    """The default offline question around a heading in ``language`` ("Cosa devo sapere su «{heading}» in
    {subject}?"), or "" for English (phrased by rules) or a language without one."""
    if language == "nl":
        return HEADING_FRAME_NL
    return str(forms(language).get("heading") or "") if language != "en" else ""


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


# --- sentence patterns -------------------------------------------------------------------

_IMPERATIVE = re.compile(
    r"^(?:please |always |never |do not |don't |first |then |also )?(?:call|contact|ring|tell|let|ask|send|"
    r"report|register|request|book|submit|order|apply|go|come|bring|take|use|check|switch|press|make|keep|"
    r"inform|e-mail|email|write|fill|stop|seek|wait|return|do|visit|log|follow|see|read|talk|discuss|"
    r"remove|place|put|restart|unplug|choose|select)\b|^you (?:should|must|need to|can|may|have to)\b",
    re.IGNORECASE,
)
_ACTION_VERBS = (
    "report|register|request|book|submit|order|apply for|store|change|connect|reset|update|cancel|claim|"
    "collect|renew|upload|install|print|pay for|create|set up|add|download|reach|contact|return|"
    "replace|clean|descale|extend"
)
_PREP = (
    r"(?:online|by|through|via|at(?! least| most| any| the latest| the same)|in the|in your|using|from the|"
    r"on the|on|to the|with the)"
)
_PRONOUN_END = re.compile(r"\b(?:it|them|this|that|one)$")


def _short_object(phrase: str) -> bool:
    """A short object that ends where the question can: not in a relative clause or on a participle.

    "Create a flowable which will contain the image defined" was cut before "by the data in ...".
    """
    return (
        len(phrase.split()) <= 9
        and "," not in phrase
        and not _PRONOUN_END.search(phrase)
        and not re.search(r"\b(?:which|that|who|whose|where)\b|\b\w+ed$", phrase)
    )


# A condition cut before its end ("if you want a jacobian in, say, slash-fraction form").
_OPEN_END = re.compile(r"\b(?:in|on|at|of|for|with|to|by|from|into|as|a|an|the|say|and|or)$", re.IGNORECASE)
# "To make a long story short, ...": a purpose that names nothing a user would look up.
_IDLE_PURPOSE = re.compile(
    r"^(?:make (?:a long story short|things|it|this|that|life|sure|matters)|be (?:safe|precise|sure|honest|fair|clear)|"
    r"sum (?:up|it up)|summari[sz]e|conclude|begin|start|put it|see|illustrate|recap|avoid confusion|"
    r"understand (?:this|that|it|why|how))\b"
)


def sentence_questions(sentence: str) -> list[tuple[str, int]]:
    """Questions a sentence answers, by surface pattern (English only), with scores."""
    s = re.sub(r"\s+", " ", sentence.replace("’", "'")).strip()
    s = re.sub(r"\s*\((?:see|cf\.?|compare)\b[^()]*\)", "", s, flags=re.IGNORECASE)  # "(see subsection 4.10.2)"
    out: list[tuple[str, int]] = []
    m = re.match(r"^(If|When) ((?:you|your)\b.{6,90}?), (.+)$", s)
    if m and m.group(2).count("(") != m.group(2).count(")"):
        m = None  # "If your TEX distribution (TEX Live, ..." cut inside the brackets
    if m:
        cond = to_first_person(f"{m.group(1).lower()} {m.group(2)}")
        wish = re.match(r"^(?:if|when) I (?:want|wish|would like|need) to (\w.+)$", cond)
        lead = "What should I do" if _IMPERATIVE.match(m.group(3)) else "What happens"
        if re.match(r"^(?:if|when) I (?:do not|don't|would not|wouldn't)? ?(?:want|wish|like|prefer|need)\b", cond):
            lead = "What should I do"  # "What happens if I don't want the circle printed?" asks for a remedy
        vague = (len(cond.split()) <= 6 and re.search(r"\b(?:the|it|this|that|them)(?: \w+)?$", cond)) or re.search(
            r"\b(?:it|this|that|them|these|those)$|—", cond
        )  # "... don't like that", "if I—or rather the journal—...": about what the asker never saw
        if vague or _OPEN_END.search(cond) or re.search(r"\b(?:then|do)$|\bdo then\b", cond):
            pass  # "if I want the subject" (which subject?), "if I want a jacobian in" (cut at ", say,")
        elif wish and not _IDLE_PURPOSE.match(wish.group(1)):
            out.append((f"How do I {wish.group(1)}?", 4))
        elif not wish:
            out.append((f"{lead} {cond}?", 4))
    m = re.match(rf"^You can (?:also |still )?((?:{_ACTION_VERBS})\b.{{2,80}}?) {_PREP}\b", s)
    if m and _short_object(m.group(1)):
        out.append((f"How can I {to_first_person(m.group(1))}?", 4))
    m = re.match(rf"^(?:Please )?((?:{_ACTION_VERBS})\b.{{2,80}}?) {_PREP}\b", s, flags=re.IGNORECASE)
    if m and _short_object(m.group(1)):
        out.append((f"How do I {lower_first(to_first_person(m.group(1)))}?", 4))
    m = re.match(r"^To ([a-z][^,]{3,80}), (.+)$", s)
    purpose = m.group(1) if m else ""
    if (
        m
        and not re.search(r"\byou|\s(?:is|are|was|were)\s|\(", purpose)
        and not _IDLE_PURPOSE.match(purpose)
        and not _OPEN_END.search(purpose)
        and not re.search(r"\b(?:simply|just|then|first|now)\b", purpose)  # a comma missing: "To use X simply append"
    ):
        out.append((f"How do I {m.group(1)}?", 4))
    m = re.match(r"^(The [^,]{3,60}?|[A-Z][\w ]{2,40}?) (is|are) open (.+)$", s)
    if m and _WHEN.search(m.group(3)):  # "open from 8:00 to 17:00", not "open and public"
        out.append((f"When {m.group(2)} {lower_first(m.group(1))} open?", 4))
    m = re.match(r"^(The [^,]{3,60}?) (?:costs? (?=\S*\d)|(?:is|are) free (?:of charge|for)\b)", s)
    if m:  # "The course costs €40", "The parking is free for patients", not "The user is free to add ..."
        out.append((f"How much does {lower_first(m.group(1))} cost?", 3))
    return out


# When a place is open: days, times, hours ("from 8:00", "on weekdays", "24 hours a day")
_WHEN = re.compile(
    r"\d|\b(?:mondays?|tuesdays?|wednesdays?|thursdays?|fridays?|saturdays?|sundays?|weekdays?|weekends?|"
    r"daily|every day|hours?|morning|afternoon|evening|noon|midnight|am|pm|from|until|till|between)\b",
    re.IGNORECASE,
)


# --- definitional sentences ---------------------------------------------------------------

_SELF_NOUNS = (
    r"package|class|module|library|program|tool|software|device|product|service|app|application|document|"
    r"manual|guide|bundle|font|macro set|system|machine|unit|printer|router|camera|appliance"
)
_DEF_VERBS = {
    "provides": "provide",
    "defines": "define",
    "offers": "offer",
    "implements": "implement",
    "supports": "support",
    "adds": "add",
    "contains": "contain",
    "includes": "include",
    "loads": "load",
    "redefines": "redefine",
    "extends": "extend",
    "produces": "produce",
    "creates": "create",
    "generates": "generate",
    "requires": "require",
    "uses": "use",
    "handles": "handle",
}
_LET_VERBS = ("allows", "lets", "enables", "helps")
# Verbs that state what a name has or uses; for a bare name they rarely define it.
_STATE_VERBS = word_set("uses contains includes requires needs has holds equals means handles loads")
_NAME = r"(\\[A-Za-z@]+\*?|[A-Za-z][\w-]*[A-Z0-9][\w-]*|[a-z][\w-]*\.(?:sty|cls|mp|tex))"
_RESTRICTIVE = r"(?:,|\bwhich\b|\bthat\b|\bwho\b)"


_DOCUMENT_NOUNS = word_set("document manual guide handbook documentation definition reference tutorial book")


def _same_kind(noun: str, subject: str, definite: bool = False) -> bool:
    """Whether "this NOUN" can be ``subject``: the same noun, or a software noun for a name ("MFPIC", "hyperref").

    A subject that is a document ("the Ubuntu Packaging Guide") is never "this package" or "this application":
    there the words point at something the document describes. "The package" (``definite``) in a long
    document is often one of the packages it describes ("The package provides several Renderers" in
    ReportLab's guide), so it counts only when the subject is a package; "the router" is the product.
    """
    words = re.findall(r"[\w-]+", subject.casefold())
    if not words:
        return False
    if noun in words:
        return True
    if definite and noun in ("package", "module", "library", "class"):
        return False
    return words[-1] not in _DOCUMENT_NOUNS and noun not in _DOCUMENT_NOUNS


def definition_questions(sentence: str, subject: str) -> list[tuple[str, int]]:
    """Questions a defining sentence answers ("This package provides ..." -> "What does the X package provide?").

    ``subject`` replaces "the/this package" (or product, tool, ...); a named term (a macro
    such as \\columnbreak, a mixed-case or numbered name) is asked about directly.
    """
    s = re.sub(r"\s+", " ", sentence).strip()
    out: list[tuple[str, int]] = []
    if len(s.split()) < 6 or len(s.split()) > 60:
        return out
    m = re.match(rf"^(The|This|Our|Your) ({_SELF_NOUNS}) ([a-z]+s)\b(.*)$", s)
    if m and subject and not _same_kind(m.group(2), subject, definite=m.group(1) == "The"):
        m = None  # "This application uses autoconf" in the Ubuntu Packaging Guide: an example's application
    if m and subject:
        verb, rest = m.group(3), m.group(4).strip()
        if verb in _DEF_VERBS and rest and not rest.startswith(("to ", ",")):
            out.append((f"What does {subject} {_DEF_VERBS[verb]}?", 4))
        elif verb in _LET_VERBS and rest:
            out.append((f"What does {subject} let me do?", 4))
    if re.match(r"^(?:The )?\\[A-Za-z]*@", s):
        return out  # "\\eqa@lastcol ...": an internal macro of the implementation, not for users
    m = re.match(rf"^(?:The )?{_NAME} (?:command |macro |option |environment |key |package )?is (?:a|an|the) (.+)$", s)
    # a roman numeral names a part, or is the tail of a name the line broke ("ConTeXt Mk" / "IV is a re-write")
    # "What is gb4e.sty?", "What is ReportLab?" asked of the document's own subject: one sentence of it
    # never says what the whole package is (readers: 18 of 31 such verdicts incomplete, rounds 4-30)
    own = m is not None and bool(subject) and names_subject(m.group(1), subject)
    if m and re.search(r"[A-Z]{2,}[À-ÖØ-Þ]", m.group(1)):
        m = None  # "ABCÏ is a triangle": a math accent the PDF's font maps to a letter (yhmath), no name
    if m and not own and not re.match(_RESTRICTIVE, m.group(2)) and not re.fullmatch(r"[IVXLC]+", m.group(1)):
        out.append((with_subject(f"What is {m.group(1)}?", subject), 4))
    m = re.match(rf"^(?:The )?{_NAME} (?:command |macro |option |environment |key )?([a-z]+s)\b (.+)$", s)
    if m and m.group(2) in _STATE_VERBS:
        pass  # "KDE uses C++ libraries", "\BRchvsep contains a comma, ...": a passing remark or a condition
    elif m and m.group(2) in _DEF_VERBS:
        out.append((with_subject(f"What does {m.group(1)} {_DEF_VERBS[m.group(2)]}?", subject), 4))
    elif m and m.group(1).startswith("\\") and not m.group(2).endswith("ss"):
        out.append((with_subject(f"What does {m.group(1)} do?", subject), 4))
    return out
