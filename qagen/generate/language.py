"""Which language documents are written in: a small stop-word detector, no model needed.

Generation writes questions in the documents' language; prompts name it explicitly.
Detection counts the most frequent function words of each supported language, which is
reliable on a few sentences of running text and needs no dependency.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

LANGUAGE_NAMES = {
    "en": "English",
    "nl": "Dutch",
    "de": "German",
    "fr": "French",
    "es": "Spanish",
    "it": "Italian",
    "pt": "Portuguese",
}

_STOPWORDS = {
    "en": "the and of to a in is you your for that with be are on it this or as can if not we at by from "
    "have will an our do please when there which all but should must",
    "nl": "de het een en van in is u uw je op te met voor dat die niet zijn of aan als bij er ook wordt worden "
    "kunt kan naar om door wij we dan wel heeft",
    "de": "der die das und ist nicht sie ein eine zu den mit von für auf dem des im sich es werden wird bei "
    "oder wenn auch an als ihr ihre können sind",
    "fr": "le la les de des et est un une en du vous votre pour que qui dans pas sur au aux avec ne se par "
    "sont être nous ou si vos",
    "es": "el la los las de y en que es un una por para con no se su sus al del lo como usted más pero "
    "si está son puede",
    "it": "il lo la le gli di e è un una che per non in con del della si sono al da come anche ma se può lei suo",
    "pt": "o a os as de e em que é um uma para com não do da se por no na dos das ao você seu sua mais pode são",
}
_WORDS = {code: frozenset(words.split()) for code, words in _STOPWORDS.items()}
_TOKEN = re.compile(r"[^\W\d_]+", re.UNICODE)


def detect_language(texts: Iterable[str], default: str = "en", max_words: int = 50_000) -> str:
    """The ISO 639-1 code of the language most of ``texts`` is written in.

    Counts stop words of each supported language (see :data:`LANGUAGE_NAMES`) over at most
    ``max_words`` words; returns ``default`` when no language scores (e.g. no text).
    """
    scores: Counter[str] = Counter()
    seen = 0
    for text in texts:
        for token in _TOKEN.findall(text.lower()):
            seen += 1
            for code, words in _WORDS.items():
                if token in words:
                    scores[code] += 1
            if seen >= max_words:
                break
        if seen >= max_words:
            break
    if not scores:
        return default
    best = max(sorted(scores), key=lambda code: scores[code])
    return best


def resolve_language(setting: str, texts: Iterable[str]) -> str:
    """The language to generate in: ``setting`` itself, or detected from ``texts`` when "auto"."""
    setting = setting.strip().lower()
    if setting in ("", "auto"):
        return detect_language(texts)
    if not re.fullmatch(r"[a-z]{2,3}(-[a-z0-9]{2,8})?", setting):
        raise ValueError(f"generate.language must be 'auto' or a language code such as 'en' or 'nl'; got '{setting}'")
    return setting


def language_name(code: str) -> str:
    """The English name of a language code, for prompts ("nl" -> "Dutch"); unknown codes are returned as-is."""
    return LANGUAGE_NAMES.get(code.split("-")[0].lower(), code)
