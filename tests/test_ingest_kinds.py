"""Section kinds: hand-written examples of each kind in several languages, letter-spaced
text, code lines, and sections of real LaTeX package manuals parsed end to end."""

from __future__ import annotations

from pathlib import Path

import pytest

from qagen.config import ParseConfig
from qagen.ingest import parse_documents
from qagen.ingest.kinds import (
    SECTION_KINDS,
    classify_section,
    code_share,
    count_kinds,
    heading_hint,
    is_code_line,
    join_letter_spaced,
    junk_share,
    looks_like_code,
    reference_share,
    table_share,
)

SHORT_DOCS = Path(__file__).resolve().parents[1].parent / "shared" / "corpora" / "short-docs"

PROSE_EN = (
    "The pharmacy is open on weekdays from eight in the morning until six in the evening.\n"
    "Patients who need a repeat prescription should ask at least three working days ahead, "
    "and bring the blue card and a list of the medicines they take."
)
PROSE_NL = (
    "De apotheek is op werkdagen geopend van acht uur 's ochtends tot zes uur 's avonds.\n"
    "Wie een herhaalrecept nodig heeft, vraagt dat minstens drie werkdagen van tevoren aan."
)
PROSE_WITH_COMMANDS = (
    "Use \\eqnmarkbox[color]{node}{term} or \\eqnmark[color]{node}{term} to mark the target of an "
    "annotation within your equation, then call \\annotate to attach a label to it.\n"
    "The package is loaded with \\usepackage{annotate-equations} in the preamble of the document."
)
LATEX = (
    "\\begin{equation*}\n"
    "\\eqnmarkbox[blue]{node1}{e_q^n}\n"
    "\\eqnmark[red]{node2}{f(x)}\n"
    "\\end{equation*}\n"
    "\\annotate[yshift=1em]{left}{node1}{my}\n"
    "\\renewcommand{\\eqnhighlightheight}{} % package default"
)
DOCSTRIP = (
    "14 \\newcommand{\\AddLineBeginMainAux}[1]{%\n"
    "15 \\ifx\\@beginmainauxhook\\relax\n"
    "16 \\if@filesw\n"
    "17 \\PackageInfo{auxhook}{%\n"
    "18 | \\MessageBreak\n"
    "19 }%"
)
METAPOST = (
    "vardef draw_face =\n"
    "pair lefteye, righteye, nose[];\n"
    "lefteye = c + (-0.25w,0.15h); righteye = c + (0.25w,0.15h);\n"
    "pickup pencircle scaled 1;\n"
    "draw fullcircle xscaled w yscaled h shifted c;\n"
    "enddef;"
)
PYTHON = (
    "from reportlab.pdfgen import canvas\n"
    "def hello(c):\n"
    "    c.drawString(100, 100, 'Hello World')\n"
    "c = canvas.Canvas('hello.pdf')\n"
    "hello(c)\n"
    "c.save()"
)


# --- code lines and code share ---------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "\\usepackage[gather]{chapterbib}",
        "\\renewcommand{\\eqnhighlightheight}{} % package default",
        "14 \\newcommand{\\AddLineBeginMainAux}[1]{%",  # listing line number
        "draw fullcircle xscaled w yscaled h shifted c;",
        "pickup pencircle scaled 1;",
        "color fracfillcolor; fracfillcolor := red;",
        "z3 = (xpart ndb3.se, ypart ndb2.ne);",
        "xpart ndb3.se",
        "def hello(c):",
        "import numpy as np",
        "$ pip install qagen",
        "mpost expeg.mp",
        "<para alignment='center'>",
        "}",
        "i = inch",  # an assignment
        "176 numeric lb, hb; % length & height of boxes",  # MetaPost with a comment
        "1326 %%% expeg.tex display examples",  # a comment line
        "# draw the tangent lines",
        "213 drawdashOO(9tm, 3bm); | % three/nine",
    ],
)
def test_code_lines(line):
    assert is_code_line(line)


@pytest.mark.parametrize(
    "line",
    [
        "",
        "The pharmacy is open on weekdays from eight until six.",
        "The default METAPOST-filename is \\jobname.mp.",  # one inline command in a sentence
        "\\bitpattern The \\bitpattern macro is the macro which formats the patterns.",
        "bit has the biggest number;",  # a wrapped clause, not a statement
        "• right (default) or left;",
        "Tips & tricks for 50 % fewer errors",
        "Visit https://example.org/search?q=tex&lang=nl for the manual.",
        "https://example.org/search?q=tex&lang=nl",
        "mail jan@example.nl",
        "The file(s) are listed in Section 3 [12].",
        "Zie hoofdstuk 3 voor de opties van het pakket.",
        "use the option draft to speed things up",  # a wrapped sentence, not a statement
        "for more details in the manual (see below):",
        "chstyle=0 which is the default gives a header of the form shown in the last example",
    ],
)
def test_prose_lines(line):
    assert not is_code_line(line)


def test_code_share_counts_characters_not_lines():
    text = PROSE_EN + "\n" + "\\foo{1}\n\\bar{2}\n\\baz{3}"
    share = code_share(text)
    assert 0.05 < share < 0.2  # three short code lines beside two long sentences
    assert code_share(LATEX) == 1.0
    assert code_share("") == 0.0
    assert code_share(PROSE_WITH_COMMANDS) == 0.0


def test_looks_like_code():
    assert looks_like_code("\\usepackage[duplicate,sectionbib]{chapterbib}")
    assert looks_like_code(METAPOST)
    assert looks_like_code(PYTHON)
    assert not looks_like_code("Load it with \\usepackage{chapterbib} before babel.")
    assert not looks_like_code("The package draws a smiling and a frowning face.")
    # a threshold can be asked for: one code line of three
    mixed = "Put this in the preamble:\n\\usepackage{emp}\nThen run LaTeX twice."
    assert looks_like_code(mixed, threshold=0.2) and not looks_like_code(mixed)


# --- letter-spaced text ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("spaced", "joined"),
    [
        ("I N T R O D U C T I O N", "INTRODUCTION"),
        ("T a b l e  o f  C o n t e n t s", "Table of Contents"),
        ("T h e  p a c k a g e", "The package"),
        ("1  I N L E I D I N G", "1  INLEIDING"),
        ("Chapter 2: V O R W O R T", "Chapter 2: VORWORT"),
        ("É T U D E  D E S  C A S", "ÉTUDE DES CAS"),
    ],
)
def test_letter_spaced_runs_are_joined(spaced, joined):
    assert join_letter_spaced(spaced) == joined


@pytest.mark.parametrize(
    "text",
    [
        "I am a man, I think.",  # single-letter words
        "Let x y z be the coordinates.",  # three letters: math
        "The points A B C D E lie on a circle.",  # letters in alphabet order: a listing
        "Variables p q r s t are free.",
        "The matrix x w v z is empty.",  # no vowel
        "Choose a  b  c  or  e.",  # double-spaced single letters
        "日 本 語 で す",  # uncased script
        "plain text without any spacing tricks",
    ],
)
def test_single_letters_that_are_not_letter_spacing_stay(text):
    assert join_letter_spaced(text) == text


def test_letter_spaced_heading_is_joined_before_classifying():
    toc = "1 Inleiding 3\n2 Installatie 5\n3 Gebruik 9\n4 Opties 12"
    assert heading_hint("I N H O U D") is None  # the raw heading names nothing
    assert heading_hint(join_letter_spaced("I N H O U D")) == "toc"
    assert classify_section("I N H O U D", toc) == "toc"
    spaced = "T h e  p a c k a g e  d r a w s  f a c e s  a n d  a r r o w s  f o r  y o u"
    assert classify_section("", spaced) == "prose"  # joined first, not taken for junk


# --- tables of contents and indexes --------------------------------------------------------

TOC_EN = (
    "1 Introduction . . . . . . . . . . . 3\n"
    "2 Usage . . . . . . . . . . . . . . 4\n"
    "2.1 Options . . . . . . . . . . . . 5\n"
    "2.2 Commands . . . . . . . . . . . 7\n"
    "3 Implementation . . . . . . . . . 12"
)
TOC_NL_NO_LEADERS = (
    "1 Handleiding voor Debian Edu 1\n2 Over Debian Edu en Skolelinux 1\n3 Architectuur 2\n"
    "3.1 Het netwerk 2\n3.2 De hoofdserver 4\n4 Vereisten 9"
)
TOC_PACKED_DE = (
    "1 Einleitung 2\n"
    "1.1 Zweck . . . . . . . . . . . . 2 1.2 Voraussetzungen . . . . . . . . . . 2 1.3 Lizenz . . . . . 3\n"
    "2 Benutzung 4"
)
INDEX_EN = (
    "multicol, 3, 7, 12\ncolumnbreak, 5\n\\columnseprule, 4, 9\nenvironments, 2, 6-8\n"
    "footnotes, 11, 14\nraggedcolumns, 10"
)
INDEX_IT = (
    "\\!, 10 | \\biggr, 25\n\\,, 10 | \\bigl, 25\n\\:, 10 | \\bigr, 25\nbinomiali, 13 | \\binom, 13\n"
    "font BaKoMa, 23 | bmatrix, ambiente, 9"
)
INDEX_DOC = (
    "Numbers written in italic refer to the page where the corresponding entry is described.\n"
    "E \\empaddtoprelude . . 3 \\empaddtoTeX . . . . . . 3 emp (environment) . . . 2 "
    "empcmds (environment) . . . . . . . 3 empdef (environment) 3 empfile (environment) . . . 2 "
    "empgraph (environment) . . . . . . . 3 \\empprelude . . . . . . . 3 \\empTeX . . . . . . . . . . 3"
)


@pytest.mark.parametrize(
    ("heading", "text"),
    [
        ("Contents", TOC_EN),
        ("", TOC_EN),  # no heading: the entries alone
        ("Inhoudsopgave", TOC_NL_NO_LEADERS),
        ("Inhalt", TOC_PACKED_DE),
        ("Sommaire", "Introduction 1\nInstallation 3\nUtilisation 4\nOptions du paquet 8"),
        ("Índice", "1. Uso de spanish para babel 2\n2. spanish como lengua principal 3\n2.1. Listas . . . . . 3"),
        ("List of Figures", "1 Length parameters . . . . . 4 2 Parameters for boxes . . . . . . . 5 3 Results . . . 6"),
    ],
)
def test_tables_of_contents(heading, text):
    assert classify_section(heading, text) == "toc"


@pytest.mark.parametrize(
    ("heading", "text"),
    [
        ("Index", INDEX_EN),
        ("", INDEX_EN),  # several page numbers per entry, in alphabetical order
        ("Indice analitico", INDEX_IT),
        ("", INDEX_IT),
        ("Register", "Apotheek, 4, 9\nHuisarts, 2\nInschrijven, 7, 8\nOpeningstijden, 3, 12\nSpoed, 5"),
        ("Index", INDEX_DOC),
        ("", INDEX_DOC),  # page numbers that do not rise in reading order
        ("Contents", INDEX_EN),  # the heading decides between the two
    ],
)
def test_indexes(heading, text):
    assert classify_section(heading, text) == ("toc" if heading == "Contents" else "index")


# A web page's contents list has section numbers but no page numbers (an FAQ's chapter page, a help chapter):
# a source of questions about the document, never about the product (issue 42's fifth recording).
NUMBERED_CONTENTS = """Inhoudsopgave
10.1. Kan ik een kernel installeren en compileren zonder bepaalde
Debian-specifieke afstellingen?
10.2. Welke gereedschappen stelt Debian ter beschikking om een aangepaste kernel
te bouwen?
10.3. Welke bijzondere voorzieningen stelt Debian ter beschikking voor modules?
10.4. Kan ik een oud kernel-pakket veilig de-installeren, en zo ja, hoe?
10.5. Waar vind ik meer informatie over Linux-pakketten voor Debian?"""
HELP_CHAPTER = """Table of Contents
1. Introduction to Layers
1.1. Layer Properties
1.2. Layer Modes
2. Creating New Layers
2.1. Layer Groups
2.2. Layer Masks
3. Text Layers"""


@pytest.mark.parametrize("text", [NUMBERED_CONTENTS, HELP_CHAPTER])
def test_a_contents_list_without_page_numbers(text):
    assert classify_section("Hoofdstuk 10. Debian en de kernel", text) == "toc"


@pytest.mark.parametrize(
    "text",
    [
        # steps of a how-to: one level of numbers
        "1. Open the Format menu.\n2. Choose Page.\n3. Click the Page tab.\n4. Select Landscape.\n5. Click OK.",
        # numbered subsections inside prose: the paragraphs are most of the lines
        "3.1 Options\nThe package takes two options.\nBoth are off by default.\n3.2 Commands\nThere is one command.\n"
        "It takes one argument.\n3.3 Keys\nKeys are set with setup.\nThey apply to the group.\n3.4 Hooks\n"
        "Hooks run at the end.\n3.5 Bugs\nNone known.\nReport them by mail.",
        # numbers that go back and forth are no contents list
        "2.1 two one\n1.1 one one\n3.2 three two\n1.4 one four\n2.2 two two",
    ],
)
def test_numbered_steps_and_numbered_prose_are_no_contents_list(text):
    assert classify_section("Usage", text) != "toc"


def test_a_heading_word_alone_makes_no_kind():
    for heading in ("Index", "Contents", "Inhoud", "Bibliography", "Referencias", "Índice"):
        assert classify_section(heading, PROSE_EN) == "prose"
        assert classify_section(heading, PROSE_NL) == "prose"


def test_dates_and_versions_are_not_page_numbers():
    assert classify_section("The l3galley package", "The LATEX Project\nReleased 2022-04-20") == "prose"
    assert classify_section("backnaur", "Adrian P. Robson\nVersion 3.1 18 June 2019") == "prose"


@pytest.mark.parametrize(
    ("heading", "kind"),
    [
        ("Contents", "toc"),
        ("Table of Contents", "toc"),
        ("Inhaltsverzeichnis", "toc"),
        ("Table des matières", "toc"),
        ("Indice (1/3)", "toc"),
        ("2 Index", "index"),
        ("Indice analitico", "index"),
        ("Índice alfabético", "index"),
        ("Stichwortverzeichnis", "index"),
        ("4 References", "references"),
        ("Bibliografía", "references"),
        ("Riferimenti bibliografici", "references"),
        ("Literaturverzeichnis", "references"),
        ("Referências", "references"),
        ("Part A › Bibliography", "references"),
        ("2.1 Reference", None),  # an API reference, not a list of references
        ("5 Indexing citations", None),
        ("Introduction", None),
    ],
)
def test_heading_hints(heading, kind):
    assert heading_hint(heading) == kind


# --- references ------------------------------------------------------------------------

REFS_BRACKETS = (
    "[1] John D. Hobby, A User's Manual for METAPOST, Computer Science Re-\n"
    "port #162, AT&T Bell Laboratories, April 1992.\n"
    "[2] Michel Goossens, Sebastian Rahtz, and Frank Mittelbach, The LATEX\n"
    "Graphics Companion, Addison-Wesley, Reading MA, 1997.\n"
    "[3] Leslie Lamport, LATEX — A Documentation Preparation System, Addison-\n"
    "Wesley, Reading MA, 1985."
)
REFS_ES = (
    "Ignacio Bosque y Violeta Demonte, Gramática descriptiva de la lengua española, Madrid, Espasa-Calpe, 1999.\n"
    "Jorge de Buen, Manual de diseño editorial, México, Santillana, 2000.\n"
    "José Fernández Castillo, Normas para correctores y compositores tipógrafos, Madrid, Espasa-Calpe, 1959."
)
REFS_AUTHOR_YEAR = (
    "Knuth, D. E. (1984). The TeXbook. Addison-Wesley.\n"
    "Lamport, L. (1994). LaTeX: A Document Preparation System. 2nd ed. Addison-Wesley.\n"
    "Mittelbach, F. et al. (2004). The LaTeX Companion. doi:10.5555/1234567"
)
REFS_DATES = (
    "[1] Heiko Oberdiek: The hypdestopt package; 2006/05/30 v1.0; CTAN:pkg/\nhypdestopt.\n"
    "[2] Sebastian Rahtz, Heiko Oberdiek: The hyperref package; 2006/08/16 v6.75c;\nCTAN:pkg/hyperref.\n"
    "[3] Heiko Oberdiek: The zref package; 2006/05/25 v1.2; CTAN:pkg/zref."
)


@pytest.mark.parametrize(
    ("heading", "text"),
    [
        ("References", REFS_BRACKETS),
        ("", REFS_BRACKETS),
        ("3. Bibliografía", REFS_ES),
        ("", REFS_ES),
        ("Literatur", REFS_AUTHOR_YEAR),
        ("", REFS_AUTHOR_YEAR),
        ("4 References", REFS_DATES),
    ],
)
def test_references(heading, text):
    assert classify_section(heading, text) == "references"


def test_numbered_lists_and_licences_are_not_references():
    steps = (
        "Suppose this case:\n"
        "1. One text, with five manuscripts: P, A, B, C, D. P is the reference manuscript.\n"
        "2. The pseudo-word lorem has these variants, as shown in the apparatus.\n"
        "3. Run LaTeX, then BibTeX, then LaTeX twice."
    )
    licence = (
        "Copyright © 2011 Sebastian Kuhnert. Permission is granted to copy, distribute and/or modify this "
        "software under the terms of the LATEX Project Public Licence, version 1.3c or later."
    )
    history = "Version 1.1, 2011-04-10\nImprove expansion behaviour for passage arguments."
    for text in (steps, licence, history):
        assert reference_share(text.splitlines()) < 0.6
        assert classify_section("", text) == "prose"


# --- code, tables, garbled ---------------------------------------------------------------


@pytest.mark.parametrize("text", [LATEX, DOCSTRIP, METAPOST, PYTHON])
def test_code_sections(text):
    assert classify_section("2 Implementation", text) == "code"


def test_prose_with_a_short_example_stays_prose():
    text = PROSE_EN + "\n" + PROSE_NL + "\nFor example:\n\\usepackage{emp}"
    assert classify_section("Usage", text) == "prose"
    assert classify_section("Usage", PROSE_WITH_COMMANDS) == "prose"


def test_tables():
    pipes = (
        "Name | Type | Description\n"
        "shiftofflabelmargin | Length | Similar to labelmargin.\n"
        "smallblockr | Length | Size of square blocks.\n"
        "connectionlw | Length | Width of connection lines."
    )
    numbers = "Year Sales Costs Profit\n2019 120.5 80.1 40.4\n2020 130.0 85.2 44.8\n2021 150.7 90.3 60.4"
    assert classify_section("Setting variables", pipes) == "table"
    assert classify_section("Results", numbers) == "table"
    assert table_share(pipes) == 1.0
    # cells of whole sentences are a description list, not a table
    described = (
        "bnf | BNF productions are defined in a bnf or bnf* environment, which respectively give\n"
        "bnf* | numbered or unnumbered lists of productions, one production on each line of the list."
    )
    assert classify_section("Environments", described) == "prose"


@pytest.mark.parametrize(
    "text",
    [
        "(cid:4)(cid:5)(cid:6) (cid:7)(cid:8) text (cid:9)(cid:10)(cid:11)(cid:12) more",
        "De apotheek \ufffd\ufffd is geopend \ufffd\ufffd\ufffd van acht tot zes \ufffd\ufffd",
        "CafÃ© de la gare, prÃ©sentation Ã  la mairie",  # UTF-8 read as Latin-1
        "e s GY s TF p\nf\nI: m2 C: C1 s R: R1",  # labels of a figure
        "c d i j k l\ng h i\nm n o p",  # broken math
        "• ∗ † ‡ § ¶ ∗ • ‡ † § ¶ ¤ ¦ ¨ © ª « ¬",
        "c c",  # no word at all
    ],
)
def test_garbled(text):
    assert classify_section("", text) == "garbled"


def test_junk_share():
    assert junk_share("plain text") == 0.0
    assert junk_share("(cid:12)") == 1.0
    assert 0 < junk_share("one \ufffd in a long line of otherwise ordinary text") < 0.05


def test_prose_with_numbers_and_initials_is_not_garbled():
    assert classify_section("", "Carlos A. P. Campani\n24 de abril de 2006") == "prose"
    text = "Fixed point arithmetic for TEX with numbers ranging from −999999999.999999999 to +999999999.999999999"
    assert classify_section("Abstract", text) == "prose"


def test_empty_and_kinds_listing():
    assert classify_section("Heading only", "") == "prose"
    assert classify_section("", "   \n\n ") == "prose"
    counts = count_kinds(["code", "prose", "code"])
    assert list(counts) == list(SECTION_KINDS)
    assert counts["code"] == 2 and counts["prose"] == 1 and counts["toc"] == 0


# --- real sections, parsed end to end ------------------------------------------------------

# (document, heading part, kind): chosen by reading the parsed sections
KNOWN = [
    ("auxhook__auxhook.pdf", "Contents", "toc"),
    ("auxhook__auxhook.pdf", "1 User interface", "prose"),
    ("auxhook__auxhook.pdf", "2.3 User macros", "code"),
    ("auxhook__auxhook.pdf", "2.4 Patches", "code"),
    ("auxhook__auxhook.pdf", "3.2 Bundle installation", "prose"),
    ("auxhook__auxhook.pdf", "4 References", "references"),
    ("auxhook__auxhook.pdf", "6 Index", "index"),
    ("shapes__shapes.pdf", "1 Introduction", "prose"),
    ("shapes__shapes.pdf", "3 The Shapes Macros", "prose"),
    ("shapes__shapes.pdf", "5 Implementation", "code"),  # MetaPost
    ("emp__empman.pdf", "1 Introduction", "prose"),
    ("emp__empman.pdf", "2.1 Commands and Environments", "prose"),
    ("emp__empman.pdf", "2.2 Examples", "code"),
    ("emp__empman.pdf", "References", "references"),
    ("emp__empman.pdf", "Index", "index"),
    ("liturg__liturg.pdf", "2 Language Commands", "prose"),
    ("liturg__liturg.pdf", "5 Implementation", "code"),
]


@pytest.fixture(scope="module")
def real_sections():
    if not SHORT_DOCS.is_dir():
        pytest.skip(f"{SHORT_DOCS} is absent (real PDFs live beside the repo)")
    paths = sorted({SHORT_DOCS / doc for doc, _, _ in KNOWN})
    return parse_documents(paths, SHORT_DOCS, ParseConfig(workers=1)).sections


@pytest.mark.parametrize(("doc", "heading", "kind"), KNOWN)
def test_real_sections_have_their_kind(real_sections, doc, heading, kind):
    found = [s for s in real_sections if s.doc_path == doc and s.heading.split(" › ")[-1] == heading]
    assert len(found) == 1, (doc, heading, [s.heading for s in real_sections if s.doc_path == doc])
    assert found[0].kind == kind, (found[0].heading, found[0].text[:300])


def test_real_documents_are_mostly_prose(real_sections):
    counts = count_kinds(s.kind for s in real_sections)
    assert counts["prose"] > len(real_sections) / 2
    assert counts["code"] >= 6 and counts["toc"] >= 3 and counts["index"] >= 2


def test_parse_joins_letter_spaced_headings_and_sets_kinds(tmp_path):
    doc = tmp_path / "guide.md"
    doc.write_text(
        "# I N T R O D U C T I O N\n\n"
        + PROSE_EN
        + "\n\n# C o n t e n t s\n\n"
        + TOC_EN.replace("\n", "\n\n")
        + "\n\n# Implementation\n\n```\n"
        + PYTHON
        + "\n```\n",
        encoding="utf-8",
    )
    sections = parse_documents([doc], tmp_path, ParseConfig(workers=1)).sections
    assert [(s.heading, s.kind) for s in sections] == [
        ("INTRODUCTION", "prose"),
        ("Contents", "toc"),
        ("Implementation", "code"),
    ]


def test_call_and_index_checks_match_their_regexes_and_stay_linear_on_long_tokens():
    import random
    import re

    from qagen.ingest.kinds import _call_like, _indexed

    call = re.compile(r"[A-Za-z_][\w.]*\([^\s)]|[A-Za-z_][\w.]*\(\)")
    index = re.compile(r"\w\[[^\]]*\]")
    rng = random.Random(0)
    for _ in range(20000):
        tok = "".join(rng.choice("ab9_.()[] é") for _ in range(rng.randint(0, 10)))
        assert _call_like(tok) == bool(call.search(tok)), tok
        assert _indexed(tok) == bool(index.search(tok)), tok
    # a PDF's text without spaces (the parse-timeout test's 4-million-character line) is one token:
    # a regex retried from every position took minutes on it
    for line in ("ab" * 200_000, "a(" * 200_000, "a[" * 200_000):
        assert classify_section("Heading", line) in ("prose", "code", "garbled")
