"""Documents that are translations of one another (qagen.language.translations), and what the
splits do with them: a question is not asked as unanswerable where a translation of its
document is loaded (the same facts, in another language)."""

from __future__ import annotations

from qagen.config import SplitsConfig
from qagen.language import translations
from qagen.records import FoldAssignment, Page, Section, Source, replace
from qagen.splits import build_splits
from tests.test_answerability import item, roles, rows

COMMANDS = [f"\\cmd{chr(97 + i)}{chr(97 + j)}" for i in range(6) for j in range(5)]  # 30 made-up commands


def _doc(doc: str, language_text: str, commands: list[str], n: int = 3) -> list[Section]:
    per = len(commands) // n
    return [
        Section(
            f"{doc}-s{k}",
            doc,
            f"{doc}.pdf",
            f"{k + 1} Part",
            f"{language_text} " + " ".join(commands[k * per : (k + 1) * per]) + " \\begin \\end http://www.ctan.org",
            k + 1,
            k + 1,
            k,
        )
        for k in range(n)
    ]


def _corpus():
    it = _doc("guida", "Il comando si usa così:", COMMANDS)
    es = _doc("guia", "El comando se usa así:", COMMANDS)
    other_it = _doc("altro", "Un altro pacchetto:", COMMANDS)  # same commands, same language: not a translation
    noise = [s for d in "abcdefg" for s in _doc(f"x{d}", "Other text", [f"\\other{d}{i}" for i in range(3)], 1)]
    languages = {"guida": "it", "guia": "es", "altro": "it", **{f"x{d}": "nl" for d in "abcdefg"}}
    return it + es + other_it + noise, languages


def test_translations_pair_documents_in_two_languages_with_the_same_rare_tokens():
    sections, languages = _corpus()
    found = translations(sections, languages)
    assert found == {"guia": ("altro", "guida"), "guida": ("guia",), "altro": ("guia",)}
    # tokens every document holds (\begin, the CTAN address) are not rare: they never pair documents
    common = [s for s in sections if s.doc_id.startswith("x")]
    assert translations(common, {f"x{d}": ("nl" if d < "d" else "en") for d in "abcdefg"}) == {}
    # too few shared tokens is no translation
    few = _doc("a", "testo", COMMANDS[:12], 1) + _doc("b", "texto", COMMANDS[:12], 1)
    assert translations(few, {"a": "it", "b": "es"}) == {}


def test_a_question_is_not_unanswerable_where_its_translation_is_loaded():
    sections, languages = _corpus()
    sections = [s for s in sections if s.doc_id in ("guida", "guia", "xa", "xb")]
    by_id = {s.id: s for s in sections}
    fold = {"guida": 2, "xa": 2, "guia": 1, "xb": 1}
    topic = {"guida": 0, "xa": 1, "guia": 2, "xb": 3}
    pages = [Page(f"{s.id}-p", s.doc_id, (s.id,), f"{s.heading}\n{s.text}", 20) for s in sections]
    assignments = [
        FoldAssignment(s.id, topic[s.doc_id], f"{s.id}-p", "kept", fold[s.doc_id], "validation") for s in sections
    ]
    # the Spanish pages share none of the question's words: only the translation rule finds it answerable there
    q = item("q", "Che cosa dice la guida del frontespizio?", "Va stampato per primo.", "guida-s0", 2, language="it")
    q = replace(q, source=Source("guida", ("guida-s0",), ("guida-s0-p",)))
    pairs = translations(sections, languages)
    res = build_splits([q], pages, assignments, SplitsConfig(), None, by_id, translations=pairs)
    verdict = rows(res)["q"]["answerability"]
    assert verdict["answerable"] and verdict["check"] == "translation" and verdict["page_id"].startswith("guia-")
    assert roles(res) == {} and res.leakage["translations"] == {"guia": ["guida"], "guida": ["guia"]}
    plain = build_splits([q], pages, assignments, SplitsConfig(), None, by_id)
    assert not rows(plain)["q"]["answerability"]["answerable"] and roles(plain) == {"q": "unanswerable"}
