"""What the offline rules read from a section: a clean heading, sentences, steps, menu paths, the product.

Sentences come from sentencex (Wikimedia's segmenter: per-language abbreviations such as "z. B."),
lemmas and inflections from lemminflect (English) and simplemma (other languages).
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable

from qagen.generate.lang import fallback, fold
from qagen.records import Section

__all__ = ["fold"]  # re-exported: the rules compare words folded

_NUMBER = re.compile(r"^\s*(?:(?:\d+|[A-Z])(?:\.\d+)*\.?|[IVXLC]+\.)\s+(?=\S)")
_SPACE = re.compile(r"\s+")
_BULLET = re.compile(r"^\s*(?:[-•*▪◦‣–·]|\(?\d{1,2}[.)])\s*")
_ARROW = re.compile(r"\s*(?:→|->|⇒|▸|►|»|›|\s>\s)\s*")
_WORD = re.compile(r"[^\W\d_][\w'’-]*", re.UNICODE)
_QUOTES = re.compile(r"[\"“”„«»‘’‚‹›]")


def clean_heading(heading: str) -> str:
    """The heading without its number ("3.1.1. Import from PDF" -> "Import from PDF") and spare spaces; of a
    heading joined to its parent's ("3.6. Median Blur › 3.6.1. Overview"), its own part."""
    text = _SPACE.sub(" ", heading).strip()
    text = text.rsplit(" › ", 1)[-1]
    text = _NUMBER.sub("", text).strip()
    return text.strip(" :.-–—")


# a heading line of a page's navigation: "4. Common Tasks", "Chapter 7. Painting with GIMP", "Part III. Reference"
_HEADING_LINE = re.compile(r"^(?:[^\W\d_]+\s+)?(?:\d+|[IVXLC]+)(?:\.\d+)*\.\s+\S.*$")
_MULTI_LEVEL = re.compile(r"^(?:[^\W\d_]+\s+)?(?:\d+|[IVXLC]+)\.\d+|^[^\W\d_]+\s+(?:\d+|[IVXLC]+)\.\s")
_STEP = re.compile(r"^\s*\(?\d{1,2}[.)]\s")
ENDS_SENTENCE = re.compile(r"[.!?:;…。]\W*$")  # a line that ends a sentence (or opens a list)


def boilerplate(texts_by_document: dict[str, list[str]], share: float = 0.3) -> frozenset[str]:
    """Lines (two words or more) that recur in at least ``share`` of the documents and in three or more:
    a site's navigation and footer ("Report a bug in GIMP"), not anything one document says."""
    seen: Counter[str] = Counter()
    for texts in texts_by_document.values():
        seen.update({_SPACE.sub(" ", line).strip() for text in texts for line in text.splitlines()})
    least = max(3, share * len(texts_by_document))
    return frozenset(line for line, n in seen.items() if n >= least and len(line.split()) >= 2)


def own_body(text: str, heading: str, caption_words: Iterable[str] = (), repeated: frozenset[str] = frozenset()) -> str:
    """A section's own text: without lines that repeat its heading, the page's navigation headings
    ("4. Common Tasks", "Chapter 7. Painting with GIMP"), figure and table captions ("Figure 14.119.
    Rotating paths"), the short labels under a caption ("Original image"), and the lines in ``repeated``
    (:func:`boilerplate`)."""
    own = fold(clean_heading(heading))
    numbered_steps = sum(bool(_STEP.match(line)) for line in text.splitlines()) >= 2
    captions = "|".join(re.escape(w) for w in caption_words)
    caption = re.compile(rf"^\s*(?:{captions})\s*\d+(?:\.\d+)*\.?(?:\s|$)", re.IGNORECASE) if captions else None
    kept: list[str] = []
    under_caption = False
    for line in text.splitlines():
        stripped = _SPACE.sub(" ", line).strip()
        if stripped in repeated:
            continue
        if caption is not None and caption.match(stripped):
            under_caption = True
            continue
        short = len(stripped.split()) <= 6 and not ENDS_SENTENCE.search(stripped)
        if under_caption and stripped and short:
            continue  # the figure's labels
        under_caption = False
        if stripped and own and fold(clean_heading(stripped)) == own:
            continue
        navigation = (
            "→" not in stripped
            and len(stripped.split()) <= 8
            and not ENDS_SENTENCE.search(stripped)
            and _HEADING_LINE.match(stripped)
            and (_MULTI_LEVEL.match(stripped) or not numbered_steps)
        )
        if not navigation:
            kept.append(line)
    return "\n".join(kept).strip()


def plain_name(text: str) -> str:
    """A heading or title as a name: no number, no quotes around it, no footnote marks ("package∗"), no menu
    ellipsis ("Color to Alpha…")."""
    name = re.sub(r"[∗†‡*§¶]+", "", _QUOTES.sub("", clean_heading(text))).strip()
    return re.sub(r"\s*(?:…|\.\.\.)$", "", name)  # a menu entry that opens a dialog: "Color to Alpha…"


def sentences(text: str, language: str) -> list[str]:
    """The sentences of ``text`` (its lines joined), split by sentencex for ``language``."""
    from sentencex import segment

    flat = _SPACE.sub(" ", text).strip()
    if not flat:
        return []
    try:
        found = [s.strip() for s in segment(language, flat)]
    except Exception:  # an unknown code: the fallback language's rules
        found = [s.strip() for s in segment(fallback(), flat)]
    return [s for s in found if s]


def lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def words(text: str) -> list[str]:
    return _WORD.findall(text)


def steps(text: str) -> list[str]:
    """Numbered or bulleted items of a body, each with its wrapped lines (an item runs to the next bullet or to
    a blank line; a bullet alone on its line opens the item of the lines after it)."""
    out: list[str] = []
    current: list[str] | None = None
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            if current:
                out.append(" ".join(current))
            current = None
            continue
        if is_list_item(stripped):
            if current:
                out.append(" ".join(current))
            rest = _BULLET.sub("", stripped, count=1).strip()
            current = [rest] if rest else []
        elif current is not None:
            current.append(stripped)
    if current:
        out.append(" ".join(current))
    # a contents line ("3 angle . . . . 3") is no step
    return [s for s in out if s and not re.search(r"(?:\.\s?){4,}", s)]


def is_list_item(line: str) -> bool:
    """A line that opens a numbered or bulleted item, as :func:`steps` reads them."""
    return bool(_BULLET.match(line))


def without_labels(text: str) -> str:
    """``text`` without its label lines: a short line (six words or fewer) that ends no sentence and opens no
    list item, standing where a sentence may begin (first, or after a sentence's end or another label) with a
    sentence after it: an unnumbered caption ("Original Focus Blur applied") or a run-in label. The last,
    short line of a wrapped paragraph or list item follows a line that ends no sentence, so it stays."""
    rows = text.splitlines()
    kept: list[str] = []
    open_sentence = False  # the last kept line leaves a sentence unfinished
    for k, line in enumerate(rows):
        bare = line.strip()
        following = next((r.strip() for r in rows[k + 1 :] if r.strip()), "")
        label = (
            0 < len(bare.split()) <= 6
            and not ENDS_SENTENCE.search(bare)
            and not is_list_item(line)
            and not open_sentence
            and (not following or following[:1].isupper())
        )
        if label:
            continue
        kept.append(line)
        if bare:
            open_sentence = not ENDS_SENTENCE.search(bare)  # a list item without a full stop goes on below
    return "\n".join(kept)


def text_before_list(text: str) -> str:
    """The body's text before the first item :func:`steps` reads, so the two never share a line."""
    lead: list[str] = []
    for line in text.splitlines():
        if is_list_item(line):
            break
        lead.append(line)
    return "\n".join(lead).strip()


def answer_text(text: str, language: str, max_words: int) -> str:
    """The body's opening, whole sentences up to ``max_words`` words (at least one sentence)."""
    chosen: list[str] = []
    count = 0
    for sentence in sentences(text, language):
        n = len(sentence.split())
        if chosen and count + n > max_words:
            break
        chosen.append(sentence)
        count += n
    return " ".join(chosen)


def menu_paths(text: str, stop_words: frozenset[str]) -> list[str]:
    """Menu paths written with arrows ("Filters → Blur → Median Blur"), each item cut to its own words."""
    found: list[str] = []
    for line in sentences(text, fallback()) if "\n" not in text else lines(text):
        parts = _ARROW.split(line)
        if len(parts) < 2:
            continue
        head = _last_words(parts[0], stop_words)
        tail = _first_words(parts[-1], stop_words)
        middle = [p.strip() for p in parts[1:-1]]
        items = [head, *middle, tail]
        # three items at least: a two-item "path" is mostly a sentence's words before an arrow
        if len(items) >= 3 and all(0 < len(i.split()) <= 5 and i[:1].isalnum() for i in items):
            found.append(" → ".join(items))
    return list(dict.fromkeys(found))


def _last_words(text: str, stop: frozenset[str]) -> str:
    kept: list[str] = []
    for word in reversed(text.split()):
        bare = word.strip(".,;:()\"'“”„«»")
        if not bare or (bare.lower() in stop and kept) or (not bare[:1].isupper() and kept):
            break
        if bare.lower() in stop and not kept:
            return ""
        kept.insert(0, bare)
        if len(kept) == 4:
            break
    return " ".join(kept)


def _first_words(text: str, stop: frozenset[str]) -> str:
    kept: list[str] = []
    for word in text.split():
        bare = word.strip("\"'“”„«»")
        end = bare[-1:] in ".,;:()"
        bare = bare.strip(".,;:()")
        if not bare or (kept and bare.lower() in stop):
            break
        kept.append(bare)
        if end or len(kept) == 5:
            break
    return " ".join(kept)


def namelike(word: str) -> bool:
    """A product or organisation name: capitalised inside a word ("LinkHaven"), all capitals ("GIMP"), or a
    capital and a digit."""
    core = word.strip(".,;:()\"'“”„«»!?")
    if len(core) < 3 or not core[:1].isalpha():
        return False
    return (core.isupper() and core.isalpha()) or (any(c.isupper() for c in core[1:]) and not core.isupper())


def corpus_product(documents: Iterable[tuple[str, str]], share: float = 0.6) -> str | None:
    """The one name most documents share (title and text), when it is in at least ``share`` of them
    and at least two: "GIMP" over the pages of its help."""
    seen: Counter[str] = Counter()
    n = 0
    for title, text in documents:
        n += 1
        names = {w.strip(".,;:()\"'“”„«»!?") for w in f"{title} {text}".split() if namelike(w)}
        seen.update(names)
    if n < 2 or not seen:
        return None
    name, count = seen.most_common(1)[0]
    return name if count >= max(2, share * n) else None


def corpus_subject(sections: Iterable[Section], titles: dict[str, str]) -> str | None:
    """:func:`corpus_product` over the documents of ``sections`` (each document's title and first 5,000 characters)."""
    texts: dict[str, list[str]] = {}
    for section in sorted(sections, key=lambda s: (s.doc_id, s.order)):
        texts.setdefault(section.doc_id, []).append(section.text)
    return corpus_product((titles.get(d, ""), " ".join(t)[:5000]) for d, t in sorted(texts.items()))


def written_as(name: str, texts: Iterable[str], max_chars: int = 500_000) -> str:
    """A name in capitals ("LATEX", a typeset logo's letters) as the corpus also spells it with inner capitals
    ("LaTeX"), the most common such spelling; else ``name`` as it is ("GIMP")."""
    if not (name.isupper() and name.isalpha()):
        return name
    key = name.casefold()
    seen: Counter[str] = Counter()
    read = 0
    for text in texts:
        for word in re.findall(rf"(?<![\w\\]){re.escape(name[0])}\w{{{len(name) - 1}}}(?!\w)", text, re.IGNORECASE):
            inner = sum(c.isupper() for c in word[1:])
            if word.casefold() == key and word[:1].isupper() and 0 < inner < len(word) - 1:
                seen[word] += 1
        read += len(text)
        if read > max_chars:
            break
    return seen.most_common(1)[0][0] if seen else name


@functools.lru_cache(maxsize=4096)
def english_verb(word: str) -> str | None:
    """The base form of an English verb form ("Opening" -> "open"), or None when it is not one."""
    from lemminflect import getAllLemmas

    lemmas = getAllLemmas(word.lower())
    found = lemmas.get("VERB")
    return found[0] if found else None


def stop_words(code: str) -> frozenset[str]:
    """The language's function words (stopwords-iso, cached)."""
    from qagen.language import function_words

    return function_words((code,))


_CODE_CHARS = frozenset("(){}[]=_\\⟨⟩<>|")


def mostly_code(text: str) -> bool:
    """More than one character in twenty is a bracket, brace or operator: a call signature
    ("BaseDocTemplate(self, filename, pagesize=...") or an argument template ("[⟨commands⟩]{⟨row⟩}"), no sentence."""
    return sum(c in _CODE_CHARS for c in text) > len(text) / 20


def opens_sentence(text: str) -> bool:
    """``text`` opens as a sentence does: a capital letter, a command name ("\\Norm takes ...") or an opening
    quote, not a fragment of code or a clause cut from its start ("_{\\text{...}} rather than ...")."""
    return bool(re.match(r"[\"'“‘«„¿¡(]?(?:[^\W\d_]|\\[A-Za-z])", text)) and (
        text.lstrip("\"'“‘«„¿¡(")[:1].isupper() or text.lstrip("\"'“‘«„¿¡(")[:1] == "\\"
    )


def mostly_prose(body: str) -> bool:
    """Most of the body's words are in sentences or list items, not in labels ("Left: origin", "Middle:
    radius = 1 applied twice")."""
    labels = sum(
        len(line.split())
        for line in body.splitlines()
        if 0 < len(line.split()) <= 6  # a wrapped line of a paragraph is longer
        and not ENDS_SENTENCE.search(line.strip())
        and not is_list_item(line)
    )
    return labels <= len(body.split()) / 2
