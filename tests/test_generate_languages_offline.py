"""Offline generation in en, nl, de, fr, es, it, pt: every item type, questions in the document's language."""

from __future__ import annotations

import re

import pytest

from qagen.config import GenerateConfig
from qagen.filters.language import other_language
from qagen.generate.context import GenerationContext
from qagen.generate.extractive import generate_extractive
from qagen.generate.forms import forms, languages
from qagen.records import Document, FoldAssignment, Section

# Per language: a title, a heading, a prose section with a command, and a contact line.
DOCS = {
    "en": (
        "The multicol package",
        "Column breaks",
        "To end a column early, use the \\columnbreak command inside the environment of the package.",
        "Questions about the package can be sent to the support desk at help@multicol.example.net anytime.",
    ),
    "nl": (
        "Het multicol-pakket",
        "Kolommen afbreken",
        "Gebruik het commando \\columnbreak binnen de omgeving om een kolom eerder te beëindigen.",
        "Met vragen over het pakket kunt u altijd mailen naar help@multicol.example.net voor hulp.",
    ),
    "de": (
        "Das Paket multicol",
        "Spaltenumbruch",
        "Um eine Spalte früher zu beenden, verwenden Sie den Befehl \\columnbreak innerhalb der Umgebung.",
        "Fragen zum Paket können Sie jederzeit per E-Mail an help@multicol.example.net schicken.",
    ),
    "fr": (
        "Le paquet multicol",
        "Sauts de colonne",
        "Pour terminer une colonne plus tôt, utilisez la commande \\columnbreak dans l'environnement.",
        "Pour toute question sur le paquet, vous pouvez écrire à help@multicol.example.net à tout moment.",
    ),
    "es": (
        "El paquete multicol",
        "Usar los saltos de columna",
        "Para terminar una columna antes, use la orden \\columnbreak dentro del entorno del paquete.",
        "Si tiene preguntas sobre el paquete, puede escribir a help@multicol.example.net en cualquier momento.",
    ),
    "it": (
        "Il pacchetto multicol",
        "Usare le interruzioni di colonna",
        "Per terminare prima una colonna e passare alla successiva, usate il comando \\columnbreak "
        "all'interno dell'ambiente del pacchetto.",
        "Per domande sul pacchetto potete scrivere in qualsiasi momento a help@multicol.example.net.",
    ),
    "pt": (
        "O pacote multicol",
        "Usar as quebras de coluna",
        "Para terminar uma coluna mais cedo, use o comando \\columnbreak dentro do ambiente do pacote.",
        "Se tiver dúvidas sobre o pacote, pode escrever para help@multicol.example.net a qualquer momento.",
    ),
}
OTHER = [  # sections of other documents: distractor commands for the cloze
    ("Balancing", "The \\raggedcolumns command stops the last page's columns from being stretched."),
    ("Gaps", "The gap between columns is set with \\setlength and the \\columnsep length."),
    ("Rules", "A rule between columns is drawn when you change \\columnseprule with \\setlength first."),
]


# A second sentence per language: a heading question is answered by a whole section of 40 words or more
MORE = {
    "en": "The command works in every column except the last one, where the environment balances the columns.",
    "nl": "Het commando werkt in elke kolom behalve de laatste, waar de omgeving de kolommen zelf verdeelt.",
    "de": "Der Befehl wirkt in jeder Spalte außer der letzten, in der die Umgebung die Spalten selbst ausgleicht.",
    "fr": "La commande fonctionne dans chaque colonne sauf la dernière, où l'environnement équilibre les colonnes.",
    "es": "La orden funciona en cada columna excepto en la última, donde el entorno equilibra las columnas.",
    "it": "Il comando funziona in ogni colonna tranne l'ultima, dove l'ambiente bilancia le colonne da solo.",
    "pt": "O comando funciona em todas as colunas exceto a última, onde o ambiente equilibra as colunas sozinho.",
}


def items_in(language: str) -> list:
    title, heading, prose, contact = DOCS[language]
    prose = f"{prose} {MORE[language]}"
    sections = [Section("d-0", "d", "d.pdf", heading, f"{prose}\n{contact}", 1, 1, 0)]
    sections += [Section(f"o-{k}", "o", "o.pdf", h, t, 1, 1, k) for k, (h, t) in enumerate(OTHER)]
    docs = [Document("d", "d.pdf", "", "pdf", "ok", title=title), Document("o", "o.pdf", "", "pdf", "ok", title="X")]
    assignments = [FoldAssignment(s.id, 0, s.id, "kept", 0, "validation", sampled=s.doc_id == "d") for s in sections]
    config = GenerateConfig(phone_region="US", entity_kinds=["email", "url", "phone"])
    ctx = GenerationContext.build(sections, [], assignments, seed=0, config=config, documents=docs)
    assert ctx.language_of("d-0") == language
    return generate_extractive(ctx)


def test_every_language_of_the_brief_has_a_forms_file() -> None:
    assert {"nl", "de", "fr", "es", "it", "pt"} <= set(languages())
    for code in ("de", "fr", "es", "it", "pt"):
        data = forms(code)
        assert {"heading", "cloze", "factoid"} <= set(data), code
        assert set(data["cloze"]) >= {"command", "phone", "email", "url", "money", "percent", "time"}, code


@pytest.mark.parametrize("language", sorted(DOCS))
def test_every_item_type_offline_in_the_documents_language(language: str) -> None:
    items = items_in(language)
    assert {i.type for i in items} == {"long_form", "factoid", "mcq"}, [(i.type, i.question) for i in items]
    for item in items:
        assert item.language == language
        assert other_language(item.question, language) is None, item.question
    mcq = next(i for i in items if i.type == "mcq")
    # English asks "which command do I use ... ?"; the other languages fill a gap in their own words
    assert mcq.answer == "\\columnbreak" and ("____" in mcq.question or language == "en")
    factoid = next(i for i in items if i.type == "factoid")
    assert factoid.entity == "help@multicol.example.net" and "multicol" in factoid.question
    assert not any(f" {a} " in item.question for item in items for a in ("Il", "Het", "Das", "Le", "El", "O"))


@pytest.mark.parametrize(
    ("language", "loose"),
    [("it", r"\b(?:su|in|di) (?:il|lo|la|i|gli|le)\b"), ("pt", r"\b(?:em|de) (?:o|a|os|as)\b"), ("de", r"\bbei das\b")],
)
def test_prepositions_and_articles_are_joined_as_the_language_writes_them(language: str, loose: str) -> None:
    questions = [i.question for i in items_in(language)]
    assert questions and not [q for q in questions if re.search(loose, q, re.IGNORECASE)], questions


def test_dutch_headings_with_a_preposition_or_an_imperative_read_as_dutch_questions() -> None:
    from qagen.generate.phrasing import _heading_question_nl

    subject = "“Handleiding Debian Edu”"
    asked = {h: _heading_question_nl(h, "Handleiding Debian Edu", subject)[0] for h in (
        "Bij een opstelling zonder LTSP-clients",
        "Voeg een LTSP-chroot toe om 32-bits clients te ondersteunen",
        "Installeer de hoofdserver",
        "Gebruik van de printer",
    )}  # fmt: skip
    assert asked["Bij een opstelling zonder LTSP-clients"] == (
        "Wat moet ik weten bij een opstelling zonder LTSP-clients in “Handleiding Debian Edu”?"
    )  # not "weten over bij een opstelling"
    assert asked["Voeg een LTSP-chroot toe om 32-bits clients te ondersteunen"].endswith(
        "hoe voeg ik een LTSP-chroot toe om 32-bits clients te ondersteunen?"
    )
    assert asked["Installeer de hoofdserver"].endswith("hoe installeer ik de hoofdserver?")
    assert asked["Gebruik van de printer"].startswith("Wat moet ik weten over gebruik van de printer")  # a noun


def test_titles_from_file_names_drop_language_segments_and_repeats() -> None:
    from qagen.generate.context import _humanize

    assert _humanize("es__babel-spanish__spanish.pdf") == "Babel spanish"
    assert _humanize("nl__debian-faq__basic-defs.nl.html") == "Debian faq basic defs"
    assert _humanize("it-security.pdf") == "It security"  # "it" here is a word, not a segment of its own
    assert _humanize("no-smoking.pdf") == "No smoking"


def test_no_phone_question_for_a_fax_number_and_no_website_question_for_a_question_heading() -> None:
    from qagen.generate.entities import extract_entities
    from qagen.generate.factoids import entity_question

    text = "Per informazioni: Telefax: +31 30 2513791. Telefono: +31 30 2513700."
    phones = [e for e in extract_entities(text, kinds=("phone",), region="NL") if e.kind == "phone"]
    asked = {e.text: entity_question(text, e, phones, "Contatti", "Manuale", "it") for e in phones}
    assert asked["+31 30 2513791"] is None and asked["+31 30 2513700"] is not None
    faq = "Kijk op https://www.debian.org/releases om te weten welke uitgaven 'stable' zijn."
    [url] = [e for e in extract_entities(faq, kinds=("url",), region="NL") if e.kind == "url"]
    question_heading = "Waarom bevat de officiële CD koppelingen naar 'frozen'? Ik dacht dat!?"
    assert entity_question(faq, url, [url], question_heading, "De Debian FAQ", "nl") is None
    # round 24: a website asked for the section's heading ("... informatie over «uitgaven van Debian»?")
    # read natural in none of 8 verdicts; the address on a contact page is the organisation's and stays
    assert entity_question(faq, url, [url], "Uitgaven van Debian", "De Debian FAQ", "nl") is None
    assert entity_question(faq, url, [url], "Contactgegevens", "De Debian FAQ", "nl") is not None
    assert entity_question(faq, url, [url], "Ulteriori informazioni", "La FAQ di Debian", "it") is not None


def test_a_chapter_title_names_its_chapter_and_a_function_word_names_no_subject() -> None:
    from qagen.generate.phrasing import _heading_question_nl, heading_question
    from qagen.generate.subjects import document_subject, names_subject

    title = "Hoofdstuk 16. Algemene informatie over de FAQ"
    subject = document_subject(title)
    assert subject == "“Algemene informatie over de FAQ”"  # the chapter number is no name; the rest describes
    assert not names_subject("Wat moet ik weten over beschikbaarheid?", subject)  # "over" is not the FAQ
    assert _heading_question_nl("Verkrijgbare formaten", title, subject)[0] == (
        "Wat moet ik weten over verkrijgbare formaten bij “Algemene informatie over de FAQ”?"
    )
    quoted = heading_question("«Péchés capitaux»", "Un guide essentiel pour LaTeX2e", "fr")
    assert quoted is not None and "««" not in quoted[0] and "« Péchés capitaux »" in quoted[0], quoted


def test_a_heading_of_author_names_is_no_topic_for_an_address_question() -> None:
    from qagen.generate.entities import extract_entities
    from qagen.generate.factoids import entity_question

    text = "Traduzione italiana: e-mail: Marc.Ensenbach@post.rwth-aachen.de"
    [email] = extract_entities(text, kinds=("email",), region="IT")
    title = "Elenco dei peccati degli utenti di LaTeX2e"
    asked = entity_question(text, email, [email], "Marc Ensenbach, Mark Trettin", title, "it")
    assert asked is not None and "Ensenbach, Mark" not in asked.question and "peccati" in asked.question


def test_a_heading_that_is_a_question_is_asked_as_one() -> None:
    from qagen.generate.phrasing import heading_question

    asked = heading_question("Cosa è fancyhdr", "Layout di pagina in LaTeX", "it")
    assert asked is not None and asked[0] == "Per “Layout di pagina in LaTeX”: cosa è fancyhdr?"  # not «Cosa è ...»
    spanish = heading_question("Cómo cambiar el estilo de la fuente", "Una guía esencial para LaTeX2e", "es")
    assert (
        spanish is not None
        and spanish[0].startswith("¿")
        and spanish[0].endswith("cómo cambiar el estilo de la fuente?")
    )


def test_a_licences_address_is_no_answer_to_a_which_website_question() -> None:
    from qagen.generate.entities import extract_entities
    from qagen.generate.factoids import entity_question

    licence = (
        "This material may be distributed only subject to the terms and conditions set forth in the Open "
        "Publication License, v1.0 or later (the latest version is presently available at http://www.opencontent.org/openpub/)."
    )
    [url] = extract_entities(licence, kinds=("url",), region="ES")
    assert entity_question(licence, url, [url], "Una guía esencial", "l2tabusp", "es") is None
    info = "Más información sobre el paquete en http://www.ctan.org/pkg/babel-spanish, con ejemplos."
    [ctan] = extract_entities(info, kinds=("url",), region="ES")
    assert entity_question(info, ctan, [ctan], "Más información", "Babel spanish", "es") is not None


def test_no_cloze_from_a_code_line_glued_to_a_sentence_tail_or_a_footnote_glued_to_a_cell() -> None:
    from qagen.generate.extractive import _cloze_targets
    from qagen.generate.terms import find_terms

    def targets(text: str, language: str) -> list[str]:
        section = Section("d-s0", "d", "d.pdf", "Il layout predefinito", text, 1, 1, 0)
        return [unit.text for unit, _ in _cloze_targets(section, find_terms(text), language)]

    tail = "\\pagestyle{fancy} e lasciamo che fancyhdr si occupi di tutto nelle pagine di ogni capitolo."
    assert targets(tail, "it") == []
    footnote = "\\Alph 1En próximas versiones se añadirán más países al paquete."
    assert targets(footnote, "es") == []
    sentence = "\\maketitle is used to print the title of the document on its first page."
    assert targets(sentence, "en") == [sentence]  # a verb after the command: a sentence of its own


def test_dutch_task_headings_become_how_can_i_questions() -> None:
    from qagen.generate.phrasing import _heading_question_nl

    subject = "“Handleiding Debian Edu”"

    def ask(heading: str) -> str:
        return _heading_question_nl(heading, "Handleiding Debian Edu", subject)[0]

    assert ask("Op de hoogte blijven van beveiligingsbijwerkingen").endswith(
        "hoe kan ik op de hoogte blijven van beveiligingsbijwerkingen?"
    )  # not "Wat moet ik weten op de hoogte blijven ..."
    assert ask("Wachtwoorden instellen").endswith("hoe kan ik wachtwoorden instellen?")
    assert ask("Printers gebruiken die met werkstations verbonden zijn").endswith(
        "hoe kan ik printers gebruiken die met werkstations verbonden zijn?"
    )
    assert ask("Grafische werkomgevingen").startswith("Wat moet ik weten over grafische werkomgevingen")  # a noun


def test_round_24_headings_in_the_other_languages() -> None:
    from qagen.generate.phrasing import heading_question

    amsmath = "Manuale utente per il pacchetto amsmath (versione 2.0)"
    # one word echoed: "Cosa devo sapere su «Radici»?", "Wat moet ik weten over wiki?" (none natural)
    assert heading_question("Radici", amsmath, "it") is None
    assert heading_question("xelatex", "Come comporre un frontespizio e vivere felici", "it") is None
    assert heading_question("Wiki", "Ondersteuning krijgen voor Debian GNU/Linux", "nl") is None
    assert heading_question("Beschikbaarheid", "Algemene informatie over de FAQ", "nl") is None
    # a task, asked as users ask it: "Cosa devo sapere su «Installare PSfrag»?" was an echo
    assert heading_question("Installare PSfrag", "Il sistema PSfrag, versione 3", "it") == (
        "Come posso installare PSfrag?",
        4,
    )
    asked = heading_question("Attaccare simboli ad altri simboli", amsmath, "it")
    assert asked is not None and asked[0].endswith("come posso attaccare simboli ad altri simboli?")
    asked = heading_question("Instalar el paquete", "Babel spanish", "es")
    assert asked is not None and "cómo puedo instalar el paquete?" in asked[0]
    # a noun heading asks nothing in Italian, Spanish and Portuguese (rounds 24-25: 0 of 36 natural);
    # French and German, never read, keep the frame
    assert heading_question("Opciones generales", "Babel spanish", "es") is None
    assert heading_question("Frazioni continue", amsmath, "it") is None
    asked = heading_question("Sauts de colonne", "Le paquet multicol", "fr")
    assert asked is not None and "Sauts de colonne" in asked[0]


def test_round_24_clozes_that_lean_on_the_sentence_before() -> None:
    from qagen.generate.extractive import _cloze_targets
    from qagen.generate.terms import find_terms

    def targets(text: str, language: str) -> list[str]:
        section = Section("d-s0", "d", "d.pdf", "Frazioni continue", text, 1, 1, 0)
        return [unit.text for unit, _ in _cloze_targets(section, find_terms(text), language)]

    assert targets("Questo produce un risultato migliore del comando \\frac nelle frazioni continue.", "it") == []
    assert targets("Se il corso è diviso, si usi questo comando: \\Interfacolta prima del titolo.", "it") == []
    spanish = [
        "Este proceso no es necesario si no se introdujo la entrada \\spanishindex en el índice.",
        "En cambio no están disponibles las comillas \\lquoti ni las adaptaciones de la tabla.",
    ]
    assert [targets(text, "es") for text in spanish] == [[], []]
    dutch = "Het kan ook gedownload worden van https://www.debian.org/doc/FAQ in verschillende formaten."
    assert targets(dutch, "nl") == []
    # a sentence that says what it is about stays
    kept = "Il comando \\cfrac produce frazioni continue nello stile usato nei libri di matematica."
    assert targets(kept, "it") == [kept]


def test_round_24_headings_that_name_a_place_a_note_or_what_came_before() -> None:
    from qagen.generate.phrasing import heading_question

    assert heading_question("Quarta sezione", "itnumpar package", "it") is None
    assert heading_question("Een noot over meer complexe opstellingen", "Handleiding Debian Edu", "nl") is None
    assert heading_question("Osservazioni di carattere generale", "Manuale utente amsmath", "it") is None
    assert heading_question("Wat bedoelt u daarmee?", "Een Debian-distributie kiezen", "nl") is None
    assert heading_question("Notation mathématique", "Le manuel amsmath", "fr") is not None  # not "note"
    assert heading_question("Une note sur les fractions", "Le manuel amsmath", "fr") is None


def test_no_cloze_over_a_lists_source_line() -> None:
    from qagen.generate.extractive import _cloze_targets
    from qagen.generate.terms import find_terms

    text = "\\item La mamma dà a Pierino \\euro{10} per comprare la frutta al mercato del paese."
    section = Section("d-s0", "d", "d.pdf", "Esercizi con il punteggio", text, 1, 1, 0)
    assert _cloze_targets(section, find_terms(text), "it") == []
    # held-out 30 (automultiplechoice): a sample's source line, "Name and surname:\\vspace*{3ex}\\par"
    text = "\\begin{minipage}{15em}\nName and surname:\\vspace*{3ex}\\par\n. . ."
    section = Section("d-s0", "d", "d.pdf", "Students identification", text, 1, 1, 0)
    assert _cloze_targets(section, find_terms(text), "en") == []
    # ... and the sentence after it, behind the margin's command
    for gap in ("  ", " \x88 "):  # a wide gap, or a glyph the PDF maps to a control character
        text = f"\\AMCcodeGridInt{gap}Always add to one page of each copy some place for the student to write a name."
        section = Section("d-s0", "d", "d.pdf", "Students identification", text, 1, 1, 0)
        assert _cloze_targets(section, find_terms(text), "en") == []


def test_no_cloze_over_a_pointer_to_a_numbered_section() -> None:
    from qagen.generate.extractive import _cloze_targets
    from qagen.generate.terms import find_terms

    text = "Controllare anche la descrizione del comando \\sideset nella sezione §7.2 del manuale utente."
    section = Section("d-s0", "d", "d.pdf", "Operatori grandi", text, 1, 1, 0)
    assert _cloze_targets(section, find_terms(text), "it") == []
    kept = "Il comando \\sideset mette simboli agli angoli di un operatore grande come la sommatoria."
    section = Section("d-s0", "d", "d.pdf", "Operatori grandi", kept, 1, 1, 0)
    assert [u.text for u, _ in _cloze_targets(section, find_terms(kept), "it")] == [kept]


def test_a_cloze_frame_with_several_wordings_takes_one_per_sentence() -> None:
    # round 25: "Quale comando manca in questa frase su ..." opened 28 % of the multilingual build
    from qagen.generate.extractive import _cloze_question
    from qagen.generate.terms import find_terms

    sentences = [f"Il comando \\cmd{k} imposta lo spazio numero {k} tra le colonne della tabella." for k in "abcdefgh"]
    asked = set()
    for sentence in sentences:
        term = next(t for t in find_terms(sentence) if t.kind == "command")
        question = _cloze_question(sentence, term, "Il pacchetto multicol", "it")
        assert question is not None and "____" in question
        asked.add(question.split(" questa frase")[0])
        assert question == _cloze_question(sentence, term, "Il pacchetto multicol", "it")  # deterministic
    assert asked == {"Quale comando manca in", "Quale comando completa"}


def test_round_25_an_english_package_subject_is_said_in_the_language_and_forward_pointers_are_skipped() -> None:
    from qagen.generate.extractive import _cloze_question, _cloze_targets
    from qagen.generate.forms import subject_in
    from qagen.generate.terms import find_terms

    # "Quale comando manca in questa frase su itnumpar package: ...?"
    assert subject_in("the itnumpar package", "it") == "il pacchetto itnumpar"
    assert subject_in("the verifica class", "it") == "la classe verifica"
    assert subject_in("the Debian FAQ", "nl") == "Debian FAQ"
    sentence = "Il comando \\numberstringnum rappresenta in parole il valore del contatore indicato."
    term = next(t for t in find_terms(sentence) if t.kind == "command")
    asked = _cloze_question(sentence, term, "The itnumpar package", "it")
    assert asked is not None and "sul pacchetto itnumpar" in asked and "itnumpar package" not in asked
    # "A continuación se presentan ..." points at what follows
    text = "A continuación se presentan las órdenes \\spanishdate y \\spanishdeactivate con sus opciones."
    section = Section("d-s0", "d", "d.pdf", "Órdenes de fecha", text, 1, 1, 0)
    assert _cloze_targets(section, find_terms(text), "es") == []


def test_round_28_clozes_that_lean_on_the_sentence_before_and_a_mac_address_is_no_time() -> None:
    from qagen.generate.extractive import _cloze_targets
    from qagen.generate.terms import find_terms

    def targets(text: str, language: str) -> list[str]:
        section = Section("d-s0", "d", "d.pdf", "Punteggio", text, 1, 1, 0)
        return [unit.text for unit, _ in _cloze_targets(section, find_terms(text), language)]

    italian = [
        "La prima si ottiene mediante il comando-dichiarazione \\punteggiorighe, che imposta la stampa.",
        "Di conseguenza, l'allineamento predefinito è bl, e la ricerca dei comandi \\tex avviene dopo.",
        "Il comando \\psfrag si usa come mostra il prossimo esempio nella figura del documento.",
    ]
    assert [targets(text, "it") for text in italian] == [[], [], []]
    assert targets("Por consiguiente, la orden \\selectlanguage cambia también las fechas del documento.", "es") == []
    mac = "Om een apparaat met een MAC-adres 52:54:00:12:34:10 een vast IP-adres te geven, opent u GOsa."
    assert not [t for t in find_terms(mac) if t.kind == "time"]
    assert [t.text for t in find_terms("De balie is open tot 17:30 op werkdagen.") if t.kind == "time"] == ["17:30"]


@pytest.mark.parametrize(
    ("language", "text"),
    [
        # multilingual round 30-34 readers: the sentence leans on what came before, or carries a footnote mark
        ("it", "Si noti che il parametro \\unitlength va modificato localmente nel disegno."),
        ("it", "Figura 3: lo stesso esempio PSfrag della figura 2, con il comando \\psfrag applicato."),
        ("es", "Las dos primeras establecen si se usa una coma con el comando \\decimalcomma en los números."),
        ("pt", "Além disto, o argumento \\xypolygon indica que os vértices do polígono são marcados."),
        ("it", "2Con LaTeX2.09 si deve specificare il comando \\pagestyle nelle opzioni del documento."),
    ],
)
def test_no_cloze_leaning_on_what_came_before(language: str, text: str) -> None:
    from qagen.generate.extractive import _cloze_targets
    from qagen.generate.terms import find_terms

    section = Section("d-s0", "d", "d.pdf", "Comandi", text, 1, 1, 0)
    assert _cloze_targets(section, find_terms(text), language) == []


def test_a_plain_sentence_in_another_language_keeps_its_cloze() -> None:
    from qagen.generate.extractive import _cloze_targets
    from qagen.generate.terms import find_terms

    kept = "Il comando \\pagestyle cambia lo stile di tutte le pagine del documento [latin1] corrente."
    section = Section("d-s0", "d", "d.pdf", "Stili di pagina", kept, 1, 1, 0)
    assert [u.text for u, _ in _cloze_targets(section, find_terms(kept), "it")] == [kept]
