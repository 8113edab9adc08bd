"""Wrong options for a multiple-choice question about an entity: whole values of its kind."""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence

from qagen.entities.base import ENTITY_KINDS
from qagen.entities.find import normalize_entity
from qagen.entities.phones import normalize_phone

# --- distractors --------------------------------------------------------------------------


def entity_key(kind: str, text: str, region: str | None = None) -> str | None:
    """The normalised form of a whole entity, for comparing options; None when ``text`` is none.

    Like :func:`normalize_entity`, but a phone number in national format with no ``region``
    is keyed by its digits.
    """
    if kind != "phone" or region:
        return normalize_entity(kind, text, region or "US")
    text = text.strip()
    if text.startswith("+"):
        return normalize_phone(text, "ZZ")
    digits = re.sub(r"\D", "", text)
    if re.fullmatch(r"[\d\s().\-/]+", text) and 6 <= len(digits) <= 15:
        return digits
    return None


def usable_distractor(value: str, candidate: str, kind: str, region: str | None = None) -> bool:
    """Whether ``candidate`` can be a wrong option for a question whose answer is ``value``.

    It must be a whole, valid entity of ``kind`` (not "https://bugs.debian" or "a.se"),
    differ from ``value`` after normalisation, and be neither a part nor an extension of it
    ("https://bugs.debian.org" for "https://bugs.debian.org/123").
    """
    if kind not in ENTITY_KINDS:
        return bool(candidate.strip()) and candidate.strip().lower() != value.strip().lower()
    mine, theirs = entity_key(kind, value, region), entity_key(kind, candidate, region)
    if theirs is None or theirs == mine:
        return False
    a, b = value.strip().lower(), candidate.strip().lower()
    if a in b or b in a:
        return False
    if mine is None:
        return True
    if kind == "phone":
        da, db = re.sub(r"\D", "", mine), re.sub(r"\D", "", theirs)
        return not (da.endswith(db) or db.endswith(da))
    return not (mine.startswith(theirs) or theirs.startswith(mine))


def entity_distractors(
    value: str,
    kind: str,
    pool: Sequence[str],
    rng: random.Random,
    n: int = 3,
    *,
    region: str | None = None,
    variants: bool = True,
) -> list[str]:
    """Up to ``n`` wrong options for a question whose answer is the entity ``value``.

    Whole values of the same kind from ``pool`` come first (those alike first: the same
    country code, e-mail domain or web host), then, when ``variants`` is set and the pool
    runs out, well-formed variants of ``value``: a phone number with other final digits that
    is still valid for its region, another web path or top-level domain, another mailbox.
    Never a fragment or an extension of ``value``, never two options equal after
    normalisation. ``region`` is the region of phone numbers written without country code.
    """
    if kind not in ENTITY_KINDS:
        raise ValueError(f"entity kinds must be among {list(ENTITY_KINDS)}; got {kind!r}")
    chosen: list[str] = []
    keys = {entity_key(kind, value, region)} - {None}

    def take(options: Iterable[str]) -> None:
        for option in options:
            if len(chosen) == n:
                return
            key = entity_key(kind, option, region)
            if key in keys or not usable_distractor(value, option, kind, region):
                continue
            if any(not usable_distractor(other, option, kind, region) for other in chosen):
                continue
            chosen.append(option.strip())
            keys.add(key)

    candidates = sorted({p.strip() for p in pool if p and p.strip()})
    shape = _shape(kind, value)
    alike = [c for c in candidates if _shape(kind, c) == shape]
    rest = [c for c in candidates if _shape(kind, c) != shape]
    rng.shuffle(alike)
    rng.shuffle(rest)
    take(alike)
    take(rest)
    if variants and len(chosen) < n:
        take(_variants(value, kind, candidates, rng, region))
    return chosen


def _shape(kind: str, text: str) -> str:
    low = text.strip().lower()
    if kind == "phone":
        m = re.match(r"\+\d{1,3}", low)
        return m.group(0) if m else "national"
    if kind == "email":
        return low.rsplit("@", 1)[-1]
    return re.sub(r"^(?:(?:https?|ftp)://)?(?:www\.)?", "", low).split("/", 1)[0]


_MAILBOXES = ("info", "support", "contact", "help", "office", "service", "admin", "webmaster", "team")
_SWAP_TLDS = ("org", "com", "net")


def _variants(value: str, kind: str, pool: list[str], rng: random.Random, region: str | None) -> list[str]:
    if kind == "phone":
        return _phone_variants(value, rng, region)
    if kind == "email":
        local, _, domain = value.strip().rpartition("@")
        out = [f"{box}@{domain}" for box in _MAILBOXES if box != local.lower()]
        rng.shuffle(out)
        return out + [f"{local}@{d}" for d in _other_tlds(domain)]
    return _url_variants(value.strip(), pool, rng)


def _other_tlds(host: str) -> list[str]:
    """``host`` with another generic top-level domain: "example.org" -> "example.com"."""
    name, _, tld = host.rpartition(".")
    if not name or tld.lower() not in _SWAP_TLDS:
        return []
    return [f"{name}.{t}" for t in _SWAP_TLDS if t != tld.lower()]


def _url_variants(value: str, pool: list[str], rng: random.Random) -> list[str]:
    m = re.match(r"^((?:(?:https?|ftp)://)?)([^/?#]+)(.*)$", value, re.IGNORECASE)
    if not m:
        return []
    scheme, host, rest = m.groups()
    out: list[str] = []
    digits = list(re.finditer(r"\d+", rest))
    if digits:  # "https://tex.stackexchange.com/q/624940" -> ".../q/624317"
        d = digits[-1]
        for _ in range(4):
            new = _other_digits(d.group(0), rng)
            out.append(f"{scheme}{host}{rest[: d.start()]}{new}{rest[d.end() :]}")
    segment = re.search(r"/([^/?#]+)/?$", rest)
    if segment:  # the last path segment of another address in the pool
        others = sorted({s for p in pool for s in re.findall(r"/([A-Za-z][\w.-]{2,})/?$", p)} - {segment.group(1)})
        rng.shuffle(others)
        out += [f"{scheme}{host}{rest[: segment.start(1)]}{s}{rest[segment.end(1) :]}" for s in others[:6]]
    out += [f"{scheme}{h}{rest}" for h in _other_tlds(host)]
    return out


def _other_digits(digits: str, rng: random.Random) -> str:
    """A digit string of the same length, changed in its last digits (leading digit kept)."""
    keep = max(1, len(digits) - 3) if len(digits) > 1 else 0
    tail = "".join(rng.choice("0123456789") for _ in range(len(digits) - keep))
    return digits[:keep] + tail


def _phone_variants(value: str, rng: random.Random, region: str | None) -> list[str]:
    """``value`` with other final digits, written the same way, still a valid number."""
    import phonenumbers

    text = value.strip()
    parse_region = "ZZ" if text.startswith("+") else (region or "").upper()
    if not parse_region:
        return []
    positions = [i for i, c in enumerate(text) if c.isdigit()]
    if len(positions) < 6:
        return []
    out: list[str] = []
    for _ in range(60):
        chars = list(text)
        for i in positions[-4:]:
            chars[i] = rng.choice("0123456789")
        variant = "".join(chars)
        try:
            number = phonenumbers.parse(variant, parse_region)
        except phonenumbers.NumberParseException:
            continue
        if phonenumbers.is_valid_number(number) and variant not in out:
            out.append(variant)
        if len(out) == 6:
            break
    return out
