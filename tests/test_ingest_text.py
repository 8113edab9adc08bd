"""Plain text, Markdown and HTML inputs; file type by content; discover() errors; clean-up."""

from __future__ import annotations

from pathlib import Path

import pytest

from qagen.config import ParseConfig
from qagen.ingest import IngestError, discover, parse_documents
from qagen.ingest.clean import join_lines, normalize_chars, resolve_hyphens
from qagen.ingest.detect import detect_format
from qagen.ingest.html import parse_html_file
from qagen.ingest.model import DocumentError
from qagen.ingest.text import parse_text_file

MARKDOWN = """---
title: Front matter is not a section
---
# Staff handbook

Welcome to the team.

## Leave

You get 25 days of paid leave.
Ask your manager in advance.

```
# not a heading: inside a code fence
```

Sick leave
----------

Call before 9:00.

| Day | Hours |
|-----|-------|
| Mon | 9-17  |
"""


def test_markdown_headings_are_sections_with_source_offsets(tmp_path: Path):
    path = tmp_path / "handbook.md"
    path.write_text(MARKDOWN, encoding="utf-8")
    doc = parse_text_file(path, "md", max_section_tokens=3000)
    assert [s["heading"] for s in doc.sections] == ["Staff handbook", "Leave", "Sick leave"]
    leave = doc.sections[1]
    assert "# not a heading: inside a code fence" in leave["text"]
    assert MARKDOWN[leave["char_start"] : leave["char_end"]].startswith("## Leave")
    assert "Ask your manager" in MARKDOWN[leave["char_start"] : leave["char_end"]]
    assert "| Mon | 9-17  |" in doc.sections[2]["text"]  # tables stay rows
    assert doc.title == "Staff handbook"
    assert "Front matter" not in " ".join(s["text"] for s in doc.sections)


def test_markdown_heading_on_the_first_line(tmp_path: Path):
    path = tmp_path / "a.md"
    path.write_text("# Intro\nFirst line.\n\n## Next\nMore.\n", encoding="utf-8")
    doc = parse_text_file(path, "md", max_section_tokens=3000)
    assert [(s["heading"], s["text"]) for s in doc.sections] == [("Intro", "First line."), ("Next", "More.")]
    assert [(s["char_start"], s["char_end"]) for s in doc.sections] == [(0, 19), (21, 34)]


def test_plain_text_headings_by_shape(tmp_path: Path):
    text = (
        "COMPANY POLICIES\n\nThese rules apply to everyone.\n\n"
        "1. Working hours\n\nThe office opens at eight.\nIt closes at six.\n\n"
        "Remote Work Guidelines\n\nYou may work from home two days a week.\n\f"
        "This line is on the second page.\n"
    )
    path = tmp_path / "policies.txt"
    path.write_text(text, encoding="utf-8")
    doc = parse_text_file(path, "txt", max_section_tokens=3000)
    assert [s["heading"] for s in doc.sections] == ["COMPANY POLICIES", "1. Working hours", "Remote Work Guidelines"]
    assert doc.sections[1]["text"] == "The office opens at eight. It closes at six."
    assert doc.sections[2]["page_end"] == 2 and doc.n_pages == 2
    for s in doc.sections:
        assert text[s["char_start"] : s["char_end"]].startswith(s["heading"])


def test_html_headings_tables_lists_and_chrome(tmp_path: Path):
    html = """<!doctype html><html><head><title>Clinic guide</title><style>p{}</style></head><body>
    <nav>Home | About</nav><h1>Clinic guide</h1><p>Read this first.</p>
    <h2>Opening hours</h2><table><tr><th>Day</th><th>Open</th></tr><tr><td>Mon</td><td>8-18</td></tr></table>
    <h2>Bring</h2><ul><li>Your card</li><li>Your list of medicines</li></ul><script>var x=1;</script>
    <article><header><h2>Parking</h2></header><p>Free for patients.</p></article>
    <footer>Copyright</footer></body></html>"""
    path = tmp_path / "guide.html"
    path.write_text(html, encoding="utf-8")
    doc = parse_html_file(path, max_section_tokens=3000)
    assert doc.title == "Clinic guide"
    assert [s["heading"] for s in doc.sections] == ["Clinic guide", "Opening hours", "Bring", "Parking"]
    assert doc.sections[1]["text"] == "Day | Open\nMon | 8-18"
    assert doc.sections[2]["text"] == "- Your card\n- Your list of medicines"
    every = " ".join(s["text"] for s in doc.sections)
    assert "Home | About" not in every and "var x" not in every and "Copyright" not in every


def test_type_is_read_from_content(tmp_path: Path):
    (tmp_path / "a.txt").write_bytes(b"%PDF-1.4\n...")  # a PDF with the wrong extension
    (tmp_path / "b.txt").write_text("<html><body><p>hi</p></body></html>")
    (tmp_path / "c.md").write_text("# Title\n\ntext")
    (tmp_path / "d.html").write_text("just text")
    (tmp_path / "e.txt").write_bytes(b"PK\x03\x04" + b"\x00" * 50)
    assert detect_format(tmp_path / "a.txt") == "pdf"
    assert detect_format(tmp_path / "b.txt") == "html"
    assert detect_format(tmp_path / "c.md") == "md"
    assert detect_format(tmp_path / "d.html") == "html"
    with pytest.raises(DocumentError, match="ZIP archive"):
        detect_format(tmp_path / "e.txt")


def test_legacy_encodings_are_decoded(tmp_path: Path):
    path = tmp_path / "latin.txt"
    path.write_bytes("Caf\u00e9 opening hours\n\nThe caf\u00e9 opens at nine, na\u00efve visitors.\n".encode("cp1252"))
    doc = parse_text_file(path, "txt", max_section_tokens=3000)
    assert "café opens" in doc.sections[-1]["text"]


def test_discover_sorted_recursive_hidden_skipped(tmp_path: Path):
    for name in ("b.pdf", "a/c.md", "a/.hidden.txt", ".git/x.txt", "d.docx", "e.HTML"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    found = discover(tmp_path, ["pdf", "txt", "md", "html"])
    assert [p.relative_to(tmp_path).as_posix() for p in found] == ["a/c.md", "b.pdf", "e.HTML"]
    assert [p.name for p in discover(tmp_path, ["md"])] == ["c.md"]


def test_discover_errors_name_problem_and_fix(tmp_path: Path):
    with pytest.raises(IngestError, match="not found"):
        discover(tmp_path / "missing", ["pdf"])
    with pytest.raises(IngestError, match="is empty"):
        discover(tmp_path, ["pdf"])
    (tmp_path / "report.docx").write_text("x")
    with pytest.raises(IngestError, match=r"\.docx ×1.*change parse.formats"):
        discover(tmp_path, ["pdf"])
    with pytest.raises(IngestError, match=r"parse\.formats"):
        discover(tmp_path, ["docx"])
    (tmp_path / "f.txt").write_text("x")
    with pytest.raises(IngestError, match="is a file"):
        discover(tmp_path / "f.txt", ["txt"])


def test_mixed_folder_through_parse_documents(tmp_path: Path):
    (tmp_path / "notes.md").write_text("# Notes\n\nBring a pen.\n")
    (tmp_path / "blank.txt").write_text("   \n\n")
    result = parse_documents(discover(tmp_path, ["txt", "md"]), tmp_path, ParseConfig(workers=1))
    assert [(d.path, d.status, d.format) for d in result.documents] == [
        ("blank.txt", "failed", "txt"),
        ("notes.md", "ok", "md"),
    ]
    assert result.problems[0].reason == "no-text"
    assert result.sections[0].id == f"{result.documents[1].id}-s0000"


def test_ligatures_spaces_and_accents_are_normalised():
    assert normalize_chars("ﬁle ﬂow oﬀer a\u00a0b\u200bc (cid:3)") == "file flow offer a bc "
    assert normalize_chars("Wirtschaftsuniversit¨at, Lu¨ck, caf´e") == "Wirtschaftsuniversität, Lück, café"


def test_tex_grave_accents_from_pdfs_are_composed_and_code_in_backticks_is_not():
    # as pdfplumber reads TeX-made Italian PDFs: the accent before or after its vowel
    tex = "Il comando pu`o essere usato su piu` righe; `e una novit`a, c’`e il pi`e di pagina."
    assert (
        normalize_chars(tex, grave=True)
        == "Il comando può essere usato su più righe; è una novità, c’è il piè di pagina."
    )
    assert normalize_chars(tex) == tex  # text, Markdown and HTML keep their backticks
    assert normalize_chars("cos`ı da dare; T´ıtulo", grave=True) == "così da dare; Título"  # TeX's dotless i
    for code in ("`echo $x`", "`uname -r`", "``quoted''", "Run `apt update` first"):
        assert normalize_chars(code, grave=True) == code


def test_line_end_hyphens_follow_the_documents_own_spelling():
    joined = join_lines(["The well-", "known exam-", "ple and a well-", "known fact."])
    other = "Everyone knows the well-known example."
    fixed = resolve_hyphens([joined, other])
    assert fixed[0] == "The well-known example and a well-known fact."
    assert resolve_hyphens([join_lines(["infor-", "mation"])]) == ["information"]
    assert join_lines(["Call 555-", "0100"]) == "Call 555- 0100"  # digits: not a hyphenated word
