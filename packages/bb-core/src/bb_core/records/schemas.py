"""The JSON Schemas of every record kind, loaded once and compiled into validators.

The schemas live in the repository's ``schemas/`` folder and travel inside bb-core's wheel
as ``bb_core/jsonschemas``; both copies are the same files (a test proves it). ``$ref`` is
resolved through a local :class:`referencing.Registry`, so nothing reaches the network.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import orjson
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from bb_core.records.fastcheck import Check, Unsupported, compile_schema
from bb_core.records.kinds import KINDS as RECORD_KINDS

if TYPE_CHECKING:  # jsonschema is imported only when a record needs explaining
    from jsonschema import Draft202012Validator

#: The kinds a line may carry, each with the schema file that describes it.
KINDS = RECORD_KINDS

#: The schema version every tool of this release reads and writes.
VERSION: Final = 1


def schema_dir() -> Path:
    """Where the schema files are: the packaged copy, else the repository's folder."""
    packaged = resources.files("bb_core") / "jsonschemas"
    if packaged.is_dir():
        return Path(str(packaged))
    here = Path(__file__).resolve()
    for parent in here.parents:
        candidate = parent / "schemas"
        if (candidate / "defs.json").is_file():
            return candidate
    raise FileNotFoundError("bugbout's schemas/ folder is missing from this installation")


@functools.cache
def _loaded() -> tuple[Registry, dict[str, dict[str, Any]]]:
    folder = schema_dir()
    registry: Registry = Registry()
    by_name: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.glob("*.json")):
        schema = orjson.loads(path.read_bytes())
        by_name[path.stem] = schema  # checked against the metaschema by the test suite, not here
        registry = registry.with_resource(
            schema["$id"], Resource.from_contents(schema, default_specification=DRAFT202012)
        )
    return registry.crawl(), by_name


def schema(name: str) -> Mapping[str, Any]:
    """The schema document called *name* (``task``, ``defs``, ``config`` ...)."""
    return _loaded()[1][name]


@functools.cache
def validator(name: str) -> Draft202012Validator:
    """A jsonschema validator for the schema called *name*, built once per process."""
    from jsonschema import Draft202012Validator

    registry, by_name = _loaded()
    return Draft202012Validator(by_name[name], registry=registry)


@functools.cache
def quick_check(name: str) -> Check:
    """A fast yes/no check for *name*; a "no" is confirmed and explained by :func:`validator`."""
    registry, by_name = _loaded()
    try:
        return compile_schema(by_name[name], registry)
    except Unsupported:
        return validator(name).is_valid
