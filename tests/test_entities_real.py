"""Entities on real documents: LaTeX package manuals and Italian and Dutch docs from the shared
corpus, parsed with the project's own parser. Skipped when the corpus is absent."""

from __future__ import annotations

import random
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from publicsuffixlist import PublicSuffixList

from qagen.config import ParseConfig
from qagen.entities import ENTITY_KINDS, entity_distractors, extract_entities, normalize_entity
from qagen.ingest import parse_documents
from qagen.ingest.kinds import is_code_line

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
DOCS = {
    "short-docs/everyshi__everyshi.pdf": "US",
    "short-docs/emp__empman.pdf": "US",
    "short-docs/fix2col__fix2col.pdf": "US",
    "multilingual/it__fancyhdr-it__itfancyhdr.pdf": "IT",
    "multilingual/it__layaureo__layaureo.pdf": "IT",
    "multilingual/nl__debian-faq__support.nl.html": "NL",
}
PSL = PublicSuffixList(accept_unknown=False)


@pytest.fixture(scope="module")
def found() -> dict[str, list[tuple[str, object]]]:
    """Per document: (section text, entity) for every entity found, every kind."""
    paths = [CORPORA / name for name in DOCS]
    if not all(p.is_file() for p in paths):
        pytest.skip(f"{CORPORA} is absent (real documents live beside the repo)")
    result = parse_documents(paths, CORPORA, ParseConfig(workers=1))
    by_doc: dict[str, list[tuple[str, object]]] = {name: [] for name in DOCS}
    for section in result.sections:
        name = next(n for n in DOCS if section.doc_path.endswith(Path(n).name))
        for entity in extract_entities(section.text, list(ENTITY_KINDS), DOCS[name]):
            by_doc[name].append((section.text, entity))
    return by_doc


def values(found, name: str, kind: str) -> set[str]:
    return {e.text for _, e in found[name] if e.kind == kind}


def test_every_url_parses_and_has_a_known_public_suffix(found) -> None:
    urls = [e for pairs in found.values() for _, e in pairs if e.kind == "url"]
    assert len(urls) >= 10
    for e in urls:
        assert not any(ch.isspace() for ch in e.text), e.text
        candidate = e.text if "://" in e.text else f"http://{e.text}"
        host = urlsplit(candidate).hostname
        assert host and PSL.privatesuffix(host) is not None, e.text
        assert normalize_entity("url", e.text, "US") == e.normalized


def test_no_entity_comes_from_a_code_line(found) -> None:
    for pairs in found.values():
        for text, e in pairs:
            line_start = text.rfind("\n", 0, e.start) + 1
            line_end = text.find("\n", e.start)
            line = text[line_start : line_end if line_end >= 0 else len(text)]
            # the line without the address itself is prose ("?pr=..." in a URL is not code)
            raw = text[e.start : min(e.end, len(line) + line_start)]
            assert not is_code_line(line.replace(raw, "address")), (e.text, line)


def test_urls_broken_across_lines_come_out_whole(found) -> None:
    urls = values(found, "short-docs/everyshi__everyshi.pdf", "url")
    assert "http://mirrors.ctan.org/macros/latex/base/lthooks-doc.pdf" in urls
    assert "http://mirrors.ctan.org/" not in urls  # never the fragment before the break
    fix2col = values(found, "short-docs/fix2col__fix2col.pdf", "url")
    assert "http://www.uni-mainz.de/cgi-bin/ltxbugs2html?pr=latex/2346" in fix2col


def test_hosts_emails_and_phones_on_real_contact_lines(found) -> None:
    assert {"ftp.dante.de", "ftp.tex.ac.uk"} <= values(found, "short-docs/emp__empman.pdf", "url")
    fancyhdr = found["multilingual/it__fancyhdr-it__itfancyhdr.pdf"]
    assert {"+31302531806", "+31302513791"} <= {e.normalized for _, e in fancyhdr if e.kind == "phone"}
    assert "piet@cs.ruu.nl" in values(found, "multilingual/it__fancyhdr-it__itfancyhdr.pdf", "email")
    all_emails = {e.text for pairs in found.values() for _, e in pairs if e.kind == "email"}
    assert "pallas@edu.stanford.neon" not in all_emails  # no known suffix
    assert not any(m.startswith("-") for m in all_emails)
    assert "listmaster@lists.debian.org" in values(found, "multilingual/nl__debian-faq__support.nl.html", "email")
    # "{0.38197 \paperwidth-0.38197\LA@LarghezzaTesto}" in a listing is code, not a phone number
    assert not any(e.kind == "phone" for _, e in found["multilingual/it__layaureo__layaureo.pdf"])
    assert "fabusdr@yahoo.it" in values(found, "multilingual/it__layaureo__layaureo.pdf", "email")


def test_distractors_from_the_corpus_are_whole_addresses(found) -> None:
    urls = sorted({e.text for pairs in found.values() for _, e in pairs if e.kind == "url"})
    for i, value in enumerate(urls):
        chosen = entity_distractors(value, "url", urls, random.Random(i), variants=False)
        assert len(chosen) == 3
        key = normalize_entity("url", value, "US")
        for option in chosen:
            assert option in urls and option != value
            other = normalize_entity("url", option, "US")
            assert other and not other.startswith(key) and not key.startswith(other), (value, option)
