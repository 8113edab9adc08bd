"""``python -m qagen.score.schema [--check]``: write (or check) ``schemas/answer.schema.json`` from the code."""

from __future__ import annotations

import sys

from qagen.score.answers import SCHEMA_FILE, render_schema


def main(argv: list[str] | None = None) -> int:
    """Write the answers schema; with ``--check``, return 1 when the file differs from the code."""
    argv = sys.argv[1:] if argv is None else argv
    text = render_schema()
    current = SCHEMA_FILE.read_text(encoding="utf-8") if SCHEMA_FILE.is_file() else None
    if "--check" in argv:
        if current != text:
            print("schemas/answer.schema.json differs from the code; run: python -m qagen.score.schema")
            return 1
        return 0
    SCHEMA_FILE.write_text(text, encoding="utf-8")
    print(f"wrote {SCHEMA_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
