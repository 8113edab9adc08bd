"""Which language documents are written in, detected per document with py3langid (langid.py).

Generation writes each question in the language of its section's document and the prompts
name that language. Detection classifies the first few thousand characters of a document
(headings and text, in reading order) with py3langid's offline naive-Bayes model, which is
deterministic. A document with no letters, or whose language the model is not sure of (a
very short text, a parts list), gets the corpus majority: the language of most of the
detected text. py3langid is imported on first use, never when ``qagen`` is imported; the
model takes one to a few seconds to load, once per process.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from qagen.records import Section

# The languages qagen writes offline questions in (qagen/generate/lang) and whose function words it
# knows when a text's language is not known (titles, subjects, a question's opening)
QUESTION_LANGUAGES = ("en", "nl", "de", "fr", "es", "it", "pt")
DOCUMENT_SAMPLE_CHARS = 3000  # first characters of a document that decide its language
MIN_CONFIDENCE = 0.5  # below this posterior probability a text's language counts as unknown
_NO_LANGUAGE = frozenset({"zxx", "und"})  # py3langid's "no linguistic content"
_LETTER = re.compile(r"[^\W\d_]")
_CODE = re.compile(r"[a-z]{2,3}(-[a-z0-9]{2,8})?")

# English names of every language py3langid can return (and a few codes users may set).
LANGUAGE_NAMES = {
    "en": "English", "nl": "Dutch", "de": "German", "fr": "French", "es": "Spanish", "it": "Italian",
    "pt": "Portuguese", "ace": "Acehnese", "af": "Afrikaans", "am": "Amharic", "an": "Aragonese",
    "ar": "Arabic", "ary": "Moroccan Arabic", "arz": "Egyptian Arabic", "as": "Assamese",
    "az": "Azerbaijani", "ba": "Bashkir", "bcl": "Central Bikol", "be": "Belarusian", "bg": "Bulgarian",
    "bn": "Bengali", "br": "Breton", "bs": "Bosnian", "ca": "Catalan", "crh": "Crimean Tatar",
    "cs": "Czech", "cy": "Welsh", "da": "Danish", "dz": "Dzongkha", "el": "Greek", "eo": "Esperanto",
    "et": "Estonian", "eu": "Basque", "ext": "Extremaduran", "fa": "Persian", "fi": "Finnish",
    "fo": "Faroese", "fuv": "Nigerian Fulfulde", "fy": "West Frisian", "ga": "Irish",
    "gcf": "Guadeloupean Creole", "gcr": "Guianese Creole", "gd": "Scottish Gaelic", "gl": "Galician",
    "gom": "Konkani", "grc": "Ancient Greek", "gu": "Gujarati", "gug": "Paraguayan Guarani", "guw": "Gun",
    "ha": "Hausa", "hbo": "Ancient Hebrew", "he": "Hebrew", "hi": "Hindi", "hr": "Croatian",
    "ht": "Haitian Creole", "hu": "Hungarian", "hy": "Armenian", "id": "Indonesian", "ig": "Igbo",
    "is": "Icelandic", "ja": "Japanese", "jv": "Javanese", "ka": "Georgian", "kab": "Kabyle",
    "kik": "Kikuyu", "kk": "Kazakh", "km": "Khmer", "kn": "Kannada", "ko": "Korean", "ku": "Kurdish",
    "ky": "Kyrgyz", "la": "Latin", "lb": "Luxembourgish", "lg": "Ganda", "lij": "Ligurian",
    "ln": "Lingala", "lo": "Lao", "lt": "Lithuanian", "ltg": "Latgalian", "lv": "Latvian",
    "mg": "Malagasy", "mk": "Macedonian", "ml": "Malayalam", "mn": "Mongolian", "mr": "Marathi",
    "ms": "Malay", "mt": "Maltese", "my": "Burmese", "nb": "Norwegian Bokmål", "ne": "Nepali",
    "nn": "Norwegian Nynorsk", "no": "Norwegian", "nso": "Northern Sotho", "oc": "Occitan", "om": "Oromo",
    "or": "Odia", "pa": "Punjabi", "pcm": "Nigerian Pidgin", "pl": "Polish", "ps": "Pashto",
    "qu": "Quechua", "ro": "Romanian", "ru": "Russian", "rw": "Kinyarwanda", "sa": "Sanskrit",
    "sdh": "Southern Kurdish", "se": "Northern Sami", "si": "Sinhala", "sk": "Slovak", "sl": "Slovenian",
    "sn": "Shona", "so": "Somali", "sq": "Albanian", "sr": "Serbian", "st": "Southern Sotho",
    "sv": "Swedish", "sw": "Swahili", "ta": "Tamil", "te": "Telugu", "tg": "Tajik", "th": "Thai",
    "tk": "Turkmen", "tl": "Tagalog", "tr": "Turkish", "tt": "Tatar", "ug": "Uyghur", "uk": "Ukrainian",
    "ur": "Urdu", "uz": "Uzbek", "uzs": "Southern Uzbek", "vec": "Venetian", "vi": "Vietnamese",
    "vo": "Volapük", "wa": "Walloon", "wuu": "Wu Chinese", "xh": "Xhosa", "yo": "Yoruba",
    "yue": "Cantonese", "zh": "Chinese", "zu": "Zulu",
}  # fmt: skip


@lru_cache(maxsize=1)
def _identifier() -> Any:
    """py3langid's model with probabilities normalised, loaded once (our own instance, not its global)."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def identify(text: str) -> tuple[str, float] | None:
    """The language code of ``text`` and its probability; None when ``text`` has no letters,
    no linguistic content, or no language reaches :data:`MIN_CONFIDENCE`."""
    if not _LETTER.search(text):
        return None
    code, prob = _identifier().classify(text)
    if code in _NO_LANGUAGE or prob < MIN_CONFIDENCE:
        return None
    return code, prob


def detect_language(texts: Iterable[str], default: str = "en", max_chars: int = 20_000) -> str:
    """The ISO 639 code of the language ``texts`` are written in, judged on their first ``max_chars``
    characters together; ``default`` when that is undecided (no text, no letters, too short)."""
    found = identify(_head(texts, max_chars))
    return found[0] if found else default


def document_languages(
    sections: Iterable[Section], default: str = "en", max_chars: int = DOCUMENT_SAMPLE_CHARS
) -> tuple[dict[str, str], str]:
    """The language of every document, and the corpus majority.

    Args:
        sections: Sections of any number of documents (a document's sections are read in
            ``order``; its first ``max_chars`` characters of headings and text decide).
        default: The majority when no document's language could be detected.
        max_chars: How much of each document to classify.

    Returns:
        ``(languages, majority)``: a code per document id, and the language of most of the
        detected text (documents weighted by their length). Undecided documents get the majority.
    """
    by_doc: dict[str, list[Section]] = {}
    for s in sections:
        by_doc.setdefault(s.doc_id, []).append(s)
    found: dict[str, str] = {}
    weight: Counter[str] = Counter()
    for doc_id in sorted(by_doc):
        ordered = sorted(by_doc[doc_id], key=lambda s: (s.order, s.id))
        hit = identify(_head((f"{s.heading}\n{s.text}" for s in ordered), max_chars))
        if hit:
            found[doc_id] = hit[0]
            weight[hit[0]] += sum(len(s.text) for s in ordered)
    majority = min(weight, key=lambda code: (-weight[code], code)) if weight else default
    return {doc_id: found.get(doc_id, majority) for doc_id in sorted(by_doc)}, majority


def resolve_language(setting: str, texts: Iterable[str]) -> str:
    """The language to generate in: ``setting`` itself, or detected from ``texts`` when "auto"."""
    code = _setting(setting)
    return detect_language(texts) if code == "auto" else code


def resolve_languages(setting: str, sections: Iterable[Section]) -> tuple[dict[str, str], str]:
    """Languages per document and for the corpus under ``generate.language``.

    "auto" detects each document's language (:func:`document_languages`); any code forces that
    language everywhere: ``({}, code)``.
    """
    code = _setting(setting)
    return document_languages(sections) if code == "auto" else ({}, code)


def language_name(code: str) -> str:
    """The English name of a language code, for prompts ("nl" -> "Dutch", "pt-BR" -> "Portuguese").

    Codes without a known name give "the language with code 'xx'", which still reads as an
    instruction ("Write in the language with code 'xx'.").
    """
    base = code.strip().split("-")[0].lower()
    return LANGUAGE_NAMES.get(base) or f"the language with code '{code.strip()}'"


def _setting(setting: str) -> str:
    setting = setting.strip().lower()
    if setting in ("", "auto"):
        return "auto"
    if not _CODE.fullmatch(setting):
        raise ValueError(f"generate.language must be 'auto' or a language code such as 'en' or 'nl'; got '{setting}'")
    return setting


def _head(texts: Iterable[str], max_chars: int) -> str:
    """The first ``max_chars`` characters of ``texts`` joined by newlines (stops reading early)."""
    parts: list[str] = []
    size = 0
    for text in texts:
        if size >= max_chars:
            break
        parts.append(text[: max_chars - size])
        size += len(parts[-1]) + 1
    return "\n".join(parts)


@lru_cache(maxsize=32)
def function_words(languages: tuple[str, ...] = QUESTION_LANGUAGES) -> frozenset[str]:
    """The stop words of ``languages`` (stopwordsiso's lists), NFKC case-folded."""
    import unicodedata

    import stopwordsiso

    return frozenset(unicodedata.normalize("NFKC", w).casefold() for w in stopwordsiso.stopwords(list(languages)))


# Tokens that read the same in every language: commands (\centering), web and mail addresses, file
# names, words with digits (model numbers, versions, phone numbers) and camelCase identifiers.
_NEUTRAL = re.compile(
    r"\\[A-Za-z@]+|https?://\S+|[\w.+-]+@[\w-]+\.[\w.-]+|[\w.-]+\.(?:sty|cls|tex|dtx|pdf|html?|org|com|net)\b"
    r"|\b[^\W\d_]*\d[\w]*\b|\b[a-z]+[A-Z]\w*\b"
)
TRANSLATION_JACCARD = 0.4  # share of their rare language-neutral tokens two translations have in common
TRANSLATION_MIN_SHARED = 20


def translations(sections: Iterable[Section], languages: dict[str, str]) -> dict[str, tuple[str, ...]]:
    """Documents that look like translations of one another, per document id.

    Two documents in different languages are translations when they share most of their rare
    language-neutral tokens (commands, addresses, file names, model and version numbers, camelCase
    names): Jaccard similarity of those sets at least :data:`TRANSLATION_JACCARD` and at least
    :data:`TRANSLATION_MIN_SHARED` in common. A token is rare when at most one document per language
    of the corpus, plus one, holds it, so a manual translated into every language still counts
    while ``\\begin`` or ``http://www.ctan.org`` do not. Same-language documents are never paired
    (one author's packages share their macro names).

    Args:
        sections: Every section of the corpus.
        languages: The language of each document (:func:`document_languages`).

    Returns:
        Each document that has translations, mapped to their ids (sorted).
    """
    text: dict[str, list[str]] = {}
    for s in sections:
        text.setdefault(s.doc_id, []).append(f"{s.heading}\n{s.text}")
    tokens = {doc: set(_NEUTRAL.findall("\n".join(parts))) for doc, parts in text.items()}
    df = Counter(t for found in tokens.values() for t in found)
    rare_max = len(set(languages.values())) + 1
    rare = {doc: {t for t in found if df[t] <= rare_max} for doc, found in tokens.items()}
    docs = sorted(d for d in rare if len(rare[d]) >= TRANSLATION_MIN_SHARED)
    pairs: dict[str, list[str]] = {}
    for i, a in enumerate(docs):
        for b in docs[i + 1 :]:
            if languages.get(a) == languages.get(b):
                continue
            shared = len(rare[a] & rare[b])
            if shared >= TRANSLATION_MIN_SHARED and shared / len(rare[a] | rare[b]) >= TRANSLATION_JACCARD:
                pairs.setdefault(a, []).append(b)
                pairs.setdefault(b, []).append(a)
    return {doc: tuple(sorted(others)) for doc, others in sorted(pairs.items())}
