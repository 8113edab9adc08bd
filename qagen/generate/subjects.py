"""What a document is about, named in every question; headings without their numbers.

A chatbot holding many documents cannot answer "What are the options?": every package
manual has an Options section. Questions therefore name their subject, the product,
organisation, package or document they concern, taken from the document's title
(metadata title, else first heading, else file name) by :func:`document_subject`, and
never carry a section number (:func:`clean_heading`).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from pathlib import PurePath

from qagen.generate.text import word_set
from qagen.language import function_words

# "2.3 ", "10.1. ", "A.2 ", "IV. ", "§ 4 ", and the lone letters some PDFs put before headings ("f Standard ...").
_NUMBERING = re.compile(
    r"^\s*(?:"
    r"§\s*\d+(?:\.\d+)*\.?"
    r"|\d+(?:\.\d+)*\.?(?=\s)"
    r"|[A-Z]\.\d+(?:\.\d+)*\.?"
    r"|[IVXLC]{1,6}\.(?=\s)"
    r"|(?:chapter|section|appendix|part|hoofdstuk|kapitel|abschnitt|chapitre|capitolo|capítulo|cap[ií]tulo)"
    r"\s+(?:\d+|[A-Z]|[IVXLC]+)(?:\.\d+)*[.:]?"
    r")\s*[-–—:.]?\s+",
    re.IGNORECASE,
)
_LOWER_LETTER = re.compile(r"^[a-z]\s+(?=[A-Z])")  # "f Standard user junction definitions"
_APPENDIX_LETTER = re.compile(r"^[B-HJ-Z]\s+(?=[A-Z][a-z])")  # "B Examples" (not "A Note", "I Want")
_PART_SUFFIX = re.compile(r"\s*\(\d+\s*/\s*\d+\)\s*$")  # "Rendering figures (1/2)": a long section cut in parts
_FOOTNOTE_MARKS = re.compile(r"\s*[∗*†‡¶]+\s*|(?<=[a-z])\d+$|\s*\(\d+/\d+\)")  # "(1/75)": a page counter
# A title that links words with one of these reads as a description ("Algemene informatie over de FAQ"),
# quoted in a question, not as a name
_DESCRIPTIVE_PREPOSITIONS = re.compile(
    r"\s(?:in|for|of|to|with|on|over|van|voor|met|für|über|von|mit|pour|avec|sur|del|di|per|con|su|para|com|sobre)\s"
)
_CHAPTER = re.compile(
    r"^(?:chapter|hoofdstuk|kapitel|chapitre|capitolo|cap[ií]tulo)\s+\d+[.:]?\s+(?=\S)", re.IGNORECASE
)
_VERSION_TAIL = re.compile(
    r"(?:[,;]?\s+(?:version|versie|vers\.|v\.?)\s*\d[\w.\-/]*.*$)"  # ", Version 2.08, 2014/07/11", " v1.0"
    r"|(?:[,;]?\s+(?:19|20)\d\d[/\-.]\d\d?(?:[/\-.]\d\d?)?.*$)",  # a trailing date
    re.IGNORECASE,
)
_DOC_SUFFIX = re.compile(
    r"\s*(?:\(|[-–—:|]\s*)?(?:documentation|user manual|user guide|owner'?s manual|reference manual|"
    r"setup guide|quick start guide|installation guide|handbook|leaflet|brochure|manual|guide|"
    r"gebruikershandleiding|handleiding|bedienungsanleitung|handbuch|manuale|guida|manual de usuario|"
    r"guía|mode d'emploi)\)?\s*$",
    re.IGNORECASE,
)
_ARTICLE = re.compile(r"^(?:the|a|an|de|het|een|der|die|das|le|la|les|il|lo|el|los|las|o|os|as)\s+", re.IGNORECASE)
_PACKAGE_FILE = re.compile(r"^([\w@-]+)\.(?:sty|cls|dtx|tex|mp|py|js)$", re.IGNORECASE)
# "Package sobolev", "The extension package codicefiscaleitaliano"
_PACKAGE_FIRST = re.compile(
    r"^(?:the\s+(?:[a-z]+\s+)?)?(?:package|paket|pakket|paquete|pacchetto|pacote)\s+"
    r"(?!(?:documentation|manual|guide|reference)\b)(\S+)$",
    re.IGNORECASE,
)
# "The eledform extension for eledmac", "the shapes Macros for ...", "The Expressg MetaPost package for
# drawing ...", "The wasysym macro package for LATEX2ε": a name (and a qualifier), its kind, then a purpose
_KIND_THEN_PURPOSE = re.compile(
    r"^(?:the\s+)?([a-z][\w@.-]{2,}(?:\s+[\w-]+)?)\s+(package|class|bundle|library|module|extension|macros)"
    r"\s+(?:for|to|in|of)\s",
    re.IGNORECASE,
)
# A title that opens with a lowercase identifier, then words ("chapterbib multiple bibliographies"): a name
_LOWERCASE_NAME = re.compile(r"^[a-z][a-z0-9@.-]{3,}\s+[a-z]")
_NAMED_KIND = re.compile(r"^((?:the\s+)?\S+\s+(?:package|class|bundle|library|module))\s+[A-Z].*$", re.IGNORECASE)


_NAMED_ANYWHERE = re.compile(r"\bthe ([\w@.-]+) (?:package|class|module|library)\b", re.IGNORECASE)
_NAME_THEN_PACKAGE = re.compile(r"^([\w@.-]+),? (?:is )?(?:a|an) (?:\S+ ){0,3}package\b", re.IGNORECASE)
_MANUAL_FOR = re.compile(r"\b(?:manual|guide|documentation) (?:for|of) (?:the )?([\w@.-]+)$", re.IGNORECASE)
_FILE_ANYWHERE = re.compile(r"\b([\w@-]+)\.(?:sty|cls)\b")
_OWNER = re.compile(r"\b(?:at|of|from|by|to)\s+((?:[A-Z][\w'’&-]*\s?){1,5})$")
_RULE_NOUNS = word_set(
    "policy policies plan programme program procedure procedures regulations rules terms agreement guidelines"
)
# "American Mathematical Society Barbara Beeton": an affiliation and a person, read as the title.
_BYLINE = re.compile(
    r"\b(?:Society|University|Institute|College|Laboratory|Corporation|Foundation)\s+"
    r"[A-Z][a-zà-ÿ]+(?:\s+[A-Z]\.)?\s+[A-Z][a-zà-ÿ'’-]+$"
)
_INSTITUTION_NOUNS = _RULE_NOUNS | word_set(
    "clinic hospital centre center department service services team company office school university library "
    "museum council ministry agency association foundation institute unit ward practice pharmacy"
)
_GENERIC = word_set(
    "the a an of for and or to in on with by my your our this that package packages manual guide user users "
    "documentation document handbook version news macro macros class font fonts system latex tex bundle "
    "extension style file files"
)


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def clean_heading(heading: str) -> str:
    """A heading without its section number or footnote marks: "2.3 The option multicol" -> "The option multicol"."""
    text = re.sub(r"[\ue000-\uf8ff]", "", heading)  # private-use glyphs: a symbol font's numbers, no text
    text = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip()
    text = _PART_SUFFIX.sub("", text)
    for _ in range(2):  # "Appendix A.2 ..." loses both parts
        stripped = _NUMBERING.sub("", text, count=1)
        stripped = _APPENDIX_LETTER.sub("", stripped, count=1)
        stripped = _LOWER_LETTER.sub("", stripped, count=1)
        if stripped == text:
            break
        text = stripped
    text = re.sub(r"\s+", " ", _FOOTNOTE_MARKS.sub(" ", text)).strip(" :;-–—")
    # a dot left by a lost number (". defaults") goes; a name's own (".Internal", R's) stays
    return re.sub(r"^\.+(?:\s+|$)", "", text).rstrip(" .:;-–—")


_ARTICLES = word_set("the a an de het een der die das ein eine le la les un une el los las lo il gli i o os as um uma")


def lower_article(subject: str) -> str:
    """A subject for the middle of a sentence: its leading article in lower case ("Il pacchetto x" -> "il ...")."""
    first, _, rest = subject.partition(" ")
    return f"{first.lower()} {rest}" if rest and first.lower() in _ARTICLES else subject


def is_byline(title: str) -> bool:
    """True for a title page's byline read as the title ("American Mathematical Society Barbara Beeton")."""
    return _BYLINE.search(clean_title(title)) is not None


def clean_title(title: str) -> str:
    """A title without footnote marks, trailing versions and dates."""
    text = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", title)).strip()
    text = re.sub(r"\s+", " ", _FOOTNOTE_MARKS.sub(" ", text)).strip()
    text = _VERSION_TAIL.sub("", text)
    text = _CHAPTER.sub("", text)  # "Hoofdstuk 16. Algemene informatie over de FAQ": one chapter of a book
    text = re.sub(r"[{}]", "", text)  # "{zx-calculus}": a LaTeX group the PDF title kept
    return text.strip(" ,;:-–—")


_GENERIC_THEN_NAME = re.compile(
    r"^(?:package |class )?(?:documentation|manual|user guide|reference)\s*:\s*([\w@.-]+)$", re.IGNORECASE
)
_MINOR = frozenset({"a", "an", "the", "and", "or", "of", "for", "in", "on", "to", "with", "at", "by", "from", "as"})


def _uncapital(word: str, position: int) -> str:
    """A word of a title set in capitals, in title case: acronyms and models ("FAQ", "AX1800") kept."""
    if position and word.lower() in _MINOR:
        return word.lower()
    if len(word) <= 3 or re.search(r"\d", word):
        return word
    return word.capitalize()


# A title that is a task ("Make link targets", "Creating tables") with its package or bundle in brackets
_TASK_THEN_NAME = re.compile(
    r"(?:[A-Z][a-z]+ing|Make|Use|Create|Set|Define|Write|Draw|Typeset|Build|Add|Change|Configure|Install|Load)\b"
    r"[^()]*\(\s*(?:the\s+)?([\w@.-]+)\s+(bundle|package|class|library|module)\s*\)\s*"
)


@functools.lru_cache(maxsize=4096)  # asked per section, entity and cloze; a pure function of its strings
def document_subject(title: str, doc_path: str = "") -> str:
    """A noun phrase naming what a document is about, for use inside a question.

    "The multicol package∗" -> "the multicol package"; "linguex.sty Documentation" -> "the
    linguex package"; "AromaVita Barista 300: User Manual" -> "the AromaVita Barista 300";
    "Extending MP to 3D and 4D" (a sentence, not a name) -> '"Extending MP to 3D and 4D"'.
    Falls back to the file name when the title is empty.
    """
    text = clean_title(title) or re.sub(r"[_\-]+", " ", PurePath(doc_path).stem).strip()
    if not text:
        return ""
    if text.isupper() and len(text.split()) >= 3:  # "PREPARING ARTICLES FOR COMPUTATIONAL COMPLEXITY": set in capitals
        text = " ".join(_uncapital(w, i) for i, w in enumerate(text.split()))
    bracketed = _TASK_THEN_NAME.fullmatch(text)
    if bracketed:  # "Make link targets (hyperref bundle)": an instruction, then what it belongs to
        return f"the {bracketed.group(1)} {bracketed.group(2).lower()}"
    manual_for = _MANUAL_FOR.search(text)
    if manual_for and len(text.split()) > 3:  # "Hypertext marks in LaTeX: a manual for hyperref"
        return manual_for.group(1)
    package_first = _PACKAGE_FIRST.match(text)
    if package_first:  # before "the extension package" is read as a name
        return f"the {package_first.group(1)} package"
    named_in = _NAMED_ANYWHERE.search(text) or _FILE_ANYWHERE.search(text) or _NAME_THEN_PACKAGE.match(text)
    if named_in and len(text.split()) > 2:  # "Experimental Unicode ...: The unicode-math package"
        return f"the {named_in.group(1)} package"
    generic_first = _GENERIC_THEN_NAME.match(text)
    if generic_first:  # "Package documentation: causets" -> "the causets package"
        return f"the {generic_first.group(1)} package"
    head = re.split(r"\s*[:|–—]\s+|\s+-\s+", text, maxsplit=1)[0].strip() or text
    if len(head.split()) == 1 and head != text and re.search(r"\bpackage\b", text, re.IGNORECASE):
        return f"the {head} package"  # "ulqda: A LATEX package supporting ..."
    owner = _OWNER.search(head)
    if owner and re.match(r"^(?:your|our|welcome|about|information|patient|visitor|guest)\b", head, re.IGNORECASE):
        head = owner.group(1).strip()  # "Your Rights as a Patient at Lindenhof Hospital" -> "Lindenhof Hospital"
    head = re.sub(r"^(?:welcome to|about|your|our)\s+", "", head, flags=re.IGNORECASE).strip()
    stripped = _DOC_SUFFIX.sub("", head).strip()
    name_kind = re.fullmatch(r"(?:the\s+)?([\w@.-]+)\s+(package|class)", stripped, re.IGNORECASE)
    if name_kind and stripped != head:  # "lpform Package Documentation" -> "the lpform package"
        return f"the {name_kind.group(1)} {name_kind.group(2).lower()}"
    if stripped and stripped != head:
        if any(namelike(w) for w in stripped.split()) or _PACKAGE_FILE.match(stripped.split()[0]):
            head = stripped  # "Dell XPS 13 Owner's Manual" -> "Dell XPS 13"
        elif not _ARTICLE.match(head):
            return f"the {head}"  # "Acme Employee Handbook" -> "the Acme Employee Handbook"
    file_like = _PACKAGE_FILE.match(head.split()[0]) if head.split() else None
    if file_like and len(head.split()) <= 2:
        return f"the {file_like.group(1)} package"
    package_first = _PACKAGE_FIRST.match(head)
    if package_first:
        return f"the {package_first.group(1)} package"
    named = _NAMED_KIND.match(head)
    if named:  # "The l3galley package Galley code": the subtitle runs on
        head = named.group(1)
    head = re.sub(r"\b(Package|Class|Bundle|Font|Library|Module|Macros|Extension)$", lambda m: m.group(1).lower(), head)
    kind_first = _KIND_THEN_PURPOSE.match(head)
    if kind_first:  # "The eledform extension for eledmac": the name and its kind, not the whole title
        return f"the {kind_first.group(1)} {kind_first.group(2).lower()}"
    words = head.split()
    if words and words[-1].casefold() in _INSTITUTION_NOUNS and not _ARTICLE.match(head):
        return f"the {head}"
    descriptive = len(words) >= 4 and re.search(_DESCRIPTIVE_PREPOSITIONS, head) is not None
    if (descriptive or len(words) > 7) and _LOWERCASE_NAME.match(head):
        return words[0]  # "chapterbib multiple bibliographies in LATEX": a title opening with the name
    if (
        len(words) > 7
        or descriptive
        or re.match(r"^(?:an?|my)\s", head, re.IGNORECASE)
        or (re.match(r"^\w+ing\b", head) and len(words) > 2)
    ):
        return f"“{head}”"
    if _ARTICLE.match(head):
        return head[0].lower() + head[1:] if head[:3].lower() == "the" else head
    if len(words) <= 3 and words[-1].lower() in ("package", "class", "font", "bundle", "library", "module"):
        return f"the {head}"
    return head


def subject_words(subject: str) -> set[str]:
    """The distinctive words of a subject (casefolded), without articles and generic words."""
    words = re.findall(r"[\w@+.-]+", _fold(subject))
    return {w.strip(".-") for w in words if len(w.strip(".-")) >= 2 and w.strip(".-") not in _GENERIC}


def names_subject(question: str, subject: str) -> bool:
    """True when ``question`` names ``subject``: one of its name-like words (LinkHaven, AX1800,
    multicol in "the multicol package") or at least half of its distinctive words.

    "Who can work remotely?" does not name "the Remote Work Policy" (one word of three).
    """
    wanted = subject_words(subject)
    if not wanted:
        return True
    found = set(re.findall(r"[\w@+.-]+", _fold(question)))
    found |= {w.strip(".-") for w in found}
    files = {w for w in found if re.search(r"\w\.(?:sty|cls|mp|tex|dtx|py|js|sh)$", w)}
    found |= {w.rsplit(".", 1)[0] for w in files}  # "linguex.sty" names the linguex package
    # a function word of any language qagen asks in names nothing ("weten over" and "informatie over de FAQ")
    matched = (wanted & found) - function_words()
    if not matched:
        return False
    names = {_fold(w).strip(".-") for w in re.findall(r"[\w@+.-]+", subject) if namelike(w) or w.islower()}
    return bool(matched & names) or len(matched) * 2 >= len(wanted)


def with_subject(question: str, subject: str, language: str = "en") -> str:
    """``question`` naming ``subject``, unchanged when it already does.

    English questions of one sentence get the subject at the end with a fitting preposition
    ("How do I make a complaint at the Lindenhof Hospital?", "... under the Remote Work
    Policy?", "... with the multicol package?"); others, and other languages, get it in front
    ("For LinkHaven AX1800, the router restarts by itself. What should I do?").
    """
    if not subject or names_subject(question, subject):
        return question
    subject = lower_article(subject)
    one_sentence = question.endswith("?") and not re.search(r"[.!?]\s", question[:-1]) and len(question) < 160
    preposition = subject_preposition(subject)
    definition = preposition == "with" and re.match(r"what (?:is|are) ", question, re.IGNORECASE)
    if language == "en" and one_sentence and preposition != "in" and not definition:
        # ("What is Qualitative Data Analysis with the ulqda package?" asks something else: a definition
        # takes the subject in front)
        return f"{question[:-1].rstrip()} {preposition} {subject}?"
    lead = _LEADS.get(language, _LEADS["en"])
    body = question[:1].lower() + question[1:] if not _keeps_case(question) else question
    inverted = language == "es" and body.startswith("¿")
    if inverted:
        body = body[1:]
        body = body[:1].lower() + body[1:] if not _keeps_case(body) else body
    return ("¿" if inverted else "") + lead.format(subject=subject) + body


def subject_preposition(subject: str) -> str:
    """How a question attaches its subject: at an institution, under a policy, with a package, else in."""
    last = re.findall(r"[\w'’-]+", subject.casefold())
    last_word = last[-1] if last else ""
    if last_word in _RULE_NOUNS:
        return "under"
    if last_word in _INSTITUTION_NOUNS:
        return "at"
    if last_word in ("package", "packages", "class", "library", "module", "bundle", "font", "macros", "extension"):
        return "with"
    return "in"


_LEADS = {
    "en": "For {subject}, ",
    "nl": "Bij {subject}: ",
    "de": "Zu {subject}: ",
    "fr": "Pour {subject} : ",
    "es": "En {subject}, ",
    "it": "Per {subject}: ",
    "pt": "Em {subject}, ",
}


def namelike(word: str) -> bool:
    """ECG, AromaVita, AX1800: words that keep their case."""
    return len(word) > 1 and (word.isupper() or any(c.isupper() for c in word[1:]) or any(c.isdigit() for c in word))


def _keeps_case(text: str) -> bool:
    first = text.split(" ", 1)[0]
    return len(first) > 1 and (first.isupper() or any(c.isupper() for c in first[1:]))


def capitalize(text: str) -> str:
    """Upper-case the first letter (after an opening quote or ¿)."""
    for i, ch in enumerate(text):
        if ch.isalpha():
            return text[:i] + ch.upper() + text[i + 1 :]
    return text
