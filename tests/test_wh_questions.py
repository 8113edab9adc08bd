"""Cloze sentences whose blank is the subject are asked as questions (English, offline generator)."""

from __future__ import annotations

import pytest

from qagen.generate.wh_questions import blank_question
from tests.test_generate_extractive import CLEAN_CLOZES, _items_for

ABOUT = "the poemscol package"


@pytest.mark.parametrize(
    ("sentence", "term", "expected"),
    [
        # read as quiz lines in the held-out rounds; these are what a user of the package asks
        (
            "\\sentencenumbers sets sentence numbers in the running text.",
            "\\sentencenumbers",
            "In the poemscol package, which command sets sentence numbers in the running text?",
        ),
        (
            "The \\dif command does nothing if the first argument is empty.",
            "\\dif",
            "In the poemscol package, which command does nothing if the first argument is empty?",
        ),
        (
            "The statement \\Infer typesets vertical dots, with a label on the right.",
            "\\Infer",
            "In the poemscol package, which statement typesets vertical dots, with a label on the right?",
        ),
        (
            "\\maketitle is used to create the title page of the document.",
            "\\maketitle",
            "In the poemscol package, which command is used to create the title page of the document?",
        ),
        (
            "The first of the two macros that CoDi offers is \\obj.",
            "\\obj",
            "In the poemscol package, which command is the first of the two macros that CoDi offers?",
        ),
        # round 25: "which macro is the macro which formats the patterns?" echoed the sentence
        (
            "\\bpFormatPattern is the macro which formats the patterns.",
            "\\bpFormatPattern",
            "In the poemscol package, which macro formats the patterns?",
        ),
        # an instruction: "use ____ to X" is asked as the user's "which command do I use to X?"
        (
            "Use \\multicolsep to change the space above and below the environment.",
            "\\multicolsep",
            "In the poemscol package, which command do I use to change the space above and below the environment?",
        ),
        (
            "To end a column early, use the \\columnbreak command inside the environment.",
            "\\columnbreak",
            "In the poemscol package, which command do I use inside the environment to end a column early?",
        ),
        (
            "You can use the environment \\verse for poems set in two columns.",
            "\\verse",
            "In the poemscol package, which environment do I use for poems set in two columns?",
        ),
    ],
)
def test_a_blank_in_subject_position_becomes_a_which_question(sentence: str, term: str, expected: str) -> None:
    assert blank_question(sentence, term, "command", ABOUT) == expected


@pytest.mark.parametrize(
    ("sentence", "term"),
    [
        ("\\linespread {factor} in the preamble will globally enlarge the leading.", "\\linespread"),  # argument
        ("\\foo options are set with keys of the package.", "\\foo"),  # a plural noun follows the name
        ("\\foo arguments must be braced in every case.", "\\foo"),  # ... and then the verb
        ("\\foo works as well.", "\\foo"),  # leans on the sentence before
        ("\\foo: sets the width of the page.", "\\foo"),  # a label line
        ("To create a dedication page, the \\dedication command can be called.", "\\dedication"),  # object
        ("The new \\foo command sets the width.", "\\foo"),  # an adjective 'which' cannot carry
        ("\\foo sets the width of the page", "\\foo"),  # no full stop: cut short
        ("\\foo sets \\foo twice.", "\\foo"),  # the answer in the question
        ("\\foo, \\bar and \\baz set the width.", "\\foo"),  # a list, not a subject
        ("To change the gap, use \\setlength and the \\columnsep length.", "\\setlength"),  # two things used
        ("Use \\foo to do the same.", "\\foo"),  # leans on the sentence before
        ("Use \\foo or \\bar to set the width of the page.", "\\foo"),  # either one: no single answer
    ],
)
def test_anything_else_stays_a_cloze(sentence: str, term: str) -> None:
    assert blank_question(sentence, term, "command", ABOUT) is None


def test_the_offline_generator_asks_subject_blanks_as_questions_and_keeps_other_clozes() -> None:
    # CLEAN_CLOZES: an instruction (d-0), a subject blank (d-1), two commands in one sentence (d-2), ...
    boxes = ("Boxes", "Use \\multicolsep to change the space above and below the environment.")
    items = _items_for([*CLEAN_CLOZES, boxes], "The multicol package", ["mcq"])
    by_section = {i.source.section_ids[0]: i for i in items}
    asked = by_section["d-1"]
    assert "____" not in asked.question and asked.question.endswith(
        "stops the last page's columns from being stretched?"
    )
    assert asked.question.startswith("In the multicol package") and "which command" in asked.question
    assert asked.answer == "\\raggedcolumns" and asked.options[asked.answer_index] == "\\raggedcolumns"
    used = by_section["d-0"]
    assert used.question.endswith("which command do I use inside the environment to end a column early?")
    # two commands in one sentence: a cloze as before, naming the document without the section heading in
    # brackets (round 17's readers: "the multicol package (Gaps)" is an echo no one would write)
    assert by_section["d-2"].question == (
        'In the multicol package, which command belongs in the gap: "The gap between columns is set with ____ '
        'and the \\columnsep length."?'
    )
