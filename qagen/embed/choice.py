"""``embed.backend = auto``: the bundled MiniLM for an English corpus, TF-IDF/LSA for one mostly in other languages."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from qagen.records import Section

ENGLISH_MODEL_MIN_SHARE = 0.5  # below this share of English text, embed.backend = auto does not take MiniLM


def auto_choice(sections: Sequence[Section], doc_languages: Mapping[str, str]) -> tuple[str, str] | None:
    """``("tfidf", why)`` when the corpus is mostly not in English, else None (MiniLM stays).

    The bundled MiniLM reads English only: a corpus mostly in other languages (counted in
    characters, per document language) gets TF-IDF/LSA, which is language-agnostic, and the
    reason names the languages and what to configure instead (a multilingual
    sentence-transformers model on disk).
    """
    from qagen.language import language_name

    chars: Counter[str] = Counter()
    for section in sections:
        chars[doc_languages.get(section.doc_id, "en").split("-")[0]] += len(section.text)
    total = sum(chars.values())
    if not total or chars["en"] / total >= ENGLISH_MODEL_MIN_SHARE:
        return None
    named = ", ".join(f"{language_name(c)} {100 * n / total:.0f} %" for c, n in chars.most_common(4))
    return "tfidf", (
        f"embed.backend = auto: the documents are mostly not in English ({named}) and the bundled MiniLM "
        "reads English only, so sections are embedded with TF-IDF/LSA; for better topics set "
        'embed.backend = "sentence-transformers:/path/to/a-multilingual-model" (e.g. '
        "paraphrase-multilingual-MiniLM-L12-v2 downloaded beforehand)"
    )
