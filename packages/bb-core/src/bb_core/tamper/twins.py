"""Negative twins: copies of real tests with one expected value changed, which must fail.

A twin is a test function (or a method of a test class) copied from a real test of the
same module, with exactly one assertion made to say the opposite: the literal side of an
``==`` comparison (or the value inside ``pytest.approx(...)``) replaced by a different
value of the same type, ``!=``/``in``/``is``/``<``... turned into their negation, a bare
``assert x`` into ``assert not (x)``, ``self.assertEqual(a, 3)`` into
``self.assertEqual(a, 4)``, ``assertTrue`` into ``assertFalse``, and so on. Only an
assertion at the top level of the test's body is changed, so it runs whenever the real
test's does. The twin is named from the words of its neighbours' names and written among
them in the same module: appended at the end of the module, or at the end of its class,
so the real tests above it keep their line numbers.

On a deterministic test, a twin and its original cannot both pass: they assert
contradictory things about the same computation. Code that makes both pass - an object
whose ``__eq__`` always answers True, a test function whose body was replaced, a report
rewritten from failed to passed - tampered with the run, whatever route it took.

:func:`make_twins` writes candidates from a module's text; the oracle keeps those that
fail on the fix and before it (:mod:`bb_oracle.twins`); :func:`bb_core.tamper.planting.insert`
writes twins (and canary functions) into a module's text for a run.
"""

from __future__ import annotations

import ast
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bb_core.records import kinds
from bb_core.tamper.planting import insert

#: Bumped when what :func:`make_twins` writes changes.
GENERATOR = 1
#: Candidates written per module for the oracle to validate.
CANDIDATES = 8
#: Twins kept per module once validated.
KEPT = 4

#: unittest assertions and the one that says the opposite.
OPPOSITE = {
    "assertTrue": "assertFalse", "assertFalse": "assertTrue",
    "assertIn": "assertNotIn", "assertNotIn": "assertIn",
    "assertIs": "assertIsNot", "assertIsNot": "assertIs",
    "assertIsNone": "assertIsNotNone", "assertIsNotNone": "assertIsNone",
    "assertNotEqual": "assertEqual", "assertIsInstance": "assertNotIsInstance",
    "assertNotIsInstance": "assertIsInstance",
}  # fmt: skip
#: unittest assertions whose second argument is the expected value.
EQUALS = ("assertEqual", "assertEquals", "assertListEqual", "assertDictEqual", "assertTupleEqual")
#: Comparison operators and their negation.
NEGATED: dict[type, type] = {
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In,
    ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.Lt: ast.GtE, ast.GtE: ast.Lt,
    ast.Gt: ast.LtE, ast.LtE: ast.Gt,
}  # fmt: skip
#: Words twin names are made of when the module's own test names offer too few.
WORDS = ("case", "check", "value", "result", "basic", "more", "again", "other", "input")


@dataclass(frozen=True)
class Twin:
    """One twin: where it goes, what it is called, and its source."""

    #: The test module, relative to the checkout.
    module: str
    #: The class it is a method of (``Outer::Inner`` for nested ones), or "".
    scope: str
    name: str
    #: The name of the real test it was copied from, in the same scope.
    of: str
    #: The function's text, indented as it sits in its scope.
    source: str

    @property
    def sep(self) -> str:
        """What joins the parts of its id: ``::`` (pytest's), `` > `` for a node test file
        (:mod:`bb_core.tamper.node_twins`), whose scope is its ``describe`` titles."""
        return "::" if self.module.endswith(".py") else " > "

    @property
    def nodeid(self) -> str:
        return self.sep.join(p for p in (self.module, self.scope, self.name) if p)

    @property
    def original(self) -> str:
        return self.sep.join(p for p in (self.module, self.scope, self.of) if p)

    def to_record(self) -> kinds.OracleTwin:
        return {
            "module": self.module,
            "scope": self.scope,
            "name": self.name,
            "of": self.of,
            "source": self.source,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Twin:
        return cls(
            str(data["module"]), str(data.get("scope", "")), str(data["name"]),
            str(data["of"]), str(data["source"]),
        )  # fmt: skip


def cases_of(twin: Twin, outcomes: Mapping[str, str]) -> list[str]:
    """The outcomes of *twin*'s cases among *outcomes* (by node id): its parametrized
    cases, and its copies in the subclasses that inherit it."""
    if twin.sep != "::":
        return [outcome for nodeid, outcome in outcomes.items() if nodeid == twin.nodeid]
    module = twin.module + "::"
    found = []
    for nodeid, outcome in outcomes.items():
        if nodeid.startswith(module) and nodeid.split("[", 1)[0].rsplit("::", 1)[1] == twin.name:
            found.append(outcome)
    return found


def _literal(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return not isinstance(node.value, type(Ellipsis))
    return isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.Dict))


def _changed(node: ast.expr, rng: random.Random) -> ast.expr | None:
    """A different value of the same type as the literal *node* (None: none found)."""
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool):
            new: Any = not value
        elif value is None:
            new = rng.choice((0, "", False))
        elif isinstance(value, int):
            new = value + rng.randint(1, 9)
        elif isinstance(value, float):
            new = value + rng.choice((0.5, 1.5, 2.0, 10.0))
        elif isinstance(value, str):
            new = value + rng.choice("aeknrsxz")
        elif isinstance(value, bytes):
            new = value + rng.choice("aeknrsxz").encode()
        elif isinstance(value, complex):
            new = value + 1j
        else:
            return None
        return ast.Constant(new)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        if len(node.elts) > 1 or (node.elts and not isinstance(node, ast.Set)):
            return type(node)(elts=node.elts[:-1], ctx=ast.Load())  # type: ignore[call-arg]
        return type(node)(elts=[ast.Constant(rng.randint(0, 9))], ctx=ast.Load())  # type: ignore[call-arg]
    if isinstance(node, ast.Dict):
        if node.keys:
            return ast.Dict(keys=node.keys[:-1], values=node.values[:-1])
        return ast.Dict(keys=[ast.Constant("key")], values=[ast.Constant(rng.randint(0, 9))])
    return None


def _approx(node: ast.expr) -> ast.expr | None:
    """The value inside ``pytest.approx(value)`` / ``approx(value)``, when literal."""
    if isinstance(node, ast.Call) and node.args:
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name == "approx" and _literal(node.args[0]):
            return node.args[0]
    return None


#: One change: the node replaced, and what replaces it.
Change = tuple[ast.AST, ast.AST]


def _changes(statement: ast.stmt, rng: random.Random) -> list[Change]:
    """The ways one top-level statement of a test can be made to say the opposite."""
    found: list[Change] = []
    if isinstance(statement, ast.Assert):
        test = statement.test
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            op, right = test.ops[0], test.comparators[0]
            if isinstance(op, ast.Eq):
                for side in (right, test.left):
                    inner = _approx(side)
                    target = inner if inner is not None else side
                    if _literal(target):
                        new = _changed(target, rng)
                        if new is not None:
                            found.append((target, new))
                            break
            if not found and type(op) in NEGATED:
                flipped = ast.Compare(test.left, [NEGATED[type(op)]()], [right])
                found.append((test, flipped))
        elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            found.append((test, test.operand))
        elif not isinstance(test, ast.Compare):
            found.append((test, ast.UnaryOp(ast.Not(), test)))
    elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        func = call.func
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == "self"
            and not call.keywords
        ):
            if func.attr in EQUALS and len(call.args) == 2:
                for arg in (call.args[1], call.args[0]):
                    new = _changed(arg, rng) if _literal(arg) else None
                    if new is not None:
                        found.append((arg, new))
                        break
                if not found:
                    found.append((func, ast.Attribute(func.value, "assertNotEqual")))
            elif func.attr in OPPOSITE:
                found.append((func, ast.Attribute(func.value, OPPOSITE[func.attr])))
    return found


def _test_functions(
    body: Sequence[ast.stmt], scope: str
) -> Iterable[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef, Sequence[ast.stmt]]]:
    """(scope, function, its siblings) for every test function and test-class method."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith(
            "test"
        ):
            yield scope, node, body
        elif isinstance(node, ast.ClassDef):
            inner = f"{scope}::{node.name}" if scope else node.name
            yield from _test_functions(node.body, inner)


def _marked_scopes(tree: ast.Module) -> set[str]:
    """Classes (by scope) with a decorator that may skip their tests."""
    found: set[str] = set()

    def walk(body: Sequence[ast.stmt], scope: str, outer: bool) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                inner = f"{scope}::{node.name}" if scope else node.name
                mine = outer or any(
                    "parametrize" not in ast.unparse(d) for d in node.decorator_list
                )
                if mine:
                    found.add(inner)
                walk(node.body, inner, mine)

    walk(tree.body, "", False)
    return found


def _words(names: Iterable[str]) -> list[str]:
    words: set[str] = set()
    for name in names:
        words.update(w for w in name.split("_")[1:] if w.isidentifier() and w.islower())
    return sorted(words)


def twin_name(original: str, siblings: Iterable[str], taken: set[str], rng: random.Random) -> str:
    """A name like the tests around it: the original's first words, then words drawn from
    the neighbours' names (never a word that would give it away)."""
    names = list(siblings)
    pool = _words(names)
    pool = pool + [w for w in WORDS if w not in pool] if len(pool) < 6 else pool
    head = original.split("_")
    prefix = head[0] if head[0].startswith("test") else "test"
    lead = [w for w in head[1:3] if w]
    while True:
        keep = lead[: rng.randint(0, len(lead))] if lead else []
        tail = [rng.choice(pool) for _ in range(rng.randint(1, 2))]
        name = "_".join([prefix, *keep, *tail])
        if name.isidentifier() and name not in taken:
            taken.add(name)
            return name


def _line_offsets(lines: Sequence[bytes]) -> list[int]:
    offsets, total = [], 0
    for line in lines:
        offsets.append(total)
        total += len(line)
    return offsets


def _twin_source(
    data: bytes,
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    change: Change,
    name: str,
) -> str | None:
    """The function's text with *change* made and *name* given; None when it cannot be."""
    lines = data.splitlines(keepends=True)
    offsets = _line_offsets(lines)
    first = min([function.lineno, *(d.lineno for d in function.decorator_list)])
    end = function.end_lineno or function.lineno
    start_byte, end_byte = offsets[first - 1], offsets[end - 1] + len(lines[end - 1])
    old, new = change
    if not all(hasattr(old, a) for a in ("lineno", "col_offset", "end_lineno", "end_col_offset")):
        return None
    a = offsets[old.lineno - 1] + old.col_offset  # type: ignore[attr-defined]
    b = offsets[old.end_lineno - 1] + old.end_col_offset  # type: ignore[attr-defined]
    text = _spelled(new, data[a:b])
    kept = getattr(new, "elts", None) or getattr(new, "keys", None)
    if kept and len(kept) < len(getattr(old, "elts", None) or getattr(old, "keys", [])):
        # The last element dropped: the rest as the test wrote it.
        last = new.elts[-1] if isinstance(new, (ast.List, ast.Tuple, ast.Set)) else new.values[-1]  # type: ignore[attr-defined]
        cut = offsets[(last.end_lineno or 1) - 1] + (last.end_col_offset or 0)
        close = data[b - 1 : b].decode()
        text = (
            data[a:cut].decode("utf-8", "replace")
            + ("," if isinstance(new, ast.Tuple) and len(kept) == 1 else "")
            + close
        )
    piece = data[start_byte:a] + text.encode() + data[b:end_byte]
    def_at = offsets[function.lineno - 1] + function.col_offset - start_byte
    keyword = b"async def " if isinstance(function, ast.AsyncFunctionDef) else b"def "
    head = keyword + function.name.encode()
    if piece[def_at : def_at + len(head)] != head:
        return None
    piece = piece[:def_at] + keyword + name.encode() + piece[def_at + len(head) :]
    try:
        source = piece.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return source if source.endswith("\n") else source + "\n"


def _spelled(node: ast.AST, old: bytes) -> str:
    """*node*'s text, a string in the quotes the text it replaces used.

    Every change replaces an atom (a literal, an attribute) or an assertion's whole
    test, so the text needs no parentheses."""
    text = ast.unparse(node)
    value = getattr(node, "value", None)
    quoted = isinstance(value, str) and old[:1] == b'"' and text.startswith("'")
    if isinstance(node, ast.Constant) and quoted and '"' not in str(value):
        text = '"' + text[1:-1].replace("\\'", "'") + '"'
    return text


def make_twins(
    data: bytes,
    module: str,
    *,
    rng: random.Random,
    tests: Iterable[str] | None = None,
    prefer: Iterable[str] = (),
    limit: int = CANDIDATES,
) -> list[Twin]:
    """Up to *limit* twins of the tests of *module* (its text *data*), one per test.

    *tests*: names (``Class::test_x`` or ``test_x``) that may be copied (None: every
    test). Tests named in *prefer* come first, then tests with no decorator but
    ``parametrize`` (a ``skipif`` would leave their twins unchecked), each group in
    random order. A test with no
    assertion at the top level of its body gets no twin.
    """
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return []
    allowed = None if tests is None else set(tests)
    preferred = set(prefer)
    found = list(_test_functions(tree.body, ""))
    rng.shuffle(found)
    # The tests the fix touched first, then those no decorator may skip.
    skipping = _marked_scopes(tree)
    found.sort(
        key=lambda f: (
            _qualified(f[0], f[1].name) not in preferred,
            f[0] in skipping or _marked(f[1]),
        )
    )
    taken_by_scope: dict[str, set[str]] = {}  # one set, for the whole module
    twins: list[Twin] = []
    for scope, function, siblings in found:
        if len(twins) >= limit:
            break
        qualified = _qualified(scope, function.name)
        if allowed is not None and qualified not in allowed:
            continue
        changes = [c for s in function.body for c in _changes(s, rng)]
        if not changes:
            continue
        # Unique in the whole module: a subclass inherits a twin under its own name.
        taken = taken_by_scope.setdefault("", _defined(tree))
        names = [s.name for s in siblings if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
        name = twin_name(function.name, [n for n in names if n.startswith("test")], taken, rng)
        source = _twin_source(data, function, rng.choice(changes), name)
        if source is not None:
            twins.append(Twin(module, scope, name, function.name, source))
    return [t for t in twins if _plants(data, t)]


def _marked(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether a decorator other than ``parametrize`` may skip or change the test."""
    return any("parametrize" not in ast.unparse(d) for d in function.decorator_list)


def _qualified(scope: str, name: str) -> str:
    return f"{scope}::{name}" if scope else name


def _defined(tree: ast.Module) -> set[str]:
    """Every name the module defines or assigns, at any depth."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name):
            names.add(node.id)
    return names


def _plants(data: bytes, twin: Twin) -> bool:
    """Whether *twin* planted alone leaves a module Python can parse."""
    planted = insert(data, [twin], "")
    if planted is None:
        return False
    try:
        ast.parse(planted)
    except (SyntaxError, ValueError):
        return False
    return True
