"""Names and values a Python module's code means, whatever it spells them as.

:class:`Resolver` reads one module's syntax tree and answers two questions about an
expression without running anything:

- :meth:`Resolver.qualname`: the dotted name it reaches (``sys.modules``), through aliases
  (``import sys as s``, ``from os import environ as e``, ``m = sys``) and computed access
  (``getattr(sys, "mod" + "ules")``, ``vars(sys)["modules"]``, ``sys.__dict__[...]``,
  ``__import__("sys")``, ``importlib.import_module("s" + "ys")``, ``sys.modules["gc"]``);
- :meth:`Resolver.constant`: the string (or bytes) it evaluates to when it is built from
  literals alone: concatenation, ``%`` and ``format``, f-strings, ``join``, slicing,
  case changes, ``encode``/``decode``, ``bytes.fromhex`` and base64 decoding of literals,
  and names bound once to such a value.

Both are conservative: what cannot be known is ``None``.
"""

from __future__ import annotations

import ast
import base64
import binascii
import builtins
import codecs
from collections.abc import Callable
from typing import Any

#: Names a module can reach without importing anything.
BUILTIN_NAMES = frozenset(dir(builtins))

#: Calls that turn literal text into other text: what :meth:`Resolver.constant` folds.
_DECODERS: dict[str, Callable[[Any], Any]] = {
    "base64.b64decode": base64.b64decode,
    "base64.standard_b64decode": base64.standard_b64decode,
    "base64.urlsafe_b64decode": base64.urlsafe_b64decode,
    "base64.b32decode": base64.b32decode,
    "base64.b16decode": base64.b16decode,
    "base64.a85decode": base64.a85decode,
    "base64.b85decode": base64.b85decode,
    "binascii.a2b_base64": binascii.a2b_base64,
    "binascii.unhexlify": binascii.unhexlify,
    "binascii.a2b_hex": binascii.a2b_hex,
    "bytes.fromhex": bytes.fromhex,
}
_STR_METHODS = frozenset(
    {"upper", "lower", "strip", "lstrip", "rstrip", "title", "casefold", "swapcase"}
)
_MAX_TEXT = 100_000


def _small(value: Any) -> Any:
    if isinstance(value, (str, bytes)) and len(value) <= _MAX_TEXT:
        return value
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) <= _MAX_TEXT:
        return value
    return None


class Resolver:
    """What the names of one module stand for (see the module's docstring)."""

    def __init__(self, tree: ast.AST) -> None:
        #: Local name -> dotted name it was bound to by an import or an assignment.
        self.aliases: dict[str, str] = {}
        #: Local name -> the one literal value it was ever bound to.
        self.values: dict[str, Any] = {}
        #: Local name -> the one expression it was ever bound to.
        self.bound: dict[str, ast.expr] = {}
        assigned: dict[str, list[ast.expr]] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        self.aliases[a.asname] = a.name
                    else:
                        top = a.name.split(".", 1)[0]
                        self.aliases.setdefault(top, top)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for a in node.names:
                    if a.name != "*":
                        self.aliases[a.asname or a.name] = f"{node.module}.{a.name}"
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        assigned.setdefault(target.id, []).append(node.value)
            elif (
                isinstance(node, (ast.AnnAssign, ast.NamedExpr))
                and isinstance(node.target, ast.Name)
                and node.value is not None
            ):
                assigned.setdefault(node.target.id, []).append(node.value)
        #: Local name -> every expression it is bound to, anywhere in the module.
        self.bindings = assigned
        # Names bound once: to a module or attribute (an alias) or to a literal value.
        for _ in range(3):  # chains of names bound to names
            for name, exprs in assigned.items():
                if len(exprs) != 1 or (name in self.aliases and self.aliases[name] != name):
                    continue
                self.bound[name] = exprs[0]
                value = self.constant(exprs[0])
                if value is not None:
                    self.values[name] = value
                    continue
                reached = self.qualname(exprs[0])
                if reached is not None and reached != name:
                    self.aliases[name] = reached

    # -- dotted names -------------------------------------------------------------------

    def qualname(self, node: ast.AST) -> str | None:
        """The dotted name *node* reaches, or None (see the module's docstring)."""
        if isinstance(node, ast.Name):
            if node.id in self.aliases:
                return self.aliases[node.id]
            if node.id == "__builtins__":
                return "builtins"
            return f"builtins.{node.id}" if node.id in BUILTIN_NAMES else node.id
        if isinstance(node, ast.Attribute):
            if node.attr == "__dict__":
                return self.qualname(node.value)
            base = self.qualname(node.value)
            return None if base is None else f"{base}.{node.attr}"
        if isinstance(node, ast.Subscript):
            key = self.constant(node.slice)
            if not isinstance(key, str):
                return None
            base = self.qualname(node.value)
            if base in ("sys.modules", "builtins.vars", "builtins.globals"):
                return key
            return None if base is None else f"{base}.{key}"
        if isinstance(node, ast.Call):
            return self._call_name(node)
        return None

    def _call_name(self, node: ast.Call) -> str | None:
        func = self.qualname(node.func)
        args = node.args
        if func in ("builtins.getattr", "operator.attrgetter") and len(args) >= 2:
            name = self.constant(args[1])
            base = self.qualname(args[0])
            if isinstance(name, str) and base is not None:
                return f"{base}.{name}"
        if func == "builtins.vars" and len(args) == 1:
            return self.qualname(args[0])
        if (
            func in ("builtins.__import__", "importlib.import_module", "importlib.__import__")
            and args
        ):
            name = self.constant(args[0])
            return name if isinstance(name, str) else None
        if func in ("sys.modules.get", "sys.modules.__getitem__") and args:
            name = self.constant(args[0])
            return name if isinstance(name, str) else None
        if func is not None and func.endswith((".get", ".__getitem__")) and args:
            base = func.rsplit(".", 1)[0]
            if base in ("builtins", "builtins.vars", "builtins.globals"):
                name = self.constant(args[0])
                return f"builtins.{name}" if isinstance(name, str) else None
        return None

    # -- literal values -----------------------------------------------------------------

    def constant(self, node: ast.AST | None, depth: int = 0) -> Any:
        """The str or bytes *node* evaluates to from literals alone, else None."""
        if node is None or depth > 40:
            return None
        depth += 1
        try:
            return _small(self._constant(node, depth))
        except (ValueError, TypeError, IndexError, KeyError, LookupError, binascii.Error):
            return None

    def _constant(self, node: ast.AST, depth: int) -> Any:
        if isinstance(node, ast.Constant):
            return node.value if isinstance(node.value, (str, bytes, int)) else None
        if isinstance(node, ast.Name):
            return self.values.get(node.id)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            value = self.constant(node.operand, depth)
            return -value if isinstance(value, int) else None
        if isinstance(node, ast.JoinedStr):
            parts = []
            for part in node.values:
                if isinstance(part, ast.FormattedValue):
                    value = self.constant(part.value, depth)
                    if value is None or part.format_spec is not None:
                        return None
                    parts.append(str(value))
                else:
                    value = self.constant(part, depth)
                    if value is None:
                        return None
                    parts.append(str(value))
            return "".join(parts)
        if isinstance(node, ast.BinOp):
            left = self.constant(node.left, depth)
            if left is None:
                return None
            if isinstance(node.op, ast.Add):
                right = self.constant(node.right, depth)
                return None if right is None else left + right
            if isinstance(node.op, ast.Mod) and isinstance(left, str):
                right = self._sequence(node.right, depth)
                if right is None:
                    one = self.constant(node.right, depth)
                    right = None if one is None else [one]
                return None if right is None else left % tuple(right)
            if isinstance(node.op, ast.Mult):
                right = self.constant(node.right, depth)
                return left * right if isinstance(right, int) and right < 1000 else None
            return None
        if isinstance(node, ast.Subscript):
            value = self.constant(node.value, depth)
            if not isinstance(value, (str, bytes)):
                return None
            if isinstance(node.slice, ast.Slice):
                bounds = [
                    None if part is None else self.constant(part, depth)
                    for part in (node.slice.lower, node.slice.upper, node.slice.step)
                ]
                given = (node.slice.lower, node.slice.upper, node.slice.step)
                if any(b is None and g is not None for b, g in zip(bounds, given, strict=True)):
                    return None
                return value[slice(*bounds)]
            index = self.constant(node.slice, depth)
            return value[index] if isinstance(index, int) else None
        if isinstance(node, ast.Call):
            return self._call_constant(node, depth)
        return None

    def _sequence(self, node: ast.AST, depth: int) -> list[Any] | None:
        if not isinstance(node, (ast.List, ast.Tuple)):
            return None
        items = [self.constant(item, depth) for item in node.elts]
        return None if any(item is None for item in items) else items

    def _call_constant(self, node: ast.Call, depth: int) -> Any:
        func = node.func
        args = [self.constant(a, depth) for a in node.args]
        joins = isinstance(func, ast.Attribute) and func.attr == "join"
        if (any(a is None for a in args) or node.keywords) and not joins:
            return None
        if isinstance(func, ast.Attribute):
            owner = self.constant(func.value, depth)
            if owner is not None:
                if func.attr == "join" and len(node.args) == 1:
                    items = self._sequence(node.args[0], depth)
                    return None if items is None else owner.join(items)
                if func.attr == "format" and isinstance(owner, str):
                    return owner.format(*args)
                if func.attr in _STR_METHODS:
                    return getattr(owner, func.attr)(*args)
                if func.attr == "replace" and len(args) == 2:
                    return owner.replace(*args)
                if func.attr in ("encode", "decode"):
                    return getattr(owner, func.attr)(*args)
                return None
        name = self.qualname(func)
        if name in _DECODERS and len(args) == 1:
            return _DECODERS[name](args[0])
        if name in ("codecs.decode", "codecs.encode") and len(args) == 2:
            return getattr(codecs, name.rsplit(".", 1)[1])(*args)
        if name == "builtins.chr" and len(args) == 1 and isinstance(args[0], int):
            return chr(args[0])
        if name in ("builtins.str", "builtins.bytes") and len(args) == 1:
            return (
                args[0] if isinstance(args[0], str if name == "builtins.str" else bytes) else None
            )
        return None
