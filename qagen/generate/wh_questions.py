"""A cloze sentence asked as a question when its blank is the subject, the copula's complement, or
what an instruction uses.

"____ sets sentence numbers in the running text." is a quiz line; "In poemscol, which command sets
sentence numbers in the running text?" is what a user of the package would ask. English only: the
rewrite keeps the sentence's own words in their order, so it holds only where English word order keeps
the rest a question as it stands (a subject question needs no inversion; "X is ____" becomes "which
... is X"; "Use ____ to X" becomes "which ... do I use to X"). Anything else stays a cloze.
"""

from __future__ import annotations

import re

from qagen.generate.text import n_words, word_set

# Nouns that may name the blank's kind around it ("The ____ command", "The statement ____").
_KIND_NOUNS = word_set("command macro environment option key length counter statement package class function style")
_KINDS = "|".join(sorted(_KIND_NOUNS))  # the same nouns as a regex alternation
# Words that are not the verb of a subject question though they may end in -s ("____ its ...").
_NOT_VERBS = word_set("its this thus plus us as less across always also perhaps sometimes")
# Plural nouns that may follow a command's name ("\\foo options are ..."): the name is then no subject.
_PLURAL_NOUNS = word_set(
    "commands macros environments options keys lengths counters arguments parameters values settings fonts "
    "files lines pages characters symbols units colors colours styles versions variants"
)
# Finite verbs and auxiliaries that open a predicate without an -s ending.
_AUXILIARIES = word_set(
    "is are was were can cannot will would may might must should could shall does do did has have had"
)
# Predicates that lean on what came before ("does the same", "works as well"), or that say nothing.
_VAGUE = re.compile(r"\b(?:the same|as well|too|either|again|instead|above|below|here|there)\b[.!]?$", re.IGNORECASE)
MAX_PREDICATE_WORDS = 25


def _predicate_opens(rest: str) -> bool:
    """The words after the subject open a predicate: an auxiliary or a present-tense verb in -s."""
    first = re.match(r"([a-z]+)\b", rest)
    if not first:
        return False
    word = first.group(1)
    if word in _AUXILIARIES:
        return True
    if word in _NOT_VERBS or word in _PLURAL_NOUNS:
        return False
    following = re.match(r"[a-z]+\s+([a-z]+)", rest)
    if following and following.group(1) in _AUXILIARIES:
        return False  # "\\foo arguments must ...": a plural noun, then the verb
    return len(word) >= 4 and word.endswith("s") and not word.endswith(("ss", "ous", "ics"))


def _clean_predicate(rest: str) -> str | None:
    rest = rest.strip()
    if not re.search(r"[.!]$", rest):
        return None  # a label line or a sentence cut short: no statement to turn round
    rest = rest.rstrip(".!").strip()
    if not 2 <= n_words(rest) <= MAX_PREDICATE_WORDS or _VAGUE.search(rest) or re.search(r"[:;?]", rest):
        return None
    return rest


def _instruction_question(clause: str, term: str, word: str, about: str) -> str | None:
    """ "Use ____ to X." / "To X, use the ____ command." -> "In {about}, which command do I use to X?"."""
    name = rf"(?:the\s+)?(?:(?P<before>{_KINDS})\s+)?{re.escape(term)}(?:\s+(?P<after>{_KINDS})\b)?"
    use = re.match(rf"(?:Use|You can use|You may use|You should use)\s+{name}\s+(?P<purpose>(?:to|for)\s+.+)$", clause)
    if use:
        purpose, where = use.group("purpose"), ""
    else:
        use = re.match(rf"To\s+(?P<goal>[^,]{{3,120}}),\s+use\s+{name}(?P<where>\s+[^,]+)?\s*[.!]$", clause)
        if not use:
            return None
        purpose, where = f"to {use.group('goal')}.", (use.group("where") or "").strip()
        if where and (not re.match(r"(?:in|inside|within|at|before|after|on)\s", where) or n_words(where) > 8):
            return None  # "... use \\foo and \\bar": more than a place to put it
    predicate = _clean_predicate(purpose)
    if predicate is None or term in predicate or term in where or re.search(r"\byou(?:r|rs|rself)?\b", predicate):
        return None  # "do I use to set your margins": the asker is not "you"
    kind = use.group("before") or use.group("after") or word
    where = f" {where}" if where else ""
    return f"In {about}, which {kind} do I use{where} {predicate}?"


def blank_question(clause: str, term: str, word: str, about: str) -> str | None:
    """``In {about}, which {word} ...?`` when ``term`` is the clause's subject, the complement of its
    "is", or what its instruction uses; None when the blank sits anywhere else (the caller keeps a cloze).

    ``word`` names the term's kind ("command", "period"); a kind noun the sentence itself puts
    beside the term ("The statement ____ typesets ...") is used instead.
    """
    head = re.match(
        rf"(?:The\s+(?:(?P<before>{_KINDS})\s+)?)?{re.escape(term)}(?:\s+(?P<after>{_KINDS})\b)?\s+(?P<rest>.+)$",
        clause,
    )
    if head and _predicate_opens(head.group("rest")) and term not in head.group("rest"):
        predicate = _clean_predicate(head.group("rest"))
        if predicate:
            kind = head.group("before") or head.group("after") or word
            # "\\bpFormatField is the macro which formats ...": "which macro formats ...", not "which
            # macro is the macro which formats ..."
            echo = re.match(rf"(?:is|are) (?:the|a|an) ({_KINDS}) (?:which|that) (.+)$", predicate)
            if echo:
                return f"In {about}, which {echo.group(1)} {echo.group(2)}?"
            return f"In {about}, which {kind} {predicate}?"
    asked = _instruction_question(clause, term, word, about)
    if asked is not None:
        return asked
    # "The first of the two macros that CoDi offers is ____.": which command is the first ...
    tail = re.match(rf"(The|A|An)\s+(.{{3,160}}?)\s+(is|are|was)\s+{re.escape(term)}\s*[.!]$", clause)
    if tail and n_words(tail.group(2)) <= MAX_PREDICATE_WORDS and not re.search(r"[:;?]", tail.group(2)):
        article = tail.group(1).lower()
        return f"In {about}, which {word} {tail.group(3)} {article} {tail.group(2)}?"
    return None
