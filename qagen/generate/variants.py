"""Formulation variants: the same question as a search-engine query, with a user's typos, or long-winded.

Users do not always ask in full sentences. ``generate.formulation_mix`` asks for a share of
``search`` queries ("multicol package balance columns") and ``noisy`` questions (typos, no
capitals, a missing question mark, missing diacritics) beside the ``natural`` questions, and
``verbose`` ones (the question whole inside a long-winded user's words that add no fact; in the
languages of :data:`VERBOSE_LANGUAGES`). Both are
made deterministically from accepted items, so the reference answer, the source and the expected
behaviour stay valid: a chatbot should answer "multicol package balance colums" as it answers
"For the multicol package, how do I balance the columns?". Only long-form and factoid questions
get variants (a multiple-choice question is a quiz item, not something a user types).

Each variant is a new item (``formulation``, ``variant_of`` = the original's id) and is checked by
:func:`check_variant`: it differs from the original, and keeps enough of the original's words that
it still asks the same thing.
"""

from __future__ import annotations

import dataclasses
import functools
import random
import re
import unicodedata
from collections.abc import Mapping, Sequence

from qagen.generate.text import word_set
from qagen.io import sha256_text
from qagen.records import Item

FORMULATIONS = ("natural", "search", "noisy", "verbose")
VARIANT_TYPES = ("long_form", "factoid")
_WORD = re.compile(r"[^\W_][^\W_'’.-]*(?:[.'’-][^\W_]+)*")
# English function words a search query leaves out (a short list on purpose: stop-word lists for
# topic keywords also drop "work", "ill" or "number", which a query keeps)
_FUNCTION_WORDS_EN = word_set(
    "a an the this that these those my me i mine your you our we us it its they them their he she his her "
    "what which who whom whose when where why how "
    "can could should would will shall may might must do does did done is are was were be been being am "
    "have has had having get gets "
    "of in on at to for from by with about under over into onto through during before after between without "
    "within per via as than and or but if then so not no nor also too very just "
    "please tell explain know need want say says there here any some all each every"
)


@functools.lru_cache(maxsize=16)
def _stop_words(language: str) -> frozenset[str]:
    """Function words of ``language``: the English list, else the language's stop words of at most four
    letters (long entries of stop-word lists are often content words) and the words of its offline
    heading question ("Wat moet ik weten over ..."), which frame a question and are no keywords."""
    code = language.split("-")[0]
    if code == "en":
        return _FUNCTION_WORDS_EN
    import stopwordsiso

    from qagen.generate.factoid_words import heading_frame

    short = {w.casefold() for w in (stopwordsiso.stopwords(code) or set()) if len(w) <= 4}
    frame = re.sub(r"\{\w+\}", " ", heading_frame(code))
    return frozenset(short | {w.casefold() for w in _WORD.findall(frame)}) | _FUNCTION_WORDS_EN


def search_query(question: str, language: str = "en") -> str | None:
    """The question as the keywords a user types into a search box; None when fewer than two remain.

    "For the multicol package, how do I balance the columns?" -> "multicol package balance columns".
    Names and acronyms keep their case; the rest is lower-cased.
    """
    stop = _stop_words(language)
    kept = []
    for word in _WORD.findall(question):
        if word.casefold() in stop and not (len(word) > 1 and word.isupper()):  # "IT" is no "it"
            continue
        named = any(c.isupper() for c in word[1:]) or (word[:1].isupper() and word != question.split()[0])
        kept.append(word if named else word.casefold())
    seen: set[str] = set()
    kept = [w for w in kept if not (w.casefold() in seen or seen.add(w.casefold()))]  # "printer ... Printer": once
    if len(kept) < 2 or len(kept) >= len(_WORD.findall(question)):
        return None
    return " ".join(kept)


def noisy_question(question: str, seed: str) -> str | None:
    """The question as a hurried user types it: a typo in one word of four (at least one), and often
    no capitals, no question mark or no diacritics. Deterministic for a given ``seed``."""
    rng = random.Random(seed)
    words = question.split(" ")
    candidates = [i for i, w in enumerate(words) if len(re.sub(r"\W", "", w)) >= 5 and not re.search(r"\d|[/@\\]", w)]
    if not candidates:
        return None
    n_typos = max(1, min(3, len(candidates) // 4))
    for i in sorted(rng.sample(candidates, n_typos)):
        words[i] = _typo(words[i], rng)
    text = " ".join(words)
    if rng.random() < 0.5:
        text = text.lower()
    if rng.random() < 0.5:
        text = text.rstrip("?").rstrip()
    plain = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    if plain != text and rng.random() < 0.5:
        text = plain
    return text if text != question else None


# A verbose user wraps the question in words that add no fact (DataMorgana's "verbose" formulation):
# the question stays whole inside, so its answer and source stay valid. In the languages of qagen's
# offline question frames; none elsewhere.
_VERBOSE: dict[str, tuple[str, ...]] = {
    "en": (
        "Hi, I hope you can help me with something. {question} I could not find it myself and would appreciate a "
        "clear answer.",
        "I have been trying to work this out for a while and I am not sure where to look. {question}",
        "{question} I am asking because I need to get this right, so please be as precise as you can.",
        "Sorry if this has been asked before, but I could not find it anywhere. {question} Thanks in advance!",
    ),
    "nl": (
        "Hallo, ik hoop dat u me kunt helpen. {question} Ik kon het zelf niet vinden en zou een duidelijk antwoord "
        "op prijs stellen.",
        "Ik probeer dit al een tijdje uit te zoeken en weet niet goed waar ik moet kijken. {question}",
        "{question} Ik vraag het omdat ik het goed wil doen, dus wees alstublieft zo precies mogelijk.",
        "Sorry als dit al eerder gevraagd is, maar ik kon het nergens vinden. {question} Alvast bedankt!",
    ),
    "de": (
        "Hallo, ich hoffe, Sie können mir helfen. {question} Ich habe es selbst nicht gefunden und wäre für eine "
        "klare Antwort dankbar.",
        "Ich versuche schon eine Weile, das herauszufinden, und weiß nicht genau, wo ich nachsehen soll. {question}",
        "{question} Ich frage, weil ich es richtig machen möchte, also antworten Sie bitte so genau wie möglich.",
        "Entschuldigung, falls das schon einmal gefragt wurde, aber ich konnte es nirgends finden. {question} "
        "Vielen Dank im Voraus!",
    ),
    "fr": (
        "Bonjour, j'espère que vous pourrez m'aider. {question} Je n'ai pas trouvé moi-même et j'aimerais une "
        "réponse claire.",
        "J'essaie de comprendre cela depuis un moment et je ne sais pas trop où chercher. {question}",
        "{question} Je pose la question parce que je dois faire les choses correctement, alors soyez aussi précis "
        "que possible.",
        "Désolé si la question a déjà été posée, mais je n'ai rien trouvé nulle part. {question} Merci d'avance !",
    ),
    "it": (
        "Buongiorno, spero che possiate aiutarmi. {question} Non sono riuscito a trovarlo da solo e apprezzerei "
        "una risposta chiara.",
        "Sto cercando di capirlo da un po' e non so bene dove guardare. {question}",
        "{question} Lo chiedo perché devo farlo nel modo giusto, quindi vi prego di essere il più precisi possibile.",
        "Scusate se è già stato chiesto, ma non sono riuscito a trovarlo da nessuna parte. {question} Grazie in "
        "anticipo!",
    ),
    "es": (
        "Hola, espero que puedan ayudarme. {question} No he podido encontrarlo por mi cuenta y agradecería una "
        "respuesta clara.",
        "Llevo un rato intentando averiguarlo y no sé muy bien dónde buscar. {question}",
        "{question} Lo pregunto porque necesito hacerlo bien, así que les ruego que sean lo más precisos posible.",
        "Perdón si ya se ha preguntado antes, pero no lo he encontrado en ninguna parte. {question} ¡Gracias de "
        "antemano!",
    ),
    "pt": (
        "Olá, gostaria de pedir ajuda com uma dúvida. {question} Não consegui encontrar a resposta sozinho e "
        "agradeço uma resposta clara.",
        "Há algum tempo que tento entender isto e não sei bem onde procurar. {question}",
        "{question} Pergunto porque quero fazer isto corretamente, por isso peço a maior precisão possível.",
        "Desculpem se isto já foi perguntado, mas não encontrei a resposta em nenhum lugar. {question} Obrigado "
        "desde já!",
    ),
}
VERBOSE_LANGUAGES = tuple(_VERBOSE)


def verbose_question(question: str, seed: str, language: str = "en") -> str | None:
    """The question wrapped in a long-winded user's words that add no fact, in the question's language;
    None in a language without wrappers (:data:`VERBOSE_LANGUAGES`)."""
    templates = _VERBOSE.get(language.split("-")[0].casefold())
    if templates is None or not question.rstrip().endswith("?"):
        return None
    template = templates[random.Random(seed).randrange(len(templates))]
    return template.format(question=question.strip())


def _typo(word: str, rng: random.Random) -> str:
    """One keyboard slip inside a word (its first and last letters stay): two letters swapped, one
    dropped or one doubled."""
    inner = [i for i in range(1, len(word) - 1) if word[i].isalpha()]
    if len(inner) < 2:
        return word
    i = rng.choice(inner[:-1])
    kind = rng.choice(("swap", "drop", "double"))
    if kind == "swap" and word[i + 1].isalpha() and word[i] != word[i + 1]:
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if kind == "drop":
        return word[:i] + word[i + 1 :]
    return word[:i] + word[i] + word[i:]


def check_variant(original: str, variant: str, formulation: str) -> str | None:
    """Why ``variant`` does not ask what ``original`` asks, or None when it does."""
    if variant.strip().casefold() == original.strip().casefold() and formulation != "noisy":
        return "same as the original"
    if variant == original:
        return "same as the original"
    source = {w.casefold() for w in _WORD.findall(original)}
    words = [w.casefold() for w in _WORD.findall(variant)]
    if not words:
        return "no words"
    if formulation == "verbose":
        if original.strip() not in variant or len(words) < len(_WORD.findall(original)) + 8:
            return "the original question is not whole inside, or too little is added"
        return None
    if formulation == "search":
        if len(words) < 2:
            return "fewer than two keywords"
        if any(w not in source for w in words):
            return "a keyword not in the original"
        return None
    plain = {unicodedata.normalize("NFKD", w) for w in source} | source
    kept = sum(w in source or unicodedata.normalize("NFKD", w) in plain for w in words)
    if kept < 0.6 * len(words):
        return f"only {kept} of {len(words)} words as in the original"
    return None


def plan_counts(n_natural: int, mix: Mapping[str, float]) -> dict[str, int]:
    """Variants to make per formulation so the final shares follow ``mix`` (originals are ``natural``).

    With shares s_f for search and noisy, the total is n_natural / (1 - sum s_f); each formulation
    gets round(s_f * total), capped at n_natural (one variant of each kind per original at most).
    """
    total_weight = sum(mix.values())
    shares = {f: mix.get(f, 0.0) / total_weight for f in FORMULATIONS if f != "natural"}
    rest = 1.0 - sum(shares.values())
    if n_natural == 0 or rest <= 0:
        return dict.fromkeys(shares, 0) if rest > 0 else {f: n_natural for f in shares}
    total = n_natural / rest
    return {f: min(n_natural, round(s * total)) for f, s in shares.items()}


def make_variants(
    items: Sequence[Item], mix: Mapping[str, float], seed: int = 0
) -> tuple[list[Item], list[tuple[Item, str]]]:
    """Search and noisy variants of accepted items, as many as ``mix`` asks for.

    Returns:
        The variants that passed :func:`check_variant`, and ``(variant, reason)`` of those that
        did not (or of originals that could not be turned into one).
    """
    eligible = [it for it in items if it.type in VARIANT_TYPES and it.formulation == "natural"]
    counts = plan_counts(len(eligible), mix)
    made: list[Item] = []
    failed: list[tuple[Item, str]] = []
    for formulation, wanted in counts.items():
        order = sorted(eligible, key=lambda it: sha256_text(f"{seed}:{formulation}:{it.id}"))
        for original in order:
            if sum(v.formulation == formulation for v in made) >= wanted:
                break
            if formulation == "search":
                text = search_query(original.question, original.language)
            elif formulation == "verbose":
                text = verbose_question(original.question, f"{seed}:{original.id}", original.language)
            else:
                text = noisy_question(original.question, f"{seed}:{original.id}")
            variant = dataclasses.replace(
                original,
                id=sha256_text(f"{original.id}:{formulation}")[:16],
                question=text or original.question,
                formulation=formulation,
                variant_of=original.id,
            )
            why = "no variant could be made" if text is None else check_variant(original.question, text, formulation)
            if why is None:
                made.append(variant)
            else:
                failed.append((variant, why))
    return made, failed


def achieved(items: Sequence[Item], mix: Mapping[str, float]) -> dict[str, dict[str, float | int]]:
    """Per formulation: the share asked (of the mix), the count and share achieved among ``items``."""
    from qagen.generate.mix import achieved_shares

    return achieved_shares([it.formulation for it in items], {f: mix.get(f, 0.0) for f in FORMULATIONS})
