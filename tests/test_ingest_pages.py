"""Emulated pages, offline token counts, oversized sections, determinism and the parse cache."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qagen.config import PagesConfig, ParseConfig
from qagen.ingest import build_pages, count_tokens, parse_documents
from qagen.ingest.model import Block, RawSection
from qagen.ingest.sections import finalize
from qagen.records import Section

WORDS = ["the", "clinic", "opens", "at", "eight", "and", "closes", "at", "six", "every", "weekday", "except"]
WORDS += ["public", "holidays"]


def section(doc: str, order: int, n_words: int, page: int = 1) -> Section:
    text = " ".join(WORDS[i % len(WORDS)] for i in range(n_words))
    return Section(f"{doc}-s{order:04d}", doc, f"{doc}.pdf", f"Heading {order}", text, page, page, order)


def test_pages_group_consecutive_sections_up_to_the_target():
    sections = [section("d1", i, 120, page=i + 1) for i in range(6)] + [section("d2", 0, 50)]
    pages = build_pages(sections, PagesConfig(target_tokens=300))
    d1 = [p for p in pages if p.doc_id == "d1"]
    assert [p.section_ids for p in d1] == [("d1-s0000", "d1-s0001"), ("d1-s0002", "d1-s0003"), ("d1-s0004", "d1-s0005")]
    assert [p.id for p in d1] == ["d1-p0000", "d1-p0001", "d1-p0002"]
    assert (d1[1].page_start, d1[1].page_end) == (3, 4)
    assert all(p.n_tokens == count_tokens(p.text) for p in pages)
    assert [p.doc_id for p in pages] == ["d1", "d1", "d1", "d2"]  # a page never mixes documents


def test_an_oversized_section_is_a_page_of_its_own():
    sections = [section("d", 0, 40), section("d", 1, 900), section("d", 2, 40)]
    pages = build_pages(sections, PagesConfig(target_tokens=200))
    assert [p.section_ids for p in pages] == [("d-s0000",), ("d-s0001",), ("d-s0002",)]


DUTCH = ["de", "polikliniek", "verpleegafdeling", "bereikbaar", "werkdagen", "huisarts", "klachten", "aanhouden"]


@settings(derandomize=True, max_examples=80)
@given(
    st.lists(st.tuples(st.integers(min_value=1, max_value=400), st.booleans()), min_size=1, max_size=30),
    st.integers(20, 1500),
)
def test_pages_cover_every_section_once_in_order(sizes: list[tuple[int, bool]], target: int):
    # Dutch sections (long words, counted as non-English) mixed with English ones: a page's
    # language is decided on its whole text, and its size counts the separators.
    sections = [section("d", i, n) for i, (n, _) in enumerate(sizes)]
    sections = [
        replace(s, text=" ".join(DUTCH[k % len(DUTCH)] for k in range(n))) if dutch else s
        for s, (n, dutch) in zip(sections, sizes, strict=True)
    ]
    pages = build_pages(sections, PagesConfig(target_tokens=target))
    assert [sid for p in pages for sid in p.section_ids] == [s.id for s in sections]
    for p in pages:  # a page is over the target only when it holds a single oversized section
        assert p.n_tokens <= target or len(p.section_ids) == 1
        assert p.n_tokens == count_tokens(p.text)


def test_page_size_counts_the_separators():
    # 11 sections of 90 tokens (990) fit 995 tokens only when the 10 separators between them are not counted.
    sections = [section("d", i, 87) for i in range(11)]
    assert {count_tokens(f"{s.heading}\n{s.text}") for s in sections} == {90}
    assert count_tokens("\n\n") == 1
    pages = build_pages(sections, PagesConfig(target_tokens=995))
    assert [len(p.section_ids) for p in pages] == [10, 1]
    assert pages[0].n_tokens == 10 * 90 + 9


def test_long_sections_are_split_at_paragraph_boundaries():
    paragraphs = [" ".join(WORDS) + f" paragraph {i}." for i in range(40)]
    raw = [RawSection("Policy", [Block(p, page=1 + i // 10) for i, p in enumerate(paragraphs)], 1, 4)]
    parts = finalize(raw, None, max_tokens=150)
    assert [p["heading"] for p in parts][:2] == [f"Policy (1/{len(parts)})", f"Policy (2/{len(parts)})"]
    assert all(count_tokens(str(p["text"])) <= 150 for p in parts)
    assert "\n".join(str(p["text"]) for p in parts) == "\n".join(paragraphs)  # nothing lost, nothing cut
    assert parts[-1]["page_end"] == 4


# Exact cl100k_base counts of these texts, measured once with the real tokenizer.
CALIBRATION = [
    (
        "The pharmacy is open on weekdays from eight in the morning until six in the evening. Patients who need a "
        "repeat prescription should ask at least three working days ahead. After the operation you must not lift "
        "heavy objects for six weeks.",
        45,
    ),
    (
        "Neem contact op met uw huisarts als de klachten langer dan drie dagen aanhouden. Gebruik dit geneesmiddel "
        "niet als u allergisch bent voor een van de stoffen in dit medicijn. Na de operatie mag u de eerste zes "
        "weken niet zwaar tillen en niet autorijden. Bel bij koorts boven de 38,5 graden direct naar de afdeling. "
        "De polikliniek is op werkdagen bereikbaar van 8.00 tot 17.00 uur.",
        117,
    ),
    (
        "Die Apotheke ist werktags von acht bis achtzehn Uhr geöffnet. Bitte bringen Sie Ihre Versichertenkarte und "
        "eine Liste Ihrer Medikamente mit. Nach der Operation dürfen Sie sechs Wochen lang nicht schwer heben.",
        56,
    ),
]


@pytest.mark.parametrize(("text", "exact"), CALIBRATION)
def test_token_counts_approximate_gpt_tokens_offline(text: str, exact: int):
    assert abs(count_tokens(text) - exact) <= 0.2 * exact


def test_token_count_edge_cases():
    assert count_tokens("") == 0
    assert count_tokens("Hello world") == 2
    assert count_tokens("a\n\n\nb") == 3


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    for i in range(5):
        body = "\n\n".join(f"## Part {k}\n\nRule {k} of document {i}: {' '.join(WORDS)}." for k in range(4))
        (tmp_path / f"doc{i}.md").write_text(f"# Document {i}\n\n{body}\n", encoding="utf-8")
    return tmp_path


def test_output_does_not_depend_on_the_number_of_workers(corpus: Path):
    paths = sorted(corpus.glob("*.md"))
    one = parse_documents(paths, corpus, ParseConfig(workers=1))
    two = parse_documents(list(paths), corpus, ParseConfig(workers=2))
    assert one == two
    assert [d.path for d in one.documents] == [p.name for p in paths]
    assert one.documents[0].id == one.documents[0].sha256[:16]
    assert [s.id for s in one.sections[:2]] == [f"{one.documents[0].id}-s0000", f"{one.documents[0].id}-s0001"]


def test_unchanged_documents_come_from_the_cache(corpus: Path, tmp_path_factory: pytest.TempPathFactory):
    cache = tmp_path_factory.mktemp("cache")
    paths = sorted(corpus.glob("*.md"))
    first = parse_documents(paths, corpus, ParseConfig(workers=1), cache_dir=cache)
    entries = sorted(cache.rglob("*.json"))
    assert len(entries) == 5
    # Mark one cached parse: if the next run re-parsed the file, the mark would be gone.
    entry = next(e for e in entries if e.name.startswith(first.documents[0].sha256))
    data = json.loads(entry.read_text())
    data["sections"][0]["heading"] = "FROM CACHE"
    entry.write_text(json.dumps(data))
    again = parse_documents(paths, corpus, ParseConfig(workers=1), cache_dir=cache)
    assert again.sections[0].heading == "FROM CACHE"
    # A parse setting that changes the output changes the key: the file is parsed again.
    other = parse_documents(paths, corpus, ParseConfig(workers=1, max_section_tokens=999), cache_dir=cache)
    assert other.sections[0].heading == first.sections[0].heading
    # Settings that do not change the output (workers, time limit) share the entry.
    same = parse_documents(paths, corpus, ParseConfig(workers=2, timeout_s=10), cache_dir=cache)
    assert same.sections[0].heading == "FROM CACHE"


def test_an_interrupted_parse_keeps_the_finished_documents(corpus: Path, tmp_path_factory: pytest.TempPathFactory):
    cache = tmp_path_factory.mktemp("cache")
    paths = sorted(corpus.glob("*.md"))
    done: list[str] = []

    def interrupt_after_two(rel: str) -> None:  # Ctrl-C while the other documents are parsed
        done.append(rel)
        if len(done) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        parse_documents(paths, corpus, ParseConfig(workers=1), cache_dir=cache, on_document=interrupt_after_two)
    assert len(list(cache.rglob("*.json"))) == 2
    parsed: list[str] = []
    again = parse_documents(paths, corpus, ParseConfig(workers=1), cache_dir=cache, on_document=parsed.append)
    assert sorted(parsed) == sorted({p.name for p in paths} - set(done))  # only the unfinished ones
    assert sorted(again.reused) == sorted(done)
    fresh = parse_documents(paths, corpus, ParseConfig(workers=1))
    assert (again.documents, again.sections) == (fresh.documents, fresh.sections)


@given(st.text(max_size=400))
@settings(max_examples=300, deadline=None)
def test_never_more_tokens_than_characters(text: str):
    # The section splitter skips counting a text no longer than the limit on this bound.
    assert count_tokens(text) <= len(text)
