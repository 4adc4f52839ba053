"""The schemas: well-formed, exemplified, and carried whole by bb-core's wheel."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import orjson
import pytest
from bb_core.errors import BadRecord
from bb_core.records import parse_line
from bb_core.records.schemas import KINDS, schema, validator
from jsonschema import Draft202012Validator

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "schemas"
EXAMPLES = SCHEMAS / "examples"


@pytest.mark.parametrize("path", sorted(SCHEMAS.glob("*.json")), ids=lambda p: p.name)
def test_every_schema_is_a_valid_draft_2020_12_schema(path: Path) -> None:
    """Tools skip the metaschema check at start-up (it cost 0.1 s a process); it runs here."""
    document = orjson.loads(path.read_bytes())
    assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(document)


def test_every_kind_has_a_schema_that_requires_kind_and_v() -> None:
    for kind in KINDS:
        document = schema(kind)
        assert document["properties"]["kind"] == {"const": kind}
        assert {"kind", "v"} <= set(document["required"])
        validator(kind)  # compiles, with every $ref resolved locally


def _examples(validity: str) -> list[Path]:
    return sorted(EXAMPLES.glob(f"*/{validity}/*.jsonl"))


@pytest.mark.parametrize("path", _examples("valid"), ids=lambda p: f"{p.parts[-3]}/{p.name}")
def test_valid_examples_validate(path: Path) -> None:
    for lineno, raw in enumerate(path.read_bytes().splitlines(), 1):
        line = parse_line(raw, str(path), lineno)
        assert line.known
        assert line.kind == path.parts[-3]


@pytest.mark.parametrize("path", _examples("invalid"), ids=lambda p: f"{p.parts[-3]}/{p.name}")
def test_invalid_examples_are_refused(path: Path) -> None:
    for lineno, raw in enumerate(path.read_bytes().splitlines(), 1):
        with pytest.raises(BadRecord):
            parse_line(raw, str(path), lineno)


def test_every_kind_has_valid_and_invalid_examples() -> None:
    for kind in KINDS:
        assert list((EXAMPLES / kind / "valid").glob("*.jsonl")), kind
        assert list((EXAMPLES / kind / "invalid").glob("*.jsonl")), kind


@pytest.mark.slow
def test_wheel_carries_the_schemas_unchanged(tmp_path: Path) -> None:
    subprocess.run(
        ["uv", "build", "--wheel", "--out-dir", str(tmp_path), str(ROOT / "packages" / "bb-core")],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("bb_core-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        packaged = {
            Path(name).name: archive.read(name)
            for name in archive.namelist()
            if name.startswith("bb_core/jsonschemas/") and name.endswith(".json")
        }
    folder = {path.name: path.read_bytes() for path in SCHEMAS.glob("*.json")}
    assert packaged == folder


def test_schema_ids_are_unique_and_versioned() -> None:
    ids = [orjson.loads(p.read_bytes())["$id"] for p in SCHEMAS.glob("*.json")]
    assert len(ids) == len(set(ids))
    assert all("/v1/" in i for i in ids)
    assert sys.version_info >= (3, 11)
