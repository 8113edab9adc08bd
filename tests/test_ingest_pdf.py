"""PDF section extraction on small real PDFs written with reportlab, and on the shared corpus.

Every test runs on both parse engines (PDFium, the default, and pdfplumber): they share the
layout and headings logic and must give the same sections.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from qagen.config import ParseConfig
from qagen.ingest import parse_documents
from qagen.ingest.pdf import parse_pdf
from qagen.ingest.sections import SEPARATOR

pytest.importorskip("reportlab")

from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.lib.units import cm
from reportlab.platypus import (
    BaseDocTemplate,
    Frame,
    ListFlowable,
    ListItem,
    PageTemplate,
    Paragraph,
    Table,
)

STYLES = getSampleStyleSheet()
SENTENCES = [
    "The pharmacy is open on weekdays from eight in the morning until six in the evening.",
    "Patients who need a repeat prescription should ask at least three working days ahead.",
    "Bring the blue card and a list of the medicines you take when you visit the clinic.",
    "Children under twelve must be accompanied by a parent or a guardian at every visit.",
    "Call the front desk to change or cancel an appointment as early as you possibly can.",
]


def body(n: int, seed: int = 0) -> list[Paragraph]:
    """``n`` paragraphs of plain body text."""
    out = []
    for i in range(n):
        text = " ".join(SENTENCES[(seed + i + k) % len(SENTENCES)] for k in range(4))
        out.append(Paragraph(text, STYLES["BodyText"]))
    return out


def running_header(canvas, doc) -> None:
    canvas.saveState()
    canvas.setFont("Helvetica", 9)
    canvas.drawString(2 * cm, A4[1] - 1.2 * cm, "Riverside Clinic Handbook - Edition 2024")
    canvas.drawRightString(A4[0] - 2 * cm, 1.2 * cm, f"Page {doc.page}")
    canvas.restoreState()


def build(path: Path, story: list, columns: int = 1, header: bool = True) -> Path:
    """Write ``story`` to ``path`` with a running header/footer, in one or two columns."""
    doc = BaseDocTemplate(str(path), pagesize=A4, leftMargin=2 * cm, rightMargin=2 * cm, title="Riverside Clinic")
    width = (doc.width - (columns - 1) * cm) / columns
    frames = [
        Frame(doc.leftMargin + i * (width + cm), doc.bottomMargin, width, doc.height, id=f"col{i}")
        for i in range(columns)
    ]
    template = PageTemplate(id="main", frames=frames, onPage=running_header) if header else None
    doc.addPageTemplates([template or PageTemplate(id="main", frames=frames)])
    doc.build(story)
    return path


def handbook_story() -> list:
    h1, h2 = STYLES["Heading1"], STYLES["Heading2"]
    bullets = ListFlowable(
        [
            ListItem(Paragraph(t, STYLES["BodyText"]))
            for t in ("Photo identity card", "Insurance number", "Home address")
        ],
        bulletType="bullet",
    )
    table = Table([["Day", "Opens", "Closes"], ["Monday", "08:00", "18:00"], ["Saturday", "09:00", "12:00"]])
    return [
        Paragraph("Riverside Clinic Handbook", STYLES["Title"]),
        Paragraph("1 Opening hours", h1),
        *body(2),
        table,
        Paragraph("2 Registration", h1),
        Paragraph("What to bring when you register:", STYLES["BodyText"]),
        bullets,
        *body(1, seed=2),
        Paragraph("3 Long policies", h1),
        Paragraph("3.1 Prescriptions", h2),
        *body(16, seed=1),  # long enough to run over a page break
        Paragraph("3.2 Cancellations", h2),
        *body(12, seed=3),
    ]


@pytest.fixture(scope="module")
def handbook(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(tmp_path_factory.mktemp("pdf") / "handbook.pdf", handbook_story())


@pytest.fixture(scope="module", params=["pdfium", "pdfplumber"])
def engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def parsed(handbook: Path, engine: str):
    return parse_pdf(handbook, ParseConfig(engine=engine))


def by_heading(parsed, word: str) -> dict:
    return next(s for s in parsed.sections if word in s["heading"])


def test_headings_become_sections_in_order(parsed):
    headings = [s["heading"] for s in parsed.sections]
    assert headings == [
        f"Riverside Clinic Handbook{SEPARATOR}1 Opening hours",  # the title has no text of its own
        "2 Registration",
        f"3 Long policies{SEPARATOR}3.1 Prescriptions",  # a heading-only section joins the next
        "3.2 Cancellations",
    ]
    assert parsed.title == "Riverside Clinic"  # from the PDF metadata


def test_section_spans_pages(parsed):
    section = by_heading(parsed, "Prescriptions")
    assert section["page_end"] > section["page_start"]
    assert section["text"].count("repeat prescription") >= 8  # nothing lost at the page break


def test_running_header_and_footer_removed(parsed):
    text = "\n".join(s["heading"] + "\n" + s["text"] for s in parsed.sections)
    assert "Edition 2024" not in text
    assert "Page 2" not in text
    assert parsed.n_pages >= 2


def test_bullets_stay_in_their_section_one_per_line(parsed):
    lines = by_heading(parsed, "Registration")["text"].split("\n")
    items = [ln for ln in lines if ln.startswith("•")]
    assert [i.lstrip("• ") for i in items] == ["Photo identity card", "Insurance number", "Home address"]


def test_table_stays_in_its_section_as_rows(parsed):
    text = by_heading(parsed, "Opening hours")["text"]
    assert "Day | Opens | Closes" in text
    assert "Saturday | 09:00 | 12:00" in text


def test_offsets_index_the_extracted_text(parsed):
    full = "\n\n".join(f"{s['heading']}\n{s['text']}" for s in parsed.sections)
    for s in parsed.sections:
        assert full[s["char_start"] : s["char_end"]] == f"{s['heading']}\n{s['text']}"


def test_two_columns_are_read_column_by_column(tmp_path: Path, engine: str):
    left, right = body(6), body(6, seed=3)
    story = [
        Paragraph("1 Left column topic", STYLES["Heading1"]),
        *left,
        Paragraph("2 Right column topic", STYLES["Heading1"]),
        *right,
    ]
    parsed = parse_pdf(build(tmp_path / "two.pdf", story, columns=2, header=False), ParseConfig(engine=engine))
    assert parsed.n_pages == 1
    assert [s["heading"] for s in parsed.sections] == ["1 Left column topic", "2 Right column topic"]
    for section, paragraphs in zip(parsed.sections, (left, right), strict=True):
        flat = section["text"].replace("\n", " ")
        for p in paragraphs:  # whole paragraphs: lines of the two columns were not interleaved
            assert p.text in flat


def test_large_font_paragraph_is_not_a_run_of_headings(tmp_path: Path, engine: str):
    big = STYLES["Heading2"].clone("Lead", fontName="Helvetica", fontSize=15, leading=19)
    story = [
        Paragraph("1 Welcome", STYLES["Heading1"]),
        Paragraph(" ".join(SENTENCES), big),  # five lines set in a large font
        *body(2),
    ]
    parsed = parse_pdf(build(tmp_path / "lead.pdf", story, header=False), ParseConfig(engine=engine))
    assert [s["heading"] for s in parsed.sections] == ["1 Welcome"]
    assert SENTENCES[2] in parsed.sections[0]["text"]


def test_bold_body_size_heading_after_a_gap(tmp_path: Path, engine: str):
    bold = STYLES["BodyText"].clone("BoldHead", fontName="Helvetica-Bold", spaceBefore=12)
    story = [Paragraph("Parking", bold), *body(2), Paragraph("Visiting hours", bold), *body(2, seed=1)]
    parsed = parse_pdf(build(tmp_path / "bold.pdf", story, header=False), ParseConfig(engine=engine))
    assert [s["heading"] for s in parsed.sections] == ["Parking", "Visiting hours"]


def test_line_end_hyphenation_is_joined(tmp_path: Path, engine: str):
    narrow = STYLES["BodyText"].clone("Narrow", hyphenationLang=None)
    words = "Our pharmacists answer questions about interactions between prescription medications."
    # Force a break inside a word: reportlab does not hyphenate, so write the hyphen ourselves.
    story = [
        Paragraph("Advice", STYLES["Heading1"]),
        Paragraph(words.replace("medications", "medi-<br/>cations"), narrow),
    ]
    parsed = parse_pdf(build(tmp_path / "hyph.pdf", story, header=False), ParseConfig(engine=engine))
    assert "prescription medications." in parsed.sections[0]["text"]


def test_real_short_document_matches_its_outline(shared_dir: Path, engine: str):
    pdf = shared_dir / "corpora" / "short-docs" / "hyperref__hyperref-linktarget.pdf"
    result = parse_documents([pdf], pdf.parent, ParseConfig(workers=1, engine=engine))
    headings = [h for s in result.sections for h in s.heading.split(SEPARATOR)]
    for title in ("The main command", "Manipulate the next target name", "Changing all target names"):
        assert any(title in h for h in headings), (title, headings)
    assert result.documents[0].n_pages == 7
    assert all(s.page_start >= 1 and s.page_end <= 7 for s in result.sections)


def test_an_author_set_large_before_the_title_is_not_the_title(tmp_path: Path, engine: str) -> None:
    from reportlab.platypus import SimpleDocTemplate

    path = tmp_path / "euclid.pdf"
    story = [
        Paragraph("Claudio Beccari", STYLES["Title"]),
        Paragraph("claudio dot beccari at gmail dot com", STYLES["BodyText"]),
        Paragraph("The euclideangeometry package", STYLES["Heading1"]),
        *body(3),
        Paragraph("Installation", STYLES["Heading2"]),
        *body(2, seed=1),
    ]
    SimpleDocTemplate(str(path), pagesize=A4).build(story)  # no title in the metadata
    parsed = parse_pdf(path, ParseConfig(engine=engine))
    assert parsed.title == "The euclideangeometry package"
