"""What kind of text a section holds: prose, code or markup, a table, a table of contents, ...

Questions are generated from prose by default (``generate.source_kinds``); the other kinds
are kept in the corpus (a chatbot's store holds them) but make poor question sources.

:func:`classify_section` joins letter-spaced runs back into words (:func:`join_letter_spaced`),
then measures the body text with language-neutral signals and checks the kinds in this order;
the first that holds wins. Shares are of non-blank characters unless said otherwise.

``garbled`` (strong)
    Extraction junk — ``(cid:NN)`` codes, U+FFFD, private-use or control characters, UTF-8
    read as Latin-1 (``Ã©``) — is at least ``JUNK_SHARE`` (2 %) of the characters.
``toc`` / ``index``
    At least ``MIN_ENTRIES`` (2) entries that end in page references — after dot leaders
    (``Intro . . . 3``, several may share a line), after a comma (``multicol, 3, 7, 12``) or
    alone at the end of a line of at most 110 characters (``1 Usage 2``) — cover at least
    ``ENTRY_SHARE`` (50 %) of the text, or ``ENTRY_SHARE_HINTED`` (25 %) under a heading
    that names a contents list or an index. Years and dates are not page numbers (``June
    2019``, ``2022-04-20``); roman page numbers are lowercase, of up to six letters. It is an index when at least
    20 % of the entries carry several page numbers, when under 80 % of the steps between
    entries go up in page number, or when at least 75 % of the steps between four or more
    labels go up in alphabetical order and under 30 % of the labels start with a section
    number; else a table of contents. A heading word (Contents, Inhoud, Inhalt, Sommaire,
    Indice, Índice / Index, Register, Indice analitico, Stichwortverzeichnis, ...)
    decides between the two, but never alone whether the section is either.
    A contents list without page numbers (a web page's or an HTML export's) is a ``toc`` too: at least
    ``MIN_NUMBERED_ENTRIES`` (5) lines start with a section number, they are at least ``NUMBERED_LINE_SHARE``
    (50 %) of the lines, at least half of the numbers have two levels or more (``10.2``, ``12.2.1``: a
    numbered list of steps has one), and at least 80 % of the steps between them go forward.
``references``
    At least ``REFERENCE_SHARE`` (60 %; ``REFERENCE_SHARE_HINTED``, 30 %, under a heading
    such as References, Bibliography, Literatur, Bibliografia, Referencias) of the entries
    are citations. With two or more labelled lines (``[1]``, ``[GMS94]``, ``12.``, ``(3)``),
    an entry runs from one label to the next: after ``[..]`` it needs one more mark (a year
    or date, ``et al.``, ``pp. 3``, a DOI, an ISBN, ``vol.``/``no.``/``ed.``, ``In:``, a URL,
    ``CTAN:``, a year in parentheses, ``5(2):215``, or two commas); after ``12.`` (which may
    be a numbered list) a year as well. Otherwise each line is an entry of at most 400
    characters with a year that is not part of a date, and a citation mark or two commas
    with the year within its last 40 characters.
``code``
    Lines that are code or markup (:func:`is_code_line`) hold at least ``CODE_SHARE`` (50 %)
    of the text (:func:`code_share`). Prose with inline commands or a short example stays
    prose; listings, examples with little text and command reference cards are code.
``garbled`` (weak)
    Garbled lines hold at least ``GARBLED_SHARE`` (50 %) of the text. A line is garbled when
    letters are under ``MIN_LETTER_SHARE`` (45 %) of its non-blank characters outside
    numbers, or when at least ``SINGLE_LETTER_SHARE`` (40 %) of its four or more words are
    single letters (initials such as ``A.`` do not count): labels of figures, broken math,
    glyph soup.
``table``
    Table rows hold at least ``TABLE_SHARE`` (50 %) of the text and there are two or more:
    lines split into cells by `` | `` (how the parsers render table rows) with at most 8
    words in every cell (longer cells are a description list: prose), or lines with three
    or more numbers that are at least half of their tokens.
``garbled`` (no words)
    The text holds no word of three letters: a lone symbol, date or figure residue.
``prose``
    Everything else, and empty text.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Callable, Iterable
from typing import get_args

from qagen.records import SectionKind

SECTION_KINDS: tuple[str, ...] = get_args(SectionKind)

JUNK_SHARE = 0.02
ENTRY_SHARE = 0.5
ENTRY_SHARE_HINTED = 0.25
MIN_ENTRIES = 2
MIN_NUMBERED_ENTRIES = 5
NUMBERED_LINE_SHARE = 0.5
REFERENCE_SHARE = 0.6
REFERENCE_SHARE_HINTED = 0.3
CODE_SHARE = 0.5
MIN_LETTER_SHARE = 0.45
SINGLE_LETTER_SHARE = 0.4
GARBLED_SHARE = 0.5
TABLE_SHARE = 0.5
CODE_TOKEN_SHARE = 0.5  # a line is code when at least this share of its words are code tokens
MIN_LETTER_RUN = 4  # join_letter_spaced: shortest run of single letters that is joined

# --- code lines -------------------------------------------------------------------------

_LINE_NUMBER = re.compile(r"^\s*\d{1,5}(?:\s+\|)?\s+(?=\S)")  # listing line numbers ("14 \def...")
_BULLET = re.compile(r"^\s*[•◦▪‣∙·*–—-]\s")
# How statements and comments start (after a listing line number); each needs its syntax, so
# that a wrapped sentence starting "for more details" or "use the option" is not taken.
_STATEMENT_START = re.compile(
    r"^(?:(?:def|class)\s+\w+\s*[(:]|import\s+[\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+)*;?$"
    r"|from\s+[\w.]+\s+import\s|(?:elif|else|try|except|finally)\b[^:]*:$|for\s+(?:\w+|\(?\w+(?:\s*,\s*\w+)+\)?)\s+in\s+\S*[(\[.].*:$"
    r"|function\s+\w+\s*\(|(?:var|let|const)\s+\w+\s*=|(?:func|fn)\s+\w+\s*\(|use\s+[\w:]+;$"
    r"|(?:int|void|char|float|double|bool|struct)\s+\*?\w+\s*[(=;\[{]|(?:public|private|static)\s+\w+.*[({;]$"
    r"|#include|#define|#!|\$\s|>>>"
    r"|%|#\s|//)"  # a comment line (TeX, MetaPost; Python, shell; C, Java)
)
# "x = 1", "a, b = f()", "u := 1mm;": code unless the rest of the line reads as a sentence
_ASSIGNMENT = re.compile(r"^[A-Za-z_][\w.\[\]]*(?:\s*,\s*[A-Za-z_][\w.\[\]]*)*\s*(?:=|:=|\+=|-=|\*=|/=)\s*\S")


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Commands typed at a shell prompt; only a short line starting with one of them is code.
_SHELL_COMMANDS = _word_set(
    "apt apt-get biber bibtex brew cd chmod chown cp curl docker echo export git grep kpsewhich latex latexmk "
    "ls lualatex make makeindex mkdir mktexlsr mpost mv npm pdflatex pip pip3 python python3 rm sh sudo tar "
    "tex texhash tlmgr wget xelatex yum"
)
# Words of drawing languages (MetaPost, METAFONT) that prose in no language uses.
_KEYWORDS = _word_set(
    "xpart ypart xxpart xypart yxpart yypart xscaled yscaled zscaled shifted rotated slanted reflectedabout "
    "rotatedaround pickup pencircle pensquare fullcircle halfcircle quartercircle unitsquare withcolor "
    "withpen withcmykcolor dashpattern withdots vardef enddef endfor endgroup beginfig endfig btex etex "
    "verbatimtex buildcycle cutbefore cutafter intersectionpoint intersectiontimes arctime arclength penpos "
    "penstroke drawarrow drawdblarrow unfill undraw filldraw dotlabel dotlabels"
)
_PLURAL_PARENS = re.compile(r"^\w+\((?:s|es|e|en|n|in|innen|nen|ne|a|as|os)\)\W*$", re.IGNORECASE)
# a web address or e-mail address, which may hold "=" or "&" but is not code
_ADDRESS = re.compile(r"^[<(\"'“‘«]*(?:(?:https?|ftp)://|www\.|[\w.+-]+@[\w-]+\.)\S*$", re.IGNORECASE)
_CITATION = re.compile(r"^\[\d{1,3}(?:[,–-]\s*\d{1,3})*\]\W*$")
_OPERATORS = _word_set("= := == != <= >= -> => <- && || += -= *= /= :: << >> ;; |> <> %% %%% ## ###")
_CODE_CHARS = re.compile(
    r"[{}=]|<\S|\S>|;(?=.)|^[*∗][^\W\d]|[\])}]%$|\\[^\W\d]|\\[\\{}\[\]%#$&@]|::|\w_\w|^[@%#][^\W\d]|`|^\[[^\]\d\s]+\]$"
)
_WORD = re.compile(r"^[(\"'“‘«¿¡]*[^\W\d_]+(?:[-'’.][^\W\d_]+)*[)\"'”’».,;:!?…]*$")
# "\\rhead{\\bfseries Il rendimento}": a command with an argument, to the end of the line
_TEX_LINE = re.compile(r"^\\[A-Za-z@]+\*?[\[{].*[}\]%]$")
_STRONG_END = re.compile(r"(?:[{;]|\\\\|:=.*)$")


def _code_token(tok: str) -> bool:
    if tok in _OPERATORS or tok.strip(",;()") in _KEYWORDS:
        return True
    if _CITATION.match(tok) or _PLURAL_PARENS.match(tok) or _ADDRESS.match(tok):
        return False
    return bool(_CODE_CHARS.search(tok) or _indexed(tok) or _call_like(tok))


_WORD_BRACKET = re.compile(r"\w\[")


def _indexed(tok: str) -> bool:
    r"""``opt[x]``, ``a[b[c]``: a bracket opened right after a word character and closed later
    (the regex ``\w\[[^\]]*\]``, in linear time: the first ``x[`` decides, as any later one
    only has fewer characters after it)."""
    m = _WORD_BRACKET.search(tok)
    return m is not None and "]" in tok[m.end() :]


_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")


def _call_like(tok: str) -> bool:
    r"""``f(x``, ``drawO(9tm``, ``a.b()``: a bracket opened right after a name and followed by
    something (the regex ``[A-Za-z_][\w.]*\([^\s)]|[A-Za-z_][\w.]*\(\)``), in time linear in
    the token: the regex retried its name scan from every position, quadratic on a long run of
    letters such as a PDF's text without spaces."""
    start = 0
    while (j := tok.find("(", start)) != -1:
        start = j + 1
        if j + 1 >= len(tok) or tok[j + 1].isspace():
            continue
        k = j
        while k > 0 and (tok[k - 1] == "." or tok[k - 1] == "_" or tok[k - 1].isalnum()):
            k -= 1  # the run of word characters and dots before the bracket (stops at the previous one)
        if any(c in _NAME_START for c in tok[k:j]):
            return True
    return False


def _line_tokens(line: str) -> list[str]:
    text = _LINE_NUMBER.sub("", line)
    return [t for t in text.split() if t not in ("|", "•", "◦", "▪")]


def is_code_line(line: str) -> bool:
    """True when ``line`` looks like source code or markup rather than a sentence.

    A leading listing line number (``14 \\newcommand...``) is ignored. The line is code when
    at least half (``CODE_TOKEN_SHARE``) of its code tokens and words are code tokens
    (``\\macro``, braces, ``=``, ``a;b``, ``snake_case``, ``f(x``, ``<tag>``, ``opt[x]``,
    ``:=``, MetaPost words such as ``xpart``; not web or e-mail addresses, ``[12]`` or
    ``file(s)``); when code is followed by a ``%`` comment; when it starts like a statement or
    a comment (``def f(``, ``import x``, ``from x import``, ``#include``, ``x = 1``, a ``$`` or
    ``>>>`` prompt, ``%``, ``# ``, ``//``, a shell command on a short line); when it is one TeX
    command with its arguments (``\\lfoot{Da parte di: K. Grant}``); or when it ends like
    one (``{``, ``\\\\``, ``:= ...``, or ``;`` after code, a number or single letters) without
    starting like a sentence (a capital, a bullet, an opening quote). A sentence with a few
    inline commands is not code.
    """
    text = line.strip()
    if not text:
        return False
    tokens = _line_tokens(text)
    if not tokens:
        return False
    if "%" in tokens[1:] and is_code_line(" ".join(tokens[: tokens.index("%")])):
        return True  # "\cmd{} % a comment", "numeric lb, hb; % sizes": the comment is not prose
    body = " ".join(tokens)
    is_code = [_code_token(t) for t in tokens]
    n_code = sum(is_code)
    n_word = sum(not c and bool(_WORD.match(t)) for t, c in zip(tokens, is_code, strict=True))
    if n_code and n_code >= CODE_TOKEN_SHARE * (n_code + n_word):
        return True
    if _STATEMENT_START.match(body):
        return True
    if _ASSIGNMENT.match(body) and not (n_word >= 8 and n_word >= 4 * n_code):
        return True
    if _TEX_LINE.match(body):
        return True
    first = tokens[0]
    if first in _SHELL_COMMANDS and len(tokens) <= 8 and not body.endswith((".", "?", "!")):
        return True
    sentence_like = first[:1].isupper() or bool(_BULLET.match(text)) or first[:1] in "(\"'“‘«¿¡"
    if sentence_like or not _STRONG_END.search(body):
        return False
    if not body.endswith(";"):
        return True
    # "pickup pencircle scaled 1;" and "draw p shifted c;" are statements; "bit has the
    # biggest number;" is the end of a clause
    singles = sum(len(t.strip(";,")) == 1 and t[:1].isalpha() for t in tokens)
    return n_code > 0 or len(tokens) <= 3 or singles >= 2 or any(ch.isdigit() for ch in body)


def _weight(line: str) -> int:
    """The number of non-blank characters of ``line``."""
    return len("".join(line.split()))


def _line_share(text: str, matches: Callable[[str], bool]) -> float:
    """Share of the non-blank characters of ``text`` on lines ``matches`` accepts (0.0 for empty text)."""
    total = hit = 0
    for line in text.splitlines():
        w = _weight(line)
        total += w
        if w and matches(line):
            hit += w
    return hit / total if total else 0.0


def code_share(text: str) -> float:
    """Share of the non-blank characters of ``text`` that sit on code or markup lines.

    Characters, not lines, are counted, so one long paragraph weighs more than a few short
    lines of example code beside it. 0.0 for empty text.
    """
    return _line_share(text, is_code_line)


def looks_like_code(text: str, threshold: float = CODE_SHARE) -> bool:
    """True when ``text`` (an answer, say) is mostly code or markup: ``code_share >= threshold``."""
    return code_share(text) >= threshold


# --- letter-spaced text -----------------------------------------------------------------

_CASED_LETTER = r"[^\W\d_]"
_LETTER_RUN = re.compile(rf"(?<!\S){_CASED_LETTER}(?!\S)(?:[ \t]{{1,4}}{_CASED_LETTER}(?!\S)){{{MIN_LETTER_RUN - 1},}}")
_VOWELS = set("aeiouàáâãäåæèéêëìíîïòóôõöøùúûüœαεηιουωаеиоуыэюяё")


def _consecutive(letters: str, n: int = 4) -> bool:
    """True when ``letters`` holds ``n`` letters in alphabet order (a b c d): a listing."""
    low = letters.casefold()
    run = 1
    for a, b in itertools.pairwise(low):
        run = run + 1 if ord(b) == ord(a) + 1 else 1
        if run >= n:
            return True
    return False


def _join_run(match: re.Match[str]) -> str:
    run = match.group(0)
    letters = "".join(run.split())
    if any(ch.upper() == ch.lower() for ch in letters):  # uncased scripts (CJK, ...) are left alone
        return run
    if _consecutive(letters) or not any(ch in _VOWELS for ch in letters.casefold()):
        return run
    groups = [g.replace(" ", "").replace("\t", "") for g in re.split(r"[ \t]{2,}", run)]
    if all(len(g) == 1 for g in groups):  # "a  b  c  d": single letters, not a spaced-out word
        return run
    return " ".join(groups)


def join_letter_spaced(text: str) -> str:
    """Join letter-spaced runs back into words: ``"I N T R O"`` -> ``"INTRO"``.

    A run is at least ``MIN_LETTER_RUN`` (4) single letters, each standing alone, separated
    by spaces; two or more spaces inside a run separate words (``"T a b l e  o f  C o n t e n t s"``
    -> ``"Table of Contents"``). Left alone: runs of three or fewer letters (``a``, ``I``,
    ``x y z``), runs with four letters in alphabet order (``A B C D``: a listing), runs
    without a vowel, runs whose words are all single letters, and uncased scripts.
    """
    if " " not in text:
        return text
    return _LETTER_RUN.sub(_join_run, text)


# --- headings ---------------------------------------------------------------------------

_HEADING_HINTS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "index",
        re.compile(
            r"^(?:index(?:\s+of\s+\w+)?|general index|subject index|register|stichwortverzeichnis|sachregister"
            r"|schlagwortverzeichnis|stichwortregister|trefwoordenregister|trefwoorden|zakenregister"
            r"|indice analitico|índice analítico|índice alfabético|indice alfabetico|índice remissivo"
            r"|index alphabétique|index des \w+|índice de materias|indice dei nomi)$"
        ),
    ),
    (
        "toc",
        re.compile(
            r"^(?:(?:table of )?contents|inhoud|inhoudsopgave|inhoudstafel|inhalt|inhaltsverzeichnis|sommaire"
            r"|table des matières|indice|índice|indice generale|sumário|sumario|conteúdo|contenido|contenidos"
            r"|tabla de contenidos?|tabela de conteúdo|overview of contents)$"
        ),
    ),
    (
        "references",
        re.compile(
            r"^(?:references|bibliograph(?:y|ie)|bibliografi[ae]|bibliografía|literature(?: cited)?|literatur"
            r"|literaturverzeichnis|literatuur|literatuurlijst|works cited|cited works|referenties|bronnen"
            r"|quellen|quellenverzeichnis|références(?: bibliographiques)?|referencias(?: bibliográficas)?"
            r"|riferimenti(?: bibliografici)?|referências(?: bibliográficas)?|further reading|sources)$"
        ),
    ),
)
_HEADING_NUMBER = re.compile(r"^(?:[\dIVXivx]+(?:\.\d+)*\.?|[A-Z]\.?|chapter \d+|kapitel \d+)\s+", re.IGNORECASE)
_HEADING_PART = re.compile(r"\s*\(\d+/\d+\)\s*$")


def heading_hint(heading: str) -> str | None:
    """``toc``, ``index`` or ``references`` when the last part of ``heading`` names one."""
    last = heading.split("›")[-1]
    last = _HEADING_PART.sub("", last).strip()
    last = _HEADING_NUMBER.sub("", last).strip(" :.").casefold()
    last = " ".join(last.split())
    for kind, pattern in _HEADING_HINTS:
        if pattern.match(last):
            return kind
    return None


# --- tables of contents and indexes -----------------------------------------------------

_PAGE = r"(?:\d{1,4}|[ivx]{1,6})"  # arabic, or lowercase roman (front matter)
_PAGES = rf"{_PAGE}(?:\s*[,–—-]\s*{_PAGE})*"
# the tails of entries: page numbers after dot leaders, after a comma, or ending a short line
_LEADER_TAIL = re.compile(rf"(?:[.·…_][ \t]*){{2,}}(?P<nums>{_PAGES})(?=\s|$|\|)")
_COMMA_TAIL = re.compile(rf",[ \t]*(?P<nums>{_PAGES})(?=\s|$|\|)")
_LINE_ENTRY = re.compile(rf"^(?P<label>[^\n|]{{1,100}}?[^\d\s.,;=+\-*/])\s+(?P<nums>{_PAGES})\s*$")
_HAS_LETTER = re.compile(r"[^\W\d_]")
_LONG_WORD = re.compile(r"[^\W\d_]{3}")
_NUMBERED_LABEL = re.compile(r"^\s*(?:\d+(?:\.\d+)*\.?|[A-Z]\.?|[IVX]+\.)\s+\S")
_YEAR_PAGE = re.compile(r"^(?:1[5-9]|20)\d\d$")
_DATE = re.compile(r"(?:1[5-9]|20)\d\d\s*[-/–]\s*\d\d?\b")


def _numbers(nums: str) -> list[int]:
    out = []
    for part in re.split(r"\s*[,–—-]\s*", nums):
        if part.isdigit():
            out.append(int(part))
    return out


def _page_entries(text: str) -> tuple[list[tuple[str, list[int]]], float]:
    """Entries that end in page references, in reading order, and the share of the non-blank
    characters of ``text`` they cover."""
    covered = bytearray(len(text))
    found: list[tuple[int, int, str, list[int]]] = []

    def take(start: int, end: int, label: str, nums: str) -> None:
        if covered.find(1, start, end) >= 0:
            return
        values = _numbers(nums)
        if (len(values) == 1 and _YEAR_PAGE.match(nums.strip())) or _DATE.search(nums):
            return  # "June 2019", "2022-04-20": a date, not pages
        if not _HAS_LETTER.search(label) and not label.strip().startswith("\\"):
            return
        covered[start:end] = b"\x01" * (end - start)
        found.append((start, end, label.strip(), values))

    def label_start(tail: int, limit: int, stop: str) -> int:
        """Where the label before ``tail`` starts: after the last line break, cell border or
        ``stop`` character, and at most ``limit`` characters back."""
        begin = max(0, tail - limit)
        cut = max(text.rfind(ch, begin, tail) for ch in ("\n", "|", *stop))
        return cut + 1 if cut >= 0 else begin

    for m in _LEADER_TAIL.finditer(text):  # "Intro . . . 3", packed several to a line in indexes
        start = label_start(m.start(), 100, "")
        if found and found[-1][1] > start:
            start = found[-1][1]
        take(start, m.end(), text[start : m.start()], m.group("nums"))
    pos = 0
    for line in text.split("\n"):  # "1 Usage 2"
        for cell in line.split(" | "):
            m = _LINE_ENTRY.match(cell) if len(cell) <= 110 else None
            if m:
                take(pos, pos + len(cell), m.group("label"), m.group("nums"))
            pos += len(cell) + 3
        pos += 1 - 3
    for m in _COMMA_TAIL.finditer(text):  # "multicol, 3, 7, 12"
        start = label_start(m.start(), 80, ",")
        take(start, m.end(), text[start : m.start()], m.group("nums"))
    total = len("".join(text.split()))
    inside = sum(len("".join(text[a:b].split())) for a, b, _, _ in found)
    found.sort(key=lambda e: e[0])
    return [(label, nums) for _, _, label, nums in found], (inside / total if total else 0.0)


_SECTION_NUMBER = re.compile(r"^(\d{1,3}(?:\.\d{1,3})*)\.?\s+\S")


def numbered_contents(lines: list[str]) -> bool:
    """True when ``lines`` read as a contents list without page numbers (see the module docstring)."""
    numbers = [tuple(int(n) for n in m.group(1).split(".")) for m in map(_SECTION_NUMBER.match, lines) if m]
    if len(numbers) < MIN_NUMBERED_ENTRIES or len(numbers) < NUMBERED_LINE_SHARE * len(lines):
        return False
    if sum(len(n) >= 2 for n in numbers) * 2 < len(numbers):
        return False
    forward = sum(b > a for a, b in itertools.pairwise(numbers))
    return forward >= 0.8 * (len(numbers) - 1)


def _sort_key(label: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFKD", label.casefold()) if ch.isalpha())


def _toc_or_index(entries: list[tuple[str, list[int]]], hint: str | None) -> str:
    if hint in ("toc", "index"):
        return hint
    n = len(entries)
    if n == 0:
        return "toc"
    multi = sum(len(nums) >= 2 for _, nums in entries) / n
    firsts = [nums[0] for _, nums in entries if nums]
    steps = list(itertools.pairwise(firsts))
    rising = sum(b >= a for a, b in steps) / len(steps) if steps else 1.0
    keys = [_sort_key(label) for label, _ in entries]
    pairs = list(itertools.pairwise(keys))
    alphabetical = sum(a <= b for a, b in pairs) / len(pairs) if pairs else 0.0
    numbered = sum(bool(_NUMBERED_LABEL.match(label)) for label, _ in entries) / n
    if multi >= 0.2 or rising < 0.8 or (alphabetical >= 0.75 and numbered < 0.3 and n >= 4):
        return "index"
    return "toc"


# --- references -------------------------------------------------------------------------

_REF_LABEL = re.compile(r"^\s*(?:\[[^\]\s]{1,12}\]|\d{1,3}\.\s|\(\d{1,3}\)\s)")
_YEAR = re.compile(r"(?<![\d/.-])(?:1[5-9]|20)\d\d[a-z]?(?![\d/-]|\.\d)")  # not part of a date or a number
_ANY_YEAR = re.compile(r"(?<!\d)(?:1[5-9]|20)\d\d(?!\d)")
_CITE_MARKS = re.compile(
    r"\bet al\b|\bpp?\.\s*\d|\bdoi\b|\b10\.\d{4,}/|\bisbn\b|\b(?:vol|no|nr|ed|eds|hrsg|bd|éd)\.|https?://|\bURL\b"
    r"|\b\d+\s*\(\d+\)\s*:\s*\d+|\bin:\s|\((?:1[5-9]|20)\d\d[a-z]?\)|\bCTAN:",
    re.IGNORECASE,
)


def _reference_entries(lines: list[str]) -> tuple[list[str], bool]:
    """The lines grouped into entries at labels (``[1]``, ``12.``) when there are labels."""
    labelled = sum(bool(_REF_LABEL.match(line)) for line in lines)
    if labelled < 2:
        return lines, False
    entries: list[str] = []
    for line in lines:
        if _REF_LABEL.match(line) or not entries:
            entries.append(line)
        else:
            entries[-1] += " " + line
    return entries, True


def _is_citation(entry: str, labelled: bool) -> bool:
    if len(entry) > 600:
        return False
    if labelled and _REF_LABEL.match(entry):
        # "[3] Author: Title; 2006/05/30": a bracketed label and any other mark (a date counts);
        # "3. ..." may be a numbered list, so it needs a year as well
        marks = bool(_CITE_MARKS.search(entry) or entry.count(",") >= 2)
        if entry.lstrip().startswith("["):
            return marks or bool(_ANY_YEAR.search(entry))
        return marks and bool(_ANY_YEAR.search(entry))
    years = list(_YEAR.finditer(entry))
    if not years or len(entry) > 400:
        return False
    # an unlabelled entry: a year and a citation mark, or fields parted by commas ending near a year
    near_end = years[-1].end() >= len(entry) - 40
    return bool(_CITE_MARKS.search(entry)) or (entry.count(",") >= 2 and near_end)


def reference_share(lines: list[str]) -> float:
    """Share of the entries of ``lines`` that look like citations (see the module docstring)."""
    entries, labelled = _reference_entries(lines)
    return sum(_is_citation(e, labelled) for e in entries) / len(entries) if entries else 0.0


# --- garbled text and tables ------------------------------------------------------------

_JUNK = re.compile(r"\(cid:\d+\)|[\ufffd\ue000-\uf8ff\x00-\x08\x0e-\x1f\x7f-\x9f]|[ÃÂ][\u0080-\u00bf]")
_NUMBER_TOKEN = re.compile(r"^[-+−±(]?[$€£]?v?\d[\d.,:/%–-]*[a-z%)]{0,3}$", re.IGNORECASE)


def junk_share(text: str) -> float:
    """Share of the characters of ``text`` that are extraction junk (cid codes, U+FFFD, ...)."""
    if not text:
        return 0.0
    return sum(len(m.group(0)) for m in _JUNK.finditer(text)) / len(text)


def _garbled_line(line: str) -> bool:
    words = [t for t in line.split() if t != "|" and not _NUMBER_TOKEN.match(t)]
    if not words:
        return False  # numbers only: a table row, if anything
    letters = sum(ch.isalpha() for t in words for ch in t)
    if letters < MIN_LETTER_SHARE * sum(_weight(t) for t in words):
        return True
    # single letters standing alone ("c d i j k l", "e s GY s TF p"); initials ("A.") do not count
    singles = sum(sum(ch.isalpha() for ch in w) == 1 and not w.endswith(".") for w in words)
    return len(words) >= 4 and singles >= SINGLE_LETTER_SHARE * len(words)


def garbled_share(text: str) -> float:
    """Share of the non-blank characters of ``text`` on garbled lines (see the module docstring)."""
    return _line_share(text, _garbled_line)


def _is_table_row(line: str) -> bool:
    cells = [c.strip() for c in line.split(" | ")]
    if len(cells) >= 2:
        return max(len(c.split()) for c in cells) <= 8
    tokens = line.split()
    numbers = sum(bool(_NUMBER_TOKEN.match(t)) for t in tokens)
    return numbers >= 3 and numbers >= 0.5 * len(tokens)


def table_share(text: str) -> float:
    """Share of the non-blank characters of ``text`` on table rows (see the module docstring);
    0.0 when there are fewer than two rows."""
    total = chars = rows = 0
    for line in text.splitlines():
        w = _weight(line)
        total += w
        if w and _is_table_row(line.strip()):
            chars += w
            rows += 1
    return chars / total if total and rows >= 2 else 0.0


# --- the verdict ------------------------------------------------------------------------


def classify_section(heading: str, text: str) -> SectionKind:
    """The kind of a section from its heading and body text; see the module docstring."""
    text = join_letter_spaced(text)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return "prose"
    if junk_share(text) >= JUNK_SHARE:
        return "garbled"
    hint = heading_hint(join_letter_spaced(heading))
    entries, covered = _page_entries("\n".join(lines))
    if len(entries) < MIN_ENTRIES:
        covered = 0.0
    if covered >= ENTRY_SHARE or (hint in ("toc", "index") and covered >= ENTRY_SHARE_HINTED):
        return "index" if _toc_or_index(entries, hint) == "index" else "toc"
    if numbered_contents(lines):
        return "toc"
    refs = reference_share(lines)
    if refs >= REFERENCE_SHARE or (hint == "references" and refs >= REFERENCE_SHARE_HINTED):
        return "references"
    if code_share(text) >= CODE_SHARE:
        return "code"
    if garbled_share(text) >= GARBLED_SHARE:
        return "garbled"
    if table_share(text) >= TABLE_SHARE:
        return "table"
    if not _LONG_WORD.search(text):
        return "garbled"  # not one word of three letters: "c c", "∗", figure residue
    return "prose"


def count_kinds(kinds: Iterable[str]) -> dict[str, int]:
    """How many of each kind, in the order of :data:`SECTION_KINDS` (zeros included)."""
    counts = dict.fromkeys(SECTION_KINDS, 0)
    for kind in kinds:
        counts[kind] = counts.get(kind, 0) + 1
    return counts
