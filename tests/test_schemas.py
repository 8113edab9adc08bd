"""Schemas are generated from the records and checked for drift; records validate against them."""

from __future__ import annotations

import json

import jsonschema
import pytest

from qagen import schemas
from qagen.records import (
    RECORD_TYPES,
    Document,
    GeneratorInfo,
    Item,
    Rejection,
    Section,
    Source,
    from_dict,
    to_dict,
)


def test_schema_files_match_the_code():
    rendered = schemas.render_all()
    for name, text in rendered.items():
        path = schemas.SCHEMA_DIR / name
        assert path.is_file(), f"{path} missing; run python -m qagen.schemas"
        assert path.read_text() == text, f"{path} drifted from qagen/records.py; run python -m qagen.schemas"
    assert schemas.main(["--check"]) == 0


def test_every_record_type_has_a_schema():
    files = {p.name for p in schemas.SCHEMA_DIR.glob("*.schema.json")}
    assert files == {f"{n}.schema.json" for n in RECORD_TYPES}


def _item(**kw):
    base = dict(
        id="i1", type="mcq", question="Which number do I call?", answer="020 123 4567",
        source=Source(doc_id="d1", section_ids=("d1-s0001",), page_ids=("d1-p0000",), topic_id=3),
        fold=1, split="validation", generator=GeneratorInfo(backend="extractive"),
        options=("a", "b", "c", "d"), answer_index=2, bloom="B1", scenario="S1",
    )
    base.update(kw)
    return Item(**base)


def _validator(name):
    schema = json.loads((schemas.SCHEMA_DIR / f"{name}.schema.json").read_text())
    return jsonschema.Draft202012Validator(schema)


def test_records_validate_and_round_trip():
    item = _item()
    data = json.loads(json.dumps(to_dict(item)))
    _validator("item").validate(data)
    assert from_dict(Item, data) == item
    rej = Rejection(**{**item.__dict__, "filter": "grounding", "reason": "rougeL recall 0.05 < 0.2", "value": 0.05})
    _validator("rejection").validate(json.loads(json.dumps(to_dict(rej))))
    sec = Section(id="d1-s0001", doc_id="d1", doc_path="a.pdf", heading="H", text="t", page_start=1, page_end=2,
                  order=1)
    _validator("section").validate(to_dict(sec))
    _validator("document").validate(to_dict(Document(id="d1", path="a.pdf", sha256="0" * 64, format="pdf",
                                                     status="ok")))


@pytest.mark.parametrize(
    "change",
    [
        {"type": "essay"},
        {"bloom": "B7"},
        {"fold": "one"},
        {"surprise": 1},
    ],
)
def test_schema_rejects_bad_items(change):
    data = json.loads(json.dumps(to_dict(_item())))
    data.update(change)
    with pytest.raises(jsonschema.ValidationError):
        _validator("item").validate(data)
