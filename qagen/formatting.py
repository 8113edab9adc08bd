"""Durations and costs as people read them, for the console and the report alike."""

from __future__ import annotations

import re


def format_duration(seconds: float) -> str:
    """``"45 s"``, ``"3 min 05 s"``, ``"1 h 02 min"``."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, secs = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def format_cost(usd: float) -> str:
    return f"${usd:.4f}" if usd < 1 else f"${usd:,.2f}"


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` safe to print to a terminal: control characters (escape sequences, bells, carriage returns;
    C0 and C1 but newline and tab) shown as ``\\xNN``, so a file named ``bad\\x1b]0;PWNED\\x07.pdf`` cannot
    set the terminal's title or clear its screen."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def one_line_name(name: str) -> str:
    """A file name as one line of console text: its line breaks shown as ``\\n`` and ``\\r`` (a document
    named ``"faq\\nerror: fake.txt"`` cannot print a line of its own), its control characters escaped."""
    return printable(name.replace("\r", "\\r").replace("\n", "\\n"))
