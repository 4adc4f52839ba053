"""The raw bugbout.toml document: read it, lay flags over it, find its first problem.

:mod:`bb_core.config` turns a checked document into dataclasses; this module works on the
document before that. It reads the TOML (syntax and encoding errors with their line),
merges command-line overrides into it, and turns the first schema violation, in file
order, into ``<key.path>: <problem>``: plain words for each JSON Schema keyword, and the
nearest known key for a typo.
"""

from __future__ import annotations

import copy
import datetime as dt
import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bb_core.errors import ConfigError
from bb_core.records.schema_errors import PATTERN_WORDS, Dialect, as_toml, path_text, problem, where
from bb_core.records.schemas import quick_check, schema, validator

__all__ = [
    "PATTERN_WORDS",
    "first_problem",
    "key_path",
    "merge_overrides",
    "plain",
    "read_toml",
    "show",
]

#: A value as TOML would spell it, cut short.
show = as_toml

if TYPE_CHECKING:
    from jsonschema import ValidationError

_AT_END = "(at end of document)"

_TOML_POSITION = re.compile(r"^(?P<msg>.*?)\s*\(at line (?P<line>\d+), column (?P<col>\d+)\)$")


def key_path(parts: Iterable[Any]) -> str:
    """``["contestants", 2, "model"]`` -> ``contestants[2].model``; odd keys are quoted."""
    return path_text(parts, root="")


def _wrong_type(names: list[str], value: Any, where: list[Any]) -> str | None:
    """What to say of a wrong type that a TOML writer gets wrong in a known way."""
    if names == ["array"] and where in (["contestants"], ["examiners"]):
        section = where[0]
        if isinstance(value, dict):
            return f"expected an array of tables, got a table; write [[{section}]], not [{section}]"
        return f"expected an array of tables ([[{section}]]), got {show(value)}"
    if names == ["string"] and isinstance(value, int | float) and not isinstance(value, bool):
        return f"expected a string, got {show(value)}; put it in quotes"
    return None


#: How bugbout.toml's problems are worded: tables and keys, values as TOML spells them.
CONFIG = Dialect(
    key="key",
    types={
        "object": "a table",
        "array": "an array",
        "string": "a string",
        "integer": "an integer",
        "number": "a number",
        "boolean": "true or false",
        "null": "nothing",
    },
    show=show,
    option=show,
    suggest=True,
    wrong_type=_wrong_type,
)


def _toml_syntax(error: tomllib.TOMLDecodeError) -> tuple[str, str]:
    """``("3:5", "invalid TOML: expected '=' ...")`` from tomllib's error."""
    text = str(error)
    if text.endswith(_AT_END):
        text = text[: -len(_AT_END)].rstrip() + " at the end of the file"
    match = _TOML_POSITION.match(text)
    if match is None:
        return "", f"invalid TOML: {text[:1].lower()}{text[1:]}"
    msg = match["msg"]
    return f"{match['line']}:{match['col']}", f"invalid TOML: {msg[:1].lower()}{msg[1:]}"


_TWICE = re.compile(r"cannot declare \('([a-z]+)',\) twice")


def read_toml(file: Path) -> dict[str, Any]:
    """The parsed TOML document of *file*; every failure is a one-line ConfigError."""
    try:
        data = file.read_bytes()
    except FileNotFoundError as exc:
        raise ConfigError(f"{file}: no such file") from exc
    except OSError as exc:
        raise ConfigError(f"{file}: cannot read: {exc.strerror or exc}") from exc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ConfigError(f"{file}:{line}: not UTF-8 text") from exc
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        where, problem = _toml_syntax(exc)
        twice = _TWICE.search(problem)
        if twice and twice[1] in ("contestants", "examiners"):
            problem += f"; one entry per agent is written [[{twice[1]}]], not [{twice[1]}]"
        raise ConfigError(f"{file}:{where}: {problem}" if where else f"{file}: {problem}") from exc


def merge_overrides(document: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """*document* with *overrides* laid over it: tables merge key by key, values replace."""
    merged = copy.deepcopy(dict(document))
    for parts, value in _leaves(overrides):
        node = merged
        for part in parts[:-1]:
            child = node.get(part)
            if not isinstance(child, dict):
                child = node[part] = {}
            node = child
        node[parts[-1]] = copy.deepcopy(value)
    return merged


def _leaves(overrides: Mapping[str, Any]) -> list[tuple[list[str], Any]]:
    """Each overridden value with its key path, spelled as in the file; None is skipped."""
    found: list[tuple[list[str], Any]] = []

    def walk(parts: list[str], props: Mapping[str, Any], value: Any) -> None:
        if value is None:
            return
        if isinstance(value, Mapping):
            for key, item in value.items():
                spelled = _known_spelling(str(key), props)
                walk([*parts, spelled], props.get(spelled, {}).get("properties", {}), item)
            return
        found.append((parts, _plain_values(value)))

    top: Mapping[str, Any] = schema("config")["properties"]
    for dotted, value in overrides.items():
        parts: list[str] = []
        props = top
        for part in str(dotted).split("."):
            spelled = _known_spelling(part, props)
            parts.append(spelled)
            props = props.get(spelled, {}).get("properties", {})
        walk(parts, props, value)
    return found


def _known_spelling(key: str, props: Mapping[str, Any]) -> str:
    """``max_source_files`` -> ``max-source-files`` when that is a known key here."""
    dashed = key.replace("_", "-")
    return dashed if key not in props and dashed in props else key


def _plain_values(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain_values(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain_values(v) for v in value]
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return value


def is_overridden(where: str, overridden: Mapping[str, Any]) -> bool:
    """Whether the key at *where* (``tasks.limit``) holds a value an override set."""
    for parts, _ in _leaves(overridden):
        prefix = key_path(parts)
        if where == prefix or where.startswith((prefix + ".", prefix + "[")):
            return True
    return False


def plain(value: Any) -> Any:
    """The document with TOML dates and times turned into ISO strings, for the schema."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dt.date | dt.time):  # datetime is a date too
        return value.isoformat()
    return value


def first_problem(document: Mapping[str, Any], *, require_source: bool) -> tuple[str, str] | None:
    """The earliest schema violation in *document* as ``(key path, problem)``, or None.

    *document* is plain (see :func:`plain`). Without a file, ``project.source`` may be
    missing: the tools then take it from a flag.
    """
    if quick_check("config")(document):
        return None
    filled = None if require_source else _with_source(document)
    if filled is not None and quick_check("config")(filled):
        # Its one problem is the missing project.source, which a flag gives: nothing
        # else in the schema depends on it, so the validator need not be built.
        return None
    found: list[tuple[list[Any], ValidationError]] = []
    for error in validator("config").iter_errors(document):
        where = _where(error)
        if (
            not require_source
            and error.validator == "required"
            and where
            in (
                ["project"],
                ["project", "source"],
            )
        ):
            continue
        found.append((where, error))
    if not found:
        return None
    where, error = min(found, key=lambda item: _order(document, item[0]))
    return key_path(where), _problem(error, where)


def _with_source(document: Mapping[str, Any]) -> dict[str, Any] | None:
    """*document* with a stand-in ``project.source`` when it has none, else None."""
    project = document.get("project", {})
    if not isinstance(project, Mapping) or "source" in project:
        return None
    return {**document, "project": {**project, "source": "."}}


def _where(error: ValidationError) -> list[Any]:
    """The key the problem is about; a missing ``[project]`` is a missing project.source."""
    place = where(error)
    if place == ["project"] and error.validator == "required" and not error.absolute_path:
        return ["project", "source"]
    return place


def _order(document: Any, where: list[Any]) -> list[int]:
    """Where *where* sits in the file: the index of each key in its table, in turn."""
    order: list[int] = []
    node = document
    for part in where:
        if isinstance(node, dict):
            keys = list(node)
            order.append(keys.index(part) if part in node else len(keys))
            node = node.get(part)
        elif isinstance(node, list) and isinstance(part, int) and part < len(node):
            order.append(part)
            node = node[part]
        else:
            order.append(1 << 30)
            node = None
    return order


def _problem(error: ValidationError, place: list[Any]) -> str:
    return problem(error, place, CONFIG)
