"""Subjects named in questions, and headings without their section numbers."""

from __future__ import annotations

import pytest

from qagen.generate.subjects import clean_heading, document_subject, names_subject, with_subject


@pytest.mark.parametrize(
    ("title", "subject"),
    [
        ("The 1, 2, many package∗", "the 1, 2, many package"),
        ("The l3galley package Galley code", "the l3galley package"),
        ("Package sobolev", "the sobolev package"),
        ("linguex.sty Documentation", "the linguex package"),
        ("annotate-equations.sty", "the annotate-equations package"),
        ("The shapes Macros, v1.0", "the shapes macros"),
        ("chapterbib multiple bibliographies in LATEX", "chapterbib"),
        ("The eledform extension for eledmac", "the eledform extension"),
        ("AromaVita Barista 300: User Manual", "AromaVita Barista 300"),
        ("Dell XPS 13 Owner's Manual", "Dell XPS 13"),
        ("Acme Employee Handbook", "the Acme Employee Handbook"),
        ("Your Rights as a Patient at Lindenhof Hospital", "the Lindenhof Hospital"),
        ("Remote Work Policy", "the Remote Work Policy"),
        ("Extending MP to 3D and 4D", "“Extending MP to 3D and 4D”"),
        # round 25: "In Make link targets (hyperref bundle), which command ...?" (5 items, read as broken)
        ("Make link targets (hyperref bundle)", "the hyperref bundle"),
        ("Creating tables (the tabu package)", "the tabu package"),
        ("Experimental Unicode mathematical typesetting: The unicode-math package", "the unicode-math package"),
        ("Wick contractions in LATEX with simplewick.sty", "the simplewick package"),
        (
            "diffcoeff a LaTeX package to ease the writing of differential coefficients Version 5.1",
            "the diffcoeff package",
        ),
        ("Hypertext marks in LaTeX: a manual for hyperref", "hyperref"),
        ("An environment for multicolumn output", "“An environment for multicolumn output”"),
        ("Publication quality tables in LATEX∗", "“Publication quality tables in LATEX”"),
        (
            "The Expressg MetaPost package for drawing box-line-annotation diagrams∗",
            "the Expressg MetaPost package",
        ),
        ("The wasysym macro package for LATEX2ε", "the wasysym macro package"),
        ("The extension package codicefiscaleitaliano∗", "the codicefiscaleitaliano package"),
        ("lpform Package Documentation", "the lpform package"),
        ("My humble additions to (La)TEX mathematics∗", "“My humble additions to (La)TEX mathematics”"),
    ],
)
def test_document_subject(title: str, subject: str) -> None:
    assert document_subject(title) == subject


def test_subject_from_file_name_when_no_title() -> None:
    assert document_subject("", "docs/remote-work_policy.pdf") == "the remote work policy"


@pytest.mark.parametrize(
    ("heading", "clean"),
    [
        ("2.3 The option multicol", "The option multicol"),
        ("10.1. Option handling", "Option handling"),
        ("A.2 Tables", "Tables"),
        ("IV. Results", "Results"),
        ("§ 4 Scope", "Scope"),
        ("Section 3: Safety", "Safety"),
        ("Hoofdstuk 2 Aan de slag", "Aan de slag"),
        ("f Standard user junction definitions", "Standard user junction definitions"),
        ("B Examples", "Examples"),
        ("A Note on fonts", "A Note on fonts"),  # an article, not an appendix letter
        ("3D graphics", "3D graphics"),  # not a section number
        ("Version 2 changes", "Version 2 changes"),
        ("4.5 Rendering figures. (1/2)", "Rendering figures"),
    ],
)
def test_clean_heading(heading: str, clean: str) -> None:
    assert clean_heading(heading) == clean


def test_names_subject_needs_a_name_or_most_words() -> None:
    assert names_subject("Which options does the multicol package provide?", "the multicol package")
    assert not names_subject("What are the options?", "the multicol package")
    assert names_subject("How do I contact LinkHaven support?", "LinkHaven AX1800")
    assert not names_subject("Who can work remotely?", "the Remote Work Policy")  # one common word of three


def test_with_subject_attaches_it_where_it_reads_naturally() -> None:
    assert with_subject("Who can work remotely?", "the Remote Work Policy") == (
        "Who can work remotely under the Remote Work Policy?"
    )
    assert with_subject("How do I make a complaint?", "the Lindenhof Hospital") == (
        "How do I make a complaint at the Lindenhof Hospital?"
    )
    assert with_subject("How do I balance the columns?", "the multicol package") == (
        "How do I balance the columns with the multicol package?"
    )
    assert with_subject("How do I reset the router?", "LinkHaven AX1800") == (
        "For LinkHaven AX1800, how do I reset the router?"
    )
    assert with_subject("Wat kost parkeren?", "Ziekenhuis Zuid", "nl") == "Bij Ziekenhuis Zuid: wat kost parkeren?"
    assert with_subject("¿Cuánto cuesta?", "Hospital Sur", "es") == "¿En Hospital Sur, cuánto cuesta?"
    already = "What does the multicol package provide?"
    assert with_subject(already, "the multicol package") == already


def test_a_page_counter_is_no_document_title():
    from qagen.generate.context import document_titles
    from qagen.records import Document, Section

    doc = Document("d", "docbook-xsl-doc-pdf__reference.pdf", "", "pdf", "ok", title="(1/75)")
    section = Section("d-s0", "d", doc.path, "(1/75)", "Some text about the stylesheets.", 1, 1, 0)
    assert document_titles([section], [doc]) == {"d": "Docbook xsl doc pdf reference"}


def test_the_tail_of_a_title_set_on_two_lines_is_no_title():
    from qagen.generate.context import document_titles
    from qagen.records import Document, Section

    doc = Document("d", "babel-spanish.pdf", "", "pdf", "ok", title="para el sistema babel.∗")
    section = Section("d-s0", "d", doc.path, "Estilo spanish para el sistema babel", "Este estilo ...", 1, 1, 0)
    assert document_titles([section], [doc]) == {"d": "Estilo spanish para el sistema babel"}
    named = Document("m", "m.pdf", "", "pdf", "ok", title="multicol: columns for LaTeX")
    assert document_titles([], [named]) == {"m": "multicol: columns for LaTeX"}


def test_a_title_in_latex_braces_loses_them() -> None:
    # second held-out readers: "For {zx-calculus}, what should I do if ...?"
    assert "{" not in document_subject("{zx-calculus}") and "zx-calculus" in document_subject("{zx-calculus}")


@pytest.mark.parametrize(
    ("title", "subject"),
    [
        ("Package documentation: causets", "the causets package"),  # not "the Package documentation"
        ("FAQ ON R", "FAQ on R"),  # a title set in capitals, acronyms kept
        ("LINKHAVEN AX1800 USER MANUAL", "Linkhaven AX1800"),
    ],
)
def test_round_23_titles(title: str, subject: str) -> None:
    assert document_subject(title) == subject
