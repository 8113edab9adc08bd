"""What a PDF font name tells: bold, monospaced, sans, italic, small caps."""

from __future__ import annotations

import re
from functools import lru_cache

_BOLD = re.compile(
    r"bold|black|heavy|semibold|demi|medi(?:um)?\b|-medi|cmbx|cmb\d|cmssbx|sfbx|sfsx|bx\d|[-_]bd\b|[-_]sb\b|extrab|ultrab",
    re.IGNORECASE,
)
_MONO = re.compile(
    r"mono|courier|cmtt|cmsltt|sftt|typewriter|consol|menlo|inconsolata|code|fixed|txtt|lmtt", re.IGNORECASE
)
_SANS = re.compile(
    r"sans|cmss|helvet|arial|nimbussan|verdana|tahoma|calibri|segoe|frutiger|futura|liberationsans|lmss|sfss|roboto|gill",
    re.IGNORECASE,
)
_ITALIC = re.compile(r"ital|obli|slant|cmti|cmsl|cmssi|cmbxti|sfti|sfsl|-it\b|[a-z]it$|ti\d+$", re.IGNORECASE)
_CAPS = re.compile(r"caps|csc|smallcap|rtxsc|[-_]sc\b", re.IGNORECASE)


def font_name(raw: str) -> str:
    """A font name without its subset prefix (``ABCDEF+Times-Bold`` → ``Times-Bold``)."""
    return raw.split("+", 1)[-1]


def is_bold(font: str) -> bool:
    return bool(_BOLD.search(font))


def is_mono(font: str) -> bool:
    return bool(_MONO.search(font))


@lru_cache(maxsize=1024)
def font_style(font: str) -> tuple[bool, bool, bool, bool]:
    """(sans, italic, small caps, bold) read from a font name."""
    return bool(_SANS.search(font)), bool(_ITALIC.search(font)), bool(_CAPS.search(font)), is_bold(font)
