"""The titles vitest and jest give the rows of a ``.each`` table, worked out statically.

``it.each(table)(title, fn)`` runs *fn* once per row, each row a test of its own whose
title is *title* filled in with the row: printf placeholders (``%s``, ``%d``, ``%i``,
``%f``, ``%j``, ``%o``, ``%O``, jest's ``%p``; ``%#`` the row's index, ``%$`` its number,
``%%`` a percent sign) take the row's values in order, and ``$name`` (``$a.b``) a value of
a row that is an object, as the rows of a template-literal table are.

Only literal values are known before the run: :func:`literal` reads strings, numbers,
booleans, ``null``, ``undefined`` and arrays and objects of those from the syntax tree, and
gives :data:`UNKNOWN` for anything else (a variable, a call). :func:`row_title` gives None
when a row's title depends on an unknown value or on a display it does not reproduce (an
object through ``%s``), and the caller then records the test by its template instead.

The two runners display values alike except in ``$name`` and ``%p``: vitest writes a
string there in single quotes (``'a'``), jest in double quotes (``"a"``).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from bb_core.lang.js import Node, text


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"


class _Undefined:
    def __repr__(self) -> str:
        return "undefined"


#: A value only the run knows.
UNKNOWN: Any = _Unknown()
#: JavaScript's ``undefined`` (``None`` stands for ``null``).
UNDEFINED: Any = _Undefined()

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
_ESCAPE = re.compile(r"\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|\r\n|[\s\S])")


def unescape(raw: str) -> str:
    """A JavaScript string literal's text (without its quotes) as the string it makes."""

    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if code[0] in "ux" and len(code) > 1:
            digits = code[2:-1] if code.startswith("u{") else code[1:]
            try:
                return chr(int(digits, 16))
            except ValueError:
                return code
        if code in ("\n", "\r\n", "\r", "\u2028", "\u2029"):
            return ""  # a line continuation
        return _ESCAPES.get(code, code)

    return _ESCAPE.sub(one, raw)


def string_value(node: Node) -> str | None:
    """The string a ``string`` node, or a ``template_string`` without substitutions,
    makes; None for anything else."""
    if node.type == "string":
        return unescape(text(node)[1:-1])
    if node.type == "template_string" and not any(
        c.type == "template_substitution" for c in node.named_children
    ):
        return unescape(text(node)[1:-1])
    return None


def _number(raw: str) -> float | int | Any:
    raw = raw.replace("_", "").lower()
    try:
        if raw.endswith("n"):
            return UNKNOWN  # a BigInt
        if raw.startswith(("0x", "0o", "0b")):
            return int(raw, 0)
        value = float(raw)
    except ValueError:
        return UNKNOWN
    return int(value) if value.is_integer() and "e" not in raw and "." not in raw else value


def literal(node: Node | None) -> Any:
    """The value of a literal expression, or :data:`UNKNOWN`."""
    if node is None:
        return UNKNOWN
    kind = node.type
    if kind == "parenthesized_expression" and node.named_child_count == 1:
        return literal(node.named_children[0])
    if kind in ("string", "template_string"):
        value = string_value(node)
        return UNKNOWN if value is None else value
    if kind == "number":
        return _number(text(node))
    if kind == "true":
        return True
    if kind == "false":
        return False
    if kind == "null":
        return None
    if kind in ("undefined",) or (kind == "identifier" and text(node) == "undefined"):
        return UNDEFINED
    if kind == "identifier" and text(node) in ("NaN", "Infinity"):
        return math.nan if text(node) == "NaN" else math.inf
    if kind == "unary_expression":
        operator = node.child_by_field_name("operator")
        value = literal(node.child_by_field_name("argument"))
        if operator is not None and text(operator) == "-" and _is_number(value):
            return -value
        return UNKNOWN
    if kind == "array":
        items = [literal(child) for child in node.named_children]
        return UNKNOWN if any(v is UNKNOWN for v in items) else items
    if kind == "object":
        found: dict[str, Any] = {}
        for pair in node.named_children:
            if pair.type != "pair":
                return UNKNOWN
            key = pair.child_by_field_name("key")
            if key is None:
                return UNKNOWN
            name = string_value(key) if key.type == "string" else text(key)
            value = literal(pair.child_by_field_name("value"))
            if name is None or value is UNKNOWN or key.type == "computed_property_name":
                return UNKNOWN
            found[name] = value
        return found
    return UNKNOWN


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def js_number(value: float | int) -> str:
    """A number as JavaScript's ``String(n)`` writes it (for the plain cases)."""
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        if value.is_integer() and abs(value) < 1e21:
            return "-0" if value == 0 and math.copysign(1, value) < 0 else str(int(value))
        return repr(value)
    return str(value)


def _plain(value: Any) -> str | None:
    """``String(value)`` for a primitive; None for an array or object."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if _is_number(value):
        return js_number(value)
    if value is None:
        return "null"
    if value is UNDEFINED:
        return "undefined"
    if isinstance(value, str):
        return value
    return None


def _quoted(value: Any, runner: str) -> str | None:
    """How ``$name`` shows *value*: vitest's ``'a'``, jest's ``"a"``; a primitive only."""
    if isinstance(value, str):
        if runner == "jest":
            return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return _plain(value)


def _json(value: Any) -> str | None:
    if value is UNDEFINED:
        return "undefined"
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return "null"
    try:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError):
        return None


_PLACEHOLDER = re.compile(r"%[sdifjoOpc%]")
_DOLLAR = re.compile(r"\$([$\w.]+)")


def row_title(template: str, row: list[Any], index: int, runner: str = "vitest") -> str | None:
    """The title of row *index* (its values *row*: the arguments the test gets, or one
    object) of a ``.each`` table titled *template*; None when only the run can tell."""
    title = template.replace("%%", "\0").replace("%#", str(index)).replace("%$", str(index + 1))
    out: list[str] = []
    last = used = 0
    for match in _PLACEHOLDER.finditer(title):
        out.append(title[last : match.start()])
        last = match.end()
        if used >= len(row):
            out.append(match.group())  # more placeholders than values: left as written
            continue
        value = row[used]
        used += 1
        shown = None if value is UNKNOWN else _shown(match.group()[1], value, runner)
        if shown is None:
            return None
        out.append(shown)
    out.append(title[last:])
    title = "".join(out).replace("\0", "%")
    if "$" in title:
        replaced = _dollars(title, row, runner)
        if replaced is None:
            return None
        title = replaced
    return title


def _shown(code: str, value: Any, runner: str) -> str | None:
    if code == "s":
        return _plain(value)
    if code == "c":
        return ""
    if code in ("d", "i", "f"):
        if not _is_number(value):
            return None
        if code == "i":
            return js_number(math.trunc(value)) if math.isfinite(value) else "NaN"
        return js_number(value)
    if code == "j":
        return _json(value)
    if code in ("o", "O"):
        return _quoted(value, "vitest")
    if code == "p" and runner == "jest":
        return _quoted(value, "jest")
    return None


def _dollars(title: str, row: list[Any], runner: str) -> str | None:
    """``$name`` and ``$a.b`` filled in from a row that is one object; a name the object
    lacks is shown as ``undefined`` by both runners."""
    subject = row[0] if len(row) == 1 and isinstance(row[0], dict) else None
    unknown = False

    def one(match: re.Match[str]) -> str:
        nonlocal unknown
        key = match.group(1)
        if subject is None:
            if key.isdigit() and int(key) < len(row):
                shown = _quoted(row[int(key)], runner)
                unknown = unknown or shown is None
                return shown or ""
            return match.group()
        value: Any = subject
        for part in key.split("."):
            value = value.get(part, UNDEFINED) if isinstance(value, dict) else UNDEFINED
        shown = _quoted(value, runner)
        unknown = unknown or shown is None
        return shown or ""

    filled = _DOLLAR.sub(one, title)
    return None if unknown else filled


def table_rows(node: Node) -> list[list[Any]] | None:
    """The rows of a ``.each`` table, each as the values its test receives, or None when
    the table is not a literal (a variable, a call, a spread)."""
    if node.type == "template_string":
        return _template_rows(node)
    if node.type != "array":
        return None
    rows: list[list[Any]] = []
    for item in node.named_children:
        if item.type == "spread_element":
            return None
        if item.type == "array":
            rows.append([literal(child) for child in item.named_children])
        else:
            rows.append([literal(item)])
    return rows


def _template_rows(node: Node) -> list[list[Any]] | None:
    """A template-literal table: a header line of names split by ``|``, then one
    ``${value}`` per name per row; each row is one object."""
    children = node.named_children
    head = children[0] if children and children[0].type == "string_fragment" else None
    if head is None:
        return None
    header = next((line for line in text(head).splitlines() if line.strip()), "")
    names = [name.strip() for name in header.split("|")]
    values = [
        literal(c.named_children[0]) if c.named_child_count == 1 else UNKNOWN
        for c in children
        if c.type == "template_substitution"
    ]
    if not names or not all(names) or len(values) % len(names):
        return None
    width = len(names)
    return [
        [dict(zip(names, values[at : at + width], strict=True))]
        for at in range(0, len(values), width)
    ]


__all__ = ["UNDEFINED", "UNKNOWN", "literal", "row_title", "string_value", "table_rows", "unescape"]
