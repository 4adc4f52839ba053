"""One translator from JSON Schema violations to plain words, for records and bugbout.toml.

A record's problem reads ``oracle.fail_to_pass: expected an array, got string "x"``; a
configuration's ``run.sandbox: expected one of "auto", ...; got "box"``. Both come from
:func:`explain`: the place the problem is about (the missing or unknown key itself, not
its table; for a value that matches no branch of an ``anyOf``, the problem inside the
branch of its own type) and one sentence per JSON Schema keyword. A :class:`Dialect` holds
what differs between the two: what an object and a key are called, how values are shown,
whether an unknown key gets a suggestion.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from jsonschema import ValidationError

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")

#: Words for the patterns of the schemas (a test keeps the configuration's complete).
PATTERN_WORDS = {
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9:.]+(Z|[+-][0-9]{2}:?[0-9]{2})?)?$": (
        "a date YYYY-MM-DD or an ISO 8601 time"
    ),
    r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$": "owner/name",
    r"^(?!/)(?!~)(?!.*(^|/)\.\.(/|$))[^\\]+$": "a path relative to the repository root",
    r"^(default|<[0-9]{4}-[0-9]{2}-[0-9]{2}|>=[0-9]{4}-[0-9]{2}-[0-9]{2}|\S*\.\.\S+)$": (
        'an era: "default", "<YYYY-MM-DD", ">=YYYY-MM-DD" or a commit range "A..B"'
    ),
}


def path_text(parts: Iterable[Any], root: str = "$") -> str:
    """``["oracle", "runs", 0, "log"]`` -> ``oracle.runs[0].log``; keys other than letters,
    digits, ``_`` and ``-`` are quoted; no parts at all is *root*."""
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
            continue
        key = part if _BARE_KEY.match(part) else json.dumps(part, ensure_ascii=False)
        text += f".{key}" if text else key
    return text or root


def json_type(value: Any) -> str:
    """The JSON name of a Python value's type, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def as_json(value: Any) -> str:
    """A value as JSON, cut at 40 characters."""
    return orjson.dumps(value, default=str).decode()[:40]


def as_toml(value: Any) -> str:
    """A value as TOML would spell it, cut short: ``"abc"``, ``12``, ``true``, ``a table``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
    elif isinstance(value, list):
        text = json.dumps(value, ensure_ascii=False, default=str)
    else:
        text = str(value)
    return text if len(text) <= 40 else text[:39] + "…"


@dataclass(frozen=True)
class Dialect:
    """What differs between the documents a problem is found in."""

    #: What a key of an object is called: ``field`` or ``key``.
    key: str
    #: How each JSON type is named.
    types: Mapping[str, str]
    #: How a value is shown.
    show: Callable[[Any], str]
    #: How an allowed value of an ``enum`` is shown.
    option: Callable[[Any], str]
    #: Whether a wrong type names the type it got before the value (``got string "x"``).
    typed: bool = False
    #: Whether an unknown key is answered with the nearest known one.
    suggest: bool = False
    #: More to say about a wrong type at a place: ``(expected, value, where) -> sentence``.
    wrong_type: Callable[[list[str], Any, list[Any]], str | None] = field(
        default=lambda _names, _value, _where: None
    )


RECORDS = Dialect(
    key="field",
    types={
        "object": "an object",
        "array": "an array",
        "string": "a string",
        "integer": "an integer",
        "number": "a number",
        "boolean": "true or false",
        "null": "null",
    },
    show=as_json,
    option=str,
    typed=True,
)


def branch_error(error: ValidationError) -> ValidationError | None:
    """For a value that matches no branch of an ``anyOf``: the problem in the branch of its
    own type (a bad path in a list of paths), or None when no branch has its type."""
    depth = len(error.absolute_path)
    inner = [
        e
        for e in error.context or ()
        if e.validator != "type" or len(e.absolute_path) > depth  # a wrong item inside
    ]
    return min(inner, key=lambda e: len(e.absolute_path)) if inner else None


def where(error: ValidationError) -> list[Any]:
    """The place the problem is about: the missing or unknown key itself, not its table."""
    if error.validator in ("anyOf", "oneOf"):
        inner = branch_error(error)
        if inner is not None:
            return where(inner)
    path = list(error.absolute_path)
    instance = error.instance
    if "propertyNames" in error.absolute_schema_path:  # a key of a table: name the key
        return [*path, str(instance)]
    if error.validator == "required":
        missing = [k for k in error.validator_value if k not in instance]
        return [*path, missing[0] if missing else "?"]
    if error.validator in ("additionalProperties", "unevaluatedProperties"):
        known = set(error.schema.get("properties", {}))
        return [*path, next((k for k in instance if k not in known), "?")]
    return path


def problem(error: ValidationError, place: list[Any], dialect: Dialect) -> str:
    """One plain sentence for *error*, found at *place*."""
    value = error.instance
    show = dialect.show
    match error.validator:
        case "required":
            why = _then_description(error)
            said = f"required {dialect.key} missing"
            return f"{said}; {why}" if why else said
        case "additionalProperties" | "unevaluatedProperties":
            if not dialect.suggest:
                return f"unknown {dialect.key}"
            return _unknown_key(str(place[-1]), sorted(error.schema.get("properties", {})))
        case "type":
            wanted = error.validator_value
            names = [wanted] if isinstance(wanted, str) else list(wanted)
            special = dialect.wrong_type(names, value, place)
            if special is not None:
                return special
            expected = " or ".join(dialect.types.get(name, name) for name in names)
            got = f"{json_type(value)} {show(value)}" if dialect.typed else show(value)
            return f"expected {expected}, got {got}"
        case "enum":
            options = ", ".join(dialect.option(option) for option in error.validator_value)
            return f"expected one of {options}; got {show(value)}"
        case "const":
            return f"expected {as_json(error.validator_value)}"
        case "minimum":
            number = "an integer" if error.schema.get("type") == "integer" else "a number"
            return f"expected {number} >= {error.validator_value}, got {show(value)}"
        case "minLength":
            return "expected a non-empty string"
        case "minItems":
            return "expected a non-empty array"
        case "pattern":
            pattern = error.validator_value
            words = PATTERN_WORDS.get(pattern, f"text matching {pattern}")
            return f"expected {words}, got {show(value)}"
        case "not":
            return str(error.schema.get("description", "not allowed here"))
        case "anyOf" | "oneOf":
            # The branch of the value's own type says what is wrong with it; with none,
            # name every type the value may take.
            inner = branch_error(error)
            if inner is not None:
                return problem(inner, place, dialect)
            types = [branch.get("type") for branch in error.validator_value if "type" in branch]
            if not types:
                return error.message
            words = " or ".join(
                "an array of strings" if t == "array" else dialect.types.get(t, t) for t in types
            )
            return f"expected {words}, got {show(value)}"
        case _:
            return error.message


def explain(error: ValidationError, dialect: Dialect = RECORDS) -> tuple[list[Any], str]:
    """Where *error* is (as path parts) and what it is, in plain words."""
    place = where(error)
    return place, problem(error, place, dialect)


def _then_description(error: ValidationError) -> str:
    """The description of the ``then`` branch a requirement came from, if any."""
    if "then" not in error.absolute_schema_path:
        return ""
    return str(error.schema.get("description", ""))


def _unknown_key(key: str, known: list[str]) -> str:
    dashed = key.replace("_", "-")
    if dashed != key and dashed in known:
        return f'unknown key; did you mean "{dashed}"? (keys use dashes)'
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    if close:
        return f'unknown key; did you mean "{close[0]}"?'
    return "unknown key; known keys: " + ", ".join(known)
