"""What a document is about, named in every question; headings without their numbers.

A chatbot holding many documents cannot answer "What are the options?": every package
manual has an Options section. Questions therefore name their subject, the product,
organisation, package or document they concern, taken from the document's title
(metadata title, else first heading, else file name) by :func:`document_subject`, and
never carry a section number (:func:`clean_heading`).
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import PurePath

from qagen.generate.lang import every, fallback, first, language_cached, part, patterns
from qagen.language import function_words

_I = re.IGNORECASE


# The words of titles and headings are the languages' (subjects.json of qagen/generate/lang/<code>/), read
# together whatever the language of the title: a language adds to them by listing its own.
def _alternation(key: str) -> str:
    return "|".join(every("subjects", key))


def _set(key: str) -> frozenset[str]:
    return frozenset(every("subjects", key))


def _numbering() -> re.Pattern[str]:
    """ "2.3 ", "10.1. ", "A.2 ", "IV. ", "§ 4 ", "Chapter 3: "."""
    return re.compile(
        r"^\s*(?:"
        r"§\s*\d+(?:\.\d+)*\.?"
        r"|\d+(?:\.\d+)*\.?(?=\s)"
        r"|[A-Z]\.\d+(?:\.\d+)*\.?"
        r"|[IVXLC]{1,6}\.(?=\s)"
        rf"|(?:{_alternation('numbering_words')})"
        r"\s+(?:\d+|[A-Z]|[IVXLC]+)(?:\.\d+)*[.:]?"
        r")\s*[-–—:.]?\s+",
        _I,
    )


def _first_of(key: str, text: str, how: str = "match", flags: int = 0) -> re.Match[str] | None:
    """The first match in ``text`` of the languages' patterns ``key`` (``how``: search, match or fullmatch)."""
    for pattern in patterns("subjects", key, flags):
        found = getattr(pattern, how)(text)
        if found:
            return found
    return None


def _article(text: str) -> re.Match[str] | None:
    """A leading article ("The", "Het", "Les")."""
    return re.match(rf"^(?:{_alternation('leading_articles')})\s+", text, _I)


def _package_first(text: str) -> re.Match[str] | None:
    """ "Package sobolev", "The extension package codicefiscaleitaliano": group 1 the name."""
    frame = first("subjects", "package_first")
    return re.match(frame.replace("{}", _alternation("package_words")), text, _I) if frame else None


_LOWER_LETTER = re.compile(r"^[a-z]\s+(?=[A-Z])")  # "f Standard user junction definitions"
_APPENDIX_LETTER = re.compile(r"^[B-HJ-Z]\s+(?=[A-Z][a-z])")  # "B Examples" (not "A Note", "I Want")
_PART_SUFFIX = re.compile(r"\s*\(\d+\s*/\s*\d+\)\s*$")  # "Rendering figures (1/2)": a long section cut in parts
_FOOTNOTE_MARKS = re.compile(r"\s*[∗*†‡¶]+\s*|(?<=[a-z])\d+$|\s*\(\d+/\d+\)")  # "(1/75)": a page counter
_PACKAGE_FILE = re.compile(r"^([\w@-]+)\.(?:sty|cls|dtx|tex|mp|py|js)$", re.IGNORECASE)
# A title that opens with a lowercase identifier, then words ("chapterbib multiple bibliographies"): a name
_LOWERCASE_NAME = re.compile(r"^[a-z][a-z0-9@.-]{3,}\s+[a-z]")


_FILE_ANYWHERE = re.compile(r"\b([\w@-]+)\.(?:sty|cls)\b")


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def clean_heading(heading: str) -> str:
    """A heading without its section number or footnote marks: "2.3 The option multicol" -> "The option multicol"."""
    text = re.sub(r"[\ue000-\uf8ff]", "", heading)  # private-use glyphs: a symbol font's numbers, no text
    text = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip()
    text = _PART_SUFFIX.sub("", text)
    numbering = _numbering()
    for _ in range(2):  # "Appendix A.2 ..." loses both parts
        stripped = numbering.sub("", text, count=1)
        stripped = _APPENDIX_LETTER.sub("", stripped, count=1)
        stripped = _LOWER_LETTER.sub("", stripped, count=1)
        if stripped == text:
            break
        text = stripped
    text = re.sub(r"\s+", " ", _FOOTNOTE_MARKS.sub(" ", text)).strip(" :;-–—")
    # a dot left by a lost number (". defaults") goes; a name's own (".Internal", R's) stays
    return re.sub(r"^\.+(?:\s+|$)", "", text).rstrip(" .:;-–—")


def lower_article(subject: str) -> str:
    """A subject for the middle of a sentence: its leading article in lower case ("Il pacchetto x" -> "il ...")."""
    opening, _, rest = subject.partition(" ")
    return f"{opening.lower()} {rest}" if rest and opening.lower() in _set("articles") else subject


def is_byline(title: str) -> bool:
    """True for a title page's byline read as the title ("American Mathematical Society Barbara Beeton")."""
    return _first_of("byline", clean_title(title), "search") is not None


def clean_title(title: str) -> str:
    """A title without footnote marks, trailing versions and dates."""
    text = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", title)).strip()
    text = re.sub(r"\s+", " ", _FOOTNOTE_MARKS.sub(" ", text)).strip()
    versions = _alternation("version_words")
    text = re.sub(
        rf"(?:[,;]?\s+(?:{versions})\s*\d[\w.\-/]*.*$)|(?:[,;]?\s+(?:19|20)\d\d[/\-.]\d\d?(?:[/\-.]\d\d?)?.*$)",
        "",
        text,
        flags=_I,
    )  # ", Version 2.08, 2014/07/11", " v1.0", a trailing date
    text = re.sub(
        rf"^(?:{_alternation('chapter_words')})\s+\d+[.:]?\s+(?=\S)", "", text, flags=_I
    )  # "Hoofdstuk 16. Algemene informatie over de FAQ": one chapter of a book
    text = re.sub(r"[{}]", "", text)  # "{zx-calculus}": a LaTeX group the PDF title kept
    return text.strip(" ,;:-–—")


def _uncapital(word: str, position: int) -> str:
    """A word of a title set in capitals, in title case: acronyms and models ("FAQ", "AX1800") kept."""
    if position and word.lower() in _set("title_minor_words"):
        return word.lower()
    if len(word) <= 3 or re.search(r"\d", word):
        return word
    return word.capitalize()


@language_cached(maxsize=4096)  # asked per section, entity and cloze; a pure function of its strings
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
    bracketed = _first_of("task_then_name", text, "fullmatch")
    if bracketed:  # "Make link targets (hyperref bundle)": an instruction, then what it belongs to
        return f"the {bracketed.group(1)} {bracketed.group(2).lower()}"
    manual_for = _first_of("manual_for", text, "search", _I)
    if manual_for and len(text.split()) > 3:  # "Hypertext marks in LaTeX: a manual for hyperref"
        return manual_for.group(1)
    package_first = _package_first(text)
    if package_first:  # before "the extension package" is read as a name
        return f"the {package_first.group(1)} package"
    named_in = _first_of("named_anywhere", text, "search", _I) or _FILE_ANYWHERE.search(text)
    named_in = named_in or _first_of("name_then_package", text, "match", _I)
    if named_in and len(text.split()) > 2:  # "Experimental Unicode ...: The unicode-math package"
        return f"the {named_in.group(1)} package"
    generic_first = _first_of("generic_then_name", text, "match", _I)
    if generic_first:  # "Package documentation: causets" -> "the causets package"
        return f"the {generic_first.group(1)} package"
    head = re.split(r"\s*[:|–—]\s+|\s+-\s+", text, maxsplit=1)[0].strip() or text
    if len(head.split()) == 1 and head != text and re.search(r"\bpackage\b", text, re.IGNORECASE):
        return f"the {head} package"  # "ulqda: A LATEX package supporting ..."
    owner = _first_of("owner", head, "search")
    if owner and re.match(r"^(?:your|our|welcome|about|information|patient|visitor|guest)\b", head, re.IGNORECASE):
        head = owner.group(1).strip()  # "Your Rights as a Patient at Lindenhof Hospital" -> "Lindenhof Hospital"
    head = re.sub(r"^(?:welcome to|about|your|our)\s+", "", head, flags=re.IGNORECASE).strip()
    suffix = rf"\s*(?:\(|[-–—:|]\s*)?(?:{_alternation('document_words')})\)?\s*$"
    stripped = re.sub(suffix, "", head, flags=_I).strip()
    name_kind = re.fullmatch(r"(?:the\s+)?([\w@.-]+)\s+(package|class)", stripped, re.IGNORECASE)
    if name_kind and stripped != head:  # "lpform Package Documentation" -> "the lpform package"
        return f"the {name_kind.group(1)} {name_kind.group(2).lower()}"
    if stripped and stripped != head:
        if any(namelike(w) for w in stripped.split()) or _PACKAGE_FILE.match(stripped.split()[0]):
            head = stripped  # "Dell XPS 13 Owner's Manual" -> "Dell XPS 13"
        elif not _article(head):
            return f"the {head}"  # "Acme Employee Handbook" -> "the Acme Employee Handbook"
    file_like = _PACKAGE_FILE.match(head.split()[0]) if head.split() else None
    if file_like and len(head.split()) <= 2:
        return f"the {file_like.group(1)} package"
    package_first = _package_first(head)
    if package_first:
        return f"the {package_first.group(1)} package"
    named = _first_of("named_kind", head, "match", _I)
    if named:  # "The l3galley package Galley code": the subtitle runs on
        head = named.group(1)
    head = re.sub(r"\b(Package|Class|Bundle|Font|Library|Module|Macros|Extension)$", lambda m: m.group(1).lower(), head)
    kind_first = _first_of("kind_then_purpose", head, "match", _I)
    if kind_first:  # "The eledform extension for eledmac": the name and its kind, not the whole title
        return f"the {kind_first.group(1)} {kind_first.group(2).lower()}"
    words = head.split()
    if words and words[-1].casefold() in _institution_nouns() and not _article(head):
        return f"the {head}"
    prepositions = _alternation("descriptive_prepositions")
    descriptive = len(words) >= 4 and re.search(rf"\s(?:{prepositions})\s", head) is not None
    if (descriptive or len(words) > 7) and _LOWERCASE_NAME.match(head):
        return words[0]  # "chapterbib multiple bibliographies in LATEX": a title opening with the name
    if (
        len(words) > 7
        or descriptive
        or re.match(r"^(?:an?|my)\s", head, re.IGNORECASE)
        or (re.match(r"^\w+ing\b", head) and len(words) > 2)
    ):
        return f"“{head}”"
    if _article(head):
        return head[0].lower() + head[1:] if head[:3].lower() == "the" else head
    if len(words) <= 3 and words[-1].lower() in ("package", "class", "font", "bundle", "library", "module"):
        return f"the {head}"
    return head


def subject_words(subject: str) -> set[str]:
    """The distinctive words of a subject (casefolded), without articles and generic words."""
    words = re.findall(r"[\w@+.-]+", _fold(subject))
    generic = _set("generic_words")
    return {w.strip(".-") for w in words if len(w.strip(".-")) >= 2 and w.strip(".-") not in generic}


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


def _own(language: str) -> dict:
    """``language``'s subjects.json, for a code written as its folder is named ({} for "pt-BR", "EN")."""
    return part(language, "subjects") if language.isalpha() and language.islower() else {}


def with_subject(question: str, subject: str, language: str = "en") -> str:
    """``question`` naming ``subject``, unchanged when it already does.

    In a language with ``trailing_subject`` (English), a question of one sentence gets the subject at the
    end with a fitting preposition ("How do I make a complaint at the Lindenhof Hospital?", "... under
    the Remote Work Policy?", "... with the multicol package?"); others, and other languages, get it in
    front with the language's ``lead`` ("For LinkHaven AX1800, the router restarts by itself. What should
    I do?"), after its ``opening_mark`` ("¿En Hospital Sur, cuánto cuesta?").
    """
    if not subject or names_subject(question, subject):
        return question
    subject = lower_article(subject)
    one_sentence = question.endswith("?") and not re.search(r"[.!?]\s", question[:-1]) and len(question) < 160
    own = _own(language)
    trailing = own.get("trailing_subject") or {}
    kind = subject_kind(subject)
    definition = kind == "kind" and trailing and re.match(trailing.get("definition", "(?!)"), question, _I)
    if trailing and one_sentence and kind in trailing and not definition:
        # ("What is Qualitative Data Analysis with the ulqda package?" asks something else: a definition
        # takes the subject in front)
        return f"{question[:-1].rstrip()} {trailing[kind]} {subject}?"
    lead = own.get("lead") or part(fallback(), "subjects").get("lead", "{subject}: ")
    body = question[:1].lower() + question[1:] if not _keeps_case(question) else question
    mark = own.get("opening_mark") or ""
    inverted = bool(mark) and body.startswith(mark)
    if inverted:
        body = body[len(mark) :]
        body = body[:1].lower() + body[1:] if not _keeps_case(body) else body
    return (mark if inverted else "") + lead.format(subject=subject) + body


def _institution_nouns() -> frozenset[str]:
    return _set("rule_nouns") | _set("institution_nouns")


def subject_kind(subject: str) -> str:
    """What a subject is, by its last word: a ``rule`` (a policy), an ``institution``, a ``kind`` of software
    (a package), else ``other``; a language's ``trailing_subject`` gives each its preposition."""
    last = re.findall(r"[\w'’-]+", subject.casefold())
    last_word = last[-1] if last else ""
    if last_word in _set("rule_nouns"):
        return "rule"
    if last_word in _institution_nouns():
        return "institution"
    if last_word in _set("kind_nouns"):
        return "kind"
    return "other"


def contract(text: str, language: str) -> str:
    """Preposition + article as the language writes them ("su il pacchetto" -> "sul pacchetto",
    "em o pacote" -> "no pacote"), from the ``contractions`` of its subjects.json; case of the first
    letter kept."""
    pairs = part(language, "subjects").get("contractions") or {}
    for loose, joined in pairs.items():
        pattern = re.compile(r"(?<![\w'’])" + re.escape(loose), re.IGNORECASE)
        text = pattern.sub(lambda m, j=joined: (j[:1].upper() + j[1:]) if m.group(0)[:1].isupper() else j, text)
    return text


def subject_in(subject: str, language: str) -> str:
    """A subject (as :func:`document_subject` words it) said in ``language``: "the itnumpar package" -> "il
    pacchetto itnumpar" (the ``kinds`` of its subjects.json), any other subject without its article ("the
    Debian FAQ" -> "Debian FAQ"); quoted titles and names are kept as they are."""
    kinds = part(language, "subjects").get("kinds") or {}
    named = _first_of("subject_kind", subject.strip(), "fullmatch", _I)
    if named and named.group(2).lower() in kinds:
        return str(kinds[named.group(2).lower()]).format(name=named.group(1))
    for article in every("subjects", "subject_article"):
        subject = re.sub(article, "", subject)
    return subject


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
