"""What every entity kind shares: the :class:`Entity` record and small helpers."""

from __future__ import annotations

from dataclasses import dataclass

ENTITY_KINDS = ("phone", "email", "url")


@dataclass(frozen=True)
class Entity:
    """One entity occurrence: ``text`` as found at ``start:end``, and its normalised form.

    ``normalized`` is E.164 for phones (``+31207943120``), the lower-cased address for
    e-mails, and a comparison key for URLs (lower-case host without scheme or ``www.``,
    path, query and fragment kept, no trailing slash: ``lindenhof.example.org/parking``).

    ``text == source[start:end]``, except for a URL broken across a line break: its ``text``
    is the address joined back together ("http://www.ams.org/tex/"), while ``start:end``
    spans the break.
    """

    kind: str
    text: str
    normalized: str
    start: int
    end: int


def check_kinds(kinds: list[str] | tuple[str, ...]) -> None:
    unknown = [k for k in kinds if k not in ENTITY_KINDS]
    if unknown:
        raise ValueError(f"entity kinds must be among {list(ENTITY_KINDS)}; got {unknown}")


def overlaps(start: int, end: int, spans: list[tuple[int, int]]) -> bool:
    return any(start < e and s < end for s, e in spans)


def line_before(text: str, start: int) -> str:
    return text[text.rfind("\n", 0, start) + 1 : start]
