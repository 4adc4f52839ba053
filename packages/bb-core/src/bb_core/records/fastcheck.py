"""A compiled yes/no check for the subset of JSON Schema that bugbout's schemas use.

Validating every line with jsonschema costs about 300 µs for a task line, most of it in
``$ref`` look-ups; a stage reading 100,000 lines would spend its time validating. This
module compiles a schema once into nested closures that answer "valid?" in a few
microseconds. Only a line it rejects is handed to jsonschema, which finds the precise
error (and has the last word, so a disagreement can never reject a good line).

A schema that uses a keyword outside the subset is not compiled: :func:`compile_schema`
raises :class:`Unsupported` and callers fall back to jsonschema for everything.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urljoin

from referencing import Registry

Check = Callable[[Any], bool]

#: Keywords that never affect validity.
_ANNOTATIONS = frozenset(
    {
        "$schema",
        "$id",
        "$defs",
        "$comment",
        "title",
        "description",
        "default",
        "examples",
        "format",
        "deprecated",
        "readOnly",
        "writeOnly",
    }
)


def _all(checks: list[Check]) -> Check:
    if not checks:
        return lambda _value: True
    if len(checks) == 1:
        return checks[0]

    def check(value: Any) -> bool:
        for one in checks:  # noqa: SIM110 - a plain loop is faster than all() on a generator
            if not one(value):
                return False
        return True

    return check


class Unsupported(Exception):
    """The schema uses a keyword this compiler does not implement."""


def _is_type(value: Any, name: str) -> bool:
    match name:
        case "object":
            return isinstance(value, dict)
        case "array":
            return isinstance(value, list)
        case "string":
            return isinstance(value, str)
        case "boolean":
            return isinstance(value, bool)
        case "null":
            return value is None
        case "integer":
            if isinstance(value, bool):
                return False
            return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
        case "number":
            return isinstance(value, int | float) and not isinstance(value, bool)
    raise Unsupported(f"type {name!r}")


def _json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON Schema means it: true is not 1, 1 is 1.0."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    return type(a) is type(b) and bool(a == b)


class _Compiler:
    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self.by_ref: dict[int, Check] = {}

    def compile(self, schema: Any, base: str) -> Check:
        if schema is True:
            return lambda _value: True
        if schema is False:
            return lambda _value: False
        if not isinstance(schema, Mapping):
            raise Unsupported(f"schema {schema!r}")
        base = schema.get("$id", base)
        if schema.get("type") == "object" and "patternProperties" not in schema:
            return self.object(schema, base)
        checks = [
            self.keyword(keyword, argument, schema, base)
            for keyword, argument in schema.items()
            if keyword not in _ANNOTATIONS
        ]
        return _all(checks)

    def object(self, schema: Mapping[str, Any], base: str) -> Check:
        """type object + properties + required + additionalProperties, fused into one loop."""
        properties = {n: self.compile(s, base) for n, s in schema.get("properties", {}).items()}
        required = tuple(schema.get("required", ()))
        extra_schema = schema.get("additionalProperties", True)
        extra = None if extra_schema is True else self.compile(extra_schema, base)
        fused = {"type", "properties", "required", "additionalProperties"}
        rest = _all(
            [
                self.keyword(keyword, argument, schema, base)
                for keyword, argument in schema.items()
                if keyword not in _ANNOTATIONS and keyword not in fused
            ]
        )

        def check(value: Any) -> bool:
            if not isinstance(value, dict):
                return False
            for name in required:
                if name not in value:
                    return False
            for name, item in value.items():
                sub = properties.get(name)
                if sub is None:
                    if extra is not None and not extra(item):
                        return False
                elif not sub(item):
                    return False
            return rest(value)

        return check

    def keyword(self, keyword: str, argument: Any, schema: Mapping[str, Any], base: str) -> Check:
        match keyword:
            case "$ref":
                return self.ref(argument, base)
            case "type":
                names = [argument] if isinstance(argument, str) else list(argument)
                for name in names:
                    _is_type(None, name)  # raises Unsupported for unknown names
                if names == ["string"]:
                    return lambda value: isinstance(value, str)
                if names == ["array"]:
                    return lambda value: isinstance(value, list)
                return lambda value: any(_is_type(value, n) for n in names)
            case "const":
                if isinstance(argument, str):
                    return lambda value: isinstance(value, str) and value == argument
                return lambda value: _json_equal(value, argument)
            case "enum":
                options = list(argument)
                if all(isinstance(o, str) for o in options):
                    strings = frozenset(options)
                    return lambda value: isinstance(value, str) and value in strings
                return lambda value: any(_json_equal(value, o) for o in options)
            case "pattern":
                search = re.compile(argument).search
                return lambda value: not isinstance(value, str) or search(value) is not None
            case "minLength":
                return lambda value: not isinstance(value, str) or len(value) >= argument
            case "minItems":
                return lambda value: not isinstance(value, list) or len(value) >= argument
            case "maxItems":
                return lambda value: not isinstance(value, list) or len(value) <= argument
            case "propertyNames":
                key = self.compile(argument, base)
                return lambda value: not isinstance(value, dict) or all(key(k) for k in value)
            case "minProperties":
                return lambda value: not isinstance(value, dict) or len(value) >= argument
            case "maxProperties":
                return lambda value: not isinstance(value, dict) or len(value) <= argument
            case "maxLength":
                return lambda value: not isinstance(value, str) or len(value) <= argument
            case "uniqueItems":
                if not argument:
                    return lambda _value: True
                return lambda value: not isinstance(value, list) or _unique(value)
            case "minimum":
                return lambda value: not _is_type(value, "number") or value >= argument
            case "exclusiveMinimum":
                return lambda value: not _is_type(value, "number") or value > argument
            case "exclusiveMaximum":
                return lambda value: not _is_type(value, "number") or value < argument
            case "not":
                negated = self.compile(argument, base)
                return lambda value: not negated(value)
            case "if":
                condition = self.compile(argument, base)
                then = self.compile(schema.get("then", True), base)
                otherwise = self.compile(schema.get("else", True), base)
                return lambda value: then(value) if condition(value) else otherwise(value)
            case "then" | "else":  # applied by "if"; without one they mean nothing
                return lambda _value: True
            case "maximum":
                return lambda value: not _is_type(value, "number") or value <= argument
            case "required":
                names = list(argument)
                return lambda value: not isinstance(value, dict) or all(n in value for n in names)
            case "properties":
                return self.properties(argument, base)
            case "additionalProperties":
                return self.additional(argument, schema, base)
            case "items":
                item = self.compile(argument, base)

                def items(value: Any) -> bool:
                    if isinstance(value, list):
                        for one in value:
                            if not item(one):
                                return False
                    return True

                return items
            case "anyOf" | "oneOf" | "allOf":
                return self.combined(keyword, argument, base)
        raise Unsupported(keyword)

    def properties(self, argument: Mapping[str, Any], base: str) -> Check:
        compiled = {name: self.compile(sub, base) for name, sub in argument.items()}

        def check(value: Any) -> bool:
            if not isinstance(value, dict):
                return True
            for name, sub in compiled.items():
                if name in value and not sub(value[name]):
                    return False
            return True

        return check

    def additional(self, argument: Any, schema: Mapping[str, Any], base: str) -> Check:
        if "patternProperties" in schema:
            raise Unsupported("patternProperties")
        known = frozenset(schema.get("properties", {}))
        extra = self.compile(argument, base)
        return lambda value: (
            not isinstance(value, dict) or all(extra(v) for k, v in value.items() if k not in known)
        )

    def combined(self, keyword: str, argument: list[Any], base: str) -> Check:
        subs = [self.compile(sub, base) for sub in argument]
        if keyword == "anyOf":
            return lambda value: any(sub(value) for sub in subs)
        if keyword == "allOf":
            return lambda value: all(sub(value) for sub in subs)
        return lambda value: sum(1 for sub in subs if sub(value)) == 1

    def ref(self, reference: str, base: str) -> Check:
        resolved = self.registry.resolver(base_uri=base).lookup(reference)
        document = reference.split("#", 1)[0]
        target_base = urljoin(base, document) if document else base
        key = id(resolved.contents)
        if key not in self.by_ref:
            slot: list[Check] = []
            self.by_ref[key] = lambda value: slot[0](value)  # stands in while recursing
            slot.append(self.compile(resolved.contents, target_base))
            self.by_ref[key] = slot[0]
        return self.by_ref[key]


def _unique(values: list[Any]) -> bool:
    """No two items of *values* are equal as JSON sees them (``1`` and ``1.0`` are equal,
    ``1`` and ``true`` are not)."""
    return not any(_json_equal(a, b) for i, a in enumerate(values) for b in values[i + 1 :])


def compile_schema(schema: Mapping[str, Any], registry: Registry) -> Check:
    """A function telling whether an instance is valid against *schema*."""
    return _Compiler(registry).compile(schema, str(schema.get("$id", "")))
