"""The code_answer filter: answers that are mostly code or markup are rejected unless the
question asks for code; MCQs are judged by their correct option; real manual sections."""

from __future__ import annotations

from pathlib import Path

import pytest

from qagen.config import FilterConfig, ParseConfig
from qagen.filters.base import FilterContext, Reject
from qagen.filters.code import CODE_ANSWER, asks_for_code, check_code_answer, judged_answer
from qagen.ingest import parse_documents
from qagen.records import GeneratorInfo, Item, Section, Source

SHORT_DOCS = Path(__file__).resolve().parents[1].parent / "shared" / "corpora" / "short-docs"

SECTION = Section("s1", "d1", "emp.pdf", "2.1 Commands", "The emp environment contains one figure.", 1, 1, 0)
CTX = FilterContext(sections={"s1": SECTION})
CFG = FilterConfig()

LATEX_ANSWER = "\\begin{empfile}[name]\n\\begin{emp}(20,10)\ndraw fullcircle scaled 10;\n\\end{emp}\n\\end{empfile}"
PROSE_ANSWER = "Place every figure of one METAPOST file inside an empfile environment, which names the file."


def item(question: str, answer: str, id: str = "i1", **kw) -> Item:
    return Item(
        id=id,
        type=kw.pop("type", "long_form"),
        question=question,
        answer=answer,
        source=Source("d1", ("s1",), ("p1",)),
        fold=1,
        split="validation",
        generator=GeneratorInfo("extractive"),
        **kw,
    )


def mcq(question: str, options: tuple[str, ...], index: int, **kw) -> Item:
    return item(question, options[index], type="mcq", options=options, answer_index=index, **kw)


def test_a_code_answer_is_rejected_with_its_share():
    verdict = check_code_answer(item("How are the figures kept in sync with the text?", LATEX_ANSWER), CTX, CFG)
    assert isinstance(verdict, Reject)
    assert verdict.reason == "code"
    assert verdict.value == pytest.approx(1.0)


@pytest.mark.parametrize(
    "answer",
    [
        PROSE_ANSWER,
        "Load it with \\usepackage{emp} and run METAPOST on the file it writes.",  # inline code in a sentence
        "Het pakket schrijft de figuren naar één METAPOST-bestand.",
        "",
    ],
)
def test_answers_in_words_pass(answer):
    assert check_code_answer(item("How are the figures kept in sync with the text?", answer), CTX, CFG) is None


def test_mostly_code_is_rejected_less_is_not():
    mostly = "Add this line:\n\\usepackage[gather]{chapterbib}"  # 31 of 43 characters are code
    verdict = check_code_answer(item("How do I gather the bibliographies?", mostly), CTX, CFG)
    assert verdict is not None and verdict.value == pytest.approx(31 / 43)
    third = (
        "Put this in the preamble of the main file, before the document starts:\n"
        "\\usepackage{chapterbib}\n"
        "then run BibTeX on every included file and LaTeX twice."
    )
    assert check_code_answer(item("How do I gather the bibliographies?", third), CTX, CFG) is None


@pytest.mark.parametrize(
    "question",
    [
        "Which command loads the package?",
        "What macro draws the face?",
        "What is the syntax of the emp environment?",
        "Which option gathers the bibliographies at the end?",
        "What do you type to start a METAPOST figure?",
        "How do you write a figure of 20 by 10 units?",
        "Welk commando start een figuur?",  # nl
        "Welcher Befehl beginnt eine Abbildung?",  # de
        "Quelle commande commence une figure ?",  # fr
        "¿Qué comando inicia una figura?",  # es
        "Qual è la sintassi dell'ambiente emp?",  # it
        "Qual opção reúne as bibliografias?",  # pt
    ],
)
def test_a_question_that_asks_for_code_may_have_a_code_answer(question):
    assert asks_for_code(question)
    assert check_code_answer(item(question, LATEX_ANSWER), CTX, CFG) is None


@pytest.mark.parametrize(
    "question",
    [
        "How are the figures kept in sync with the text?",
        "What is the key difference between emp and empfile?",
        "What type of file does the package write?",
        "Who wrote the package?",
        "Wat doet het pakket met de figuren?",
    ],
)
def test_other_questions_do_not_ask_for_code(question):
    assert not asks_for_code(question)
    assert check_code_answer(item(question, LATEX_ANSWER), CTX, CFG) is not None


def test_mcq_is_judged_by_its_correct_option():
    options = (
        "It keeps the figures in the LaTeX source, next to the text",
        "\\begin{emp}(20,10) draw fullcircle; \\end{emp}",
        "It converts PostScript files to PDF",
        "It numbers the figures by chapter",
    )
    prose_correct = mcq("Why use the emp package?", options, 0)
    code_correct = mcq("Why use the emp package?", options, 1)
    assert judged_answer(prose_correct) == options[0]
    assert check_code_answer(prose_correct, CTX, CFG) is None  # a code distractor is fine
    assert judged_answer(code_correct) == options[1]
    # an MCQ is graded by the option chosen: a key in code is no reference answer to paraphrase
    assert check_code_answer(code_correct, CTX, CFG) is None
    assert check_code_answer(item("Why use the emp package?", options[1]), CTX, CFG).reason == "code"


def test_mcq_with_a_bad_index_falls_back_to_the_answer():
    broken = item("Why use emp?", LATEX_ANSWER, type="mcq", options=("a", "b", "c", "d"), answer_index=7)
    assert judged_answer(broken) == LATEX_ANSWER


def test_filter_keeps_order_and_records_rejections():
    items = [
        item("How are the figures kept in sync?", PROSE_ANSWER, id="a"),
        item("How are the figures kept in sync?", LATEX_ANSWER, id="b"),
        item("Which command starts a figure?", LATEX_ANSWER, id="c"),
    ]
    kept, rejected = CODE_ANSWER.apply(items, CTX, CFG)
    assert [it.id for it in kept] == ["a", "c"]
    assert [(r.id, r.filter, r.reason, r.value) for r in rejected] == [("b", "code_answer", "code", 1.0)]


# --- real sections ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def emp_sections() -> dict[str, Section]:
    if not SHORT_DOCS.is_dir():
        pytest.skip(f"{SHORT_DOCS} is absent (real PDFs live beside the repo)")
    pdf = SHORT_DOCS / "emp__empman.pdf"
    result = parse_documents([pdf], SHORT_DOCS, ParseConfig(workers=1))
    return {s.heading.split(" › ")[-1]: s for s in result.sections}


def test_real_example_code_is_rejected_and_real_prose_passes(emp_sections):
    example = emp_sections["2.2 Examples"]
    assert example.kind == "code"
    listing = [line for line in example.text.splitlines() if line[:1].isdigit()]  # numbered lines of the listing
    code_lines = [line for line in listing if "draw" in line or "\\" in line][:6]
    assert len(code_lines) >= 4
    ctx = FilterContext(sections={s.id: s for s in emp_sections.values()})
    snippet = item("How does the example draw a face?", "\n".join(code_lines))
    verdict = check_code_answer(snippet, ctx, CFG)
    assert verdict is not None and verdict.value >= 0.5
    assert check_code_answer(item("Which macro draws the face?", "\n".join(code_lines)), ctx, CFG) is None

    intro = emp_sections["1 Introduction"]
    assert intro.kind == "prose"
    sentence = next(line for line in intro.text.splitlines() if len(line) > 60)
    assert check_code_answer(item("Why encapsulate figures in the source?", sentence), ctx, CFG) is None


def test_a_question_naming_the_command_asks_for_its_call():
    options = (
        "dpkg-architecture -qDEB_BUILD_MULTIARCH",
        "dpkg-architecture -qDEB_HOST_ARCH",
        "dpkg-architecture -qDEB_HOST_GNU_TYPE",
        "dpkg-architecture -qDEB_HOST_MULTIARCH",
    )
    named = mcq("Since Policy 3.9.2, which dpkg-architecture query gives the multiarch subdirectory of /usr/lib?",
                options, 3)  # fmt: skip
    assert check_code_answer(named, CTX, CFG) is None
    unnamed = item("Since Policy 3.9.2, how do packages find the multiarch subdirectory of /usr/lib?", options[3])
    assert check_code_answer(unnamed, CTX, CFG) is not None  # nothing in the question asks for what to type


def test_a_path_or_a_name_alone_is_no_code_fragment():
    options = ("/etc/cron.d/acme_sync", "/etc/cron.d/acme.sync", "/etc/cron.hourly/acme.sync", "/etc/crontab")
    assert (
        check_code_answer(mcq("Which file should the acme.sync package install for its job?", options, 0), CTX, CFG)
        is None
    )
    fragment = item("How do I draw a circle?", "\\begin{emp}(20,10)\ndraw fullcircle scaled 1cm;\n\\end{emp}")
    assert check_code_answer(fragment, CTX, CFG) is not None


def test_code_the_answer_explains_in_words_is_a_how_to_answer():
    keys = (
        "The character replacement of the naming routine can be configured inside any CoDi scope using these keys.\n"
        "/codi/replace character = <character> with <character>\n/codi/remove characters = <characters>"
    )
    assert check_code_answer(item("How can I make CoDi remove a character from object names?", keys), CTX, CFG) is None
    one_line = "/codi/labels/mid: This key places a label in the middle of an arrow. \\mor [mid] A f:-> B;"
    assert check_code_answer(item("How do I put a label in the middle of an arrow?", one_line), CTX, CFG) is None
    bare = item("How do I draw a circle?", "\\begin{emp}(20,10) % a circle\ndraw fullcircle scaled 1cm;\n\\end{emp}")
    assert check_code_answer(bare, CTX, CFG) is not None  # a fragment with a comment explains nothing
