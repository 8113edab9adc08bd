"""False-premise questions: an accepted fact asked back with a wrong value that its source contradicts.

A chatbot should not go along with a user who has a fact wrong. ``generate.premise_mix`` asks for a
share of ``false`` premises among the factoid and multiple-choice questions: each is made from an
accepted item (``variant_of``), asserts a value that its source contradicts, and expects the
chatbot to correct it (``expected_behavior = "correct_premise"`` where its fold is loaded). The
reference answer gives the source's fact::

    What is the phone number of the appointments desk at the Cardiology Outpatient Clinic?
    -> I was told the phone number of the appointments desk at the Cardiology Outpatient Clinic is
       +31 20 794 3185. Is that right?
       reference: "No: the phone number of the appointments desk ... is +31 20 794 3120, not +31 20 794 3185."

The wrong value is a near miss of the right one (another mailbox of the same domain, another page of the
same site, other last digits of a phone number), else a whole value of the same kind found in another
document of the corpus, or for a fill-in-the-blank question one of its distractors (a term of the same
kind from the corpus); it never appears in the source's document (or, for a
distractor, in the source section), so the source says something else. The wording is the language's
(``qagen/generate/lang/<code>/premises.json``): a factoid in one of its ``factoid_frames`` (English's)
asserts it of what the question asks for; a factoid in other words (an LLM's, or a language without
frames) is asked as written with the wrong value offered after it ("... ? I was told it is X. Is that
right?"); a multiple-choice question gets one only as a fill-in-the-blank statement in one of the
language's cloze frames ("Klopt dit over ...: "..."?"). A language without a ``wording`` gets none, and
the shortfall is reported.
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Mapping, Sequence

from qagen.entities import ENTITY_KINDS, entity_distractors, entity_key
from qagen.generate.lang import available, every, language_cached, part
from qagen.io import sha256_text
from qagen.records import Item, Section

PREMISES = ("true", "false")
PREMISE_TYPES = ("factoid", "mcq")


@language_cached(maxsize=16)
def _factoid_frames(language: str) -> tuple[tuple[re.Pattern[str], str], ...]:
    """The factoid frames of ``language`` (``factoid_frames`` of its premises.json: qagen's questions about an
    entity -> the noun phrase each asks for), after an optional lead ("For IT Helpdesk, "); of every language
    with frames for "" (the words of what any frame asks)."""
    if language:
        data = part(language, "premises")
        lead, frames = data.get("factoid_lead", ""), data.get("factoid_frames") or ()
        return tuple((re.compile(lead + pattern + r"\?$"), phrase) for pattern, phrase in frames)
    codes = [c for c in available() if part(c, "premises").get("factoid_frames")]
    return tuple(frame for code in codes for frame in _factoid_frames(code))


@dataclasses.dataclass(frozen=True)
class Claim:
    """What a false-premise question asserts and what its source says instead."""

    question: str
    answer: str
    false_value: str
    true_value: str
    kind: str | None
    false_key: str = ""  # the wrong value normalised (E.164 for a phone), to compare with the document's


def asked_share(mix: Mapping[str, float]) -> float:
    """The share of false premises ``mix`` asks for (0 when it asks for none)."""
    total = sum(mix.values())
    return mix.get("false", 0.0) / total if total else 0.0


def plan_false(n_eligible: int, share: float) -> int:
    """False premises to make so they are ``share`` of the originals plus themselves (at most one each)."""
    if n_eligible == 0 or share <= 0:
        return 0
    if share >= 1:
        return n_eligible
    return min(n_eligible, round(share / (1 - share) * n_eligible))


def _premise_forms(language: str) -> dict[str, str] | None:
    """The false-premise wording of ``language`` (``wording`` in its premises.json)."""
    return part(language, "premises").get("wording") or None


@language_cached(maxsize=16)
def _cloze_frames(language: str) -> tuple[tuple[re.Pattern[str], str], ...]:
    """``language``'s cloze questions as patterns (groups ``about`` and ``blanked``), with the kind each asks
    for: its premises.json's ``cloze_patterns`` ("": their ``word`` group says) and ``cloze`` templates."""
    data = part(language, "premises")
    out = [(re.compile(pattern), "") for pattern in data.get("cloze_patterns") or ()]
    for kind, templates in (data.get("cloze") or {}).items():
        for template in [templates] if isinstance(templates, str) else templates:
            pattern = (
                re.escape(template).replace(r"\{about\}", "(?P<about>.+?)").replace(r"\{blanked\}", "(?P<blanked>.+)")
            )
            out.append((re.compile(f"^{pattern}$"), kind))
    return tuple(out)


def factoid_claim(item: Item, false_value: str) -> Claim | None:
    """The false-premise question of a factoid: in one of qagen's English frames, the noun phrase it asks
    for is said to be the wrong value; in any other wording, the wrong value is offered after the question."""
    if item.type != "factoid" or not item.entity:
        return None
    code = item.language.split("-")[0]
    wording = _premise_forms(code)
    if wording is None:
        return None
    framed = _framed(item, code)
    if framed is not None:
        lead, np = framed
        data = part(code, "premises")
        appositive = data.get("appositive")
        np = np + "," if appositive and appositive in np else np  # "... of R Schlicht, who wrote microtype,"
        told = data["factoid_told"].format(lead=lead, np=np, false=false_value)
        answer = data["factoid_answer"].format(np=_addressed(np.rstrip(","), code), true=item.entity, false=false_value)
        return Claim(told, answer, false_value, item.entity, item.entity_kind)
    question = item.question.strip()
    if question.endswith("?") and "\n" not in question:
        # another wording (an LLM's own, or another language's): the question as asked, then the wrong value offered
        told = wording["told"].format(question=question, false=false_value)
        answer = wording["told_answer"].format(true=item.entity, false=false_value)
        return Claim(told, answer, false_value, item.entity, item.entity_kind)
    return None


def _addressed(np: str, language: str) -> str:
    """The asker's noun phrase as the answer says it back ("the website where I can register my router" ->
    "the website where you can register your router": ``asker`` and ``asker_words`` of the premises.json)."""
    data = part(language, "premises")
    asker, asker_words = data.get("asker") or {}, data.get("asker_words") or ()
    if not asker_words:
        return np
    return re.sub(rf"\b(?:{'|'.join(asker_words)})\b", lambda m: asker[m.group(0).casefold()], np)


def _framed(item: Item, language: str = "") -> tuple[str, str] | None:
    """A factoid question in one of ``language``'s frames (any language's for ""): its lead ("For IT
    Helpdesk, ") and the noun phrase it asks for ("the phone number of the appointments desk"); None in any
    other wording."""
    for frame, phrase in _factoid_frames(language):
        m = frame.match(item.question)
        if m is not None:
            groups = {k: v or "" for k, v in m.groupdict().items()}
            return groups["lead"], phrase.format(**groups)
    return None


def cloze_claim(item: Item, false_value: str) -> Claim | None:
    """The false-premise question of a fill-in-the-blank MCQ: the statement with a distractor in the gap, in the
    question's language (its cloze frames and its false-premise wording)."""
    if item.type != "mcq" or not item.options or item.answer_index is None:
        return None
    code = item.language.split("-")[0]
    wording = _premise_forms(code)
    if wording is None:
        return None
    for frame, kind in _cloze_frames(code):
        m = frame.match(item.question)
        if m is None or m.group("blanked").count("____") != 1:
            continue
        true_value = item.options[item.answer_index]
        wrong = m.group("blanked").replace("____", false_value)
        right = m.group("blanked").replace("____", true_value)
        question = wording["cloze"].format(about=m.group("about"), wrong=wrong)
        answer = wording["cloze_answer"].format(true=true_value, false=false_value, right=right)
        command = "command" in (kind or m.group("word"))
        return Claim(question, answer, false_value, true_value, "command" if command else None)
    return None


def check_claim(claim: Claim, source_text: str, said_in_document: set[str] | None = None) -> str | None:
    """Why ``claim`` is not a false premise its source contradicts (None: it is one).

    ``said_in_document``: a factoid's document's values of that kind, normalised (a wrong value among
    them may be right for something else the document names); a cloze's wrong value must not be
    anywhere in its source section.
    """
    if _norm(claim.false_value) == _norm(claim.true_value):
        return "the wrong value is the right one"
    if claim.false_value not in claim.question:
        return "the question does not assert the wrong value"
    if _norm(claim.true_value) not in _norm(source_text):
        return "the source does not hold the right value"
    if said_in_document is not None:
        if said_in_document & {claim.false_value, claim.false_key}:
            return "the wrong value is in the source's document too"
    elif _norm(claim.false_value) in _norm(source_text):
        return "the wrong value is in the source section too"
    return None


def make_false_premises(
    items: Sequence[Item],
    share: float,
    sections: Mapping[str, Section],
    values: Mapping[str, Sequence[tuple[str, str, str, str]]],
    seed: int = 0,
) -> tuple[list[Item], list[tuple[Item, str]]]:
    """False-premise variants of accepted factoids and cloze MCQs, as many as ``share`` asks for.

    Args:
        items: Accepted items; natural factoids and MCQs are the originals (in English, or a language
            with false-premise forms).
        share: Asked share of false premises among factoid and MCQ items (originals and variants).
        sections: Sections by id (the sources).
        values: Per entity kind, ``(doc_id, text, normalised, around)`` of every value of that kind in
            the corpus (``around``: the text on either side): a factoid's wrong value is another
            document's, none of its own document's, and none said near a word of what is asked.
        seed: Makes the choice of originals and wrong values reproducible.

    Returns:
        The variants that passed :func:`check_claim`, and ``(variant, reason)`` of those that did
        not, or of originals in no known frame.
    """
    eligible = [it for it in items if it.type in PREMISE_TYPES and it.formulation == "natural" and it.premise == "true"]
    wanted = plan_false(len(eligible), share)
    made: list[Item] = []
    failed: list[tuple[Item, str]] = []
    for original in sorted(eligible, key=lambda it: sha256_text(f"{seed}:premise:{it.id}")):
        if len(made) >= wanted:
            break
        source_text = "\n".join(sections[s].text for s in original.source.section_ids if s in sections)
        claim, why = _claim(original, values, source_text, seed)
        variant = dataclasses.replace(
            original,
            id=sha256_text(f"{original.id}:false_premise")[:16],
            type="factoid",
            question=claim.question if claim else original.question,
            answer=claim.answer if claim else original.answer,
            options=None,
            answer_index=None,
            bloom=None,
            scenario=None,
            entity=claim.true_value if claim else original.entity,
            entity_kind=claim.kind if claim else original.entity_kind,
            premise="false",
            premise_claim=claim.false_value if claim else None,
            variant_of=original.id,
        )
        if claim is None:
            failed.append((variant, why))
        else:
            made.append(variant)
    return made, failed


def _claim(
    item: Item, values: Mapping[str, Sequence[tuple[str, str, str, str]]], source_text: str, seed: int
) -> tuple[Claim | None, str]:
    code = item.language.split("-")[0]
    if _premise_forms(code) is None:
        return None, f"no false-premise wording in {code} (wording in qagen/generate/lang/{code}/premises.json)"
    said: set[str] | None = None
    if item.type == "factoid":
        pool = values.get(item.entity_kind or "", ())
        said = {norm for doc, _, norm, _ in pool if doc == item.source.doc_id}
        normalised = {text: norm for _, text, norm, _ in pool}
        # one text per value, from other documents, none that the source's document also gives, and none
        # said anywhere near what the question asks about ("Emergency Department: 020 ..." in another
        # leaflet of the same hospital may be right too)
        asked = _distinctive(item)
        near = {norm for _, _, norm, around in pool if asked & _words(around)}
        others = {norm: text for doc, text, norm, _ in pool if doc != item.source.doc_id and norm not in said | near}
        # a near miss of the right value first (another mailbox of the same domain, another page of the same
        # site, other last digits): what a user may really have been told; an unrelated document's value
        # ("an AMS ftp address" for a file system standard) reads as no one's belief
        misses = _near_misses(item, seed)
        normalised |= {v: k for v in misses if (k := entity_key(item.entity_kind or "", v))}
        candidates = misses + sorted(others.values(), key=lambda v: sha256_text(f"{seed}:{item.id}:{v}"))
        make = factoid_claim
    else:
        right = item.options[item.answer_index] if item.options and item.answer_index is not None else None
        candidates = sorted(
            (o for o in item.options or () if o != right), key=lambda v: sha256_text(f"{seed}:{item.id}:{v}")
        )
        make = cloze_claim
    why = "no value of the same kind from another document" if item.type == "factoid" else "no distractor"
    for value in candidates:
        claim = make(item, value)
        if claim is None:
            return None, "the question is in no frame a false premise can be made from"
        if said is not None:  # compared as values: the same number written another way is the same number
            claim = dataclasses.replace(claim, false_key=normalised.get(value, ""))
        why = check_claim(claim, source_text, said) or ""
        if not why:
            return claim, ""
    return None, why


def _near_misses(item: Item, seed: int) -> list[str]:
    """Well-formed variants of a factoid's value (:func:`qagen.entities.entity_distractors` with no pool)."""
    if not item.entity or item.entity_kind not in ENTITY_KINDS:
        return []
    rng = random.Random(sha256_text(f"{seed}:{item.id}:near"))
    return entity_distractors(item.entity, item.entity_kind, [], rng, n=3, variants=True)


def _words(text: str) -> set[str]:
    return set(re.findall(r"[^\W\d_][\w-]*", text.casefold()))


def _distinctive(item: Item) -> set[str]:
    """The words of a factoid's question that say whose value it is ("emergency", "department"); none for a
    question in no frame."""
    framed = _framed(item)
    # words every factoid frame has (frame_words): they say what kind of value is asked, not whose it is
    frame_words = frozenset(every("premises", "frame_words"))
    return {w for w in _words(framed[1] if framed else "") if w not in frame_words and len(w) > 2}


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


def achieved(items: Sequence[Item], mix: Mapping[str, float]) -> dict[str, dict[str, float | int]]:
    """Per premise: the share asked, the count and share achieved among factoid and MCQ items."""
    from qagen.generate.mix import achieved_shares

    labels = [it.premise for it in items if it.type in PREMISE_TYPES]
    return achieved_shares(labels, {p: mix.get(p, 0.0) for p in PREMISES})
