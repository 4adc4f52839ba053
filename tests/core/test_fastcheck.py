"""The compiled quick check must agree with jsonschema on every record it sees."""

from __future__ import annotations

import copy
import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from bb_core.records.fastcheck import Unsupported, compile_schema
from bb_core.records.schemas import quick_check, validator
from referencing import Registry

EXAMPLES = Path(__file__).resolve().parents[2] / "schemas" / "examples"
ODD_VALUES: list[Any] = [None, True, 0, -1, 1.5, 2.0, "", "x", [], [1], {}, {"a": 1}]


def _valid_examples() -> list[tuple[str, dict[str, Any]]]:
    found = []
    for path in sorted(EXAMPLES.glob("*/valid/*.jsonl")):
        for raw in path.read_bytes().splitlines():
            found.append((path.parts[-3], orjson.loads(raw)))
    return found


def _mutations(record: Any, depth: int = 0) -> Iterator[Any]:
    """Copies of *record* with one value replaced, one key dropped or one key added."""
    if depth > 3:
        return
    if isinstance(record, dict):
        for key in record:
            for odd in ODD_VALUES:
                changed = copy.copy(record)
                changed[key] = odd
                yield changed
            dropped = {k: v for k, v in record.items() if k != key}
            yield dropped
            for inner in _mutations(record[key], depth + 1):
                changed = copy.copy(record)
                changed[key] = inner
                yield changed
        yield {**record, "unexpected": 1}
    elif isinstance(record, list) and record:
        for inner in _mutations(record[0], depth + 1):
            yield [inner, *record[1:]]
        yield [*record, None]


@pytest.mark.parametrize(("kind", "record"), _valid_examples())
def test_quick_check_agrees_with_jsonschema(kind: str, record: dict[str, Any]) -> None:
    quick, full = quick_check(kind), validator(kind)
    assert quick(record) and full.is_valid(record)
    mutations = itertools.islice(_mutations(record), 1500)
    disagreements = [m for m in mutations if quick(m) != full.is_valid(m)]
    assert disagreements == []


@pytest.mark.parametrize(
    ("schema", "value", "valid"),
    [
        ({"type": "integer"}, True, False),
        ({"type": "integer"}, 2.0, True),
        ({"type": "number"}, False, False),
        ({"const": 1}, True, False),
        ({"const": 1}, 1.0, True),
        ({"enum": [False]}, 0, False),
        ({"enum": ["a", "b"]}, "b", True),
        ({"type": "string", "pattern": "^[0-9a-f]{4}$"}, "beef", True),
        ({"type": "string", "pattern": "^[0-9a-f]{4}$"}, "BEEF", False),
        ({"type": "object", "required": ["a"], "additionalProperties": False}, {"a": 1}, False),
        ({"type": "array", "items": {"minimum": 0}}, [0, 1, -1], False),
        ({"oneOf": [{"type": "string"}, {"minLength": 1}]}, "x", False),
        ({"anyOf": [{"type": "string"}, {"type": "null"}]}, None, True),
        ({"type": "array", "maxItems": 2}, [1, 2], True),
        ({"type": "array", "maxItems": 2}, [1, 2, 3], False),
        ({"maxItems": 0}, "not an array", True),
        ({"type": "string", "maxLength": 2}, "abc", False),
        ({"type": "array", "uniqueItems": True}, [1, 1.0], False),
        ({"type": "array", "uniqueItems": True}, [1, True], True),
        ({"type": "array", "uniqueItems": True}, [{"a": [1]}, {"a": [2]}], True),
        ({"type": "array", "uniqueItems": False}, [1, 1], True),
        ({"type": "object", "minProperties": 1}, {}, False),
        ({"type": "object", "maxProperties": 1}, {"a": 1, "b": 2}, False),
        ({"minProperties": 1}, [], True),
        ({"type": "object", "propertyNames": {"pattern": "^a"}}, {"ab": 1, "b": 2}, False),
        ({"type": "object", "propertyNames": {"pattern": "^a"}}, {"ab": 1}, True),
    ],
)
def test_edge_cases_match_json_schema_semantics(schema: dict, value: Any, valid: bool) -> None:
    document = {"$id": "urn:test", **schema}
    assert compile_schema(document, Registry())(value) is valid
    from jsonschema import Draft202012Validator

    assert Draft202012Validator(document).is_valid(value) is valid


@pytest.mark.parametrize("kind", ["task", "oracle", "config", "skip", "summary"])
def test_every_record_schema_compiles(kind: str) -> None:
    """A schema the quick check cannot compile sends every record through jsonschema,
    which costs mining most of its time on a long history."""
    from bb_core.records.schemas import _loaded

    registry, by_name = _loaded()
    compile_schema(by_name[kind], registry)


def test_unknown_keywords_are_refused_not_ignored() -> None:
    with pytest.raises(Unsupported):
        compile_schema({"$id": "urn:t", "multipleOf": 2}, Registry())


def test_quick_check_agrees_on_bugbout_toml(demo_project: Path) -> None:
    """config.json uses if/then and not: the quick check must read them as jsonschema does."""
    from bb_core.config.doc import plain, read_toml

    document = plain(read_toml(demo_project / "bugbout.toml"))
    quick, full = quick_check("config"), validator("config")
    assert quick(document) and full.is_valid(document)
    assert [m for m in _mutations(document) if quick(m) != full.is_valid(m)] == []
