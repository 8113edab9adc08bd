"""The question-side check of the splits: does the loaded corpus answer an unanswerable question?

Small corpora of package-manual sections in two folds, each with an options section: a
generic question of one fold ("What are the options?") is answered by the other fold's
options section and leaves the unanswerable role; a question that names its package does
not. The same in Italian; the answer-side rule; the mirror check of the answerable role;
the LLM judge against the local OpenAI-compatible server (a quote found in the pages moves
an item, a quote that is not there does not); small-cell warnings.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from qagen.answerability import (
    AnswerabilityReply,
    JudgeCase,
    LLMAnswerabilityJudge,
    check,
    content_terms,
    make_judge,
    verify_quote,
)
from qagen.config import Config, SplitsConfig
from qagen.embed.tfidf import TfidfEmbedder
from qagen.llm import LLMEngine
from qagen.records import FoldAssignment, GeneratorInfo, Item, Page, Section, Source, replace
from qagen.runner import BuildError
from qagen.splits import build_splits, write_splits
from tests.support.llm_server import FakeOpenAIServer, fast_config

ROOT = Path(__file__).resolve().parents[1]

# Two folds of the validation set; each document is one page. Fold 1: geometry and fancyhdr;
# fold 2: multicol and enumitem. Every manual has an options section (as LaTeX manuals do).
MANUALS: dict[str, tuple[int, list[tuple[str, str]]]] = {
    "geometry": (
        1,
        [
            (
                "1 Introduction",
                "The geometry package provides an easy and flexible user interface to customize page layout. "
                "It implements auto-centering and auto-balancing mechanisms, so that users have only to give "
                "the least description for the page layout.",
            ),
            (
                "2 Options",
                "The options of geometry are given as key=value pairs to \\usepackage or \\geometry. The paper "
                "option sets the paper size, for example a4paper or letterpaper. The margin option sets all four "
                "margins at once. The includehead option includes the header in the body.",
            ),
            (
                "3 Examples",
                "A layout with one-inch margins on letter paper is set with \\usepackage[letterpaper, "
                "margin=1in]{geometry}. A landscape layout is set with the landscape option.",
            ),
        ],
    ),
    "fancyhdr": (
        1,
        [
            (
                "1 Introduction",
                "The fancyhdr package lets you customize the headers and footers of your document pages. "
                "Use \\pagestyle{fancy} to switch it on.",
            ),
            (
                "2 Headers and footers",
                "The commands \\fancyhead and \\fancyfoot set the fields of the header and the footer. The "
                "thickness of the rule under the header is set with \\headrulewidth.",
            ),
        ],
    ),
    "multicol": (
        2,
        [
            (
                "1 Introduction",
                "The multicol package defines a multicols environment for typesetting text in several columns. "
                "Unlike the twocolumn option, columns can change within a page. Whether the paper is in "
                "portrait or landscape is up to the document class.",
            ),
            (
                "2 Options",
                "The options of multicol are balancingshow, errorshow, infoshow and debugshow. "
                "The columns of the last page are balanced unless you use the multicols* environment. "
                "With balancingshow the package reports every balancing attempt in the log file.",
            ),
            (
                "3 The columnbreak command",
                "The \\columnbreak command forces a break to the next column at this point, while the "
                "current column is filled with white space at its bottom.",
            ),
        ],
    ),
    "enumitem": (
        2,
        [
            (
                "1 Introduction",
                "The enumitem package gives control over the layout of the list environments itemize, "
                "enumerate and description.",
            ),
            (
                "2 Keys",
                "Keys such as label, leftmargin and itemsep are given in the optional argument of a list. "
                "The key nosep removes all vertical spacing of the list.",
            ),
        ],
    ),
}


def corpus(manuals: dict[str, tuple[int, list[tuple[str, str]]]] = MANUALS, split: str = "validation"):
    """Sections, one page per manual, and their fold assignments (topic = manual index)."""
    sections: dict[str, Section] = {}
    pages: list[Page] = []
    assignments: list[FoldAssignment] = []
    for topic, (doc, (fold, parts)) in enumerate(manuals.items()):
        sids = []
        for order, (heading, text) in enumerate(parts):
            sid = f"{doc}-s{order}"
            sections[sid] = Section(sid, doc, f"{doc}.pdf", heading, text, 1, 1, order)
            assignments.append(FoldAssignment(sid, topic, doc, "kept", fold, split))  # type: ignore[arg-type]
            sids.append(sid)
        text = "\n\n".join(f"{sections[s].heading}\n{sections[s].text}" for s in sids)
        pages.append(Page(f"{doc}-p0", doc, tuple(sids), text, len(text.split())))
    return sections, pages, assignments


def item(
    iid: str,
    question: str,
    answer: str,
    sid: str,
    fold: int,
    *,
    split: str = "validation",
    kind: str = "long_form",
    language: str = "en",
    options: tuple[str, ...] | None = None,
    answer_index: int | None = None,
) -> Item:
    return Item(
        id=iid,
        type=kind,  # type: ignore[arg-type]
        question=question,
        answer=answer,
        source=Source(sid.split("-")[0], (sid,), (f"{sid.split('-')[0]}-p0",)),
        fold=fold,
        split=split,  # type: ignore[arg-type]
        generator=GeneratorInfo("test"),
        options=options,
        answer_index=answer_index,
        language=language,
    )


GENERIC = item(
    "generic",
    "What are the options?",
    "The options of multicol are balancingshow, errorshow, infoshow and debugshow.",
    "multicol-s1",
    2,
)
SPECIFIC = item(
    "specific",
    "Which option of the multicol package balances the last page's columns?",
    "The columns of the last page are balanced unless you use the multicols* environment.",
    "multicol-s1",
    2,
)
ANSWERABLE_1 = item(
    "margin",
    "Which geometry option sets all four margins at once?",
    "The margin option sets all four margins at once.",
    "geometry-s1",
    1,
)


def tfidf(pages: list[Page]):
    """The project's TF-IDF embedder fitted on the pages (its ``embed``: texts -> unit vectors)."""
    return TfidfEmbedder(dims=32).fit([p.text for p in pages]).embed


def rows(result) -> dict[str, dict]:
    return {r["id"]: r for r in result.leakage["items"]}


def roles(result, cell=("validation", 1)) -> dict[str, str]:
    return {r["id"]: r["role"] for r in result.questions[cell]}


@pytest.mark.parametrize("embedded", [False, True], ids=["bm25-only", "bm25+tfidf"])
def test_generic_question_is_answered_by_the_other_folds_options_section(embedded):
    sections, pages, assignments = corpus()
    embed = tfidf(pages) if embedded else None
    res = build_splits([GENERIC, SPECIFIC, ANSWERABLE_1], pages, assignments, SplitsConfig(), embed, sections)
    generic, specific = rows(res)["generic"]["answerability"], rows(res)["specific"]["answerability"]
    # "What are the options?" against geometry + fancyhdr: geometry's "2 Options" section answers it
    assert generic["answerable"] and generic["check"] == "heading" and generic["decided_by"] == "offline"
    assert generic["page_id"] == "geometry-p0" and generic["heading"] == "2 Options"
    assert generic["terms"] == ["options"] and generic["specific_terms"] == []
    # the question naming multicol is not: no page of fold 1 mentions multicol
    assert not specific["answerable"] and specific["verdict"] == "unanswerable"
    assert "multicol" in specific["specific_terms"] and "multicol" in specific["missing_terms"]
    assert "multicol" in specific["reason"]
    # so iteration 1 asks the specific one as unanswerable, not the generic one
    assert roles(res) == {"margin": "answerable", "specific": "unanswerable"}
    # the generic item stays answerable in its own iteration (2)
    assert roles(res, ("validation", 2))["generic"] == "answerable"
    it1 = next(i for i in res.crosseval["iterations"] if i["name"] == "validation_iteration_1")
    assert it1["counts"]["unanswerable_excluded_answerable"] == 1 and it1["unanswerable_excluded"] == ["generic"]
    assert res.leakage["answerability"]["answerable_from_corpus"] == 1
    assert res.leakage["answerability"]["by_check"] == {"heading": 1}
    assert res.crosseval["leakage"]["answerable_from_corpus"] == 1


def test_check_off_keeps_the_old_behaviour():
    sections, pages, assignments = corpus()
    res = build_splits([GENERIC, SPECIFIC], pages, assignments, SplitsConfig(answerability=False), None, sections)
    assert roles(res) == {"generic": "unanswerable", "specific": "unanswerable"}
    assert "answerability" not in res.leakage and "answerability" not in rows(res)["generic"]
    it1 = res.crosseval["iterations"][0]
    assert "unanswerable_excluded_answerable" not in it1["counts"]


def test_a_generic_question_is_kept_when_the_corpus_has_nothing_on_it():
    # "What are the keys?" (enumitem, fold 2) finds no page of fold 1 holding "keys"
    sections, pages, assignments = corpus()
    keys = item("keys", "What are the keys?", "Keys such as label, leftmargin and itemsep.", "enumitem-s1", 2)
    res = build_splits([keys], pages, assignments, SplitsConfig(), tfidf(pages), sections)
    verdict = rows(res)["keys"]["answerability"]
    assert not verdict["answerable"] and verdict["verdict"] == "unanswerable"
    assert roles(res) == {"keys": "unanswerable"}


def test_generic_question_with_a_heading_holding_some_of_its_terms():
    # "package" is on geometry's page but not in its "2 Options" heading: still generic, answered there
    sections, pages, assignments = corpus()
    q = item("pkgopts", "What are the package options?", GENERIC.answer, "multicol-s1", 2)
    res = build_splits([q], pages, assignments, SplitsConfig(), None, sections)
    verdict = rows(res)["pkgopts"]["answerability"]
    assert verdict["answerable"] and verdict["check"] == "generic" and verdict["heading"] == "2 Options"


ITALIAN = {
    "babel-italian": (
        1,
        [
            (
                "1 Introduzione",
                "Il modulo italian di babel adatta LaTeX alle convenzioni tipografiche della lingua italiana.",
            ),
            (
                "2 Opzioni",
                "Le opzioni si passano a babel: l'opzione italian attiva la lingua e la sillabazione italiana, "
                "l'opzione strictitaliancoding controlla la codifica dei caratteri accentati.",
            ),
        ],
    ),
    "frontespizio": (
        2,
        [
            (
                "1 Introduzione",
                "Il pacchetto frontespizio compone il frontespizio di una tesi di laurea secondo l'uso italiano.",
            ),
            (
                "2 Opzioni del pacchetto",
                "Le opzioni del pacchetto frontespizio sono norules, nowrite e suffix. Con l'opzione nowrite "
                "il frontespizio viene stampato su una pagina separata senza scrivere file ausiliari.",
            ),
        ],
    ),
}


def test_italian_generic_and_specific_pair():
    sections, pages, assignments = corpus(ITALIAN)
    generic = item(
        "it-generic",
        "Quali sono le opzioni?",
        "Le opzioni del pacchetto frontespizio sono norules, nowrite e suffix.",
        "frontespizio-s1",
        2,
        language="it",
    )
    specific = item(
        "it-specific",
        "Quale opzione del pacchetto frontespizio stampa il frontespizio su una pagina separata?",
        "Con l'opzione nowrite il frontespizio viene stampato su una pagina separata.",
        "frontespizio-s1",
        2,
        language="it",
    )
    assert content_terms(generic.question, "it") == ["opzioni"]
    res = build_splits([generic, specific], pages, assignments, SplitsConfig(), tfidf(pages), sections)
    g, s = rows(res)["it-generic"]["answerability"], rows(res)["it-specific"]["answerability"]
    assert g["answerable"] and g["check"] == "heading" and g["heading"] == "2 Opzioni"
    assert not s["answerable"] and "frontespizio" in s["missing_terms"]
    assert roles(res) == {"it-specific": "unanswerable"}


# A boilerplate section two manuals share, one in each fold (the Oberdiek packages do this).
SHARED = {
    "kvoptions": (
        1,
        [
            (
                "1 Usage",
                "The kvoptions package helps package authors to set up key value options for their packages.",
            ),
            (
                "4 Refresh file name databases",
                "If your TeX distribution relies on file name databases, you must refresh these. TeX Live users "
                "run texhash; MiKTeX users open the MiKTeX Console and choose Refresh FNDB from the Tasks menu.",
            ),
        ],
    ),
    "auxhook": (
        2,
        [
            ("1 User interface", "The auxhook package provides hooks for the auxiliary files."),
            (
                "3 Installation",
                "Unpack the archive in the TDS tree. Then refresh the file name databases: MiKTeX users open "
                "the MiKTeX Console and choose Refresh FNDB from the Tasks menu.",
            ),
        ],
    ),
    "multicol": MANUALS["multicol"],
    "geometry": MANUALS["geometry"],
}


def test_specific_terms_and_answer_found_move_an_item():
    sections, pages, assignments = corpus(SHARED)
    q = item(
        "fndb",
        "How do MiKTeX users refresh the FNDB?",
        "They open the MiKTeX Console and choose Refresh FNDB, found among the tasks of its menu.",
        "auxhook-s1",
        2,
    )
    # 4 documents: "miktex" (2 of them) is specific; unsupported answerables dropped (off by default)
    cfg = SplitsConfig(answerability_specific_share=0.5, drop_unsupported_answerable=True)
    res = build_splits([q], pages, assignments, cfg, None, sections)
    row = rows(res)["fndb"]
    verdict = row["answerability"]
    assert set(verdict["specific_terms"]) >= {"miktex", "fndb"}
    assert verdict["answerable"] and verdict["check"] == "terms+answer" and verdict["page_id"] == "kvoptions-p0"
    assert verdict["answer_rouge"] >= cfg.answerability_answer_rouge  # content words, in order, in a passage
    assert row["rouge"] < cfg.leakage_rouge and not row["flagged"]  # the answer-side check alone misses it
    # with a wrong answer the page still holds the terms: uncertain, kept offline
    wrong = item("fndb", q.question, "Run the texhash program after every installation of a package.", "auxhook-s1", 2)
    res = build_splits([wrong], pages, assignments, cfg, None, sections)
    verdict = rows(res)["fndb"]["answerability"]
    assert verdict["verdict"] == "uncertain" and not verdict["answerable"]
    # the mirror check: this answer is not on its own source page, so it is not a valid answerable item
    assert not rows(res)["fndb"]["answer_check"]["supported"]
    assert roles(res, ("validation", 2)) == roles(res) == {}  # dropped from both roles
    it1, it2 = res.crosseval["iterations"][:2]
    assert it2["answerable_excluded"] == ["fndb"] and it2["counts"]["answerable_excluded_unsupported"] == 1
    assert it1["unanswerable_excluded"] == ["fndb"] and it1["counts"]["unanswerable_excluded_unsupported"] == 1
    assert it1["counts"]["unanswerable_excluded_answerable"] == 0
    assert res.leakage["answerability"]["answer_check"]["unsupported_ids"] == ["fndb"]
    kept = build_splits([wrong], pages, assignments, cfg.model_copy(update={"drop_unsupported_answerable": False}))
    assert roles(kept, ("validation", 2)) == {"fndb": "answerable"} and roles(kept) == {"fndb": "unanswerable"}


def _split_manual(implementation: str):
    """The corpus with multicol cut in two pages in different folds (folds.unit = page): its user
    guide in fold 2, its documented code (``implementation``) on a page of fold 1."""
    sections, pages, assignments = corpus()
    code = Section("multicol-s9", "multicol", "multicol.pdf", "9 Implementation", implementation, 9, 9, 9)
    sections[code.id] = code
    assignments.append(FoldAssignment(code.id, 4, "multicol-p9", "kept", 1, "validation"))
    text = f"{code.heading}\n{code.text}"
    pages.append(Page("multicol-p9", "multicol", (code.id,), text, len(text.split())))
    return sections, pages, assignments


def test_an_answer_on_a_page_of_the_same_document_in_the_other_fold_moves_the_item():
    options = ("\\columnbreak", "\\newpage", "\\linebreak")
    cloze = item(
        "cloze",
        'What command is missing from this sentence about the multicol package: "The ____ command forces a break '
        'to the next column at this point"?',
        options[0],
        "multicol-s2",
        2,
        kind="mcq",
        options=options,
        answer_index=0,
    )
    code = "\\def\\columnbreak{\\penalty-\\@M} ends the current column: the macro puts a penalty in the list."
    sections, pages, assignments = _split_manual(code)
    res = build_splits([cloze], pages, assignments, SplitsConfig(), None, sections)
    verdict = rows(res)["cloze"]["answerability"]
    assert verdict["answerable"] and verdict["check"] == "same-document" and verdict["page_id"] == "multicol-p9"
    assert roles(res) == {}  # never asked as unanswerable against fold 1
    # without multicol's code in fold 1 the same question is a true unanswerable there
    sections, pages, assignments = corpus()
    res = build_splits([cloze], pages, assignments, SplitsConfig(), None, sections)
    assert not rows(res)["cloze"]["answerability"]["answerable"] and roles(res) == {"cloze": "unanswerable"}
    # the same document in fold 1 without the answer's words: still unanswerable
    sections, pages, assignments = _split_manual("The package ends with the code for the balancing of columns.")
    res = build_splits([cloze], pages, assignments, SplitsConfig(), None, sections)
    assert not rows(res)["cloze"]["answerability"]["answerable"] and roles(res) == {"cloze": "unanswerable"}


def test_mcq_answer_check_uses_the_correct_option():
    _sections, pages, assignments = corpus()
    options = ("The margin option.", "The balancingshow option.", "The nosep key.")
    mcq = item(
        "mcq", "Which geometry option sets all four margins?", options[0], "geometry-s1", 1, kind="mcq", options=options
    )
    good = build_splits([replace(mcq, answer_index=0)], pages, assignments, SplitsConfig())
    bad = build_splits([replace(mcq, answer_index=1)], pages, assignments, SplitsConfig())
    assert rows(good)["mcq"]["answer_check"]["supported"]
    assert not rows(bad)["mcq"]["answer_check"]["supported"]  # "balancingshow" is multicol's, not on geometry's page


def test_leakage_json_and_crosseval_written(tmp_path):
    sections, pages, assignments = corpus()
    res = build_splits([GENERIC, SPECIFIC, ANSWERABLE_1], pages, assignments, SplitsConfig(), tfidf(pages), sections)
    write_splits(res, tmp_path)
    leak = json.loads((tmp_path / "splits" / "leakage.json").read_text())
    row = next(r for r in leak["items"] if r["id"] == "generic")
    assert row["unanswerable_role"] is False and row["answerable_role"] is True
    assert row["answerability"]["pages"][0]["page_id"] == "geometry-p0"
    assert {"rrf", "bm25", "similarity"} <= set(row["answerability"]["pages"][0])
    assert leak["by_cell"]["validation/fold_2"]["answerable_from_corpus_ids"] == ["generic"]
    unanswerable = [json.loads(x) for x in (tmp_path / "splits/validation/fold_1/unanswerable.jsonl").open()]
    assert [r["id"] for r in unanswerable] == ["specific"]


# --- small cells ------------------------------------------------------------------------


def test_small_cell_one_topic_and_missing_type_warnings():
    sections, pages, assignments = corpus()
    mcq = item(
        "mcq",
        "Which environment of multicol balances columns?",
        "multicols",
        "multicol-s0",
        2,
        kind="mcq",
        options=("multicols", "itemize"),
        answer_index=0,
    )
    res = build_splits([GENERIC, SPECIFIC, ANSWERABLE_1, mcq], pages, assignments, SplitsConfig(), None, sections)
    warnings = res.crosseval["warnings"]
    codes = {(w["code"], w.get("iteration"), w.get("role")) for w in warnings}
    # 1-2 questions per role everywhere, far below min_cell_items=20
    assert ("small_cell", "validation_iteration_1", "answerable") in codes
    assert ("small_cell", "validation_iteration_2", "unanswerable") in codes
    small = next(w for w in warnings if w["code"] == "small_cell" and w["iteration"] == "validation_iteration_1")
    assert small["count"] == 1 and "min_cell_items=20" in small["message"]
    # the set has an MCQ (fold 2), iteration 1 has none in its answerable role
    missing = [w for w in warnings if w["code"] == "missing_type" and w["iteration"] == "validation_iteration_1"]
    assert any(w["role"] == "answerable" and w["types"] == ["mcq"] for w in missing)
    assert not any(w["code"] == "one_topic_fold" for w in warnings)  # two manuals (topics) per fold
    # make every fold-1 section one topic: that fold is flagged
    one_topic = [replace(a, topic_id=7) if a.fold == 1 else a for a in assignments]
    res = build_splits([GENERIC, ANSWERABLE_1], pages, one_topic, SplitsConfig(min_cell_items=1), None, sections)
    topical = [w for w in res.crosseval["warnings"] if w["code"] == "one_topic_fold"]
    assert [(w["set"], w["fold"], w["topic_id"]) for w in topical] == [("validation", 1, 7)]
    assert not any(w["code"] == "small_cell" and w["count"] >= 1 for w in res.crosseval["warnings"])


# --- the LLM judge ------------------------------------------------------------------------

UNCERTAIN = item(  # fold 2; fold 1's geometry page holds its terms but not its answer, and no heading has them
    "landscape",
    "How is a landscape layout set on letter paper?",
    "Whether the paper is in portrait or landscape is up to the document class.",
    "multicol-s0",
    2,
)
QUOTE_IN_PAGES = "A landscape layout is set with the landscape option."


def _question_of(body: dict) -> str:
    prompt = next(m["content"] for m in body["messages"] if m["role"] == "user")
    return re.search(r"^Question \([^)]*\): (.*)$", prompt, re.M).group(1)


def responder(replies: dict[str, dict]):
    def reply(body: dict) -> dict:
        return replies[_question_of(body)]

    return reply


def judge_for(server, tmp_path: Path) -> LLMAnswerabilityJudge:
    engine = LLMEngine(f"openai:fake-model@{server.url}", fast_config(), cache_path=tmp_path / "llm.sqlite")
    return LLMAnswerabilityJudge(engine)


def test_offline_verdicts_of_the_judge_fixtures():
    sections, pages, assignments = corpus()
    res = build_splits([UNCERTAIN, GENERIC, SPECIFIC], pages, assignments, SplitsConfig(), None, sections)
    verdicts = {k: v["answerability"]["verdict"] for k, v in rows(res).items()}
    assert verdicts == {"landscape": "uncertain", "generic": "answerable", "specific": "unanswerable"}


@pytest.mark.parametrize(
    ("evidence", "moved", "status"),
    [
        (QUOTE_IN_PAGES, True, "yes"),
        ("  a LANDSCAPE layout is set\nwith the landscape option ", True, "yes"),  # case and whitespace aside
        ("A landscape layout is set with the landscape option ... letterpaper, margin=1in", True, "yes"),
        ("The landscape option rotates the page by 90 degrees.", False, "no evidence"),  # not in the pages
        ("landscape", False, "no evidence"),  # too short to be evidence
    ],
)
def test_judge_quote_must_be_in_the_pages(tmp_path, evidence, moved, status):
    sections, pages, assignments = corpus()
    replies = {
        UNCERTAIN.question: {"answerable": "yes", "evidence": evidence},
        GENERIC.question: {"answerable": "yes", "evidence": "The margin option sets all four margins at once."},
    }
    with FakeOpenAIServer(responder(replies)) as server:
        judge = judge_for(server, tmp_path)
        res = build_splits([UNCERTAIN, GENERIC, SPECIFIC], pages, assignments, SplitsConfig(), None, sections, judge)
        sent = server.count()
        asked = [_question_of(r.body) for r in server.chat_requests]
    verdict = rows(res)["landscape"]["answerability"]
    assert verdict["judge"]["status"] == status and verdict["answerable"] is moved
    assert verdict["decided_by"] == ("judge" if moved else "offline")
    assert verdict["judge"]["evidence_page_id"] == ("geometry-p0" if moved else None)
    assert roles(res).get("landscape") == (None if moved else "unanswerable")
    # the clear "unanswerable" is never sent; the offline "answerable" and "uncertain" ones are
    assert sorted(asked) == sorted([UNCERTAIN.question, GENERIC.question]) and sent == 2
    assert res.leakage["answerability"]["judged"] == 2
    assert res.leakage["answerability"]["judge_llm"]["requests"] == 2


def test_judge_no_overrules_the_offline_heading_rule_and_replies_are_cached(tmp_path):
    sections, pages, assignments = corpus()
    replies = {
        UNCERTAIN.question: {"answerable": "no", "evidence": ""},
        GENERIC.question: {"answerable": "no", "evidence": ""},
    }
    with FakeOpenAIServer(responder(replies)) as server:
        res = build_splits(
            [UNCERTAIN, GENERIC], pages, assignments, SplitsConfig(), None, sections, judge_for(server, tmp_path)
        )
        assert server.count() == 2
        generic = rows(res)["generic"]["answerability"]
        assert generic["verdict"] == "answerable" and generic["judge"]["status"] == "no"
        assert not generic["answerable"] and generic["decided_by"] == "judge"
        assert roles(res) == {"landscape": "unanswerable", "generic": "unanswerable"}
        # a second run asks nothing: the engine's cache replays the replies
        again = judge_for(server, tmp_path)
        build_splits([UNCERTAIN, GENERIC], pages, assignments, SplitsConfig(), None, sections, again)
        assert server.count() == 2 and again.stats()["cache_hits"] == 2


def test_judge_failure_falls_back_to_the_offline_verdict(tmp_path):
    sections, pages, assignments = corpus()
    with FakeOpenAIServer(lambda body: {"unexpected": True}) as server:  # never a valid reply
        res = build_splits(
            [UNCERTAIN, GENERIC], pages, assignments, SplitsConfig(), None, sections, judge_for(server, tmp_path)
        )
    assert rows(res)["generic"]["answerability"]["judge"] == {"status": "failed"}
    assert rows(res)["generic"]["answerability"]["answerable"]  # offline "answerable" stands
    assert not rows(res)["landscape"]["answerability"]["answerable"]  # offline "uncertain": kept
    assert res.leakage["answerability"]["judge_llm"]["failures"] == 2


def test_the_prompt_shows_the_retrieved_pages_and_the_question(tmp_path):
    sections, pages, assignments = corpus()
    seen: list[dict] = []

    def record(body: dict) -> dict:
        seen.append(body)
        return {"answerable": "no", "evidence": ""}

    with FakeOpenAIServer(record) as server:
        build_splits([UNCERTAIN], pages, assignments, SplitsConfig(), None, sections, judge_for(server, tmp_path))
    (body,) = seen
    user = body["messages"][-1]["content"]
    assert "Question (English): How is a landscape layout set on letter paper?" in user
    assert "3 Examples\nA layout with one-inch margins" in user  # geometry's page, verbatim
    assert "multicol" not in user.split("Question")[0]  # only the loaded fold's pages
    assert body["temperature"] == 0.0


def test_verify_quote():
    pages = (("p1", "The margin option sets all\nfour margins at once."), ("p2", "Other text here."))
    assert verify_quote("the margin option sets all four margins", pages) == "p1"
    assert verify_quote("“The margin option sets all four margins at once.”", pages) == "p1"
    assert verify_quote("The margin option … four margins at once", pages) == "p1"
    assert verify_quote("The margin option … other text here", pages) is None  # fragments of two pages
    assert verify_quote("margins at once", pages) == "p1"
    assert verify_quote("at once", pages) is None
    assert verify_quote("", pages) is None


def test_make_judge_modes(tmp_path):
    cfg = Config()
    assert make_judge(cfg) is None  # extractive, auto: offline only
    on = cfg.model_copy(update={"splits": cfg.splits.model_copy(update={"answerability_judge": "on"})})
    with pytest.raises(ValueError, match="answerability_judge = on needs an LLM"):
        make_judge(on)
    with FakeOpenAIServer() as server:
        spec = f"openai:fake-model@{server.url}"
        judge = make_judge(cfg, spec, tmp_path)
        assert isinstance(judge, LLMAnswerabilityJudge) and judge.engine.cache_path == tmp_path / "llm.sqlite"
        off = cfg.model_copy(update={"splits": cfg.splits.model_copy(update={"answerability_judge": "off"})})
        assert make_judge(off, spec) is None
        # a prompts folder without answerability.md falls back to the bundled prompt
        assert make_judge(cfg, spec, tmp_path, prompts_dir=tmp_path).prompt.path.parent == ROOT / "prompts"


def test_judge_replies_are_validated():
    with pytest.raises(ValueError):
        AnswerabilityReply.model_validate({"answerable": "maybe", "evidence": ""})
    case = JudgeCase("x", "Q?", (("p", "a" * 10_000),))
    with FakeOpenAIServer() as server:
        judge = LLMAnswerabilityJudge(LLMEngine(f"openai:fake-model@{server.url}", fast_config()), max_page_chars=100)
        assert len(judge.shown(case).pages[0][1]) == 100


def test_check_without_items_or_pages():
    res = check({("validation", 1): [], ("validation", 2): []}, {("validation", 1): []}, [], SplitsConfig())
    assert res.unanswerable == {} and res.answerable == {}


# --- the splits stage in a build -----------------------------------------------------------


def _stage_context(tmp_path: Path, config: Config, logs: list[str]):
    """The splits stage's context over the manuals corpus, as the runner makes it."""
    from qagen.runner import BuildInputs, StageContext

    sections, pages, assignments = corpus()
    inputs = {
        "sections.jsonl": list(sections.values()),
        "items.jsonl": [UNCERTAIN, GENERIC, SPECIFIC, ANSWERABLE_1],
        "pages.jsonl": pages,
        "assignments.jsonl": assignments,
    }
    (tmp_path / "cache").mkdir(exist_ok=True)
    return StageContext(inputs, config, tmp_path / "cache", BuildInputs(embedder="tfidf"), log=logs.append)


def test_offline_build_records_the_checks(fast_example_build):
    out = fast_example_build
    manifest = json.loads((out / "manifest.json").read_text())
    entry = manifest["stages"]["splits"]
    crosseval = json.loads((out / "crosseval.json").read_text())
    leakage = json.loads((out / "splits" / "leakage.json").read_text())
    assert entry["counts"]["answerable_from_corpus"] == leakage["answerability"]["answerable_from_corpus"]
    assert entry["counts"]["warnings"] == len(crosseval["warnings"]) == len(entry["warnings"])
    assert "answerability_judged" not in entry["counts"] and leakage["answerability"]["judged"] == 0  # offline
    assert all(r["answerability"]["decided_by"] == "offline" for r in leakage["items"])
    from qagen.commands.inspect import inspect_dir

    text = inspect_dir(out)
    assert "left out (answered by corpus)" in text and "question-side check:" in text


def test_splits_stage_with_an_llm_judges_the_doubtful_questions(tmp_path):
    from qagen.stages.splits import run as run_splits

    logs: list[str] = []
    replies = {
        UNCERTAIN.question: {"answerable": "yes", "evidence": QUOTE_IN_PAGES},
        GENERIC.question: {"answerable": "no", "evidence": ""},
    }
    config = Config().model_copy(deep=True)
    with FakeOpenAIServer(responder(replies)) as server:
        config.llm.backend = f"openai:fake-model@{server.url}"
        result = run_splits(_stage_context(tmp_path, config, logs))
        sent = server.count()
        # a rerun replays the cached replies (tmp_path/cache/llm.sqlite)
        again = run_splits(_stage_context(tmp_path, config, []))
        assert server.count() == sent and again.info["llm"]["cache_hits"] == sent
    leakage = result.artifacts["crosseval.json"].leakage["answerability"]
    assert result.counts["answerability_judged"] == leakage["judged"] == sent == 2
    assert result.info["llm"]["requests"] == 2 and result.info["llm"]["succeeded"] == 2 and result.incomplete is None
    assert result.counts["answerable_from_corpus"] == 1 and leakage["by_check"] == {"judge": 1}
    assert result.counts["warnings"] == len(result.info["warnings"]) > 0
    assert logs and all(w.startswith("warning: splits: ") for w in logs)
    # "off" asks nothing
    config.splits.answerability_judge = "off"
    with FakeOpenAIServer() as server:
        off = run_splits(_stage_context(tmp_path, config, []))
        assert server.count() == 0 and "answerability_judged" not in off.counts and "llm" not in off.info
    config.splits.answerability_judge = "on"
    config.llm.backend = "extractive"
    with pytest.raises(BuildError, match="needs an LLM"):
        run_splits(_stage_context(tmp_path, config, []))
