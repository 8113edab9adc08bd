"""JSON schemas of the records, generated from the Python types.

``python -m qagen.schemas`` rewrites ``schemas/*.schema.json``; ``--check`` exits 1 when
the files differ from the code (the test suite runs the same check). The records are those of
:data:`qagen.records.RECORD_TYPES` plus the question records of ``splits/``
(:data:`qagen.split_records.SPLIT_RECORD_TYPES`, ``split_question.schema.json``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from qagen.records import RECORD_TYPES, SCHEMA_VERSION

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"


def schema_for(cls: type) -> dict[str, Any]:
    """The JSON schema (draft 2020-12) of one record type."""
    from pydantic import TypeAdapter

    schema = closed_schema(TypeAdapter(cls).json_schema(mode="serialization"))
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://qagen.dev/schemas/{SCHEMA_VERSION}/{_name(cls)}.schema.json",
        "x-schema-version": SCHEMA_VERSION,
        **schema,
    }


def closed_schema(node: Any) -> Any:
    """Forbid unknown fields in every object schema, so a misspelt field fails validation."""
    if isinstance(node, dict):
        node = {k: closed_schema(v) for k, v in node.items()}
        if node.get("type") == "object" and "properties" in node:
            node["additionalProperties"] = False
    elif isinstance(node, list):
        node = [closed_schema(v) for v in node]
    return node


def schema_types() -> dict[str, type]:
    """Schema name -> record type, for every schema this module generates."""
    from qagen.split_records import SPLIT_RECORD_TYPES

    return {**RECORD_TYPES, **SPLIT_RECORD_TYPES}


def _name(cls: type) -> str:
    return next(k for k, v in schema_types().items() if v is cls)


def render_all() -> dict[str, str]:
    """File name -> file text for every record schema."""
    return {
        f"{name}.schema.json": json.dumps(schema_for(cls), indent=2, ensure_ascii=False) + "\n"
        for name, cls in schema_types().items()
    }


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    check = "--check" in argv
    rendered = render_all()
    drifted = [
        n for n, text in rendered.items() if not (SCHEMA_DIR / n).is_file() or (SCHEMA_DIR / n).read_text() != text
    ]
    if check:
        for n in drifted:
            print(f"schemas/{n} differs from the code; run: python -m qagen.schemas")
        return 1 if drifted else 0
    SCHEMA_DIR.mkdir(exist_ok=True)
    for n, text in rendered.items():
        (SCHEMA_DIR / n).write_text(text, encoding="utf-8")
    print(f"wrote {len(rendered)} schemas to {SCHEMA_DIR}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
