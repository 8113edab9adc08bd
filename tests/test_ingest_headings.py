"""Headings on unseen documents: what is never a heading, what is one though set unusually.

Each case is a small real PDF drawn with reportlab and parsed by both engines. The cases come
from the shared manuals, where these lines were taken for headings (or missed) before.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from qagen.config import ParseConfig
from qagen.ingest.pdf import parse_pdf
from qagen.ingest.sections import SEPARATOR

pytest.importorskip("reportlab")

from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen import canvas

_SENTENCE = (
    "The pharmacy is open on weekdays from eight in the morning until six in the evening, and patients "
    "who need a repeat prescription should ask at least three working days ahead of time."
)
BODY = _SENTENCE.split(" ")

Spec = tuple[str, str, float]  # (text, font, size); "" text = a blank line


@pytest.fixture(params=["pdfium", "pdfplumber"])
def engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def paragraph(n: int = 3) -> list[Spec]:
    """``n`` lines of body text in 10 pt Times."""
    lines, words = [], BODY * 3
    for i in range(n):
        lines.append((" ".join(words[i * 12 : i * 12 + 12]), "Times-Roman", 10))
    return lines


def draw(path: Path, pages: list[list[Spec]], spaced: set[str] = frozenset()) -> Path:
    """Lines top-down, 14 pt apart (a blank spec adds a gap); texts in ``spaced`` are letter-spaced."""
    c = canvas.Canvas(str(path))
    for lines in pages:
        y = 760.0
        for text, font, size in lines:
            if not text:
                y -= 14
                continue
            if text in spaced:  # one glyph at a time, 4 pt apart, as some title pages set them
                x = 72.0
                c.setFont(font, size)
                for ch in text:
                    if ch != " ":
                        c.drawString(x, y, ch)
                    x += stringWidth(ch, font, size) + 4
            else:
                c.setFont(font, size)
                c.drawString(72, y, text)
            y -= max(14, size * 1.4)
        c.showPage()
    c.save()
    return path


def headings(path: Path, engine: str) -> list[str]:
    parsed = parse_pdf(path, ParseConfig(engine=engine))
    return [part for s in parsed.sections for part in str(s["heading"]).split(SEPARATOR)]


def doc(*blocks: list[Spec]) -> list[list[Spec]]:
    """One page: a title, then the blocks, each after a gap."""
    out: list[Spec] = [("Clinic Handbook", "Helvetica-Bold", 18), ("", "", 0), *paragraph()]
    for block in blocks:
        out += [("", "", 0), *block]
    return [out]


def test_letter_spaced_heading_is_joined(tmp_path: Path, engine: str):
    pages = doc([("About this guide", "Helvetica-Bold", 14), *paragraph()])
    found = headings(draw(tmp_path / "spaced.pdf", pages, spaced={"About this guide"}), engine)
    assert found == ["Clinic Handbook", "About this guide"]


@pytest.mark.parametrize(
    "line",
    [
        "\\newcommand{\\clinic}[1]{#1}",  # code set large
        "\\clinicsetup",  # a bare command name
        "https://clinic.example.org/handbook",  # an address on its own
        "desk@clinic.example.org",
        "January 21, 2007",  # a date on a title page
        "X = Y + Z",  # a displayed formula
        "gray := 0.3 red + 0.59 green",
        "Se",  # a label inside a figure
        "ONE",  # Sphinx's "CHAPTER ONE" label
    ],
)
def test_lines_no_heading_reads_like_stay_body_text(tmp_path: Path, engine: str, line: str):
    pages = doc([(line, "Helvetica-Bold", 14), *paragraph()], [("Opening hours", "Helvetica-Bold", 14), *paragraph()])
    assert headings(draw(tmp_path / "not.pdf", pages), engine) == ["Clinic Handbook", "Opening hours"]


def test_a_bold_label_ending_in_a_colon_is_no_heading(tmp_path: Path, engine: str):
    pages = doc(
        [("Opening hours", "Helvetica-Bold", 14), *paragraph()],
        [("Available options are:", "Times-Bold", 10), *paragraph()],
    )
    assert headings(draw(tmp_path / "label.pdf", pages), engine) == ["Clinic Handbook", "Opening hours"]


def test_a_large_run_stopping_on_a_function_word_is_a_paragraph(tmp_path: Path, engine: str):
    pages = doc(
        [("Opening hours", "Helvetica-Bold", 14), *paragraph()],
        [("A summary of the rules and the forms for", "Helvetica-Bold", 14), *paragraph()],
    )
    assert headings(draw(tmp_path / "run.pdf", pages), engine) == ["Clinic Handbook", "Opening hours"]


def test_a_subheading_right_under_a_heading_is_found(tmp_path: Path, engine: str):
    # LaTeX News: a 10 pt sans-oblique title one line under its 12 pt section title, no gap.
    pages = doc(
        [
            ("New services", "Helvetica-Oblique", 13),
            ("Repeat prescriptions online", "Helvetica-Oblique", 10),
            *paragraph(),
        ]
    )
    found = headings(draw(tmp_path / "sub.pdf", pages), engine)
    assert found == ["Clinic Handbook", "New services", "Repeat prescriptions online"]


def test_a_styled_title_may_open_with_a_lowercase_name(tmp_path: Path, engine: str):
    pages = doc(
        [("Opening hours", "Helvetica-Bold", 14), *paragraph()],
        [("doc upgraded to version 3", "Helvetica-Oblique", 10), *paragraph()],
    )
    found = headings(draw(tmp_path / "lower.pdf", pages), engine)
    assert found == ["Clinic Handbook", "Opening hours", "doc upgraded to version 3"]


def test_a_footer_on_a_page_with_nothing_else_is_still_a_footer(tmp_path: Path, engine: str):
    # Sphinx manuals: "12 Chapter 2. Getting Started" at the foot of every page, the chapter
    # changing every few pages; a page holding a picture has only its header and footer.
    chapters = ["2. Getting started", "3. Examples", "4. The API", "5. Tools"]

    def page(number: int, body: bool) -> list[Spec]:
        content = [*paragraph(), *[("", "", 0)] * 43] if body else [("", "", 0)] * 46  # footers level
        chapter = chapters[(number - 1) // 2]
        return [
            ("Clinic Handbook, Release 2", "Helvetica-Bold", 9),
            ("", "", 0),
            *content,
            (f"{number} Chapter {chapter}", "Helvetica-Bold", 9),
        ]

    pages = [page(n, body=n != 4) for n in range(1, 9)]
    parsed = parse_pdf(draw(tmp_path / "f.pdf", pages), ParseConfig(engine=engine))
    assert "Chapter" not in " ".join(f"{s['heading']} {s['text']}" for s in parsed.sections)


def _index_block(groups: list[str]) -> list[Spec]:
    """An index as doc-package manuals set it: a preamble, then bold letters over 9 pt entries."""
    out: list[Spec] = [
        ("Index", "Helvetica-Bold", 14),
        ("Numbers in italic refer to the page where the entry is described.", "Times-Roman", 10),
    ]
    for letter in groups:
        out += [("", "", 0), (letter, "Times-Bold", 9)]
        out += [(f"{letter.lower()}clinic . . . . . . . . {n}, {n + 3}", "Times-Roman", 9) for n in (2, 5)]
    return out


def test_an_index_keeps_its_letter_groups_as_headings_of_kind_index(tmp_path: Path, engine: str):
    # PDF outlines list an index's letter groups; qagen finds them, and every part of the index,
    # its preamble included, is of kind index (no questions are asked from it).
    from qagen.ingest.run import _section

    pages = doc([("Opening hours", "Helvetica-Bold", 14), *paragraph()], _index_block(["Symbols", "A", "B", "D"]))
    parsed = parse_pdf(draw(tmp_path / "index.pdf", pages), ParseConfig(engine=engine))
    found = [str(s["heading"]) for s in parsed.sections]
    assert found == ["Clinic Handbook", "Opening hours", "Index", "Symbols", "A", "B", "D"]
    kinds = [_section("d", "d.pdf", k, s).kind for k, s in enumerate(parsed.sections)]
    assert kinds == ["prose", "prose", "index", "index", "index", "index", "index"]


def test_a_letter_alone_outside_an_index_is_no_heading(tmp_path: Path, engine: str):
    # Under an option called "index" (hyperref's manual), and under any other heading, a bold
    # letter is a label, and the section keeps the kind its text gives it.
    pages = doc(
        [("index", "Helvetica-Bold", 14), *paragraph()], [("Opening hours", "Helvetica-Bold", 14), *paragraph()]
    )
    pages[0] += [("", "", 0), ("A", "Times-Bold", 9), *paragraph()]
    parsed = parse_pdf(draw(tmp_path / "option.pdf", pages), ParseConfig(engine=engine))
    assert [str(s["heading"]) for s in parsed.sections] == ["Clinic Handbook", "index", "Opening hours"]
    assert not any("kind" in s for s in parsed.sections)
