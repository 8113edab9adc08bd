"""The long-form phrase rules: question headings, task headings, opening a thing, what a thing does, definitions.

Each function takes a :class:`Page` view of one section and returns ``(rule, question, answer, sections)``
drafts or None; the driver (:mod:`qagen.generate.offline`) applies the vetoes and rewrites and makes items.
Every word a rule needs comes from the language's data folder (:mod:`qagen.generate.lang`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from qagen.generate.lang import LanguageData
from qagen.generate.offline.naming import named_question, names_something
from qagen.generate.offline.reading import (
    answer_text,
    english_verb,
    fold,
    mostly_code,
    mostly_prose,
    namelike,
    opens_sentence,
    plain_name,
    sentences,
    steps,
    stop_words,
    text_before_list,
    without_labels,
    words,
)
from qagen.generate.offline.rules import on
from qagen.records import Section

ANSWER_WORDS = (8, 160)  # a long-form answer: whole sentences, within these bounds


@dataclass(frozen=True)
class Thing:
    """What a page is about: its name (from the title) and the generic noun the page calls it."""

    name: str
    noun: str
    article: str  # nominative
    article_acc: str
    titled: bool = False  # the document's title says it ("The stanli package"): the document is about it

    def said(self, lang: LanguageData, accusative: bool = False, dative: bool = False) -> str:
        article = self.article_acc if accusative else self.article
        if dative:  # words.dative_articles: "mit dem Paket" (a language without them keeps the nominative)
            article = (lang.words.get("dative_articles") or {}).get(self.article, self.article)
        spaced = article if article.endswith(("'", "’")) else f"{article} "
        frame = lang.frame("thing") or "{article}{noun} {name}"
        return frame.format(article=spaced, noun=self.noun, name=self.name)


@dataclass(frozen=True)
class Page:
    """One section as the rules see it, with its document's thing and the product to name."""

    section: Section
    heading: str
    lang: LanguageData
    thing: Thing | None
    product: str | None
    following: Section | None = None
    first_of_document: bool = False
    rules: frozenset[str] = frozenset()  # the rules in use (qagen.generate.offline.rules)
    unnamed: bool = False  # the corpus has a product this page's document does not name (rule own_product)


@dataclass(frozen=True)
class Draft:
    rule: str
    question: str
    answer: str
    section_ids: tuple[str, ...]
    parts: tuple[str, ...] = ()  # the pieces taken from the document (vetoes read these, not the frame)
    score: float = 0.5


def _fill(page: Page, frame_name: str, **values: str) -> str | None:
    frame = page.lang.frame(frame_name)
    if frame is None:
        return None
    in_product = with_thing = in_thing = ""
    thing = page.thing
    if (
        ("{with_thing}" in frame or "{in_thing}" in frame)
        and on(page.rules, "name_the_thing")
        and thing is not None
        and thing.titled
        and not any(fold(thing.name) in fold(v) for v in values.values())
    ):
        # a document about one thing of many (a package among a corpus of manuals): the task is asked of it
        said = {"thing": thing.said(page.lang), "thing_dat": thing.said(page.lang, dative=True)}
        with_thing = (page.lang.frame("with_thing") or "").format(**said) if "{with_thing}" in frame else ""
        in_thing = (page.lang.frame("in_thing") or "").format(**said) if "{in_thing}" in frame else ""
    if not (with_thing or in_thing) and page.unnamed and not names_something(page, values.values()):
        return None  # the corpus's product is not this document's, and no name says what the question is about
    if (
        not (with_thing or in_thing)
        and page.product
        and not any(page.product.lower() in v.lower() for v in values.values())
    ):
        in_product = (page.lang.frame("in_product") or "").format(product=page.product)
    text = frame.format(
        in_product=in_product, with_thing=with_thing, in_thing=in_thing, product=page.product or "", **values
    )
    return re.sub(r"\s+", " ", text).strip()


def _first_lower(text: str, lang: LanguageData) -> str:
    """The fragment's first word in lower case unless it is a name or the language keeps noun case."""
    first = text.split(" ", 1)[0]
    if namelike(first) or (lang.words.get("keeps_noun_case") and fold(first) not in stop_words(lang.code)):
        return text
    return first[:1].lower() + text[1:]


def _body_answer(page: Page, max_words: int = ANSWER_WORDS[1]) -> tuple[str, tuple[str, ...]] | None:
    """The section's whole body when it fits, its steps when it has them, else None (a cut answer is incomplete)."""
    body = page.section.text
    n = len(body.split())
    if n < ANSWER_WORDS[0] and page.following is not None and len(steps(page.following.text)) >= 2:
        return _body_answer_of(page.following.text, page, max_words, (page.section.id, page.following.id))
    return _body_answer_of(body, page, max_words, (page.section.id,))


def _body_answer_of(body: str, page: Page, max_words: int, ids: tuple[str, ...]) -> tuple[str, tuple[str, ...]] | None:
    n = len(body.split())
    if ANSWER_WORDS[0] <= n <= max_words:
        if not mostly_prose(body):
            return None
        prose = without_labels(body)
        return (" ".join(sentences(prose, page.lang.code)), ids) if len(prose.split()) >= ANSWER_WORDS[0] else None
    found = steps(body)
    if len(found) < 2:
        return None
    listed = " ".join(f"{i}. {s}" for i, s in enumerate(found, 1))
    lead = " ".join(sentences(text_before_list(body), page.lang.code))
    if lead and len(lead.split()) + len(listed.split()) <= max_words:
        return f"{lead} {listed}", ids  # "You can open it in three ways: 1. ... 2. ..."
    if lead and instructs(lead, page.lang):
        return None  # the lead holds a step the list leaves out: the steps alone are incomplete
    if len(listed.split()) <= max_words:
        return listed, ids
    return None


def instructs(answer: str, lang: LanguageData) -> bool:
    """A how-to answer holds steps: numbered steps, a menu path, or a step word of the language."""
    if re.search(r"(?:^|\s)1\.\s.+\s2\.\s", answer) or re.search(r"→|->|▸", answer):
        return True
    markers = lang.folded("step_markers")
    if not markers:  # a language whose data names no step words: not checked
        return True
    if any(fold(w) in markers for w in words(answer)):
        return True
    verbs = {fold(v) for v in lang.tasks.get("verbs", ())}  # a sentence opening with a task verb: an imperative
    return any(fold(first[0]) in verbs for s in sentences(answer, lang.code) if (first := words(s)))


def question_heading(page: Page) -> Draft | None:
    heading = page.heading
    mark = (page.lang.frame("question_mark") or "?").strip()
    if not heading.endswith(mark) or len(heading.split()) < 3:
        return None
    first = fold(words(heading)[0]) if words(heading) else ""
    if first not in page.lang.folded("question_openers"):
        return None
    answer = _body_answer(page)
    if answer is None:
        return None
    question = heading if heading[:1].isupper() or heading[:1] in "¿¡" else heading[:1].upper() + heading[1:]
    if on(page.rules, "question_names_thing") and not names_something(page, [question]):
        named = named_question(question, mark, page)
        if named is None:
            return None
        question = named
    return Draft("question_heading", question, answer[0], answer[1], (heading,), 0.9)


def task_heading(page: Page) -> Draft | None:
    task = task_of(page.heading, page.lang, my=on(page.rules, "your_to_my"))
    if task is None:
        return None
    task = _anchor(sentence_case(task, page.section.text, page.lang), page)
    if task is None:
        return None
    answer = _body_answer(page)
    if answer is None or (on(page.rules, "answer_length") and not instructs(answer[0], page.lang)):
        return None
    question = _fill(page, "how_do_i", task=task)
    return Draft("task_heading", question, answer[0], answer[1], (task,), 0.85) if question else None


def task_of(heading: str, lang: LanguageData, my: bool = True) -> str | None:
    """The task a heading states, as the words after "How do I ..." in the language, or None."""
    text = heading.rstrip("?？ ").strip()
    lead = re.split(r"\s*:\s+", text, maxsplit=1)[0]
    if lead != text and len(lead.split()) >= 2:
        text = lead  # "Moving the origin: the translate method": the task is before the colon
    verbs = {v.lower() for v in lang.tasks.get("verbs", ())}
    for pattern in lang.tasks.get("patterns", ()):
        match = re.match(pattern["match"], text, re.IGNORECASE)
        if not match:
            continue
        groups = match.groupdict()
        verb, rest = groups.get("verb") or "", groups.get("rest") or ""
        if len(rest.split()) > 12:
            return None
        form = pattern["form"]
        if form == "infinitive_last" and not _verb_in_place(verb, rest, lang):
            continue
        inflected = lang.tasks.get("verb_lemmas") == "lemminflect"  # English verb forms by lemminflect
        if inflected or verbs:
            base = english_verb(verb) if inflected else verb.lower()
            if base is None or (form in ("gerund", "imperative") and base not in verbs):
                continue
            verb = base
        if lang.tasks.get("coordinated_gerunds"):
            rest = _coordinated(rest, lang.tasks["coordinated_gerunds"])
        task = _join_task(form, verb, rest, lang)
        return _pronouns(task, lang) if my else task


def sentence_case(fragment: str, body: str, lang: LanguageData) -> str:
    """A Title Case heading's words in lower case unless the body writes them capitalised mid-sentence or they
    are names ("Create a Floating Selection Automatically" -> "create a floating selection automatically")."""
    if lang.words.get("keeps_noun_case"):
        return fragment
    capitalised = set(re.findall(r"(?<=[a-z,;] )([A-Z][\w-]+)", body))
    out = []
    for word in fragment.split(" "):
        keep = namelike(word) or word in capitalised or not word[:1].isupper()
        out.append(word if keep else word[:1].lower() + word[1:])
    return " ".join(out)


def _verb_in_place(verb: str, rest: str, lang: LanguageData) -> bool:
    """A final infinitive is written in lower case where nouns are not ("Ebene erstellen", not "zum Zeichnen"),
    and follows no function word ("het gebruik van lagen" is a noun phrase)."""
    if not lang.tasks.get("verb_lowercase") or not verb:
        return True
    last = rest.split()[-1] if rest.split() else ""
    return verb[:1].islower() and fold(last) not in stop_words(lang.code)


def _coordinated(rest: str, gerunds: dict) -> str:
    """ "... or changing an appointment" -> "... or change an appointment" (tasks.coordinated_gerunds: gerunds,
    by their ``suffix``, after one of the ``conjunctions``)."""
    tokens = rest.split(" ")
    conjunctions, suffix = set(gerunds.get("conjunctions", ())), gerunds.get("suffix") or "\0"
    for i in range(1, len(tokens)):
        # "... or changing an appointment": a gerund with an object; "pain and swelling" ends in a noun
        if tokens[i - 1].lower() in conjunctions and tokens[i].lower().endswith(suffix) and i + 1 < len(tokens):
            base = english_verb(tokens[i])
            if base:
                tokens[i] = base
    return " ".join(tokens)


def _join_task(form: str, verb: str, rest: str, lang: LanguageData) -> str:
    if form in ("infinitive_last", "so_sie"):
        parts = rest.split()
        particles = {p.lower() for p in lang.tasks.get("particles", ())}
        if form == "so_sie" and parts and parts[-1].lower() in particles:
            verb, parts = parts[-1].lower() + verb.lower(), parts[:-1]
        return _first_lower(" ".join([*parts, verb.lower()]), lang) if parts else verb.lower()
    if not verb:
        return _first_lower(rest, lang)
    return f"{verb.lower()} {rest}".strip()


def _pronouns(task: str, lang: LanguageData) -> str:
    table = {k.lower(): v for k, v in (lang.tasks.get("object_pronouns") or {}).items()}
    return " ".join(table.get(word.lower(), word) if word else word for word in task.split(" "))


def _anchor(fragment: str, page: Page) -> str | None:
    """A generic noun of the fragment ("the filter") named by the page's thing, or None when none names it."""
    nouns, articles = page.lang.folded("generic_nouns"), _articles(page.lang)
    tokens = fragment.split()
    for i, token in enumerate(tokens):
        if fold(token) not in nouns:
            continue
        if page.thing is None or fold(page.thing.noun) != fold(token):
            unnamed = i > 0 and fold(tokens[i - 1]) in articles
            return None if unnamed and on(page.rules, "no_generic_thing") else fragment
        if i == 0 or fold(tokens[i - 1]) not in articles:
            return fragment
        article = tokens[i - 1]
        said = Thing(page.thing.name, token, article, article).said(page.lang)
        return " ".join([*tokens[: i - 1], said, *tokens[i + 1 :]])
    return fragment


def _articles(lang: LanguageData) -> frozenset[str]:
    found = frozenset(fold(a).rstrip("'’") for pair in (lang.words.get("generic_nouns") or {}).values() for a in pair)
    return found | lang.folded("demonstratives")


def open_thing(page: Page) -> Draft | None:
    if page.thing is None:
        return None
    heading = fold(page.heading)
    forms = {fold(h.format(noun=page.thing.noun)) for h in page.lang.words.get("activation_headings", ())}
    if heading not in forms:
        return None
    answer = _body_answer(page, 80)
    if answer is None:
        return None
    question = _fill(page, "how_open", thing_acc=page.thing.said(page.lang, accusative=True))
    return Draft("open_thing", question, answer[0], answer[1], (page.thing.name,), 0.8) if question else None


def heading_thing(heading: str, lang: LanguageData) -> Thing | None:
    """The thing a section's heading names in the order of the language's ``thing`` frame ("The H command",
    "The tabular environment", "Le filtre Flou"), or None. Without an article the name must look like one
    (a capital inside it, all capitals, code); a heading whose name holds another generic noun ("Package
    options") names none."""
    tokens = plain_name(heading).split()
    nouns = lang.words.get("generic_nouns") or {}
    folded = {fold(n): n for n in nouns}
    articles = _articles(lang) - lang.folded("demonstratives")
    article = bool(tokens) and fold(tokens[0]).rstrip("'’") in articles
    tokens = tokens[1:] if article else tokens
    if not 2 <= len(tokens) <= 5:
        return None
    frame = lang.frame("thing") or "{article}{noun} {name}"
    name_first = frame.index("{name}") < frame.index("{noun}")
    noun_word, rest = (tokens[-1], tokens[:-1]) if name_first else (tokens[0], tokens[1:])
    noun = folded.get(fold(noun_word))
    if noun is None or any(fold(w) in folded for w in rest):
        return None
    name = " ".join(rest)
    if not (article or namelike(rest[0]) or name.startswith("\\")):
        return None
    if (len(rest[0]) > 1 and fold(rest[0]) in stop_words(lang.code)) or task_of(heading, lang) is not None:
        return None  # "La herramienta de rejilla" names no thing
    if not name_first and not (rest[0][:1].isupper() or name.startswith("\\")):
        return None  # after its noun a name is capitalised ("le filtre Flou"); "Het gereedschap activeren" is a task
    pair = nouns[noun]
    written = noun_word if lang.words.get("keeps_noun_case") else noun
    return Thing(name, written, pair[0], pair[1] if len(pair) > 1 else pair[0])


def what_does_do(page: Page) -> Draft | None:
    own = heading_thing(page.heading, page.lang) if on(page.rules, "section_thing") else None
    if own is not None and (page.thing is None or fold(own.name) != fold(page.thing.name)):
        page = replace(page, thing=own)  # "3.2 The Hdiv command": the section's own thing
    elif page.thing is None:
        return None
    else:
        described = fold(page.heading) in page.lang.folded("description_headings")
        if not (described or page.first_of_document):
            return None
    found = sentences(without_labels(page.section.text), page.lang.code)
    # the first of the opening sentences that is about the thing (a title page opens with authors and dates)
    start = next(
        (i for i, sentence in enumerate(found[:4]) if _about_thing(_after_label(sentence, page.lang), page)), None
    )
    if start is None:
        return None
    answer = answer_text(" ".join([_after_label(found[start], page.lang), *found[start + 1 :]]), page.lang.code, 60)
    if len(answer.split()) < ANSWER_WORDS[0] or not opens_sentence(answer) or _code_like(answer, page):
        return None
    question = _fill(page, "what_does_do", thing=page.thing.said(page.lang))
    return Draft("what_does_do", question, answer, (page.section.id,), (page.thing.name,), 0.75) if question else None


def _code_like(answer: str, page: Page) -> bool:
    """The answer's first sentence is mostly code (rule prose_answer; :func:`mostly_code`)."""
    return on(page.rules, "prose_answer") and mostly_code((sentences(answer, page.lang.code) or [answer])[0])


def _after_label(sentence: str, lang: LanguageData) -> str:
    """The sentence after a run-in label (words.run_in_labels: "... 2019 Abstract This package ...")."""
    labels = "|".join(re.escape(w) for w in lang.words.get("run_in_labels", ()))
    match = re.search(rf"\b(?:{labels})\b\s+", sentence) if labels else None
    return sentence[match.end() :] if match else sentence


def _about_thing(sentence: str, page: Page) -> bool:
    tokens = [fold(w) for w in words(sentence)[:6]]
    demonstratives = page.lang.folded("demonstratives")
    noun = fold(page.thing.noun) if page.thing else ""
    if len(tokens) >= 2 and tokens[0] in demonstratives and tokens[1].rstrip("s") == noun:
        return True
    name = [fold(w) for w in words(page.thing.name)] if page.thing else []
    return bool(name) and any(tokens[i : i + len(name)] == name for i in range(3))


def definition(page: Page) -> Draft | None:
    found = sentences(without_labels(page.section.text), page.lang.code)
    if not found:
        return None
    parsed = defined_term(found[0], page)
    if parsed is None:
        return None
    term, copula, _predicate = parsed
    plural = copula in page.lang.words.get("definition_copulas", [])[1:]
    frame = "what_are" if plural else "what_is"
    answer = " ".join(found[:2]) if len(found[0].split()) < 15 and len(found) > 1 else found[0]
    question = _fill(page, frame, term=_first_lower(term, page.lang))
    if question is None or len(answer.split()) < ANSWER_WORDS[0] or _code_like(answer, page):
        return None
    return Draft("definition", question, answer, (page.section.id,), (term,), 0.7)


def defined_term(sentence: str, page: Page) -> tuple[str, str, str] | None:
    """``(term, copula, predicate)`` when ``sentence`` defines the section's heading or the page's thing."""
    copulas = "|".join(re.escape(c) for c in page.lang.words.get("definition_copulas", ()))
    articles = "|".join(re.escape(a) for a in page.lang.words.get("definition_articles", ()))
    if not copulas or not articles:
        return None
    match = re.match(
        rf"^(?P<term>[^,;:()]{{2,60}}?)\s+(?P<cop>{copulas})\s+(?P<pred>(?:{articles})\b.{{8,}})$", sentence
    )
    if not match:
        return None
    term = match["term"].strip()
    names = {fold(page.heading)}
    if page.thing:
        names.add(fold(page.thing.name))
    bare = fold(re.sub(r"^(?:" + articles + r")\s+", "", term, flags=re.IGNORECASE))
    if bare not in names and fold(term) not in names:
        return None
    return term, match["cop"], match["pred"].rstrip(" .")


PHRASES = {
    "question_heading": question_heading,
    "task_heading": task_heading,
    "open_thing": open_thing,
    "what_does_do": what_does_do,
    "definition": definition,
}
