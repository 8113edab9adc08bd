"""The offline generator: its rules in several languages, rules as data, languages as folders, provenance."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from qagen.config import GenerateConfig
from qagen.generate.context import GenerationContext
from qagen.generate.lang import add_language_folder, available, load, remove_language_folder
from qagen.generate.offline import garbled, generate_offline
from qagen.generate.offline.phrases import task_of
from qagen.generate.offline.rules import RULES, enabled
from qagen.records import Document, FoldAssignment, Section

STEPS = "1. Open the image you want to change.\n2. Choose the area with the mouse.\n3. Press Enter to apply it."


def ctx_of(docs: dict[str, tuple[str, list[tuple[str, str]]]], **config) -> GenerationContext:
    """A context from ``{doc_id: (title, [(heading, text), ...])}``; every section kept and sampled."""
    documents, sections = [], []
    for doc_id, (title, parts) in docs.items():
        documents.append(Document(doc_id, f"{doc_id}.html", "", "html", "ok", title=title))
        for k, (heading, text) in enumerate(parts):
            sections.append(Section(f"{doc_id}-s{k}", doc_id, f"{doc_id}.html", heading, text, 1, 1, k))
    assignments = [
        FoldAssignment(s.id, i % 2, s.id, "kept", i % 2, "test", sampled=True) for i, s in enumerate(sections)
    ]
    cfg = GenerateConfig(phone_region="NL", **config)
    return GenerationContext.build(sections, [], assignments, seed=0, config=cfg, documents=documents)


def questions(ctx: GenerationContext, kind: str | None = None) -> dict[str, str]:
    return {i.question: i.generator.rule for i in generate_offline(ctx) if kind is None or i.type == kind}


@pytest.mark.parametrize(
    ("heading", "language", "task"),
    [
        ("To crop an image", "en", "crop an image"),
        ("Cropping your image", "en", "crop my image"),
        ("How to crop an image", "en", "crop an image"),
        ("Crop the image", "en", "crop the image"),
        ("Cancelling or changing an appointment", "en", "cancel or change an appointment"),
        ("Managing pain and swelling", "en", "manage pain and swelling"),
        ("Ein Bild zuschneiden", "de", "ein Bild zuschneiden"),
        ("So fügen Sie eine Ebene ein", "de", "eine Ebene einfügen"),
        ("Pour recadrer une image", "fr", "recadrer une image"),
        ("Comment recadrer une image ?", "fr", "recadrer une image"),
        ("Para recortar una imagen", "es", "recortar una imagen"),
        ("Per ritagliare un'immagine", "it", "ritagliare un'immagine"),
        ("Een afbeelding bijsnijden", "nl", "een afbeelding bijsnijden"),
        ("Para recortar uma imagem", "pt", "recortar uma imagem"),
    ],
)
def test_task_headings_in_their_forms(heading: str, language: str, task: str) -> None:
    data = load(language)
    assert data is not None and task_of(heading, data) == task


@pytest.mark.parametrize(
    ("heading", "language"),
    [
        ("Paint Tools", "en"),  # a noun phrase, not an imperative
        ("Use Notes", "en"),
        ("Morning routine", "en"),  # -ing that is no task verb
        ("Filtre de flou", "fr"),  # -re that is a noun
        ("Ouverture du filtre", "fr"),  # a bare infinitive is not told from a noun in -re: not asked
        ("Die Werkzeuge zum Zeichnen", "de"),  # a capitalised final word is a noun
        ("Het gebruik van lagen", "nl"),  # a final word after a function word is no infinitive
        ("Median Blur", "en"),
    ],
)
def test_noun_headings_are_no_tasks(heading: str, language: str) -> None:
    data = load(language)
    assert data is not None and task_of(heading, data) is None


def test_questions_name_the_shared_product_and_never_the_title_as_a_prefix() -> None:
    ctx = ctx_of(
        {
            "crop": ("4.4. Crop", [("Cropping an image", f"Acme Paint crops any image. {STEPS}")]),
            "blur": ("8.1. Blur", [("Blurring a selection", f"In Acme Paint you blur parts. {STEPS}")]),
        },
        types=["long_form"],
    )
    asked = questions(ctx)
    assert "How do I crop an image in Acme?" not in asked  # a two-word name is not cut
    assert any(q.startswith("How do I crop an image") for q in asked), asked
    for question in asked:
        assert not re.match(r"^(For|About) ", question) and "4.4" not in question and "Crop:" not in question


def test_each_rule_writes_its_question_in_german_and_english() -> None:
    menu = "Sie öffnen diesen Filter über Filter → Weichzeichnen → Gauß ."
    ctx = ctx_of(
        {
            "g": (
                "3.1. Gauß",
                [
                    ("Gauß", "Dieser Filter zeichnet jede Ebene weich. Der Filter arbeitet schnell und sauber."),
                    ("Aktivieren des Filters", menu),
                    ("Muster", "Ein Muster ist ein kleines Bild, das Flächen füllt. Muster liegen in einem Ordner."),
                ],
            ),
            "h": ("3.2. Schärfen", [("Schärfen", "Sie finden den Filter unter Filter → Verbessern → Schärfen .")]),
            "i": ("3.3. Rauschen", [("Rauschen", "Der Filter liegt unter Filter → Rauschen → Verstreuen .")]),
            "j": ("3.4. Kanten", [("Kanten", "Der Filter steht unter Filter → Kanten finden → Sobel .")]),
        },
        types=["long_form", "mcq"],
        subject="GIMP",
    )
    asked = questions(ctx)
    assert asked.get("Wozu dient der Filter „Gauß“ in GIMP?") == "what_does_do", asked
    assert asked.get("Wie öffne ich den Filter „Gauß“ in GIMP?") == "open_thing", asked
    assert asked.get("Was ist ein Muster in GIMP?") == "definition", asked
    menu_items = [i for i in generate_offline(ctx) if i.generator.rule == "menu_choice"]
    assert menu_items and menu_items[0].question == "Wo finde ich den Filter „Gauß“ in den Menüs von GIMP?"
    item = menu_items[0]
    assert item.options[item.answer_index] == "Filter → Weichzeichnen → Gauß"
    assert len(set(item.options)) == 4 and item.bloom == "B1" and item.scenario == "S1"
    # every option ends with the thing's name: the key does not give itself away
    assert all(o.endswith("→ Gauß") for o in item.options)


def test_a_heading_question_is_asked_as_written_and_pointers_are_vetoed() -> None:
    ctx = ctx_of(
        {
            "faq": (
                "Router FAQ",
                [
                    ("Can I use the router with my fibre connection?", "Yes. Connect the WAN port to the fibre box."),
                    ("Changing these settings", STEPS),  # "these": which settings?
                ],
            )
        },
        types=["long_form"],
    )
    asked = questions(ctx)
    assert asked == {"Can I use the router with my fibre connection?": "question_heading"}


def test_a_task_answer_is_its_steps_even_in_the_next_section() -> None:
    ctx = ctx_of({"d": ("Guide", [("To reset the password", "Follow these steps:"), ("Steps", STEPS)])})
    item = next(i for i in generate_offline(ctx) if i.generator.rule == "task_heading")
    assert item.answer.startswith("1. Open the image") and "3. Press Enter" in item.answer
    assert item.source.section_ids == ("d-s0", "d-s1")


def test_contact_details_give_factoids_and_choices_from_other_documents() -> None:
    docs = {
        f"d{k}": (f"Clinic {k}", [("Contact", f"Call the front desk of clinic {k} on +31 20 794 31{k}0.")])
        for k in range(5)
    }
    items = generate_offline(ctx_of(docs))
    factoids = [i for i in items if i.type == "factoid"]
    choices = [i for i in items if i.generator.rule == "contact_choice"]
    assert factoids and all(i.generator.rule == "contact" for i in factoids)
    assert choices and all(i.options[i.answer_index] == i.entity or i.entity is None for i in choices)
    for choice in choices:
        key = choice.options[choice.answer_index]
        assert key in choice.answer and all(o not in choice.answer for o in choice.options if o != key)


def test_rules_are_switched_off_as_data_and_unknown_names_are_refused() -> None:
    ctx = ctx_of({"faq": ("FAQ", [("How do I reset the router?", "Press and hold the reset button for ten seconds.")])})
    assert questions(ctx) == {"How do I reset the router?": "question_heading"}
    off = ctx_of(
        {"faq": ("FAQ", [("How do I reset the router?", "Press and hold the reset button for ten seconds.")])},
        offline_rules_off=["question_heading"],
    )
    assert questions(off) == {"How do I reset the router?": "task_heading"}  # the next rule that fits
    both = ctx_of(
        {"faq": ("FAQ", [("How do I reset the router?", "Press and hold the reset button for ten seconds.")])},
        offline_rules_off=["question_heading", "task_heading"],
    )
    assert questions(both) == {}
    with pytest.raises(ValueError, match="names no rule: nonsense"):
        enabled(["nonsense"])
    assert {r.kind for r in RULES} == {"phrase", "veto", "rewrite"}
    assert all(r.origin and r.matches and r.builds for r in RULES)


def test_a_language_is_a_data_folder(tmp_path: Path) -> None:
    """A toy language ('xx') added as a folder, with no code touched, gets questions in its frames."""
    folder = tmp_path / "xx"
    folder.mkdir()
    (folder / "frames.json").write_text(json.dumps({"how_do_i": "Kako {task}?", "question_mark": "?"}))
    tasks = {"patterns": [{"form": "infinitive", "match": "^(?P<verb>\\w+ti)\\s+(?P<rest>.+)$"}]}
    (folder / "tasks.json").write_text(json.dumps(tasks))
    (folder / "words.json").write_text(json.dumps({"pointers": ["ovo"]}))
    add_language_folder(tmp_path)
    try:
        assert "xx" in available()
        from qagen.generate.offline import generate_offline as generate

        text = "Otvorite sliku. Odaberite alat. Pritisnite tipku Enter sada."
        ctx = ctx_of({"d": ("Vodič", [("Obrezati sliku", text)])})
        ctx = GenerationContext(**{**ctx.__dict__, "doc_languages": {"d": "xx"}})
        asked = {i.question: i.language for i in generate(ctx)}
        assert asked == {"Kako obrezati sliku?": "xx"}
    finally:
        remove_language_folder(tmp_path)
    assert "xx" not in available()


def test_a_language_folder_also_words_its_factoids_variants_and_premises(tmp_path: Path) -> None:
    """The toy language's folder, with no code touched, words its contact factoids, subjects, verbose variants
    and false premises, and adds its boilerplate headings to every language's."""
    from qagen.entities import extract_entities
    from qagen.generate.factoid_words import heading_frame, skipped_heading
    from qagen.generate.factoids import entity_question
    from qagen.generate.premises import make_false_premises
    from qagen.generate.variants import search_query, verbose_languages, verbose_question
    from qagen.records import GeneratorInfo, Item, Source

    folder = tmp_path / "xx"
    folder.mkdir()
    parts = {
        "frames": {"how_do_i": "Kako {task}?", "question_mark": "?"},
        "contacts": {"topic_questions": {"phone": "Koji broj zovem za «{topic}»?"}},
        "subjects": {"lead": "Za {subject}: "},
        "headings": {"frame": "Što trebam znati o «{heading}» u {subject}?", "boilerplate": ["uvod"]},
        "variants": {"verbose": ["Pozdrav, imam jedno pitanje za vas danas. {question} Puno hvala na odgovoru!"]},
        "premises": {"wording": {"cloze": "?", "cloze_answer": "", "told": "{question} Čuo sam {false}. Točno?",
                                 "told_answer": "Ne: {true}, ne {false}."}},
    }  # fmt: skip
    for name, value in parts.items():
        (folder / f"{name}.json").write_text(json.dumps(value, ensure_ascii=False), encoding="utf-8")
    assert not skipped_heading("Uvod")
    add_language_folder(tmp_path)
    try:
        text = "Za narudžbe nazovite 020 794 3120 radnim danom."
        (phone,) = extract_entities(text, ("phone",), "NL")
        asked = entity_question(text, phone, [phone], "Narudžbe", "Bolnica", "xx")
        assert asked is not None and asked.question == "Za Bolnica: koji broj zovem za «narudžbe»?"
        assert entity_question(text, phone, [phone], "Narudžbe", "Bolnica", "yy") is None  # no folder: no question
        assert skipped_heading("Uvod")  # its boilerplate heading counts whatever the text's language
        assert heading_frame("xx").startswith("Što trebam znati") and "xx" in verbose_languages()
        verbose = verbose_question("Koji je broj odjela?", "7:i1", "xx")
        assert verbose == "Pozdrav, imam jedno pitanje za vas danas. Koji je broj odjela? Puno hvala na odgovoru!"
        assert (
            search_query("Što trebam znati o «Narudžbe» u Bolnica?", "xx") == "Narudžbe Bolnica"
        )  # the frame's words are no keywords
        item = Item(id="f1", type="factoid", question="Koji je broj odjela?", answer=text,
                    source=Source("d1", ("d1-s1",), ()), fold=1, split="validation",
                    generator=GeneratorInfo("extractive"), entity="020 794 3120", entity_kind="phone",
                    language="xx")  # fmt: skip
        sections = {"d1-s1": Section("d1-s1", "d1", "d1.html", "Narudžbe", text, 1, 1, 0)}
        values = {"phone": [("d1", "020 794 3120", "+31207943120", ""), ("d2", "020 555 0101", "+31205550101", "")]}
        made, failed = make_false_premises([item], 1.0, sections, values, seed=1)
        assert failed == [] and made[0].question.startswith("Koji je broj odjela? Čuo sam ")
        assert made[0].answer.startswith("Ne: 020 794 3120, ne ")
    finally:
        remove_language_folder(tmp_path)
    assert not skipped_heading("Uvod") and "xx" not in verbose_languages()


def test_language_data_read_before_a_folder_is_added_is_read_again(tmp_path: Path) -> None:
    """A cache of another module that read a language's data (its stop words) is cleared with the language
    caches: asked before the toy language's folder exists, the answer changes once it is added."""
    from qagen.generate.variants import search_query

    question = "Što trebam znati o «Narudžbe» u Bolnica?"
    before = search_query(question, "xx")  # no folder yet: nothing of xx is known, and that was cached
    folder = tmp_path / "xx"
    folder.mkdir()
    parts = {"frames": {"how_do_i": "Kako {task}?", "question_mark": "?"},
             "headings": {"frame": "Što trebam znati o «{heading}» u {subject}?"}}  # fmt: skip
    for name, value in parts.items():
        (folder / f"{name}.json").write_text(json.dumps(value, ensure_ascii=False), encoding="utf-8")
    add_language_folder(tmp_path)
    try:
        assert search_query(question, "xx") == "Narudžbe Bolnica" != before
    finally:
        remove_language_folder(tmp_path)


def test_every_bundled_language_has_every_frame_the_rules_use() -> None:
    needed = {"how_do_i", "what_is", "what_are", "what_does_do", "how_open", "in_product", "thing", "mcq_menu"}
    for code in ("en", "de", "fr", "es", "it", "nl", "pt"):
        data = load(code)
        assert data is not None and needed <= set(data.frames), code
        assert data.tasks.get("patterns") and data.words.get("pointers"), code


def test_no_generate_module_is_over_450_lines() -> None:
    root = Path(__file__).resolve().parents[1] / "qagen" / "generate"
    long = {p.name: n for p in root.rglob("*.py") if (n := len(p.read_text().splitlines())) > 450}
    assert not long, long


def test_a_wrapped_bullet_item_is_one_whole_step() -> None:
    from qagen.generate.offline.reading import steps

    body = (
        "Some tips:\n- \nStable is very stable. It gets\nsecurity support.\n"
        "- \nTesting has newer\nsoftware than Stable."
    )
    assert steps(body) == [
        "Stable is very stable. It gets security support.",
        "Testing has newer software than Stable.",
    ]


def test_a_how_to_needs_steps_and_a_title_case_heading_is_asked_in_sentence_case() -> None:
    captions = "Figure 17.2. Example of the filter\nOriginal image\nFilter applied with default options"
    ctx = ctx_of(
        {
            "a": ("Guide", [("Using the Blur Filter Creatively", captions)]),
            "b": ("Guide 2", [("Create a Floating Selection Automatically", f"Some commands do it. {STEPS}")]),
        },
        types=["long_form"],
    )
    assert questions(ctx) == {"How do I create a floating selection automatically?": "task_heading"}


def test_a_factoid_never_puts_the_page_title_before_the_question() -> None:
    from qagen.generate.offline import quotes_a_title

    assert quotes_a_title("For 13.6. Little Planet, on which website can I find images?", ("13.6. Little Planet", ""))
    assert quotes_a_title("Per “Layout di pagina”: a quale indirizzo posso scrivere?", ("Layout di pagina", ""))
    assert not quotes_a_title("What is the phone number of the appointments desk at the clinic?", ("Clinic", ""))
    title = ("AromaVita Warranty, Repairs and Returns", "Contact")
    assert quotes_a_title("For AromaVita Warranty, Repairs and Returns, where is the form online?", title)


def test_every_rule_is_switched_off_by_its_name() -> None:
    """No rule in the registry is decoration: switching any one off changes what a corpus gives or is refused."""
    docs = {
        "g": ("Crop", [("Activating the tool", "Open the tool from Tools → Transform → Crop . The tool crops."),
                       ("Cropping your image", f"The Crop tool trims. {STEPS}"), ("Contents", STEPS),
                       ("Changing the filter", f"Crop tool settings. {STEPS}")]),
        "h": ("Blur", [("Blur", "Use Filters → Blur → Gauss . The Blur filter blurs the image softly.")]),
        "k": ("Sharpen", [("Notes", "This filter sharpens the edges of the image. The filter works fast and well.")]),
    }  # fmt: skip
    base = {(i.question, i.answer) for i in generate_offline(ctx_of(docs, subject="PixelForge"))}
    from qagen.generate.offline.rules import BY_NAME

    for name in ("your_to_my", "skip_heading", "no_generic_thing", "name_the_product", "task_heading"):
        off = {
            (i.question, i.answer)
            for i in generate_offline(ctx_of(docs, subject="PixelForge", offline_rules_off=[name]))
        }
        assert off != base, name
    assert set(BY_NAME) >= {"your_to_my", "skip_heading", "no_generic_thing", "answer_length", "no_title_prefix"}


def test_a_contact_sentence_says_what_the_number_is_for() -> None:
    """The purpose after the number ("for questions about refills") is what the question asks for, not the heading."""
    text = (
        "The pharmacy on the ground floor is open on weekdays.\n"
        "Call 020 555 0142 or write to the desk for questions about refills."
    )
    asked = questions(ctx_of({"p": ("Pharmacy hours", [("Pharmacy hours", text)])}, types=["factoid"]))
    assert asked == {"Which phone number can I call for questions about refills?": "contact"}


def test_a_title_that_is_no_name_is_left_out_of_a_factoid_rather_than_losing_it() -> None:
    """A page titled like a heading ("Pharmacy hours") gives its contact question without the title in front."""
    text = "Call 020 555 0142 for help with your prescription."
    asked = questions(ctx_of({"p": ("Opening times and holidays", [("Opening hours", text)])}, types=["factoid"]))
    assert list(asked) == ["Which phone number can I call for help with my prescription?"]
    off = ctx_of({"p": ("Opening times and holidays", [("Opening hours", text)])}, types=["factoid"],
                 offline_rules_off=["no_title_prefix"])  # fmt: skip
    assert list(questions(off)) == [
        "For “Opening times and holidays”, which phone number can I call for help with my prescription?"
    ]


def test_a_section_is_read_without_navigation_captions_labels_and_repeated_lines() -> None:
    from qagen.generate.offline.reading import boilerplate, clean_heading, own_body

    assert clean_heading("3.6. Median Blur › 3.6.1. Overview") == "Overview"
    assert own_body("4.7. Change the Mode\n4. Common Tasks", "4.7. Change the Mode") == ""
    assert own_body("8. The Box\nChapter 7. Painting with GIMP", "8. The Box") == ""
    text = "Figure 17.158. Example of the filter\nOriginal image\nFilter applied\nThe filter adds noise to a layer."
    assert own_body(text, "Overview", ["Figure"]) == "The filter adds noise to a layer."
    assert own_body(f"Do this:\n{STEPS}", "Saving", ["Figure"]) == f"Do this:\n{STEPS}"  # numbered steps stay
    pages = {d: [f"Page {d} says something of its own.\nReport a bug in GIMP"] for d in "abcd"}
    repeated = boilerplate(pages)
    assert repeated == {"Report a bug in GIMP"}
    assert own_body(pages["a"][0], "Page a", (), repeated) == "Page a says something of its own."


def test_a_page_whose_first_section_is_its_navigation_is_described_from_its_body() -> None:
    def body(name: str) -> str:  # each page's own words (a line on every page is the site's, not the page's)
        return (
            f"This command {name.lower()}s a normal selection. The command keeps the pixels. "
            f"You can undo this command's {name.lower()} with the mouse before you anchor it."
        )

    pages = {}
    for k, (d, name) in enumerate([("f", "Float"), ("g", "Grow"), ("h", "Shrink")], 1):
        heading = f"4.{k}. {name}"
        pages[d] = (heading, [(heading, f"{heading}\n4. The Select Menu"), (heading, body(name))])
    asked = {i.question: i for i in generate_offline(ctx_of(pages, types=["long_form"], subject="GIMP"))}
    item = asked["What does the Float command do in GIMP?"]
    assert item.generator.rule == "what_does_do" and item.answer.startswith("This command floats")
    assert item.source.section_ids == ("f-s1",)
    assert not any("Select Menu" in i.answer for i in asked.values())


def test_a_short_section_in_another_language_of_the_corpus_is_asked_in_it() -> None:
    english = "You can use this filter to turn the colors of an image. " * 12
    french = "On accède à ce filtre par le menu d'image en suivant Couleurs → Carte → Rotation des couleurs ."
    ctx = ctx_of(
        {
            "r": ("Rotation des couleurs", [("Overview", english), ("Accès", french)]),
            "e": ("Other", [("Overview", english)]),
            "f": ("Autre", [("Aperçu", "Ce filtre change les couleurs de l'image et garde les formes. " * 12)]),
        },
        types=["long_form"],
        subject="GIMP",
    )
    assert ctx.language_of("r-s1") == "en"  # too short for the context's own check
    made = [i for i in generate_offline(ctx) if i.source.section_ids == ("r-s1",)]
    assert made and all(i.language == "fr" for i in made), [(i.language, i.question) for i in made]


def test_a_how_to_answer_keeps_the_sentence_before_its_list_and_labels_are_no_answer() -> None:
    after = " ".join(["The tool remembers its settings between sessions and images."] * 16)
    body = f"You can open the tool in two ways:\n- from the menu Tools → Paint → Heal,\n- or with the H key.\n\n{after}"
    ctx = ctx_of({"t": ("Heal", [("How do I open the healing tool?", body)])}, types=["long_form"])
    item = next(i for i in generate_offline(ctx) if i.generator.rule == "question_heading")
    assert item.answer.startswith("You can open the tool in two ways: 1. from the menu")
    labels = "Left: origin\nMiddle: radius = 1 applied twice\nRight: radius = 1 applied three times\nReducing scratches"
    ctx = ctx_of({"m": ("Median", [("How do I reduce noise with median blur?", labels)])}, types=["long_form"])
    assert questions(ctx) == {}


def test_a_title_article_is_not_doubled_and_a_plural_name_gets_no_noun_after_it() -> None:
    body = "This brush paints with several images. The brush turns as you paint. Save this brush as a file."
    ctx = ctx_of({"b": ("The Dialog Box Editor", [("Overview", body)])}, types=["long_form"], subject="GIMP")
    assert "What does the Dialog Box Editor brush do in GIMP?" in questions(ctx)
    modes = "This mode blends a layer with the layers below it. Each mode gives its own result. Pick this mode."
    ctx = ctx_of({"l": ("Layer Modes", [("Overview", modes)])}, types=["long_form"], subject="GIMP")
    assert not any("Modes mode" in q for q in questions(ctx))


def test_a_name_typeset_in_capitals_is_written_as_the_corpus_spells_it() -> None:
    from qagen.generate.offline.reading import written_as

    assert written_as("LATEX", ["run LATEX twice", "a LaTeX file", "see \\LaTeX", "LaTeX2e"]) == "LaTeX"
    assert written_as("GIMP", ["GIMP opens", "Gimp is free"]) == "GIMP"  # one capital is no inner capital
    assert written_as("LaTeX", ["LATEX"]) == "LaTeX"


def test_a_page_is_named_with_a_noun_its_text_says_of_it_and_without_a_menu_ellipsis() -> None:
    # "tool" is said of other things only (the Bucket Fill tool, a bare "the tool"): no "Patterns tool"
    patterns = (
        "Patterns are small images that fill an area. Use the Bucket Fill tool to fill with one. "
        "The tool takes the pattern you choose. Click the tool again to pick another one. The tool is fast."
    )
    ctx = ctx_of({"p": ("Patterns", [("Overview", patterns)])}, types=["long_form"], subject="GIMP")
    assert not any("Patterns tool" in q or "tool Patterns" in q for q in questions(ctx)), questions(ctx)
    # "this filter" says it of the page's thing; the menu entry's ellipsis is no part of its name
    alpha = "This filter makes one colour transparent. The filter keeps the other colours. Use this filter on logos."
    ctx = ctx_of({"a": ("Color to Alpha…", [("Overview", alpha)])}, types=["long_form"], subject="GIMP")
    asked = questions(ctx)
    assert "What does the Color to Alpha filter do in GIMP?" in asked, asked
    assert not any("…" in q for q in asked)


def test_a_section_that_names_its_own_thing_is_asked_what_it_does() -> None:
    from qagen.generate.offline.phrases import heading_thing

    body = "The Hdiv command typesets the space of vector fields with a divergence in L2. It takes one argument."
    ctx = ctx_of({"s": ("The sobolev package", [("3.2 The Hdiv command", body)])}, types=["long_form"])
    assert questions(ctx).get("What does the Hdiv command do?") == "what_does_do", questions(ctx)
    en, es = load("en"), load("es")
    assert heading_thing("3.1 The H command", en).name == "H"
    assert heading_thing("Package options", en) is None and heading_thing("Command overview", en) is None
    assert heading_thing("La herramienta Emborronar", es).name == "Emborronar"
    assert heading_thing("La herramienta de rejilla", es) is None  # a function word is no name
    off = ctx_of({"s": ("The sobolev package", [("3.2 The Hdiv command", body)])}, types=["long_form"],
                 offline_rules_off=["section_thing"])  # fmt: skip
    assert "What does the Hdiv command do?" not in questions(off)
    # an answer that opens as a fragment of code or a clause is none
    code = "_{\\Hdiv{x}} gives the space with a subscript in it. It is short and it keeps the size of the symbol."
    ctx = ctx_of({"s": ("The sobolev package", [("3.2 The Hdiv command", code)])}, types=["long_form"])
    assert "What does the Hdiv command do?" not in questions(ctx)


def test_a_caption_line_does_not_open_an_answer() -> None:
    body = (
        "Original\nFocus Blur applied\nThis filter blurs the image around a focus point and keeps that point sharp.\n"
        "It imitates a shallow depth of field."
    )
    ctx = ctx_of({"f": ("Focus Blur", [("Overview", body)])}, types=["long_form"], subject="GIMP")
    item = next(i for i in generate_offline(ctx) if i.generator.rule == "what_does_do")
    assert item.answer.startswith("This filter blurs"), item.answer
    from qagen.generate.offline.reading import without_labels

    wrapped = "You can open the dialog from the\nImage menu\nor with a key."  # a wrapped line is no label
    assert without_labels(wrapped) == wrapped
    item = "You can open it in two ways:\n-\nFrom the image menu bar\nTools → Ellipse Select ;\n- With the key E."
    assert without_labels(item) == item  # a list item's own words, under its bullet


def test_a_menu_choice_whose_stem_points_to_the_key_is_not_made() -> None:
    def page(name: str, path: str) -> tuple[str, list[tuple[str, str]]]:
        text = f"This mode changes how colours are stored. Use this mode with care. Open it from {path} ."
        return (name, [(name, text)])

    others = {f"o{k}": page(f"Other {k}", p) for k, p in enumerate(
        ["Colors → Map → Other 0", "Colors → Auto → Other 1", "Layer → Stack → Other 2", "Layer → Crop → Other 3"]
    )}  # fmt: skip
    # "Image → Mode → Indexed": the stem's "mode" is only in the key's menus, so the item is not made
    ctx = ctx_of({"i": page("Indexed", "Image → Mode → Indexed"), **others}, types=["mcq"], subject="GIMP")
    assert not [i for i in generate_offline(ctx) if i.generator.rule == "menu_choice" and "Indexed" in i.question]
    off = ctx_of({"i": page("Indexed", "Image → Mode → Indexed"), **others}, types=["mcq"], subject="GIMP",
                 offline_rules_off=["no_echo"])  # fmt: skip
    assert [i for i in generate_offline(off) if i.generator.rule == "menu_choice" and "Indexed" in i.question]


def test_a_task_of_a_document_about_one_thing_names_the_thing() -> None:
    steps = "1. Load the library in the preamble.\n2. Write \\dpoint{a}{0}{0} for each point.\n3. Compile twice."
    docs = {"s": ("The stanli package", [("Placing points", steps)]), "o": ("The other package", [("Notes", STEPS)])}
    asked = questions(ctx_of(docs, types=["long_form"], subject="LaTeX"))
    assert asked.get("How do I place points with the stanli package?") == "task_heading", asked
    off = questions(ctx_of(docs, types=["long_form"], subject="LaTeX", offline_rules_off=["name_the_thing"]))
    assert "How do I place points in LaTeX?" in off
    schritte = "1. Öffnen Sie das Bild.\n2. Wählen Sie den Bereich mit der Maus.\n3. Drücken Sie die Eingabetaste."
    german = {
        "g": ("Filter Gauß", [("Ein Bild weichzeichnen", schritte)]),
        "h": ("Filter Sobel", [("Hinweise", schritte)]),
    }
    asked = questions(ctx_of(german, types=["long_form"], subject="GIMP"))
    assert "Wie kann ich mit dem Filter „Gauß“ ein Bild weichzeichnen?" in asked, asked


def test_a_document_that_never_names_the_corpus_product_is_not_asked_in_it() -> None:
    docs = {
        "a": ("GIMP layers", [("Adding a layer", STEPS)]),
        "b": ("GIMP brushes", [("Creating a brush", STEPS.replace("image", "brush"))]),
        "r": ("PDF user guide", [("Changing fonts", "1. Call setFont on the canvas.\n2. Pass the size.\n3. Draw.")]),
    }
    asked = questions(ctx_of(docs, types=["long_form"]))
    assert "How do I add a layer in GIMP?" in asked, asked
    assert not [q for q in asked if "font" in q], asked  # not "in GIMP", and without a name it asks nothing
    off = questions(ctx_of(docs, types=["long_form"], offline_rules_off=["own_product"]))
    assert "How do I change fonts in GIMP?" in off, off


def test_a_term_of_a_document_about_one_thing_is_asked_in_that_thing() -> None:
    tank = "A cone roof tank is a large tank placed on the ground and useful to store process fluids or solids."
    docs = {"c": ("The chemplants package", [("Cone roof tank", tank)]), "o": ("The other package", [("Notes", STEPS)])}
    asked = questions(ctx_of(docs, types=["long_form"], subject="LaTeX"))
    assert asked.get("What is a cone roof tank in the chemplants package?") == "definition", asked
    off = questions(ctx_of(docs, types=["long_form"], subject="LaTeX", offline_rules_off=["name_the_thing"]))
    assert "What is a cone roof tank in LaTeX?" in off, off


def test_a_task_heading_is_read_before_its_colon_and_glued_marks_and_code_answers_are_vetoed() -> None:
    assert task_of("Moving the origin: the translate method", load("en")) == "move the origin"
    docs = {
        "f": ("The causets package", [("Notes", "1See https://arxiv.org/abs/0706.0375 for more on causal sets.")]),
        "b": ("The BaseDocTemplate class", [("The BaseDocTemplate class", "BaseDocTemplate(self, filename, "
              "pagesize=defaultPageSize, pageTemplates=[], showBoundary=0, leftMargin=inch, rightMargin=inch, "
              "topMargin=inch) is the base class of document templates.")]),
    }  # fmt: skip
    asked = questions(ctx_of(docs, types=["long_form", "factoid"], subject="LaTeX"))
    assert not [q for q in asked if "1See" in q or "BaseDocTemplate" in q], asked
    off = questions(
        ctx_of(docs, types=["long_form", "factoid"], subject="LaTeX", offline_rules_off=["no_garble", "prose_answer"])
    )
    assert [q for q in off if "BaseDocTemplate" in q], off
    assert garbled("Where can I find the 1See online?") and not garbled("How are 2D-orders drawn?")


def test_a_question_heading_names_the_thing_of_its_document() -> None:
    answer = "Write \\metrics{-} in the verse and the hyphen is printed as it is in the text of the poem."
    docs = {
        "m": ("The metrix package", [("How can I show a hyphen character?", answer)]),
        "o": ("The other package", [("Notes", STEPS)]),
    }
    asked = questions(ctx_of(docs, types=["long_form"], subject="LaTeX"))
    assert asked.get("How can I show a hyphen character with the metrix package?") == "question_heading", asked
    off = questions(ctx_of(docs, types=["long_form"], subject="LaTeX", offline_rules_off=["question_names_thing"]))
    assert "How can I show a hyphen character?" in off, off


def test_a_contact_is_not_asked_about_its_section_heading() -> None:
    feedback = (
        "Any feedback on metrix is welcome. You may use its repository at https: //github.com/versmass/metrix to "
        "request features and report bugs or send me an e-mail (mail@versmass.de).\nPlease note that the examples "
        "may be wrong."
    )
    docs = {
        "m": ("The metrix package", [("3.2 Feedback", feedback)]),
        "c": ("The other package", [("Contact", "Send me an e-mail (piet.smit@example.org) with any question.")]),
    }
    asked = questions(ctx_of(docs, types=["factoid"], subject="LaTeX"))  # fmt: skip
    assert not [q for q in asked if "feedback" in q.lower()], asked
    off = questions(ctx_of(docs, types=["factoid"], subject="LaTeX", offline_rules_off=["no_heading_topic"]))
    assert [q for q in off if "feedback" in q.lower()], off
    assert garbled("Where can I find the 1see 2see online?") and not garbled("Which 64bit build do I need?")


def test_definition_distractors_come_from_the_same_document() -> None:
    terms = {
        "Galley": "A galley is a rectangular area which receives text and other material filled into it.",
        "Template": "A template is a named set of instructions that lays out one kind of document object.",
        "Instance": "An instance is a template with every one of its keys given a value by the designer.",
        "Socket": "A socket is a place in the code where one of several plugins can be inserted later.",
    }
    other = [("Heap", "A heap is a tree in which every parent holds a key no greater than its children.")]
    docs = {"l": ("The xgalley package", list(terms.items())), "o": ("The heaps package", other * 1)}
    made = [i for i in generate_offline(ctx_of(docs, types=["mcq"], subject="LaTeX"))]
    choices = [i for i in made if i.generator.rule == "definition_choice"]
    assert choices, made
    for item in choices:
        assert not [o for o in item.options if "parent holds a key" in o], item.options
