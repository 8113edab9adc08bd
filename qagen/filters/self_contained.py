"""Self-contained questions: askable of a chatbot that holds many documents and never saw the source.

Three reasons, first failure wins:

- ``numbered``: the question carries a section or heading number: its source heading's own
  number followed by the heading's words ("the 2 User instructions"), a dotted number before
  a capitalised heading ("the 2.3 The option multicol", "(2.2 Print the notes)"), a section word
  with a number ("section 5", "chapter 3.1", "§ 4", "hoofdstuk 3", "Abschnitt 2", "appendix B"),
  or a numbered heading after an article or preposition ("about the 3 Options", "the IV.
  Results"). Versions, quantities, times, dates and phone numbers are not headings ("version
  2.3", "2.5 GB", "17.30 on Fridays", "+31 20 794 3120", "§ 4 BGB").
- ``refers_to_text``: the question asks about the source text rather than its subject ("this
  section", "the passage", "the text above", "according to the document"), in en, nl, de, fr,
  es, it, pt.
- ``no_subject``: in a corpus of several documents, the question names nothing that tells
  which document it is about: none of its words is a distinctive word of its document's title
  (``FilterContext.titles``), and none of its content words (not stop words of its language)
  is specific: found in its source document and in at most ``max(1, n_docs / 5)`` of the
  corpus's documents (``filter.subject_max_doc_share``, 0.2). "What are the Options?" is
  asked of every LaTeX package manual; "What does the multicol package's columnbreak command
  do?" names the package and the command. A name (a word the corpus writes capitalised inside its
  sentences, nine times in ten or more: "Linux", "Debian") of the source document names a subject too.
  Document frequencies come from ``FilterContext.sections`` in one pass, computed once.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from qagen.filters.base import FilterContext, ItemFilter, Reject
from qagen.filters.grounding import is_content, stop_words, words
from qagen.language import QUESTION_LANGUAGES
from qagen.records import Item, Section

if TYPE_CHECKING:
    from qagen.config import FilterConfig


# --- numbered -----------------------------------------------------------------------------

_SECTION_WORDS = (
    r"(?:sub-?)?sections?|sect\.|sec\.|chapters?|chap\.|ch\.|appendix|appendices|annex|paragraphs?|"
    r"secties?|hoofdstuk(?:ken)?|paragraaf|paragrafen|bijlage|"
    r"abschnitt|abschnitte|kapitel|anhang|"
    r"chapitre|annexe|paragraphe|"
    r"secci[oó]n|cap[ií]tulo|ap[eé]ndice|apartado|anexo|"
    r"sezione|capitolo|appendice|paragrafo|"
    r"se[cç][cç][aã]o|se[cç][aã]o|ap[eê]ndice|par[aá]grafo"
)
_NUMBER = r"(?:\d{1,3}(?:\.\d{1,3})*(?![\d.]*\d)|[IVXLC]{1,6}\b|[A-Z](?:\.\d{1,3})*\b)"
# "section 5", "chapter 3.1", "Appendix B", "Part II", "hoofdstuk 3", "§ 4" (but "§ 4 BGB" cites a law)
_SECTION_REF = re.compile(
    rf"(?i:\b(?:{_SECTION_WORDS}))\s*{_NUMBER}|(?i:\bpart)\s+[IVX]{{1,5}}\b"
    r"|§\s*\d+(?:\.\d+)*(?![\d.])(?!\s*[A-Z]{2,}\b)(?!\s*(?:of|van|des|del|do)\b)"
)
# A dotted number ("2.3", "1.2.", "A.1") before a capitalised word, not a version, price or date.
_DOTTED = re.compile(
    r"(?<![\w.,/:$€£+\-])((?:\d{1,3}|[A-Z])(?:\.\d{1,3}){1,3})\.?\s+(?=(?:The\s+|A\s+|An\s+)?[A-Z][a-z]{2,})"
)
_NOT_HEADING_BEFORE = re.compile(
    r"(?:(?i:\b(?:version|versions|versie|versión|versione|versão|v|release|rev|revision|update))|\b[A-Z]\w*)\s*$"
)
_UNITS = re.compile(
    r"^(?:The\s+)?(?:Hz|kHz|MHz|GHz|Mbit|Gbit|Mbps|Gbps|Watt|Watts|Volt|Volts|Amp|Amps|Euro|Euros|Dollar|Dollars|"
    r"Celsius|Fahrenheit|Kelvin|Ohm|Ohms|Bar|Pascal|Mile|Miles|Pound|Pounds)\b"
)
_MONTHS = (
    r"January|February|March|April|May|June|July|August|September|October|November|December|"
    r"Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|"
    r"Januari|Februari|Maart|Mei|Juni|Juli|Augustus|Oktober|"
    r"Janvier|Février|Mars|Avril|Mai|Juin|Juillet|Août|Septembre|Octobre|Novembre|Décembre|"
    r"Enero|Febrero|Marzo|Abril|Mayo|Junio|Julio|Agosto|Septiembre|Octubre|Noviembre|Diciembre|"
    r"Gennaio|Febbraio|Aprile|Maggio|Giugno|Luglio|Settembre|Ottobre|Dicembre|"
    r"Janeiro|Fevereiro|Março|Maio|Junho|Julho|Setembro|Outubro|Novembro|Dezembro"
)
# A single number or roman numeral heading right after an article or preposition: "about the
# 3 Options", "the IV. Results". Not in German, whose nouns are all capitalised ("die 3 Tasten").
_ARTICLE_NUMBER = re.compile(
    r"\b(?:the|about|of|in|on|de|het|over|van|le|la|les|du|des|sur|el|los|las|del|sobre|il|lo|gli|della|"
    r"o|os|as|da|do|dos|das)\s+"
    rf"(\d{{1,2}}|[IVX]{{1,5}})\.?\s+(?!(?:{_MONTHS})\b)(?=(?:The\s+)?[A-Z][a-z]{{2,}})"
)
_ROMAN_DOTTED = re.compile(r"(?<![\w.])([IVXLC]{2,6}|[VX])\.\s+(?=[A-Z][a-z]{2,})")
# The number a heading starts with: "2.3 The option", "1.2. Dependencies", "A.1 Examples",
# "IV. Results", "§ 4 Scope", and the lone letters PDFs put before appendix headings ("f Standard ...").
_HEADING_NUMBER = re.compile(
    r"^\s*(§\s*\d+(?:\.\d+)*|\d{1,3}(?:\.\d{1,3})*\.?|[A-Z]\.\d{1,3}(?:\.\d{1,3})*\.?|[IVXLC]{1,6}\.|[a-z]|[B-HJ-Z])"
    r"\s+[^\w\s]{0,2}(\w+)"
)


def _heading_numbers(headings: Iterable[str]) -> list[tuple[str, str]]:
    """(number, first word after it) of every numbered part of the headings ("A › B" paths)."""
    found = []
    for heading in headings:
        for part in heading.split(" › "):
            m = _HEADING_NUMBER.match(part)
            if not m:
                continue
            number, word = m.group(1).rstrip("."), m.group(2)
            if len(number) == 1 and number.isalpha() and not word[:1].isupper():
                continue  # "a note", "B to C": a word, not a numbering letter
            found.append((number, word))
    return found


def find_number(question: str, headings: Iterable[str] = (), language: str = "en") -> str | None:
    """The section or heading number the question carries, or None."""
    for number, word in _heading_numbers(headings):
        # "2 Users" may be a quantity ("add 2 users"): the heading's word in the heading's case,
        # unless the number is dotted; a numbering letter in either case ("b Block macros").
        dotted = "." in number or number.startswith("§")
        word_pattern = re.escape(word) if not dotted else f"(?i:{re.escape(word)})"
        pattern = rf"(?<![\w.])(?i:{re.escape(number)})\.?\s+(?:(?i:the)\s+)?[^\w\s]{{0,2}}{word_pattern}\b"
        m = re.search(pattern, question)
        if m:
            return m.group(0)
    m = _SECTION_REF.search(question)
    if m:
        return m.group(0)
    for m in _DOTTED.finditer(question):
        before = question[: m.start()]
        rest = question[m.end() :]
        if _NOT_HEADING_BEFORE.search(before) or _UNITS.match(rest):
            continue
        return _with_next_word(question, m)
    if language.split("-")[0] != "de":
        m = _ARTICLE_NUMBER.search(question) or _ROMAN_DOTTED.search(question)
        if m and not _UNITS.match(question[m.end() :]):
            return _with_next_word(question, m)
    return None


def _with_next_word(question: str, m: re.Match[str]) -> str:
    """The match and the word after it ("2.3 The", "the 2 Options"), for the rejection record."""
    nxt = re.match(r"\S+", question[m.end() :])
    return (m.group(0) + (nxt.group(0) if nxt else "")).strip().rstrip("?!.,;:")


# --- refers to the text -------------------------------------------------------------------

_TEXTS_EN = (
    r"sections?|passages?|texts?|paragraphs?|excerpts?|extracts?|documents?|manuals?|guides?|chapters?|leaflets?"
)
_SELF_REFERENCE = re.compile(
    # English
    rf"\b(?:this|these) (?:{_TEXTS_EN}|page|article|handbook|brochure)\b"
    r"|\bthe (?:section|passage|paragraph|excerpt|extract)s?\b(?! (?:of|on|about|for|called|titled|named|in)\b)"
    r"|\bthe (?:text|document|section|passage|paragraph|manual|guide|information)s? (?:above|below|provided|given|"
    r"shown|presented)\b"
    r"|\bthe (?:above|preceding|following|given|provided) (?:text|section|passage|paragraph|document|excerpt)\b"
    r"|\baccording to the (?:text|section|passage|document|excerpt|paragraph|manual|guide|author)s?\b"
    r"|\b(?:mentioned|described|stated|discussed|explained) (?:above|below|here|in the (?:text|passage|excerpt))\b"
    # Dutch
    r"|\b(?:deze|dit|de bovenstaande|het bovenstaande|bovenstaande|onderstaande) (?:sectie|tekst|paragraaf|passage|"
    r"hoofdstuk|document|handleiding|gids|folder|brochure|fragment|stuk|alinea)\b"
    r"|\bvolgens (?:de|het|deze|dit) (?:tekst|sectie|passage|paragraaf|handleiding|folder|brochure|document|"
    r"fragment)\b"
    r"|\b(?:de|het) (?:tekst|sectie|passage|fragment|document) (?:hierboven|hieronder)\b"
    # German
    r"|\b(?:dieser|diese|dieses|diesem|diesen|der obige|die obige|das obige|dem obigen|im obigen|obigen) "
    r"(?:abschnitts?|text(?:es|s)?|absatz(?:es)?|passage|kapitels?|dokuments?|handbuchs?|anleitung|auszugs?)\b"
    r"|\b(?:laut|gemäß|nach) (?:dem|des|diesem) (?:text(?:es)?|abschnitts?|dokuments?|handbuchs?)\b"
    # French
    r"|\b(?:cette|ce|cet) (?:section|passage|texte|paragraphe|document|manuel|guide|chapitre|extrait|dépliant)\b"
    r"|\b(?:la|le|les) (?:section|texte|passage|paragraphe|document|extrait)s? ci-(?:dessus|dessous)\b"
    r"|\b(?:selon|d'après|d’après) (?:le|la|ce|cette|l'|l’) ?(?:texte|document|passage|section|extrait|manuel)\b"
    # Spanish
    r"|\b(?:esta|este|estas|estos) (?:secci[oó]n|texto|pasaje|documento|manual|gu[ií]a|p[aá]rrafo|cap[ií]tulo|"
    r"fragmento|extracto|folleto)\b"
    r"|\bseg[uú]n (?:el|la|este|esta) (?:texto|documento|pasaje|secci[oó]n|manual|gu[ií]a|fragmento)\b"
    r"|\bel texto (?:anterior|de arriba|siguiente)\b"
    # Italian
    r"|\b(?:questa|questo|queste|questi) (?:sezione|testo|passaggio|passo|documento|manuale|guida|paragrafo|"
    r"capitolo|brano|estratto|opuscolo)\b"
    r"|\bsecondo (?:il|la|questo|questa) (?:testo|documento|passaggio|sezione|manuale|guida|brano)\b"
    r"|\bil testo (?:sopra|precedente|seguente)\b"
    # Portuguese
    r"|\b(?:esta|este|estas|estes|nesta|neste|desta|deste) (?:sec[cç][aã]o|se[cç][aã]o|texto|passagem|documento|"
    r"manual|guia|par[aá]grafo|cap[ií]tulo|trecho|excerto|folheto)\b"
    r"|\b(?:segundo|de acordo com|conforme) (?:o|a|este|esta) (?:texto|documento|passagem|se[cç][aã]o|manual|guia|"
    r"trecho)\b"
    r"|\bo texto (?:acima|anterior|seguinte)\b",
    re.IGNORECASE,
)


_BARE_POINTER = re.compile(r"the (?:section|passage|paragraph|excerpt|extract)s?", re.IGNORECASE)
_MODAL_BEFORE = re.compile(r"\b(?:do|does|did|can|could|should|will|would|may|might|must)\s+$", re.IGNORECASE)
_NEXT_TWO = re.compile(r"\s+([a-z]+)\b\s*([a-z]+|[^\w\s])?")
# after "the section numbers": words that end a noun phrase, so "numbers" was a noun, not the section's verb
_PHRASE_ENDS = frozenset(
    ["and", "or", "but", "nor", "in", "of", "on", "at", "for", "with", "from", "by", "to", "as", "than"]
)


def find_self_reference(question: str) -> str | None:
    """The phrase by which the question refers to its source text ("this section"), or None. "The section"
    followed by a noun that ends its phrase ("the section numbers and ...", "the section headings") names a
    thing of the product, not the passage."""
    for m in _SELF_REFERENCE.finditer(question):
        if _BARE_POINTER.fullmatch(m.group(0)) and _compound(question, m):
            continue
        return m.group(0)
    return None


def _compound(question: str, m: re.Match[str]) -> bool:
    """True when the bare pointer at ``m`` modifies the next word, a noun ("section numbers"): that word has a
    noun reading, and either no verb reading or a word after it that ends a noun phrase; never after a modal
    ("does the section mention ...?": the next word is its verb)."""
    if _MODAL_BEFORE.search(question[: m.start()]):
        return False
    nxt = _NEXT_TWO.match(question[m.end() :])
    if nxt is None:
        return False
    import lemminflect

    readings = lemminflect.getAllLemmas(nxt.group(1))
    if "NOUN" not in readings:
        return False
    if not ({"VERB", "AUX"} & readings.keys()):
        return True
    after = (nxt.group(2) or "?").lower()
    return after in _PHRASE_ENDS or not after.isalpha()


# --- names its subject ----------------------------------------------------------------------

# Words a title shares with every manual: naming them names no document.
_GENERIC_WORDS = (
    "package packages manual manuals guide guides documentation document documents user users handbook version "
    "news class bundle extension style file files macro macros font fonts system library module leaflet brochure "
    "introduction reference overview notes note preliminary instructions instruction sty tex latex "
    "handleiding gebruikershandleiding folder informatie pakket handbuch anleitung benutzerhandbuch paket "
    "manuel mode emploi guía guia manuale guida pacote paquete pacchetto"
)
_GENERIC_TITLE_WORDS = frozenset(_GENERIC_WORDS.split())


@dataclass(frozen=True)
class CorpusWords:
    """Document frequencies of the corpus's words and each document's words (case-folded)."""

    n_docs: int
    doc_freq: Mapping[str, int]
    doc_words: Mapping[str, frozenset[str]]

    def max_specific(self, share: float) -> float:
        """The most documents a specific word may occur in: ``share`` of them, at least one."""
        return max(1.0, self.n_docs * share)


def corpus_words(sections: Iterable[Section]) -> CorpusWords:
    """One pass over the sections: the set of words of each document, then their frequencies."""
    per_doc: dict[str, set[str]] = {}
    for s in sections:
        per_doc.setdefault(s.doc_id, set()).update(words(s.heading), words(s.text))
    freq: Counter[str] = Counter()
    for found in per_doc.values():
        freq.update(found)
    return CorpusWords(len(per_doc), freq, {d: frozenset(w) for d, w in per_doc.items()})


# A capitalised word after a lower-case word or a comma: inside a sentence, where only names are capitalised.
_MID_CAPITAL = re.compile(r"(?<=[^\W\d_,;] |[,;] )([^\W\d_a-z][\w-]+)")


def corpus_names(sections: Iterable[Section], least: int = 3, share: float = 0.9) -> frozenset[str]:
    """Words (case-folded) the corpus writes capitalised inside sentences in at least ``share`` of their
    ``least`` or more occurrences there: names ("Linux", "Debian"), not headings' words ("Options")."""
    capital: Counter[str] = Counter()
    lower: Counter[str] = Counter()
    for s in sections:
        for word in _MID_CAPITAL.findall(s.text):
            capital[word.casefold()] += 1
        for word in re.findall(r"(?<=[^\W\d_,;] )([a-z][\w-]+)", s.text):
            lower[word] += 1
    return frozenset(w for w, n in capital.items() if n >= least and n >= share * (n + lower[w]) and len(w) > 1)


TITLE_LANGUAGES = QUESTION_LANGUAGES


def title_words(titles: Mapping[str, str]) -> dict[str, frozenset[str]]:
    """The distinctive words of each title: not stop words (of any of :data:`TITLE_LANGUAGES`:
    a title's language is not known, and "Wat u moet weten over ..." must not make "wat" a
    subject), not generic ("package", "manual"),
    and, among three or more titles, in at most half of them (all titles saying "Lindenhof"
    do not tell one leaflet from another)."""
    stops = frozenset().union(*(stop_words(lang) for lang in TITLE_LANGUAGES))
    per_title = {
        d: frozenset(w for w in words(t) if is_content(w, stops) and w not in _GENERIC_TITLE_WORDS and not w.isdigit())
        for d, t in titles.items()
    }
    if len(per_title) >= 3:
        freq = Counter(w for ws in per_title.values() for w in ws)
        per_title = {d: frozenset(w for w in ws if freq[w] <= len(per_title) / 2) for d, ws in per_title.items()}
    return per_title


_LETTER_NAME = re.compile(r"(?<![\w.'’-])[A-Z](?![\w.'’-])")


_NO_LETTER_NAME = frozenset("AI")  # the capital letters that stand alone as words: the article, the pronoun


def title_letters(titles: Mapping[str, str]) -> dict[str, frozenset[str]]:
    """The one-letter names in each title (the R of "R Language Definition", the C of "The C Book"): a capital
    letter standing alone, not "A" or "I" (stop-word lists hold every letter, so they cannot tell)."""
    return {d: frozenset(c for c in _LETTER_NAME.findall(t) if c not in _NO_LETTER_NAME) for d, t in titles.items()}


def find_subject(item: Item, ctx: FilterContext, share: float = 0.2) -> tuple[bool, str]:
    """Whether the question names its subject, and what showed it (or the best candidate word).

    A title word counts unless more than half of the corpus's documents use it ("weten" in
    "Wat u moet weten over de knieprothese" names no leaflet). ``share``: a content word in at
    most this share of the documents (at least one) is specific. Words about documents
    ("guide", "version", "introduction") and words starting with a digit (version fragments
    such as "1α", "02a") never are."""
    corpus: CorpusWords = ctx.cached("self_contained.corpus_words", lambda: corpus_words(ctx.sections.values()))
    if corpus.n_docs <= 1:
        return True, "single document"
    docs = sorted({ctx.sections[s].doc_id for s in item.source.section_ids if s in ctx.sections})
    docs = docs or [item.source.doc_id]
    asked = set(words(item.question))
    if ctx.subject and set(words(ctx.subject)) <= asked:
        return True, f"corpus subject {ctx.subject}"  # "in GIMP": the whole corpus is about it
    titles: dict[str, frozenset[str]] = ctx.cached("self_contained.title_words", lambda: title_words(ctx.titles))
    common = corpus.n_docs / 2 if corpus.n_docs >= 3 else corpus.n_docs
    letters: dict[str, frozenset[str]] = ctx.cached("self_contained.title_letters", lambda: title_letters(ctx.titles))
    said_letters = set(_LETTER_NAME.findall(item.question[1:]))  # not the question's first letter
    for d in docs:
        named = {w for w in asked & titles.get(d, frozenset()) if corpus.doc_freq.get(w, 0) <= common}
        if named:
            return True, f"title word {sorted(named)[0]}"
        if said_letters & letters.get(d, frozenset()):  # "In R, how do I ...?" of the "R Language Definition"
            return True, f"title name {sorted(said_letters & letters[d])[0]}"
    stops = stop_words(item.language) | stop_words("en")
    own = frozenset().union(*(corpus.doc_words.get(d, frozenset()) for d in docs))
    names: frozenset[str] = ctx.cached("self_contained.names", lambda: corpus_names(ctx.sections.values()))
    named = [w for w in _MID_CAPITAL.findall(item.question) if w.casefold() in names and w.casefold() in own]
    if named:  # "..., maar wat is Linux eigenlijk?": a name needs no document to be understood
        return True, f"name {named[0]}"
    terms = [
        w
        for w in dict.fromkeys(words(item.question))
        if is_content(w, stops) and not w[0].isdigit() and w not in _GENERIC_TITLE_WORDS and w in own
    ]
    if not terms:
        return False, "no content word of its document"
    best = min(terms, key=lambda w: (corpus.doc_freq.get(w, 0), w))
    df = corpus.doc_freq.get(best, 0)
    detail = f"{best} in {df} of {corpus.n_docs} documents"
    return df <= corpus.max_specific(share), detail


def check_self_contained(item: Item, ctx: FilterContext, config: FilterConfig) -> Reject | None:
    """``numbered``, ``refers_to_text`` or ``no_subject``; None for a question that stands alone."""
    headings = [ctx.sections[s].heading for s in item.source.section_ids if s in ctx.sections]
    number = find_number(item.question, headings, item.language)
    if number:
        return Reject("numbered", number)
    phrase = find_self_reference(item.question)
    if phrase:
        return Reject("refers_to_text", phrase)
    ok, detail = find_subject(item, ctx, config.subject_max_doc_share)
    if not ok:
        return Reject("no_subject", detail)
    return None


SELF_CONTAINED = ItemFilter("self_contained", check_self_contained)
