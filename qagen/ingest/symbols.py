"""TeX's math symbol font read as letters: ``hindexi`` for ⟨index⟩.

TeX's symbol fonts (Computer Modern's CMSY, Latin Modern's LMMathSymbols, the tx/px fonts)
keep the angle brackets and braces at the codes of ASCII letters. A PDF that gives these fonts
no Unicode map, which is most LaTeX output made without the ``cmap`` package, is read as
``\\foo{hargumenti}`` where the page shows ``\\foo{⟨argument⟩}``, and as ``f1; 2g`` for
``{1, 2}``. A symbol font has no letters at those codes, so a letter in one is always such a
symbol: both engines map it back, by the font of each character.
"""

from __future__ import annotations

import re

# the font name after a subset prefix ("ABCDEF+CMSY10", "LMMathSymbols10-Regular", "txsy")
SYMBOL_FONT = re.compile(r"^(?:[A-Z]{6}\+)?(?:cmsy|cmbsy|lmmathsymbols|txsy|pxsy)", re.IGNORECASE)
# the OMS encoding's brackets at letter codes (the other letters are rarer in running text)
_OMS = {"f": "{", "g": "}", "h": "\u27e8", "i": "\u27e9", "j": "|"}
OMS_TABLE = str.maketrans(_OMS)
# where a letter of the page text may be one: an opening bracket before a lowercase word
# ("h" of "hindexi"), a closing one after it or after a space (PDFium puts one where italic
# text meets the bracket: "hindex i"), a brace or bar; only these characters' fonts are looked up
CANDIDATE = re.compile(r"(?<![A-Za-z])[hfj](?![A-Z])|(?<=[\w)\]}\s])[ig](?![A-Za-z])")


def is_symbol_font(fontname: str) -> bool:
    """Whether ``fontname`` is one of TeX's math symbol fonts."""
    return bool(SYMBOL_FONT.match(fontname))
