"""The tests a JavaScript or TypeScript test file defines, read from its syntax tree.

vitest and jest define tests by calls: ``it``/``test`` (a test), ``describe``/``suite`` (a
block whose title prefixes every test inside it), with their variants ``xit``, ``xtest``,
``xdescribe`` (skipped), ``fit``, ``fdescribe`` (only), and the chained modifiers
``.skip``, ``.only``, ``.todo``, ``.concurrent``, ``.sequential``, ``.fails``,
``.skipIf(cond)``, ``.runIf(cond)`` and ``.each(table)``/``.for(table)``.

Each test has a stable id, ``<path> > <describe> > ... > <test name>``, the runner's full
title after the file's path. A ``.each`` table whose rows are literals is expanded as the
runner titles its rows (:mod:`bb_core.lang.jseach`), one id per row; when a row's title is
known only at run time (a table held in a variable, a title built from a variable), the
test is one id carrying its *template* (``<path> > adds %s``, ``template`` set), and the
collection of the real run decides which ids it stands for (:func:`template_pattern`).

A test's :attr:`JsTest.body` is its callback's tokens, comments and layout left out: equal
bodies are the same test, whatever the formatting. Its :attr:`JsTest.marks` are the
modifiers on it and on the blocks around it (``skip``, ``only``, ``todo``, ``concurrent``,
``fails``, ``skipIf``, ``runIf``...).

A file that tree-sitter cannot read whole (``ERROR`` nodes), or that is not text, raises
:class:`Unparseable` naming its first bad line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from bb_core.lang.js import Condensed, Node, parse, text
from bb_core.lang.jseach import row_title, string_value, table_rows

#: Calls that define a test, and those that define a block of tests.
TEST_CALLS = frozenset({"it", "test", "xit", "xtest", "fit"})
BLOCK_CALLS = frozenset({"describe", "suite", "xdescribe", "fdescribe"})
#: What the base name itself says.
BASE_MARKS = {
    "xit": "skip",
    "xtest": "skip",
    "xdescribe": "skip",
    "fit": "only",
    "fdescribe": "only",
}
#: Chained modifiers: plain ones, and those called with an argument first.
MODIFIERS = frozenset({"skip", "only", "todo", "concurrent", "sequential", "fails", "shuffle"})
CALLED_MODIFIERS = frozenset({"each", "for", "skipIf", "runIf"})
#: Marks under which a test does not run, or runs expecting to fail.
NOT_RUN_MARKS = frozenset({"skip", "todo", "skipIf", "runIf", "fails"})

#: The separator of an id's parts, as the runners' reporters join a test's titles.
SEPARATOR = " > "


class Unparseable(ValueError):
    """A test file that is not JavaScript or TypeScript tree-sitter can read."""


@dataclass(frozen=True, slots=True)
class JsTest:
    """One test as the file defines it."""

    id: str
    #: 1-based line of its call.
    line: int
    body: str
    marks: frozenset[str] = frozenset()
    #: The id the test's ``.each`` rows share (its template), or None for a single test.
    group: str | None = None
    #: True when :attr:`id` is a template the runner fills in at run time.
    template: bool = False

    @property
    def runs(self) -> bool:
        """Whether the runner runs it as a plain test (no skip, todo or fails mark)."""
        return not self.marks & NOT_RUN_MARKS


@dataclass(frozen=True, slots=True)
class _Block:
    titles: tuple[str, ...]
    marks: frozenset[str]
    template: bool


def collect_tests(path: str, data: bytes, runner: str = "vitest") -> dict[str, JsTest]:
    """The tests file *path* with contents *data* defines, by id, in file order; *runner*
    (``vitest`` or ``jest``) decides how ``.each`` rows are titled."""
    if b"\0" in data:
        raise Unparseable(f"{path}: not a text file")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Unparseable(f"{path}: not UTF-8 text (byte {exc.start})") from exc
    tree = parse(path, data)
    if tree.root_node.has_error:
        line = _first_error(tree.root_node)
        raise Unparseable(f"{path}:{line}: does not parse as {_language(path)}")
    found: dict[str, JsTest] = {}
    spans = Condensed(tree, data)
    for test in _walk(tree.root_node, path, _Block((path,), frozenset(), False), runner, spans):
        kept = found.get(test.id)
        if kept is not None:  # the same title twice: one id, both bodies
            test = replace(kept, body=kept.body + "\n" + test.body, marks=kept.marks & test.marks)
        found[test.id] = test
    return found


def _language(path: str) -> str:
    return "TypeScript" if path.endswith(("ts", "tsx")) else "JavaScript"


def _first_error(root: Node) -> int:
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            return node.start_point[0] + 1
        stack.extend(reversed([c for c in node.children if c.has_error or c.is_missing]))
    return root.start_point[0] + 1


def _walk(root: Node, path: str, outer: _Block, runner: str, spans: Condensed) -> Iterator[JsTest]:
    """Every test under *root*, in source order, inside block *outer*."""
    stack: list[tuple[Node, _Block]] = [(root, outer)]
    while stack:
        node, block = stack.pop()
        if node.type == "call_expression":
            call = _test_call(node)
            if call is not None:
                base, modifiers, args = call
                if base in BLOCK_CALLS:
                    inner = list(_blocks(base, modifiers, args, block, runner))
                    callback = _callback(args)
                    if callback is not None:
                        stack.extend((callback, b) for b in reversed(inner))
                else:
                    yield from _tests(node, base, modifiers, args, block, runner, spans)
                continue
        stack.extend((child, block) for child in reversed(node.named_children))


def _test_call(node: Node) -> tuple[str, list[tuple[str, Node | None]], Node] | None:
    """(base name, modifiers with their arguments, the call's arguments) when *node* is a
    call that defines a test or a block; None otherwise (``it.each(rows)`` alone makes a
    function, it defines nothing)."""
    args = node.child_by_field_name("arguments")
    function = node.child_by_field_name("function")
    if args is None or function is None or args.type != "arguments":
        return None
    modifiers: list[tuple[str, Node | None]] = []
    current = function
    while True:
        if current.type == "identifier":
            base = text(current)
            break
        if current.type == "member_expression":
            prop = current.child_by_field_name("property")
            modifiers.append((text(prop) if prop is not None else "", None))
            current = current.child_by_field_name("object")  # type: ignore[assignment]
        elif current.type == "call_expression":
            inner = current.child_by_field_name("function")
            if inner is None or inner.type != "member_expression":
                return None
            prop = inner.child_by_field_name("property")
            modifiers.append((text(prop) if prop is not None else "", _first_arg(current)))
            current = inner.child_by_field_name("object")  # type: ignore[assignment]
        else:
            return None
        if current is None:
            return None
    if base not in TEST_CALLS and base not in BLOCK_CALLS:
        return None
    modifiers.reverse()
    for name, argument in modifiers:
        if name not in (MODIFIERS if argument is None else CALLED_MODIFIERS):
            return None
    return base, modifiers, args


def _first_arg(call: Node) -> Node | None:
    args = call.child_by_field_name("arguments")
    if args is None:
        return None
    if args.type == "template_string":
        return args
    return args.named_children[0] if args.named_child_count else None


def _marks(base: str, modifiers: list[tuple[str, Node | None]]) -> frozenset[str]:
    marks = {name for name, _ in modifiers if name not in ("each", "for")}
    if base in BASE_MARKS:
        marks.add(BASE_MARKS[base])
    return frozenset(marks)


def _table(modifiers: list[tuple[str, Node | None]]) -> Node | bool | None:
    """The ``.each``/``.for`` table node; False for a call without one."""
    for name, argument in modifiers:
        if name in ("each", "for"):
            return argument
    return False


def _title(args: Node) -> tuple[str, bool]:
    """The title argument's text, and whether it is known only at run time."""
    first = args.named_children[0] if args.named_child_count else None
    if first is None:
        return "", True
    value = string_value(first)
    if value is not None:
        return value, False
    raw = text(first)
    if first.type == "template_string":
        raw = raw[1:-1]
    return raw, True


def _titles(
    args: Node, modifiers: list[tuple[str, Node | None]], runner: str
) -> tuple[list[str], bool, str, str]:
    """The titles a call makes (one per row of a known table), whether they are a
    template, the template itself, and the table's text."""
    title, unknown = _title(args)
    table = _table(modifiers)
    if table is False:
        return [title], unknown, title, ""
    table_text = text(table) if isinstance(table, Node) else ""
    rows = table_rows(table) if isinstance(table, Node) and not unknown else None
    if rows is not None:
        titles = [row_title(title, row, index, runner) for index, row in enumerate(rows)]
        if all(t is not None for t in titles):
            return [t for t in titles if t is not None], False, title, table_text
    return [title], True, title, table_text


def _blocks(
    base: str, modifiers: list[tuple[str, Node | None]], args: Node, outer: _Block, runner: str
) -> Iterator[_Block]:
    titles, template, _, _ = _titles(args, modifiers, runner)
    marks = outer.marks | _marks(base, modifiers)
    for title in titles:
        yield _Block((*outer.titles, title), marks, outer.template or template)


def _callback(args: Node) -> Node | None:
    for child in args.named_children[1:]:
        if child.type in ("arrow_function", "function_expression", "function"):
            return child.child_by_field_name("body") or child
    return None


def _tests(
    node: Node,
    base: str,
    modifiers: list[tuple[str, Node | None]],
    args: Node,
    block: _Block,
    runner: str,
    spans: Condensed,
) -> Iterator[JsTest]:
    titles, template, raw, table_text = _titles(args, modifiers, runner)
    callback = _callback(args)
    body = spans.text(callback) if callback is not None else ""
    marks = block.marks | _marks(base, modifiers)
    line = node.start_point[0] + 1
    each = _table(modifiers) is not False
    group = SEPARATOR.join((*block.titles, raw)) if each else None
    template = template or block.template
    if template and each:
        body += "\n" + table_text  # a new row of a table only the run reads changes the test
    for title in titles:
        yield JsTest(SEPARATOR.join((*block.titles, title)), line, body, marks, group, template)


def compare(
    before: dict[str, JsTest], after: dict[str, JsTest]
) -> tuple[list[str], list[str], list[str]]:
    """(new tests, new ``.each`` rows of tests that were there, tests whose body changed
    or that lost a mark that kept them from running) from *before* to *after*.

    A new test whose body is that of a test that vanished is a rename, not new (changed
    when it lost such a mark). A row of a table is new or not by its id alone.
    """
    new = [i for i in after if i not in before]
    removed: dict[str, frozenset[str]] = {}
    for gone in (t for i, t in before.items() if i not in after and t.group is None):
        kept = removed.get(gone.body)
        removed[gone.body] = gone.marks if kept is None else kept & gone.marks
    groups = {t.group for t in before.values() if t.group is not None}
    tests: list[str] = []
    rows: list[str] = []
    changed: list[str] = []
    for test_id in new:
        test = after[test_id]
        if test.group is not None and test.group in groups:
            rows.append(test_id)
        elif test.group is None and test.body and test.body in removed:
            if (removed[test.body] - test.marks) & NOT_RUN_MARKS:
                changed.append(test_id)
        else:
            tests.append(test_id)
    for test_id, test in after.items():
        old = before.get(test_id)
        if old is None:
            continue
        if test.body != old.body or (old.marks - test.marks) & NOT_RUN_MARKS:
            changed.append(test_id)
    return tests, rows, changed


_TEMPLATE_PART = re.compile(r"%[sdifjoOpc#$]|\$[$\w.]+|\$\{[^}]*\}")


def template_pattern(template_id: str) -> re.Pattern[str]:
    """The ids a template id stands for: each placeholder (``%s``, ``$name``, ``${x}``)
    any text."""
    parts = _TEMPLATE_PART.split(template_id)
    return re.compile("(?:.*)".join(re.escape(p.replace("%%", "%")) for p in parts))


__all__ = [
    "BLOCK_CALLS",
    "SEPARATOR",
    "TEST_CALLS",
    "JsTest",
    "Unparseable",
    "collect_tests",
    "compare",
    "template_pattern",
]
