"""A build in a language the offline generator cannot ask in says so, and ends as a failure."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from qagen.config import Config
from qagen.folds.sections import fold_languages
from qagen.generate.offline import offline_language_warning
from qagen.language import document_languages
from qagen.records import FoldAssignment, Section
from qagen.report.summary import no_items_reason
from qagen.runner import StageContext
from qagen.stages.embed import embed_choice
from tests.support.fast import FAST_COMPONENTS

SWEDISH = {
    "Öppettider": "Mottagningen är öppen måndag till fredag mellan klockan åtta och fem. "
    "På helger är mottagningen stängd och du hänvisas till akuten vid sjukhusets huvudentré.",
    "Parkering": "Det finns ett parkeringshus bredvid sjukhuset med plats för tvåhundra bilar. "
    "Parkeringen kostar tjugo kronor per timme och du betalar med kort vid utfarten.",
    "Läkemedel": "Ta med en lista över alla läkemedel som du använder till ditt besök hos läkaren. "
    "Apoteket i entréhallen kan skriva ut en sådan lista åt dig om du ber om det.",
}


GERMAN_TEXTS = [
    "Die Ambulanz ist von Montag bis Freitag zwischen acht und siebzehn Uhr geöffnet.",
    "Neben dem Krankenhaus gibt es ein Parkhaus mit zweihundert Plätzen für Besucher.",
    "Bringen Sie eine Liste aller Medikamente mit, die Sie zurzeit einnehmen.",
]
ENGLISH_TEXT = "The clinic is open from Monday to Friday between eight in the morning and five in the afternoon. "


def test_a_language_without_question_forms_fails_the_build_with_its_reason(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    themes = list(SWEDISH.items())
    for k in range(6):  # two brochures per theme, three sections each
        heading, text = themes[k % 3]
        body = "\n\n".join(f"## {heading} del {j}\n\n{text} Avdelning {k} svarar på frågor." for j in range(3))
        (docs / f"broschyr_{k}.md").write_text(f"# Sjukhuset avdelning {k}\n\n{body}\n", encoding="utf-8")
    args = [sys.executable, "-m", "qagen.cli", "build", str(docs), "-o", str(tmp_path / "out"), "-q"]
    for item in [*FAST_COMPONENTS[:-1], "topics.n_clusters=3", "folds.samples_total=18"]:
        args += ["--set", item]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=600)
    assert proc.returncode != 0, proc.stdout + proc.stderr
    assert "no items: generation made no candidates" in proc.stderr, proc.stderr
    assert "no question forms" in proc.stderr and "(sv)" in proc.stderr, proc.stderr


def test_the_offline_language_warning_names_what_is_missing() -> None:
    languages = {"a": "en", "b": "de", "c": "de", "d": "sv"}
    types = ["long_form", "factoid", "mcq"]
    warning = offline_language_warning(languages, types)
    assert warning == (
        "offline generator: 1 document(s) in Swedish (sv) get no questions; "
        "configure an LLM ([llm] backend) to write them"
    )
    partial = offline_language_warning(languages, types, supported={"en": tuple(types), "de": ("long_form",)})
    assert partial is not None and "2 document(s) in German (de) get no factoid, mcq questions" in partial
    for code in ("en", "nl", "de", "fr", "es", "it", "pt"):
        assert offline_language_warning({"a": code}, types) is None, code


def test_no_items_names_the_filters_main_reasons() -> None:
    manifest = {
        "stages": {
            "generate": {"counts": {"candidates": 12, "language": "en"}},
            "filter": {"funnel": [{"reasons": {"ungrounded": 7}}, {"reasons": {"no_subject": 5}}]},
        }
    }
    assert no_items_reason(manifest) == (
        "no items: the filters rejected all 12 candidates (ungrounded 7, no_subject 5); see rejected.jsonl"
    )


def _ctx(sections: list) -> StageContext:
    return StageContext(inputs={"sections.jsonl": sections}, config=Config(), cache_dir=Path("."))


def test_auto_embeddings_leave_minilm_for_a_corpus_mostly_not_in_english() -> None:
    german = [
        Section(f"d{k}-s0", f"d{k}", f"d{k}.md", "Öffnungszeiten", text, 1, 1, 0) for k, text in enumerate(GERMAN_TEXTS)
    ]
    spec, why = embed_choice(_ctx(german))
    assert spec == "tfidf" and why is not None and "German 100 %" in why and "sentence-transformers:" in why
    english = [Section("e-s0", "e", "e.md", "Opening hours", ENGLISH_TEXT * 3, 1, 1, 0)]
    assert embed_choice(_ctx(german[:1] + english)) == ("auto", None)  # mostly English: MiniLM stays
    forced = _ctx(german)
    forced.config.embed.backend = "minilm"
    assert embed_choice(forced) == ("minilm", None)  # a configured backend is never changed


def test_folds_that_follow_the_languages_are_said_to() -> None:
    sections, assignments = [], []
    for k, text in enumerate(GERMAN_TEXTS * 4 + [ENGLISH_TEXT] * 12):
        doc = f"de{k % 3}" if k < 12 else f"en{k % 3}"
        sections.append(Section(f"s{k}", doc, f"{doc}.md", "H", text, 1, 1, k))
        fold = 1 if k < 12 else 2
        assignments.append(FoldAssignment(f"s{k}", 0, f"s{k}", "kept", fold, "validation"))
    languages, _ = document_languages(sections)  # as run_folds detects them, once per stage
    table, warnings = fold_languages(sections, assignments, languages)
    assert table == {"1": {"de": 12}, "2": {"en": 12}}
    assert len(warnings) == 2 and "100 % of the 12 German sections are in fold 1" in warnings[0]
    mixed = [
        FoldAssignment(a.section_id, 0, a.unit_id, "kept", 1 + k % 2, "validation") for k, a in enumerate(assignments)
    ]
    assert fold_languages(sections, mixed, languages)[1] == []


def test_a_default_build_notes_what_its_defaults_cannot_have_and_warns_of_what_the_user_set(tmp_path) -> None:
    """The default sample (200) above a small corpus's sections, and the default Bloom/scenario mix the offline
    generator cannot write, are notes (nothing to do); the same settings chosen by the user are warnings."""
    from click.testing import CliRunner

    from qagen.cli import cli
    from tests.support.fast import EXAMPLES, FAST_COMPONENTS

    def run(out, *sets):
        args = ["build", str(EXAMPLES), "-o", str(tmp_path / out), "--until", "generate"]
        res = CliRunner().invoke(cli, args + [a for kv in [*FAST_COMPONENTS, *sets] for a in ("--set", kv)])
        assert res.exit_code == 0, res.output
        return res.output.splitlines()

    default = run("default")
    sample = [line for line in default if "kept sections that may be sampled" in line]
    mix = [line for line in default if "writes multiple-choice questions at B1" in line]
    assert sample and mix and not [line for line in sample + mix if line.startswith("warning:")], default
    chosen = run("chosen", "folds.samples_total=500", "generate.bloom_mix={B1 = 0.5, B2 = 0.5}")
    assert any(line.startswith("warning: folds: samples_total=500 exceeds") for line in chosen), chosen
    assert any(line.startswith("warning: generate: the offline generator writes") for line in chosen), chosen
