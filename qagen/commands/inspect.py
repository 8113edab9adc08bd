"""``qagen inspect``: what an output folder holds, as text or JSON."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from qagen.io import iter_jsonl, read_json
from qagen.output import MANIFEST, OutputFolder
from qagen.records import TYPE_SHORT_NAMES
from qagen.runner import BuildError, logged_warnings


def summary_line(result: Any) -> str:
    """One line after a build: what ran, what was skipped, where the output is."""
    ran, skipped = result.ran, result.skipped
    parts = [f"done: {len(ran)} stage(s) ran"]
    if skipped:
        parts.append(f"{len(skipped)} unchanged and skipped")
    items = result.manifest.get("stages", {}).get("filter", {}).get("counts", {}).get("accepted")
    if items is not None:
        parts.append(f"{items} items")
    report = Path(result.out_dir) / "report.html"
    where = f"see {report}" if report.is_file() else f"qagen inspect {result.out_dir}"
    return ", ".join(parts) + f"; {where}"


TYPE_NAMES = TYPE_SHORT_NAMES


def build_summary(result: Any) -> str:
    """What a build prints at its end without ``-v``: a few lines a newcomer can act on.

    What ran (and this run's time), items by type and the rejected; the LLM's requests, tokens
    and cost; how many warnings the build printed; where to look next.
    """
    from qagen.formatting import format_cost, format_duration

    stages = result.manifest.get("stages", {})
    seconds = sum(r.seconds for r in result.stages if r.status == "ran")
    head = [f"done: {len(result.ran)} stage(s) ran in {format_duration(seconds)}"]
    if result.skipped:
        head.append(f"{len(result.skipped)} unchanged and skipped")
    counts = stages.get("filter", {}).get("counts", {})
    if counts:
        by_type = [f"{counts[f'accepted_{t}']} {name}" for t, name in TYPE_NAMES.items() if counts.get(f"accepted_{t}")]
        accepted, rejected = counts.get("accepted", 0), counts.get("rejected", 0)
        not_made = counts.get("derived_not_made", 0)  # listed in rejected.jsonl, but no candidate was lost
        tail = f" ({not_made} variants or false premises could not be made)" if not_made else ""
        head.append(f"{accepted} items ({', '.join(by_type) or 'none'}), {rejected - not_made} rejected{tail}")
    lines = [", ".join(head)]
    generated = stages.get("generate", {}).get("counts", {})
    if generated.get("questions"):  # a size target (generate.questions)
        kept = counts.get("accepted_test", generated.get("accepted_test", 0))
        enough = "" if kept >= generated["questions"] else " (short: see the warning)"
        lines.append(
            f"questions: {kept} test questions kept of {generated['questions']} asked{enough}, "
            f"{generated.get('sections_asked', 0)} of {generated.get('sections_usable', 0)} usable sections asked"
        )
    lines += _test_cells(Path(result.out_dir), counts)
    llm = stages.get("generate", {}).get("llm") or {}
    if llm.get("backend") == "extractive":
        lines.append("llm: none (offline extractive generator: no requests, no cost)")
    elif llm:
        detail = [
            f"{llm.get('repairs', 0)} repairs",
            f"{llm.get('retries', 0)} retries",
            f"{llm.get('failures', 0)} failed",
        ]
        if llm.get("cache_hits"):
            detail.insert(0, f"{llm['cache_hits']} from the cache")
        tokens = f"{llm.get('prompt_tokens', 0):,} + {llm.get('completion_tokens', 0):,} tokens"
        cost = (
            format_cost(llm.get("cost_usd", 0.0)) if llm.get("cost_known") else "cost unknown (no price for the model)"
        )
        lines.append(
            f"llm: {llm.get('requests_sent', 0)} requests sent ({', '.join(detail)}), {tokens}, {cost} "
            f"({llm.get('model') or llm.get('backend')})"
        )
    warned = len(logged_warnings(result.manifest))
    if warned:
        lines.append(f"warnings: {warned} (all in the report's Warnings panel and in qagen inspect)")
    report = Path(result.out_dir) / "report.html"
    if report.is_file() and stages.get("splits", {}).get("status") == "ok":
        lines.append(f"next: open {report}; then qagen export {result.out_dir} --format ragas|deepeval|hf|csv -o DIR")
    else:
        lines.append(f"next: qagen inspect {result.out_dir}")
    return "\n".join(lines)


def _test_cells(out: Path, counts: dict[str, Any]) -> list[str]:
    """The test set's cells (answerable and unanswerable per iteration: what its rates rest on) and the
    question kinds beside the natural ones."""
    folder = OutputFolder(out)
    if not folder.has("crosseval.json"):
        return []
    cells = []
    for it in read_json(folder.file("crosseval.json")).get("iterations") or []:
        if it.get("set") != "test":
            continue
        c = it.get("counts", {})
        scope = c.get("unanswerable_out_of_scope", 0)
        off = f" ({scope} out of scope)" if scope else ""
        cells.append(
            f"iteration {it.get('iteration')} {c.get('answerable', 0)} answerable + "
            f"{c.get('unanswerable', 0) + scope} unanswerable{off}"
        )
    kinds = [f"{counts[f'variants_{f}']} {f}" for f in ("noisy", "verbose", "search") if counts.get(f"variants_{f}")]
    if counts.get("false_premises"):
        n = counts["false_premises"]
        kinds.append(f"{n} false premise{'' if n == 1 else 's'}")
    lines = [f"test set: {'; '.join(cells)}"] if cells else []
    if kinds:
        lines.append(f"kinds: {', '.join(kinds)} beside the natural questions (generate.formulation_mix, premise_mix)")
    return lines


def collect(out: Path) -> dict[str, Any]:
    """Counts per stage (from the manifest), per item type, per fold and split, the splits, and the funnel.

    ``items_by_*`` count every accepted item (``items.jsonl``); ``splits`` (from
    ``crosseval.json`` and the files it names) is what the splits hold, which under
    ``--approved-only`` is the approved items only.
    """
    out = Path(out)
    folder = OutputFolder(out)
    if not folder.has(MANIFEST):
        raise BuildError(f"{out} has no {MANIFEST}; run 'qagen build DOCS -o {out}' first")
    manifest = folder.manifest()
    data: dict[str, Any] = {
        "out": str(out),
        "qagen_version": manifest.get("qagen_version"),
        "warnings": [{"stage": stage, "message": message} for stage, message in logged_warnings(manifest)],
        "stages": {
            name: {
                "status": "skipped" if entry.get("skipped") else entry.get("status"),
                "seconds": entry.get("seconds"),
                "counts": entry.get("counts", {}),
                "errors": len(entry.get("errors", [])),
            }
            for name, entry in manifest.get("stages", {}).items()
        },
    }
    items_path = folder.file("items.jsonl")
    if items_path.is_file():
        by_type: Counter[str] = Counter()
        by_cell: Counter[str] = Counter()
        for item in iter_jsonl(items_path):
            by_type[item["type"]] += 1
            by_cell[f"{item['split']}/fold_{item['fold']}/{item['type']}"] += 1
        data["items_by_type"] = dict(sorted(by_type.items()))
        data["items_by_split_fold_type"] = dict(sorted(by_cell.items()))
    crosseval = read_json(folder.file("crosseval.json")) if folder.has("crosseval.json") else None
    if crosseval is not None:
        data["splits"] = placed_in_splits(out, crosseval)
    if folder.has("funnel.json"):
        data["funnel"] = read_json(folder.file("funnel.json"))
    if folder.has("scores.json"):
        data["scores"] = scores_state(folder.file("scores.json"), crosseval)
    return data


def scores_state(path: Path, crosseval: dict[str, Any] | None) -> dict[str, Any]:
    """What ``scores.json`` scored and whether it still belongs to its rows file and to the dataset."""
    from qagen.score import dataset_changed, read_scores

    scores = read_scores(path)
    problems = []
    if (scores.get("rows_file") or {}).get("problem"):
        problems.append(scores["rows_file"]["problem"])
    if crosseval is not None and dataset_changed(scores, crosseval):
        problems.append("the dataset changed since these scores were computed (crosseval.json); score again")
    from qagen.score.results import headline_lines

    min_n = (scores.get("settings") or {}).get("min_n") or 0
    return {
        "answers_file": scores.get("answers_file"),
        "answers": (scores.get("coverage") or {}).get("answered"),
        "headline_lines": headline_lines(scores.get("headline"), min_n),
        "rows_file": (scores.get("rows_file") or {}).get("path"),
        "problems": problems,
    }


def placed_in_splits(out: Path, crosseval: dict[str, Any]) -> dict[str, Any]:
    """What the splits hold: per iteration (set, corpus fold) pages, answerable and unanswerable
    questions; placed items by set/fold/type; and the review selection they were built from."""
    iterations: list[dict[str, Any]] = []
    by_cell: Counter[str] = Counter()
    for it in crosseval.get("iterations") or []:
        counts = it.get("counts") or {}
        iterations.append(
            {
                "name": it.get("name"),
                "set": it.get("set"),
                "fold": it.get("corpus_fold"),
                **{k: counts.get(k, 0) for k in ("pages", "answerable", "unanswerable")},
                "excluded_leakage": counts.get("unanswerable_excluded_leakage", 0),
                "excluded_answerable": counts.get("unanswerable_excluded_answerable", 0),
                "dropped_unsupported": counts.get("answerable_excluded_unsupported", 0),
                "out_of_scope": counts.get("unanswerable_out_of_scope", 0),
            }
        )
        answerable = out / str(it.get("answerable") or "")
        if it.get("answerable") and answerable.is_file():
            for row in iter_jsonl(answerable):
                by_cell[f"{it.get('set')}/fold_{it.get('corpus_fold')}/{row['type']}"] += 1
    items = crosseval.get("items") or {}
    data: dict[str, Any] = {
        "iterations": iterations,
        "items_placed": items.get("placed"),
        "items_excluded": items.get("excluded") or {},
        "placed_by_split_fold_type": dict(sorted(by_cell.items())),
    }
    leakage = crosseval.get("leakage") or {}
    if "answerable_from_corpus" in leakage:  # the question-side check ran
        data["answerability"] = {
            "answerable_from_corpus": leakage.get("answerable_from_corpus", 0),
            "unsupported_answerable": leakage.get("unsupported_answerable", 0),
        }
    scope = crosseval.get("out_of_scope")
    if scope:  # off-domain questions (splits.out_of_scope_share): wanted, asked, left out
        data["out_of_scope"] = {k: scope.get(k) for k in ("share", "wanted", "asked", "shortfall", "rejected")}
    data["warnings"] = [w.get("message", "") for w in crosseval.get("warnings") or [] if isinstance(w, dict)]
    review = crosseval.get("review")
    if review:
        keys = ("approved_only", "rule", "items", "reviewed", "approved", "not_reviewed", "verdicts")
        data["review"] = {k: review.get(k) for k in keys}
    return data


def _splits_lines(splits: dict[str, Any], warnings: bool = True) -> list[str]:
    head = f"placed in splits (crosseval.json): {splits['items_placed']} item(s)"
    review = splits.get("review")
    if review:
        which = "approved items only" if review["approved_only"] else "every accepted item"
        head += (
            f" from {which} (review: {review['approved']} approved under rule {review['rule']!r}, "
            f"{review['reviewed']} of {review['items']} reviewed)"
        )
    if splits["items_excluded"]:
        head += "; not placed: " + ", ".join(f"{k}={v}" for k, v in sorted(splits["items_excluded"].items()))
    checked = "answerability" in splits
    header = f"  {'iteration':<26} {'pages':>6} {'answerable':>11} {'unanswerable':>13} {'left out (leakage)':>19}"
    if checked:
        header += f" {'left out (answered by corpus)':>30} {'dropped (answer not found)':>27}"
    lines = ["", head, header]
    for it in splits["iterations"]:
        row = (
            f"  {it['name']:<26} {it['pages']:>6} {it['answerable']:>11} {it['unanswerable']:>13} "
            f"{it['excluded_leakage']:>19}"
        )
        if checked:
            row += f" {it['excluded_answerable']:>30} {it['dropped_unsupported']:>27}"
        lines.append(row)
    if checked:
        a = splits["answerability"]
        lines.append(
            f"question-side check: {a['answerable_from_corpus']} unanswerable question(s) answered by the other "
            f"fold's pages, left out; {a['unsupported_answerable']} answer(s) not found on their source pages "
            "(evidence: splits/leakage.json)"
        )
    scope = splits.get("out_of_scope")
    if scope:
        asked = ", ".join(f"{k} {v}" for k, v in scope["asked"].items())
        wanted = ", ".join(f"{k} {sum(v.values())}" for k, v in scope["wanted"].items())
        lines.append(
            f"out of scope (off the corpus's domain, asked in both iterations of a set): {asked} "
            f"(asked for {wanted} at share {scope['share']}); {scope['rejected']} bundled candidate(s) left out "
            "because a page may answer them (splits/leakage.json)"
        )
    if warnings:  # (else the build's warnings block lists them)
        lines += [f"warning: {w}" for w in splits.get("warnings", [])]
    if splits["placed_by_split_fold_type"]:
        lines += _cell_table(splits["placed_by_split_fold_type"], "placed, by split, fold and type:")
    return lines


def _cell_table(cells: dict[str, int], title: str) -> list[str]:
    """``{"validation/fold_1/mcq": 3, ...}`` as a table: one row per split and fold, a column per type."""
    rows: dict[tuple[str, str], Counter[str]] = {}
    for key, n in cells.items():
        split, fold, kind = key.split("/")
        rows.setdefault((split, fold.removeprefix("fold_")), Counter())[kind] += n
    kinds = [k for k in TYPE_NAMES if any(k in c for c in rows.values())]
    header = f"  {'split':<11} {'fold':>4}  " + " ".join(f"{TYPE_NAMES[k]:>9}" for k in kinds) + f" {'total':>7}"
    lines = [title, header]
    order = {"validation": 0, "test": 1}
    for (split, fold), c in sorted(rows.items(), key=lambda kv: (order.get(kv[0][0], 2), kv[0][0], kv[0][1])):
        values = " ".join(f"{c.get(k, 0):>9}" for k in kinds)
        lines.append(f"  {split:<11} {fold:>4}  {values} {sum(c.values()):>7}")
    return lines


def _corpus_lines(stages: dict[str, Any]) -> list[str]:
    parse, pages, topics = (stages.get(n, {}).get("counts", {}) for n in ("parse", "pages", "topics"))
    lines = []
    if parse:
        skipped = f", {parse['skipped_files']} file(s) skipped" if parse.get("skipped_files") else ""
        lines.append(
            f"  documents: {parse.get('parsed', 0)} parsed, {parse.get('failed', 0)} failed{skipped}; "
            f"{parse.get('sections', 0)} sections"
        )
    if pages:
        lines.append(f"  pages: {pages.get('pages', 0)} (median {pages.get('median_tokens', 0)} tokens)")
    if topics:
        lines.append(f"  topics: {topics.get('topics', 0)} ({topics.get('outliers', 0)} outlier section(s))")
    return lines


def _folds_lines(stages: dict[str, Any]) -> list[str]:
    folds = stages.get("folds", {}).get("counts", {})
    if not folds:
        return []
    return [
        f"  sections kept: {folds.get('kept', 0)}; left out: {folds.get('conflict', 0)} in units spanning both "
        f"folds, {folds.get('outlier', 0)} outlier(s); sampled for generation: {folds.get('sampled', 0)}"
    ]


def inspect_dir(out: Path, as_json: bool = False) -> str:
    """The text (or JSON) that ``qagen inspect`` prints, in labelled blocks: build, corpus, folds,
    items, questions per iteration, warnings, filter funnel, scores."""
    data = collect(out)
    if as_json:
        return json.dumps(data, indent=2)
    lines = [
        f"{data['out']} (qagen {data['qagen_version']})",
        "",
        "== build: stages ==",
        "stage      status     seconds  counts",
    ]
    for name, st in data["stages"].items():
        counts = ", ".join(f"{k}={v}" for k, v in st["counts"].items())
        errs = f"  [{st['errors']} problem(s)]" if st["errors"] else ""
        lines.append(f"{name:<10} {st['status'] or '-':<10} {st['seconds'] or 0:>7.2f}  {counts}{errs}")
    corpus = _corpus_lines(data["stages"])
    if corpus:
        lines += ["", "== corpus ==", *corpus]
    folds = _folds_lines(data["stages"])
    if folds:
        lines += ["", "== folds ==", *folds]
    if "items_by_type" in data:
        by_type = ", ".join(f"{TYPE_NAMES.get(k, k)} {v}" for k, v in data["items_by_type"].items())
        lines += ["", "== items (items.jsonl: every accepted item) ==", f"  by type: {by_type}"]
        lines += _cell_table(data["items_by_split_fold_type"], "  by split, fold (the fold the source is in) and type:")
    if "splits" in data:
        block = _splits_lines(data["splits"], warnings=not data["warnings"])[1:]
        lines += ["", "== questions per iteration (crosseval.json) ==", *block]
    if data["warnings"]:
        lines += ["", f"== warnings printed by the build ({len(data['warnings'])}) =="]
        lines += [f"  {w['stage']}: {w['message']}" for w in data["warnings"]]
    if "funnel" in data:
        from qagen.filters import format_funnel

        lines += ["", "== filter funnel ==", "filter funnel:", format_funnel(data["funnel"]["funnel"])]
    if "scores" in data:
        sc = data["scores"]
        rows = f" and {sc['rows_file']}" if sc["rows_file"] else ""
        lines += ["", "== scores ==", f"scores: scores.json{rows}, from {sc['answers_file']}"]
        lines += [f"warning: {p}" for p in sc["problems"]]
        lines += sc.get("headline_lines") or []
    return "\n".join(lines)
