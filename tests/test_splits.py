"""Cross-evaluation splits: corpus membership, roles, leakage, invariants across seeds."""

from __future__ import annotations

import random
import re
import zlib

import numpy as np
import pytest

from qagen.config import SplitsConfig
from qagen.io import read_json, read_jsonl
from qagen.records import FoldAssignment, GeneratorInfo, Item, Page, Section, Source
from qagen.splits import SETS, build_splits, write_splits

WORDS = tuple(
    f"{a}{b}"
    for a in ("ka", "lo", "mi", "nu", "pe", "ro", "si", "tu")
    for b in ("ba", "de", "fi", "go", "hu", "ja", "ke", "ly")
)


def fake_embed(texts: list[str]) -> np.ndarray:
    out = np.zeros((len(texts), 512), dtype=np.float32)
    for i, text in enumerate(texts):
        for tok in re.findall(r"\w+", text.lower()):
            out[i, zlib.crc32(tok.encode()) % 512] += 1.0
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.where(norms > 0, norms, 1.0)


def text_for(key: str, n: int = 30) -> str:
    rng = random.Random(key)
    return " ".join(rng.choice(WORDS) + str(rng.randint(0, 999)) for _ in range(n))


def section(sid: str, doc: str, text: str | None = None) -> Section:
    return Section(sid, doc, f"{doc}.pdf", f"Heading {sid}", text or text_for(sid), 1, 1, 0)


def page(pid: str, doc: str, sids: list[str], sections: dict[str, Section]) -> Page:
    return Page(pid, doc, tuple(sids), "\n\n".join(sections[s].text for s in sids), 100)


def assign(
    sid: str, status: str = "kept", fold: int | None = 1, split: str | None = "validation", unit: str = ""
) -> FoldAssignment:
    return FoldAssignment(sid, 0 if status != "outlier" else -1, unit or sid, status, fold, split)  # type: ignore[arg-type]


def make_item(iid: str, sid: str, fold: int, split: str, answer: str | None = None, doc: str = "d") -> Item:
    return Item(
        id=iid,
        type="long_form",
        question=f"What does section {sid} say?",
        answer=answer or " ".join(text_for(sid).split()[:12]),
        source=Source(doc, (sid,)),
        fold=fold,
        split=split,  # type: ignore[arg-type]
        generator=GeneratorInfo("extractive"),
        score=0.5,
    )


def scenario():
    """Nine pages: four corpora, a conflict page, an outlier page and a kept+outlier page."""
    layout = {  # page: (sections, status, fold, split)
        "p1": (["s1", "s2"], "kept", 1, "validation"),
        "p2": (["s3"], "kept", 1, "validation"),
        "p3": (["s4"], "kept", 2, "validation"),
        "p4": (["s5"], "kept", 2, "validation"),
        "p5": (["s6"], "kept", 1, "test"),
        "p6": (["s7"], "kept", 2, "test"),
        "p7": (["s8", "s9"], "conflict", None, None),
        "p8": (["s10"], "outlier", None, None),
    }
    sections = {f"s{i}": section(f"s{i}", "d") for i in range(1, 13)}
    assignments = []
    for pid, (sids, status, fold, split) in layout.items():
        assignments += [assign(s, status, fold, split, pid) for s in sids]
    assignments += [assign("s11", "kept", 1, "validation", "p9"), assign("s12", "outlier", None, None, "p9")]
    pages = [page(pid, "d", sids, sections) for pid, (sids, *_rest) in layout.items()]
    pages.append(page("p9", "d", ["s11", "s12"], sections))
    items = [
        make_item("v1a", "s1", 1, "validation"),
        make_item("v1b", "s3", 1, "validation"),
        make_item("v1c", "s11", 1, "validation"),
        make_item("v2a", "s4", 2, "validation"),
        # leaks: its answer is verbatim in p2 (validation fold 1)
        make_item("v2leak", "s5", 2, "validation", answer=" ".join(sections["s3"].text.split()[5:20])),
        make_item("t1", "s6", 1, "test"),
        make_item("t2", "s7", 2, "test"),
        make_item("bad", "s8", 1, "validation"),  # source section was a conflict
    ]
    return items, pages, assignments, sections


def test_corpus_membership_and_exclusions():
    items, pages, assignments, sections = scenario()
    res = build_splits(items, pages, assignments, SplitsConfig(), embed=None, sections=sections)
    ids = {cell: [p.id for p in ps] for cell, ps in res.pages.items()}
    assert ids == {
        ("validation", 1): ["p1", "p2", "p9"],  # p9 = kept section + outlier section
        ("validation", 2): ["p3", "p4"],
        ("test", 1): ["p5"],
        ("test", 2): ["p6"],
    }
    assert res.crosseval["pages"] == {"total": 9, "in_corpus": 7, "excluded": {"conflict": 1, "no_kept_sections": 1}}
    assert res.crosseval["items"]["excluded"] == {"source section not kept in the item's fold and split": 1}


# The answer-side leakage tests give items answers from another section than their source: the
# mirror check (an answerable item's answer is on its source pages) would drop them, so it is off.
KEEP_UNSUPPORTED = SplitsConfig(drop_unsupported_answerable=False)


def test_roles_expected_behaviour_and_leakage():
    items, pages, assignments, sections = scenario()
    cfg = KEEP_UNSUPPORTED
    res = build_splits(items, pages, assignments, cfg, embed=None, sections=sections)
    q = {cell: {r["id"]: r for r in recs} for cell, recs in res.questions.items()}
    it1 = q[("validation", 1)]
    assert {i for i, r in it1.items() if r["role"] == "answerable"} == {"v1a", "v1b", "v1c"}
    assert {i for i, r in it1.items() if r["role"] == "unanswerable"} == {"v2a"}  # v2leak excluded
    assert it1["v2a"]["expected_behavior"] == "refuse" and it1["v2a"]["expected_answer"] == cfg.refusal_answer
    assert it1["v1a"]["expected_behavior"] == "answer" and it1["v1a"]["expected_answer"] == it1["v1a"]["answer"]
    assert it1["v1a"]["contexts"] == [f"Heading s1\n{sections['s1'].text}"]
    # the leaking item is still answerable in its own iteration
    assert q[("validation", 2)]["v2leak"]["role"] == "answerable"
    leak = q[("validation", 2)]["v2leak"]["leakage"]
    assert leak["flagged"] and leak["page_id"] == "p2" and leak["rouge"] == 1.0 and leak["similarity"] is None
    assert res.leakage["flagged"] == 1 and res.leakage["by_cell"]["validation/fold_2"]["flagged_ids"] == ["v2leak"]
    it = next(i for i in res.crosseval["iterations"] if i["name"] == "validation_iteration_1")
    assert it["unanswerable_excluded"] == ["v2leak"]
    assert it["counts"] == {
        "pages": 3,
        "answerable": 3,
        "unanswerable": 1,
        "unanswerable_excluded_leakage": 1,
        "unanswerable_excluded_answerable": 0,
        "unanswerable_excluded_unsupported": 0,
        "answerable_excluded_unsupported": 0,
        "unanswerable_out_of_scope": 0,  # the default 10 % of 4 questions rounds to none
    }
    assert it["corpus"] == "splits/validation/fold_1/pages.jsonl"
    assert it["unanswerable"] == "splits/validation/fold_1/unanswerable.jsonl"
    # the questions ("What does section s4 say?") have no content terms; only v2leak, whose answer is on p2,
    # a page of its own document "d" in fold 1, is answerable there (and already left out by the leakage check)
    assert res.leakage["answerability"]["answerable_from_corpus"] == 1
    assert res.leakage["answerability"]["by_check"] == {"same-document": 1}
    assert res.leakage["answerability"]["offline"] == {"uncertain": 6, "answerable": 1}
    # v2leak's answer is s3's text, not on its own source page (p4): reported, kept here
    assert res.leakage["answerability"]["answer_check"]["unsupported_ids"] == ["v2leak"]


def test_answerable_item_whose_answer_is_not_on_its_source_pages_is_dropped():
    items, pages, assignments, sections = scenario()
    config = SplitsConfig(drop_unsupported_answerable=True)
    kept = build_splits(items, pages, assignments, SplitsConfig(), embed=None, sections=sections)
    assert "v2leak" in {r["id"] for r in kept.items[("validation", 2)]}  # default: reported, not dropped
    res = build_splits(items, pages, assignments, config, embed=None, sections=sections)
    assert "v2leak" not in {r["id"] for r in res.items[("validation", 2)]}
    it2 = next(i for i in res.crosseval["iterations"] if i["name"] == "validation_iteration_2")
    assert it2["answerable_excluded"] == ["v2leak"] and it2["counts"]["answerable_excluded_unsupported"] == 1
    assert it2["counts"]["answerable"] == 1  # v2a
    row = next(r for r in res.leakage["items"] if r["id"] == "v2leak")
    assert row["answer_check"] == {
        "supported": False,
        "source_pages_in_corpus": True,
        "answer_rouge": pytest.approx(row["answer_check"]["answer_rouge"]),
        "answer_similarity": None,
    }
    assert row["answer_check"]["answer_rouge"] < SplitsConfig().answerability_answer_rouge
    assert row["answerable_role"] is False and row["unanswerable_role"] is False  # it leaks too


def test_leakage_threshold_boundary():
    items, pages, assignments, sections = scenario()
    words = sections["s3"].text.split()
    # 8 of 10 answer words in order in p2: ROUGE-L recall 0.8 == leakage_rouge -> flagged; 7 of 10 -> not
    at = make_item("v2leak", "s5", 2, "validation", answer=" ".join([*words[:8], "zz1", "zz2"]))
    below = make_item("v2leak", "s5", 2, "validation", answer=" ".join([*words[:7], "zz1", "zz2", "zz3"]))
    for candidate, flagged in ((at, True), (below, False)):
        subset = [i for i in items if i.id != "v2leak"] + [candidate]
        res = build_splits(subset, pages, assignments, KEEP_UNSUPPORTED, embed=None)
        rec = next(r for r in res.items[("validation", 2)] if r["id"] == "v2leak")
        assert rec["leakage"]["flagged"] is flagged, rec["leakage"]


def test_leakage_by_embedding_similarity():
    items, pages, assignments, sections = scenario()
    # same words as p2, shuffled: low ROUGE-L, bag-of-words cosine 1.0 with p2's passage
    shuffled = sections["s3"].text.split()
    random.Random(0).shuffle(shuffled)
    para = make_item("v2para", "s5", 2, "validation", answer=" ".join(shuffled))
    subset = [i for i in items if i.id not in ("v2leak", "bad")] + [para]
    cfg = KEEP_UNSUPPORTED.model_copy(update={"leakage_window_words": 200})
    res = build_splits(subset, pages, assignments, cfg, embed=fake_embed)
    rec = next(r for r in res.items[("validation", 2)] if r["id"] == "v2para")
    assert rec["leakage"]["rouge"] < 0.8
    assert rec["leakage"]["similarity"] == pytest.approx(1.0, abs=1e-4) and rec["leakage"]["flagged"]
    assert rec["leakage"]["similarity_page_id"] == "p2"
    off_cfg = KEEP_UNSUPPORTED.model_copy(update={"leakage_embeddings": False})
    off = build_splits(subset, pages, assignments, off_cfg, embed=fake_embed)
    assert not next(r for r in off.items[("validation", 2)] if r["id"] == "v2para")["leakage"]["flagged"]
    clean = next(r for r in res.items[("validation", 2)] if r["id"] == "v2a")
    assert not clean["leakage"]["flagged"] and clean["leakage"]["similarity"] < 0.5


def test_short_answers_are_probed_with_their_question():
    _items, pages, assignments, sections = scenario()
    word = sections["s3"].text.split()[0]  # one word of p2: alone it would match 100%
    short = make_item("v2short", "s5", 2, "validation", answer=word)
    res = build_splits([short], pages, assignments, KEEP_UNSUPPORTED, embed=None)
    assert not res.items[("validation", 2)][0]["leakage"]["flagged"]


def test_unit_document_and_inconsistent_pages():
    sections = {s: section(s, doc) for s, doc in (("a1", "A"), ("a2", "A"), ("b1", "B"))}
    pages = [page("pa1", "A", ["a1"], sections), page("pa2", "A", ["a2"], sections), page("pb1", "B", ["b1"], sections)]
    assignments = [
        assign("a1", "kept", 1, "test", "A"),
        assign("a2", "kept", 1, "test", "A"),
        assign("b1", "kept", 2, "test", "B"),
    ]
    items = [make_item("x", "a2", 1, "test", doc="A"), make_item("y", "b1", 2, "test", doc="B")]
    res = build_splits(items, pages, assignments, SplitsConfig())
    assert [p.id for p in res.pages[("test", 1)]] == ["pa1", "pa2"]
    assert [r["id"] for r in res.questions[("test", 1)]] == ["x", "y"]
    mixed = [page("pm", "A", ["a1", "b1"], sections)]
    with pytest.raises(ValueError, match="page pm holds kept sections of folds"):
        build_splits([], mixed, assignments, SplitsConfig())
    with pytest.raises(ValueError, match="unique"):
        build_splits([items[0], items[0]], pages, assignments, SplitsConfig())


def test_write_splits_layout(tmp_path):
    items, pages, assignments, sections = scenario()
    res = build_splits(items, pages, assignments, SplitsConfig(), embed=fake_embed, sections=sections)
    crosseval = write_splits(res, tmp_path)
    assert crosseval is res.crosseval
    assert [it["name"] for it in crosseval["iterations"]] == [
        "validation_iteration_1",
        "validation_iteration_2",
        "test_iteration_1",
        "test_iteration_2",
    ]
    for it in crosseval["iterations"]:
        for key in ("corpus", "answerable", "unanswerable", "questions"):
            assert (tmp_path / it[key]).is_file(), it[key]
        corpus = read_jsonl(tmp_path / it["corpus"], Page)
        assert len(corpus) == it["counts"]["pages"]
        questions = read_jsonl(tmp_path / it["questions"])
        assert all(r["expected_behavior"] in ("answer", "refuse") for r in questions)
        answerable = read_jsonl(tmp_path / it["answerable"])
        refuse = read_jsonl(tmp_path / it["unanswerable"])
        assert len(answerable) == it["counts"]["answerable"] and len(refuse) == it["counts"]["unanswerable"]
        assert all(r["expected_behavior"] == "answer" and r["role"] == "answerable" for r in answerable)
        assert all(r["expected_behavior"] == "refuse" and r["role"] == "unanswerable" for r in refuse)
        assert all(r["expected_answer"] == SplitsConfig().refusal_answer for r in refuse)
        assert not {r["id"] for r in refuse} & set(it["unanswerable_excluded"])
        assert [r["id"] for r in questions] == [r["id"] for r in answerable + refuse]
        # the unanswerable questions come from the other fold, whose pages are not in this corpus
        assert all(r["fold"] != it["corpus_fold"] for r in refuse)
    assert read_json(tmp_path / "splits" / "leakage.json")["checked"] == 7


# --- invariants across random builds -----------------------------------------------------


def random_build(seed: int, unit: str):
    """Random documents -> pages -> assignments consistent with a fold builder, and items."""
    rng = random.Random(seed)
    sections, pages, assignments, items = {}, [], [], []
    for d in range(rng.randint(3, 8)):
        doc = f"d{d}"
        doc_fold, doc_split = rng.choice([1, 2]), rng.choice(SETS)
        doc_conflict = unit == "document" and rng.random() < 0.2
        for p in range(rng.randint(1, 4)):
            pid = f"{doc}p{p}"
            sids = [f"{pid}s{k}" for k in range(rng.randint(1, 3))]
            for sid in sids:
                sections[sid] = section(sid, doc)
            page_conflict = doc_conflict or (unit == "page" and rng.random() < 0.15)
            fold, split = (doc_fold, doc_split) if unit == "document" else (rng.choice([1, 2]), rng.choice(SETS))
            for sid in sids:
                status = "conflict" if page_conflict else ("outlier" if rng.random() < 0.2 else "kept")
                kept = status == "kept"
                assignments.append(
                    assign(
                        sid, status, fold if kept else None, split if kept else None, doc if unit == "document" else pid
                    )
                )
                if kept and rng.random() < 0.7:
                    items.append(make_item(f"i{len(items)}", sid, fold, split, doc=doc))
            pages.append(page(pid, doc, sids, sections))
    return items, pages, assignments, sections


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("unit", ["page", "document"])
def test_invariants(seed, unit):
    items, pages, assignments, sections = random_build(seed, unit)
    res = build_splits(items, pages, assignments, SplitsConfig(), embed=fake_embed, sections=sections)
    page_of = {s: p.id for p in pages for s in p.section_ids}
    by_id = {r["id"]: r for r in res.leakage["items"]}
    # no item in two folds or two splits; every placed item once, and all of them checked
    seen = [r["id"] for recs in res.items.values() for r in recs]
    assert len(seen) == len(set(seen)) and len(by_id) == len(items)
    # corpora are disjoint
    corpus_ids = [p.id for ps in res.pages.values() for p in ps]
    assert len(corpus_ids) == len(set(corpus_ids))
    for (s, f), recs in res.questions.items():
        corpus = {p.id for p in res.pages[(s, f)]}
        for r in recs:
            assert r["split"] == s
            if r["scope"] == "out_of_scope":  # off the corpus's domain (splits.out_of_scope_share): no source
                assert r["role"] == "unanswerable" and r["expected_behavior"] == "refuse"
                continue
            src_pages = {page_of[sid] for sid in r["source"]["section_ids"]}
            if r["role"] == "answerable":
                assert r["fold"] == f and r["expected_behavior"] == "answer" and src_pages <= corpus
            else:
                assert r["fold"] == 3 - f and r["expected_behavior"] == "refuse"
                assert src_pages.isdisjoint(corpus)  # none of its source pages is loaded
                assert not r["leakage"]["flagged"]
                assert not by_id[r["id"]]["answerability"]["answerable"]  # nor does the corpus answer it
        # every item of the other fold is asked as unanswerable unless one of the checks took it out
        other = res.leakage["by_cell"][f"{s}/fold_{3 - f}"]
        out = set(other["flagged_ids"]) | set(other["answerable_from_corpus_ids"]) | set(other["unsupported_ids"])
        it = next(i for i in res.crosseval["iterations"] if (i["set"], i["corpus_fold"]) == (s, f))
        assert sorted(it["unanswerable_excluded"]) == sorted(out)
        other_fold = [r for r in recs if r["role"] == "unanswerable" and r["scope"] == "other_fold"]
        assert len(other_fold) == other["checked"] - len(out)
        c = it["counts"]
        excluded = ("leakage", "answerable", "unsupported")
        assert sum(c[f"unanswerable_excluded_{k}"] for k in excluded) == len(out)
        assert c["unanswerable"] + len(out) == other["checked"]
        # the answerable role holds this fold's items whose answer is on their source pages
        supported = [i for i, v in by_id.items() if (v["set"], v["fold"]) == (s, f) and v["answer_check"]["supported"]]
        assert sorted(r["id"] for r in recs if r["role"] == "answerable") == sorted(supported)


def test_a_multiple_choice_question_asked_as_unanswerable_is_scenario_s4(tmp_path):
    # the Leadinfo thesis's S4 (the answer is not in the corpus): asked where its fold is not loaded
    from qagen.io import iter_jsonl, read_json
    from qagen.score.dataset import load_dataset
    from tests.support.score_data import IT1, IT2, make_out

    out = make_out(tmp_path / "out")
    crosseval = read_json(out / "crosseval.json")
    records = {(it["name"], r["id"]): r for it in crosseval["iterations"] for r in iter_jsonl(out / it["questions"])}
    assert (records[(IT1, "m2")]["scenario"], records[(IT1, "m2")]["scenario_generated"]) == ("S4", "S2")
    assert (records[(IT2, "m2")]["scenario"], records[(IT2, "m2")]["scenario_generated"]) == ("S2", None)
    assert records[(IT2, "m1")]["scenario"] == "S4" and records[(IT1, "m1")]["scenario"] == "S1"
    assert all(r["scenario"] != "S4" for r in records.values() if r["type"] != "mcq")
    scenarios = {(it.name, q.item.id): q.item.scenario for it in load_dataset(out).iterations for q in it.questions}
    assert scenarios[(IT1, "m2")] == "S4"  # scored by scenario: S4 is the unanswerable MCQs


def test_s4_is_not_a_generation_scenario():
    from pydantic import ValidationError

    from qagen.config import GenerateConfig

    with pytest.raises(ValidationError, match=r"S4 .* is not generated"):
        GenerateConfig(scenario_mix={"S1": 1, "S4": 1})
