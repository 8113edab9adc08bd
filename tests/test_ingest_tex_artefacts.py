"""Two artefacts of LaTeX output that both engines undo: symbol-font brackets read as letters,
and macro names set in the margin read into the body line beside them.

Both come from the shared corpora, where they reached questions: "The habbreviationi is the
rst argument" (lexref), "\\sbadjust{hindexi}{hcomma-spacei}" (tensind), and a cloze whose gap
was backnaur's margin label "\\bnftm", which is not in the sentence the page shows.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from qagen.config import ParseConfig
from qagen.ingest.pdf import parse_pdf
from tests.support.bad_files import raw_pdf

pytest.importorskip("reportlab")

from reportlab.pdfgen import canvas


@pytest.fixture(params=["pdfium", "pdfplumber"])
def engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def text_of(path: Path, engine: str) -> str:
    return "\n".join(str(s["text"]) for s in parse_pdf(path, ParseConfig(engine=engine)).sections)


def _show(font: int, text: bytes) -> bytes:
    return b"/F%d 11 Tf (%s) Tj " % (font, text)


def test_letters_of_a_tex_symbol_font_are_its_brackets(tmp_path: Path, engine: str) -> None:
    # /F2 is CMSY10 with no Unicode map, as LaTeX writes it without the cmap package: the
    # page shows \\foo{<argument>} and {1, 2}; the text layer holds "h", "i", "f" and "g"
    line = (
        _show(1, b"The command \\\\foo{")
        + _show(2, b"h")
        + _show(1, b"argument")
        + _show(2, b"i")
        + _show(1, b"} takes the set ")
        + _show(2, b"f")
        + _show(1, b"1, 2")
        + _show(2, b"g")
        + _show(1, b" as its first argument.")
    )
    plain = _show(1, b"Hence his friend in Haiti said hi to the big dog.")
    content = b"BT 72 700 Td " + line + b"ET BT 72 680 Td " + plain + b"ET"
    path = tmp_path / "symbols.pdf"
    path.write_bytes(raw_pdf([content], fonts=(b"Helvetica", b"CMSY10")))
    text = text_of(path, engine)
    assert "\\foo{\u27e8argument\u27e9}" in text
    assert "the set {1, 2} as" in text
    # the same letters in a text font are letters
    assert "Hence his friend in Haiti said hi to the big dog." in text


def _page(c: canvas.Canvas, lines: list[tuple[str, str]]) -> None:
    """Body lines at x=144 in 11 pt Times; a line may carry a margin label in 9 pt Courier at x=90."""
    y = 740.0
    c.setFont("Helvetica-Bold", 14)
    c.drawString(144, y, "3.4 Production definitions")
    y -= 24
    for label, body in lines:
        c.setFont("Times-Roman", 11)
        c.drawString(144, y, body)
        if label:
            c.setFont("Courier", 9)
            c.drawString(90, y, label)
        y -= 14
    c.showPage()


def margin_text(path: Path, engine: str, lines: list[tuple[str, str]]) -> str:
    """The parsed text, spaces collapsed, of one page of ``lines`` drawn by :func:`_page`."""
    c = canvas.Canvas(str(path))
    _page(c, lines)
    c.save()
    return " ".join(text_of(path, engine).split())


def test_a_macro_name_in_the_margin_stays_out_of_the_sentence_beside_it(tmp_path: Path, engine: str) -> None:
    text = margin_text(
        tmp_path / "margins.pdf",
        engine,
        [
            ("", "The following commands compose the right hand side of a production rule in"),
            ("", "a grammar. There are three types of terminal item: a literal string, a"),
            ("\\bnftd", "descriptive phrase and an empty string. A literal terminal string is given"),
            ("", "by the \\bnfts command, and a descriptive phrase by the \\bnftd command,"),
            ("", "which takes a single argument that is the description of the terminal."),
            ("\\nomencl", "Builds the nomenclature list when the document is compiled twice in a row."),
            ("", "It is loaded only when the option is given to the package at load time."),
        ],
    )
    # read into the line, the label split "a descriptive phrase"
    assert "a literal string, a descriptive phrase and an empty string." in text
    assert "\\bnftd descriptive" not in text
    # a label that opens its own description (the text does not name it) is kept
    assert "\\nomencl Builds the nomenclature list" in text


def test_text_in_the_margin_that_is_no_macro_name_stays(tmp_path: Path, engine: str) -> None:
    text = margin_text(
        tmp_path / "numbers.pdf",
        engine,
        [
            ("", "The following commands compose the right hand side of a production rule in"),
            ("12", "a grammar, and each of them takes a single argument that is the content."),
            ("", "There are three types of terminal item: a literal string, a descriptive"),
            ("note", "phrase and an empty string, each with a command of its own in the package."),
        ],
    )
    assert "12 a grammar" in text
    assert "note phrase and an empty string" in text
