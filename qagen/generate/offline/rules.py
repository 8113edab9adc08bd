"""The offline generator's rules, as data: what each one matches, what it builds, where it came from.

A rule has a ``kind``: ``phrase`` rules write candidates (question, answer, options) from a section;
``veto`` rules reject a written candidate with a reason; ``rewrite`` rules change its wording. Rules
run in the order of :data:`RULES`; every item records the phrase rule that wrote it
(``generator.rule``), and ``generate.offline_rules_off`` switches any rule off by name, so a rule
that reads badly in a review is turned off as data, not patched in code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

RuleKind = Literal["phrase", "veto", "rewrite"]


@dataclass(frozen=True)
class Rule:
    """One rule: its name, kind, the item type it serves, what it matches and what it builds."""

    name: str
    kind: RuleKind
    item_type: Literal["long_form", "factoid", "mcq", "any"]
    matches: str
    builds: str
    origin: str


RULES: tuple[Rule, ...] = (
    Rule(
        "question_heading",
        "phrase",
        "long_form",
        "a heading that is already a question (ends with the language's question mark, opens with a question word)",
        "the heading as the question; the section's opening as the answer",
        "general: help pages and FAQs title sections with the user's question",
    ),
    Rule(
        "question_names_thing",
        "rewrite",
        "long_form",
        "a question heading that names nothing ('How can I show a hyphen character?') in a document about one "
        "thing (its title names it) or of the corpus's product",
        "frames.with_thing (else frames.in_product) before the question mark",
        "READING.md: self-contained (a question of one package among many names the package)",
    ),
    Rule(
        "task_heading",
        "phrase",
        "long_form",
        "a task heading in one of the language's forms (tasks.json: 'To open a file', 'Opening a file', "
        "'How to ...', 'Pour ouvrir ...', 'Eine Datei öffnen', 'So öffnen Sie ...')",
        "frames.how_do_i with the task; the steps (or the body's opening) as the answer",
        "general: task-oriented help states each task as its heading",
    ),
    Rule(
        "open_thing",
        "phrase",
        "long_form",
        "a heading of words.activation_headings ('Activating the filter', 'Aufruf') under a page that names a thing",
        "frames.how_open with the thing (its generic noun from the body, its name from the title)",
        "general: reference pages of tools and commands say how to open them",
    ),
    Rule(
        "what_does_do",
        "phrase",
        "long_form",
        "a page's description section whose first sentence is about 'this <generic noun>' or the page's thing",
        "frames.what_does_do with the thing; the first sentences as the answer",
        "general: reference pages open with what the thing does",
    ),
    Rule(
        "section_thing",
        "rewrite",
        "long_form",
        "a section heading that names a thing in the order of frames.thing ('The H command', 'Le filtre Flou')",
        "what_does_do asks about the section's thing, answered by its first sentences about it",
        "general: reference manuals give each command, option or environment a section of its own",
    ),
    Rule(
        "definition",
        "phrase",
        "long_form",
        "a section whose first sentence defines its heading's term ('X is a ...', definition_copulas/articles)",
        "frames.what_is with the term; the defining sentence (and the next) as the answer",
        "general: glossaries and concept pages define their term first",
    ),
    Rule(
        "contact",
        "phrase",
        "factoid",
        "a phone number, e-mail address or web address with a label or topic in its line",
        "the entity's question (qagen.generate.factoids); the line holding it as the answer",
        "paper B.2: one factoid per extracted entity",
    ),
    Rule(
        "menu_choice",
        "phrase",
        "mcq",
        "a menu path written with arrows in the section that opens the page's thing",
        "frames.mcq_menu; the path as the key, menu paths of other pages as distractors",
        "general: help pages give the menu path of every command",
    ),
    Rule(
        "contact_choice",
        "phrase",
        "mcq",
        "a phone-number factoid of the section (rule contact; web and e-mail addresses give themselves away by domain)",
        "the factoid's question; the entity as the key, entities of the same kind from other documents as distractors",
        "general: which number or address is the right one",
    ),
    Rule(
        "definition_choice",
        "phrase",
        "mcq",
        "a defining sentence ('X is a ...') whose predicate can stand alone",
        "frames.mcq_definition; the predicate as the key, other terms' predicates as distractors",
        "general: what a term means, with other terms' meanings as wrong options",
    ),
    Rule(
        "your_to_my",
        "rewrite",
        "any",
        "the reader's 'your' in a task ('Setting your preferences')",
        "the asker's 'my' (tasks.object_pronouns)",
        "general: the user asks about their own things",
    ),
    Rule(
        "name_the_product",
        "rewrite",
        "any",
        "a question that does not name the corpus's product or organisation (generate.subject, or derived)",
        "frames.in_product appended in the frame's place",
        "DESIGN: a question names what it is about",
    ),
    Rule(
        "own_product",
        "rewrite",
        "any",
        "a document that never names the corpus's product (a ReportLab guide in a folder of LaTeX manuals)",
        "no frames.in_product for its questions; a question with no name in it then gives no item",
        "READING.md: natural and self-contained (a question framed in a product its document is not about)",
    ),
    Rule(
        "name_the_thing",
        "rewrite",
        "long_form",
        "a task of a document whose title names its thing ('The stanli package', 'Align tool')",
        "frames.with_thing in the how-to question ('with the stanli package'), frames.in_thing in what-is "
        "questions ('in the chemplants package'), in place of frames.in_product",
        "READING.md: self-contained (a task of one package among many names the package)",
    ),
    Rule(
        "no_pointer",
        "veto",
        "any",
        "a question holding a word that points back (words.pointers: 'this', 'above', 'the same')",
        "rejection: not self-contained",
        "READING.md: self-contained",
    ),
    Rule(
        "no_garble",
        "veto",
        "any",
        "a question holding a footnote or page mark glued to a word ('the 1See online')",
        "rejection: not natural (text the parse ran together)",
        "READING.md: natural",
    ),
    Rule(
        "no_heading_topic",
        "veto",
        "factoid",
        "a contact question whose topic is the section's heading when that heading is one word or a task "
        "('... write to about feedback', '... about sending a bug report with ...'), outside a contact page",
        "rejection: not natural (a heading dropped into a frame)",
        "READING.md: natural",
    ),
    Rule(
        "prose_answer",
        "veto",
        "long_form",
        "a what-does or what-is answer that is mostly code: a call signature, an argument template",
        "rejection: the answer is not a sentence about the thing",
        "READING.md: correct",
    ),
    Rule(
        "no_echo",
        "veto",
        "mcq",
        "a menu-path MCQ whose key repeats a word of its stem in its menus ('the Indexed mode': Image → Mode → "
        "Indexed) where no distractor does",
        "distractors that repeat the word too, else no item",
        "READING.md: correct (a stem that gives the key away)",
    ),
    Rule(
        "no_generic_thing",
        "veto",
        "any",
        "a question naming 'the filter', 'the tool' (words.generic_nouns) with no name to anchor it",
        "rejection: not self-contained",
        "READING.md: self-contained",
    ),
    Rule(
        "no_title_prefix",
        "veto",
        "factoid",
        "a question that puts the page title or heading before it as context or quotes it ('For 13.6. X, ...')",
        "rejection: not natural (READING.md: a question that quotes the page or section title as context)",
        "READING.md: natural",
    ),
    Rule(
        "answer_length",
        "veto",
        "any",
        "an answer under 8 words, one that stops at a colon, or a how-to answer with no step (tasks: "
        "numbered steps, a menu path or a step word of words.step_markers)",
        "rejection: incomplete answer",
        "READING.md: correct (an introduction instead of the steps)",
    ),
    Rule(
        "skip_heading",
        "veto",
        "any",
        "a heading of words.skip_headings (contents, index, see also, licence) or a non-prose section",
        "no candidate from the section",
        "DESIGN: a source is prose worth asking about",
    ),
)

BY_NAME: dict[str, Rule] = {rule.name: rule for rule in RULES}


def on(rules: frozenset[str], name: str) -> bool:
    """Whether rule ``name`` is in use (a name that is no rule is a bug, not a rule switched off)."""
    if name not in BY_NAME:
        raise KeyError(f"no offline rule is named {name!r}")
    return name in rules


def enabled(off: list[str] | tuple[str, ...] | frozenset[str]) -> frozenset[str]:
    """Names of the rules in use with ``off`` switched off (an unknown name is an error)."""
    unknown = sorted(set(off) - set(BY_NAME))
    if unknown:
        raise ValueError(f"generate.offline_rules_off names no rule: {', '.join(unknown)}; rules: {', '.join(BY_NAME)}")
    return frozenset(BY_NAME) - frozenset(off)
