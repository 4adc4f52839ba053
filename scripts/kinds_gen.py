"""Writes bb_core/records/kinds.py and bb_core/records/vocabulary.py from the schemas.

The schemas are the single source of truth, so the Python types of records are generated
from them: each enum of ``defs.json`` becomes a ``Literal`` alias with a tuple of its values
in schema order (code derives its choices from these, never from a list of its own), an enum
of one field a ``Literal`` alias named for the field (``TaskStatementSource``), and each
record kind and every object with properties inside it becomes a ``TypedDict``
(``Required`` for the schema's required fields), with an ``as_<kind>`` function that types
a record its schema accepts (read from a line) as that ``TypedDict``.

The enums whose words code names (:data:`VOCABULARY`: categories, attempt statuses, flag
kinds, reserved names) go to ``bb_core/records/vocabulary.py`` instead: the ``Literal`` alias, a
constant per value (``RESOLVED_BUT_BREAKS_SUITE = "resolved-but-breaks-suite"``) and the
tuple of the constants in schema order; ``kinds`` imports the aliases from there. Run with
``--check`` to fail when either module is out of date.
"""

from __future__ import annotations

import keyword
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "schemas"
CORE = ROOT / "packages" / "bb-core" / "src" / "bb_core"
MODULE = CORE / "records" / "kinds.py"
VOCABULARY_MODULE = CORE / "records" / "vocabulary.py"
ORDER = ["task", "skip", "summary", "oracle", "attempt", "matrix", "verdict", "score", "report"]

HEADER = '''\
"""The Python types of bugbout's records, generated from ``schemas/``: do not edit.

``python scripts/kinds_gen.py`` writes this module; a test keeps it in step with the
schemas. Each enum of ``defs.json`` is a ``Literal`` alias with a tuple of its values in
schema order (the enums whose words code names are defined in ``bb_core.records.vocabulary``, with
a constant per value, and imported from there); each record kind (and each object with
properties inside one) is a ``TypedDict``; ``as_<kind>(record)`` types a record of that
kind, read and checked against its schema, as its ``TypedDict``.
"""

from collections.abc import Mapping
from typing import Any, Literal, Required, TypedDict, cast
'''

#: The enums of ``defs.json`` that make up bb_core.records.vocabulary, each with the prefix of its
#: constants' names.
VOCABULARY = {"category": "", "attempt_status": "", "attempt_flag": "FLAG_", "reserved_name": ""}

VOCABULARY_HEADER = '''\
"""bugbout's shared words, generated from ``schemas/``: do not edit.

``python scripts/kinds_gen.py`` writes this module; a test keeps it in step with the
schemas. For each enum of ``defs.json`` whose words code names (the categories of a
score, the statuses of an attempt, the kinds of flag bugbout's checks write, the names
bugbout reserves): a ``Literal`` alias, a constant per value, and a tuple of the values
in schema order. Code imports these rather than spelling the words.
"""

from typing import Final, Literal
'''

#: Definitions whose own name would read as something else in Python.
RENAMED = {"path": "repo_path", "paths": "repo_paths"}

SCALARS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}


def camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.replace("-", "_").split("_"))


def plural(name: str) -> str:
    if name.endswith(("us", "ss", "x")):
        return name + "es"
    if name.endswith("s"):  # already plural: new_tests
        return name
    if name.endswith("y"):
        return name[:-1] + "ies"
    return name + "s"


def singular(name: str) -> str:
    if name.endswith("ous"):  # an adjective: suspicious
        return name
    if name.endswith("ies"):
        return name[:-3] + "y"
    if name.endswith("s") and not name.endswith("ss"):
        return name[:-1]
    return name


class Writer:
    def __init__(self, schemas: dict[str, dict[str, Any]]) -> None:
        self.schemas = schemas
        self.enums: list[str] = []
        self.classes: list[str] = []
        self.named: dict[str, str] = {}  # "<file>#<JSON pointer>" -> Python name
        self.vocabulary: list[str] = []  # aliases of the vocabulary module, imported where used

    def ref(self, ref: str, here: str) -> str:
        """The Python name of what *ref* (in schema file *here*) points at."""
        file, _, pointer = ref.partition("#")
        file = file.removesuffix(".json") or here
        key = f"{file}#{pointer}"
        if key in self.named:
            return self.named[key]
        schema: Any = self.schemas[file]
        parts = [p for p in pointer.split("/") if p]
        for part in parts:
            schema = schema[part]
        if parts[:1] == ["$defs"] and len(parts) == 2:
            return self.definition(file, parts[1], schema)
        name = camel(file)
        for part in parts:
            if part == "items":
                name = singular(name)
            elif part != "properties":
                name += camel(part)
        return self.type_of(schema, name, file, pointer)

    def definition(self, file: str, name: str, schema: dict[str, Any]) -> str:
        pointer = f"/$defs/{name}"
        key = f"{file}#{pointer}"
        if key in self.named:
            return self.named[key]
        python = camel(RENAMED.get(name, name))
        python = python if file == "defs" else camel(file) + python
        if file == "defs" and name in VOCABULARY:
            self.named[key] = python
            self.vocabulary.append(python)
            return python
        if "enum" in schema:
            self.named[key] = python
            literal = ", ".join(_literal(v) for v in schema["enum"])
            tuple_name = plural(name).upper() if file == "defs" else python.upper()
            self.enums.append(
                f"{python} = Literal[{literal}]\n"
                f"{tuple_name}: tuple[{python}, ...] = ({literal}{',' if len(schema['enum']) == 1 else ''})\n"
            )
            return python
        if "properties" in schema:
            return self.type_of(schema, python, file, pointer)
        self.named[key] = python
        alias = self.type_of(schema, python, file, pointer)
        self.enums.append(f"{python} = {alias}\n")
        return python

    def type_of(self, schema: Any, name: str, file: str, pointer: str) -> str:
        if schema is True or not isinstance(schema, dict):
            return "Any"
        if "$ref" in schema:
            return self.ref(schema["$ref"], file)
        if "const" in schema:
            return f"Literal[{_literal(schema['const'])}]"
        if "enum" in schema:
            return self.inline_enum(name, schema["enum"])
        for key in ("anyOf", "oneOf"):
            if key in schema:
                parts = [
                    self.type_of(s, name, file, f"{pointer}/{key}/{i}")
                    for i, s in enumerate(schema[key])
                ]
                return _union(parts)
        kinds = schema.get("type")
        if isinstance(kinds, list):
            return _union([self.type_of({**schema, "type": k}, name, file, pointer) for k in kinds])
        if kinds in SCALARS:
            return SCALARS[kinds]
        if kinds == "array" or "items" in schema:
            item = self.type_of(schema.get("items", True), singular(name), file, pointer + "/items")
            return f"list[{item}]"
        if kinds == "object" or "properties" in schema or "additionalProperties" in schema:
            if schema.get("properties"):
                return self.typed_dict(name, schema, file, pointer)
            extra = schema.get("additionalProperties")
            if isinstance(extra, dict):
                value = self.type_of(extra, name + "Value", file, pointer + "/additionalProperties")
                return f"dict[str, {value}]"
            return "dict[str, Any]"
        return "Any"

    def inline_enum(self, name: str, values: list[Any]) -> str:
        """A record field's own enum, as a ``Literal`` alias named for the field
        (``TaskStatementSource``), so that code can type what it puts there."""
        literal = f"Literal[{', '.join(_literal(v) for v in values)}]"
        alias = f"{name} = {literal}\n"
        if alias not in self.enums:
            self.enums.append(alias)
        return name

    def typed_dict(self, name: str, schema: dict[str, Any], file: str, pointer: str) -> str:
        key = f"{file}#{pointer}"
        if key in self.named:
            return self.named[key]
        self.named[key] = name
        required = set(schema.get("required", ()))
        fields: list[tuple[str, str]] = []
        for prop, sub in schema["properties"].items():
            python = self.type_of(sub, name + camel(prop), file, f"{pointer}/properties/{prop}")
            fields.append((prop, f"Required[{python}]" if prop in required else python))
        plain = all(k.isidentifier() and not keyword.iskeyword(k) for k, _ in fields)
        doc = schema.get("description") or schema.get("title") or f"{file}.json {pointer}"
        doc = '"""' + doc.split(". ")[0].rstrip(".").replace("\\", "/") + '."""'
        if plain:
            body = "".join(f"    {k}: {t}\n" for k, t in fields)
            self.classes.append(f"class {name}(TypedDict, total=False):\n    {doc}\n\n{body}")
        else:
            items = "".join(f"        {_literal(k)}: {t},\n" for k, t in fields)
            self.classes.append(
                f"#: {doc[3:-3]}\n{name} = TypedDict(\n    {_literal(name)},\n    {{\n{items}"
                "    },\n    total=False,\n)\n"
            )
        return name


def _view(kind: str) -> str:
    name = camel(kind)
    return (
        f"def as_{kind}(record: Mapping[str, Any]) -> {name}:\n"
        f'    """*record*, which ``schemas/{kind}.json`` accepts, typed as :class:`{name}`."""\n'
        f"    return cast({name}, record)\n"
    )


def _literal(value: Any) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)


def _union(parts: list[str]) -> str:
    seen = list(dict.fromkeys(parts))
    if "Any" in seen:
        return "Any"
    return " | ".join(sorted(seen, key=lambda part: part == "None"))


def _words(name: str, schema: dict[str, Any]) -> str:
    """One enum of bb_core.records.vocabulary: its alias, a constant per value, the tuple of them."""
    alias = camel(name)
    constants = [_constant(name, v) for v in schema["enum"]]
    literal = ", ".join(_literal(v) for v in schema["enum"])
    about = schema.get("description") or f"The {plural(name).replace('_', ' ')}."
    lines = [f"#: {line}" for line in _wrapped(about)]
    lines.append(f"{alias} = Literal[{literal}]")
    lines += [f"{c}: Final = {_literal(v)}" for c, v in zip(constants, schema["enum"], strict=True)]
    one = "," if len(constants) == 1 else ""
    lines.append(f"{plural(name).upper()}: tuple[{alias}, ...] = ({', '.join(constants)}{one})")
    return "\n".join(lines) + "\n"


def _constant(name: str, value: str) -> str:
    """The constant's name for *value* of enum *name*: ``FLAG_OVER_CAP`` for ``over-cap``."""
    return VOCABULARY[name] + value.replace("-", "_").upper()


def _wrapped(text: str, width: int = 96) -> list[str]:
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


def render_vocabulary() -> str:
    defs = schemas()["defs"]["$defs"]
    names = [name for name in defs if name in VOCABULARY]
    if sorted(names) != sorted(VOCABULARY):
        raise SystemExit(f"defs.json lacks {sorted(set(VOCABULARY) - set(names))}")
    constants = [_constant(n, v) for n in names for v in defs[n]["enum"]]
    if len(set(constants)) != len(constants):
        raise SystemExit("two words of the vocabulary share a constant's name")
    body = "\n\n".join(_words(name, defs[name]) for name in names)
    return _formatted(VOCABULARY_HEADER + "\n" + body, VOCABULARY_MODULE)


def schemas() -> dict[str, dict[str, Any]]:
    return {p.stem: orjson.loads(p.read_bytes()) for p in sorted(SCHEMAS.glob("*.json"))}


def render() -> str:
    found = schemas()
    writer = Writer(found)
    for name, schema in found["defs"]["$defs"].items():
        writer.definition("defs", name, schema)
    for kind in ORDER:
        writer.ref(f"{kind}.json", kind)
    kinds = ", ".join(f'"{k}"' for k in ORDER)
    typed = "\n".join(writer.enums + writer.classes)
    used = [name for name in writer.vocabulary if re.search(rf"\b{name}\b", typed)]
    imported = ", ".join(sorted(used))
    parts = [
        HEADER,
        f"\nfrom bb_core.records.vocabulary import {imported}\n",
        "\n# -- enums " + "-" * 79 + "\n\n",
        "\n".join(writer.enums),
        "\n#: The record kinds, in pipeline order.\n",
        f"Kind = Literal[{kinds}]\nKINDS: tuple[Kind, ...] = ({kinds},)\n",
        "\n\n# -- records " + "-" * 77 + "\n\n\n",
        "\n\n".join(writer.classes),
        "\n\n# -- typed views " + "-" * 73 + "\n\n\n",
        "\n\n".join(_view(kind) for kind in ORDER),
    ]
    return _formatted("".join(parts), MODULE)


def _formatted(text: str, module: Path) -> str:
    """*text* as ruff formats it, so the generated *module* passes the format check."""
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--stdin-filename", str(module), "-"],
        input=text,
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return done.stdout


def main(argv: list[str]) -> int:
    modules = {VOCABULARY_MODULE: render_vocabulary(), MODULE: render()}
    if "--check" in argv:
        stale = [
            module
            for module, text in modules.items()
            if not module.exists() or module.read_text(encoding="utf-8") != text
        ]
        for module in stale:
            print(
                f"{module.relative_to(ROOT)} is out of date: run python scripts/kinds_gen.py",
                file=sys.stderr,
            )
        return 1 if stale else 0
    for module, text in modules.items():
        module.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
