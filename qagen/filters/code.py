"""Code answers: the reference answer is mostly code or markup, not an answer in words.

A chatbot's users ask how to do something and expect an explanation; an answer that is a
LaTeX or MetaPost fragment, a shell command or a block of source code makes a poor reference
(it is copied from an example, cannot be paraphrased, and grades badly). The answer judged
is ``item.answer``. A multiple-choice item is not judged: it is graded by the option chosen, so a key
in code (``sep = "\t"``, a share path) is an option like any other (readers with the strict brief found
every MCQ this filter rejected in two rounds good).

It is rejected (reason ``code``, value: its code share) when at least half of its non-blank
characters sit on code or markup lines (:func:`qagen.ingest.kinds.code_share`; a sentence
with an inline ``\\command`` is not code) — unless the question names the command the answer
calls, or is one word (a path or a name), or asks for code: a command, macro, syntax, option,
environment, key or parameter name, or what to type or write, in English, Dutch, German, French,
Spanish, Italian or Portuguese ("Which command ...?",
"Welk commando ...?", "Welcher Befehl ...?", "Quelle commande ...?", "¿Qué comando ...?"), or the
answer explains its code in a sentence of words (:func:`explains_its_code`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from qagen.filters.base import FilterContext, ItemFilter, Reject
from qagen.ingest.kinds import CODE_SHARE, code_share
from qagen.records import Item

if TYPE_CHECKING:
    from qagen.config import FilterConfig

# Words of a question that asks for code, whole words. Ambiguous ones are left out ("key
# difference", "what type of", "the source of", "in which order").
_ASKS_FOR_CODE = re.compile(
    r"\b(?:"
    # en
    r"commands?|macros?|syntax|snippets?|code|keywords?|environments?|options?|parameters?|arguments?|flags?|"
    r"directives?|declarations?|markup|invoke|invocation|key names?|"
    # nl
    r"commando'?s?|opdracht(?:en)?|syntaxis|omgeving(?:en)?|opties?|parameters?|argumenten|broncode|"
    # de
    r"befehle?s?|befehlen|kommandos?|makros?|umgebung(?:en)?|optionen?|parameter[n]?|argumente?|quelltext|"
    r"anweisung(?:en)?|"
    # fr
    r"commandes?|syntaxe|environnements?|paramètres?|"
    # es, pt, it
    r"comandos?|sintaxis|sintaxe|sintassi|entornos?|ambientes?|opci[oó]n(?:es)?|op[cç](?:ão|ões|oes|ao)|"
    r"opzion[ei]|parámetros?|parâmetros?|parametri|argumentos?|argomenti|código|codice"
    r")\b"
    # what to type or write: the verb after "to", "you", "should", ... (not "who wrote")
    r"|\b(?:to|you|we|one|should|must|do|does)\s+(?:\w+\s+)?(?:type|enter|write)\b"
    r"|\b(?:typen|intypen|invoeren|eingeben|eintippen|tippen|taper|tapez|saisir|saisissez|écrire|écrivez|"
    r"escribir|escriba|teclear|escrever|escreva|digitar|digite|digitare|scrivere|scrivi)\b",
    re.IGNORECASE,
)


def asks_for_code(question: str) -> bool:
    """True when ``question`` explicitly asks for code: a command, macro, syntax, option, ...."""
    return bool(_ASKS_FOR_CODE.search(question))


def _names_the_command(question: str, answer: str) -> bool:
    """The question names the command the answer is a call of ("Which dpkg-architecture query ...?" over
    "dpkg-architecture -qDEB_HOST_MULTIARCH"): what to type is what it asks for."""
    first = answer.split()[0].strip("`$\\") if answer.split() else ""
    return len(first) >= 3 and re.search(rf"(?<![\w-]){re.escape(first)}(?![\w-])", question, re.IGNORECASE) is not None


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n")
_PROSE_WORD = re.compile(r"^[^\W\d_]+(?:['’][^\W\d_]+)*[,;:]?$")
MIN_PROSE_WORDS = 6  # a sentence of this many words, nearly all of them words of the language, explains
PROSE_SHARE = 0.9


def explains_its_code(answer: str) -> bool:
    """True when the answer says in a sentence of words what its code does ("This key places a label in the
    middle of an arrow.") beside the code: the steps of a how-to in a package's syntax, not a bare fragment."""
    for sentence in _SENTENCE_END.split(answer):
        tokens = sentence.split()
        prose = sum(bool(_PROSE_WORD.match(t.rstrip("."))) for t in tokens)
        if prose >= MIN_PROSE_WORDS and prose >= PROSE_SHARE * len(tokens):
            return True
    return False


def judged_answer(item: Item) -> str:
    """The answer a code check judges: the correct option of an MCQ, else ``item.answer``."""
    index = item.answer_index
    if item.type == "mcq" and item.options and index is not None and 0 <= index < len(item.options):
        return item.options[index]
    return item.answer


def check_code_answer(item: Item, ctx: FilterContext, config: FilterConfig) -> Reject | None:
    """Reject an answer that is mostly code or markup, unless the question asks for code (never an MCQ)."""
    if item.type == "mcq":
        return None
    answer = judged_answer(item)
    share = code_share(answer)
    if share < CODE_SHARE or asks_for_code(item.question) or _names_the_command(item.question, answer):
        return None
    if len(answer.split()) == 1:  # one word: a name (a path, a file, a variable), not a copied fragment of code
        return None
    if explains_its_code(answer):
        return None
    return Reject("code", share)


CODE_ANSWER = ItemFilter("code_answer", check_code_answer)
