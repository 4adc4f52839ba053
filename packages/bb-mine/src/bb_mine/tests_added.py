"""Which tests a change adds, decided with ``ast`` on both versions of a test module.

A test is added when the new version has a test id the old one lacked: a new test
function or method, or a new case in a ``pytest.mark.parametrize`` list (both give pytest
new node ids). A test that is only renamed (same arguments and body under a new name) or
only edited adds nothing. In strict mode only new functions and methods count.

Collection follows the project's ``python_functions`` and ``python_classes`` (pytest's
defaults: ``test*`` functions at module level, and ``test*`` methods of ``Test*`` classes),
``unittest.TestCase`` subclasses and nested classes included.

A test that is neither new nor renamed but whose code changed (a new assertion, a new row
in a case table, a new ``subTest``) is *changed*: it can fail before the fix and pass after
it as well as a new one, and the oracle decides. So is a test that no longer carries a
skip or xfail mark (its own or its class's: ``pytest.mark.skip``/``skipif``/``xfail``,
``unittest.skip``/``skipIf``/``skipUnless``/``expectedFailure``), renamed or not: it runs
now where it did not, or under fewer conditions (``skipif(True)`` made
``skipif(not has_crypto)``).
"""

from __future__ import annotations

import ast
from collections import OrderedDict
from dataclasses import dataclass, field

from bb_core.paths.discovery import DEFAULT, TestNames

from bb_mine.cases import parametrize_cases
from bb_mine.inherited import inherited_tests, may_inherit
from bb_mine.members import MIN_LINES, member_cuts
from bb_mine.pieces import cut_pieces, read_pieces, utf8


class Unparseable(Exception):
    """A test module that is not valid Python."""


@dataclass(slots=True)
class Collected:
    """One test function as collected: where its definition is, and its parametrize cases.

    No syntax tree is kept: a long history collects tens of thousands of tests, and their
    trees kept alive cost more in the cycle collector and at exit than parsing them again.
    The few tests whose :attr:`fingerprint` is needed (renamed or edited ones) have their
    source parsed again, once.
    """

    qualname: str
    lineno: int
    #: The definition's source lines: equal text is an unchanged test, without comparing
    #: syntax trees.
    text: bytes
    cases: frozenset[tuple[str, str]] = field(default_factory=frozenset)
    #: The source the definition was parsed from (its piece, or the whole module).
    source: bytes = b""
    #: The skip and xfail marks on it and the classes it is in, as written (see the module).
    skips: frozenset[str] = frozenset()
    _print: str | None = None

    @property
    def fingerprint(self) -> str:
        """The test's arguments and body, without its name, position or docstring."""
        if self._print is None:
            node = _alone(self.text, self.qualname) if utf8(self.source) else None
            if node is None:
                node = _definitions(self.source)[self.lineno]
            self._print = _fingerprint(node)
        return self._print


def _alone(text: bytes, qualname: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The definition *text* parsed on its own (a method inside a stand-in class, its
    lines and their indentation untouched), or None when it does not parse so."""
    indented = text[:1] in (b" ", b"\t")
    try:
        tree = ast.parse(b"class _:\n" + text if indented else text)
    except (SyntaxError, ValueError):
        return None
    body = tree.body
    if indented and len(body) == 1 and isinstance(body[0], ast.ClassDef):
        body = body[0].body
    node = body[0] if len(body) == 1 else None
    name = qualname.rsplit("::", 1)[-1]
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
        return node
    return None


_DEFINED: OrderedDict[bytes, dict[int, ast.FunctionDef | ast.AsyncFunctionDef]] = OrderedDict()
_DEFINED_KEPT = 4


def _definitions(source: bytes) -> dict[int, ast.FunctionDef | ast.AsyncFunctionDef]:
    """The functions *source* (which parsed before) defines at module level or in classes,
    by line; the last few sources are kept, as the edited tests of one change share them."""
    found = _DEFINED.get(source)
    if found is not None:
        return found
    found = {}
    stack: list[ast.stmt] = list(ast.parse(source).body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found[node.lineno] = node
        elif isinstance(node, ast.ClassDef):
            stack.extend(node.body)
    _DEFINED[source] = found
    if len(_DEFINED) > _DEFINED_KEPT:
        _DEFINED.popitem(last=False)
    return found


#: The last names of decorators that skip a test or expect it to fail.
SKIP_MARKS = frozenset({"skip", "skipif", "xfail", "skipIf", "skipUnless", "expectedFailure"})


def skip_marks(decorators: list[ast.expr]) -> frozenset[str]:
    """Those of *decorators* that skip the test or expect it to fail (:data:`SKIP_MARKS`),
    as written."""
    found = []
    for decorator in decorators:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in SKIP_MARKS:
            found.append(ast.unparse(decorator))
    return frozenset(found)


def _fingerprint(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return ast.dump(node.args) + "".join(ast.dump(stmt) for stmt in body)


@dataclass(slots=True)
class Module:
    """A collected test module: its tests, and the pieces they were read from (None when
    the module had to be parsed whole)."""

    tests: dict[str, Collected]
    pieces: list[bytes] | None = None
    #: The tests as the pieces define them, before those inherited from a base class of
    #: the module were added (None: none were): what a later version builds on.
    own: dict[str, Collected] | None = None


def collect(
    source: bytes | None, name: str = "<test module>", names: TestNames = DEFAULT
) -> dict[str, Collected]:
    """The tests defined in a module's *source*, by ``Class::method`` qualified name."""
    return collect_module(source, name, None, names).tests


def collect_module(
    source: bytes | None,
    name: str = "<test module>",
    previous: Module | None = None,
    names: TestNames = DEFAULT,
) -> Module:
    """The tests defined in a module's *source*, and how they were read.

    The module is cut at top-level ``def``/``class``/decorator lines and each piece is
    parsed on its own, remembered by its text: successive versions of a test module share
    almost every piece, so a long history parses each test once. When *previous* (an
    earlier version) is exactly this module's first pieces, as when tests are added at
    the end, its tests are taken whole and only the new pieces are read. When a piece does
    not parse alone (a cut inside a string, say), the whole module is parsed instead.
    """
    if source is None:
        return Module({})
    cut = cut_pieces(source)
    if cut is not None:
        pieces, raw = cut
        start, found = 0, {}
        known = previous.pieces if previous is not None else None
        if previous is not None and known is not None and pieces[: len(known)] == known:
            start = len(known)
            found = dict(previous.tests if previous.own is None else previous.own)
        try:
            for tests in read_pieces(pieces, raw, start, lambda text: _piece_tests(text, names)):
                _merge(found, tests)
            return _with_inherited(Module(found, pieces), source, names)
        except SyntaxError:
            pass
    try:
        tree = ast.parse(source, filename=name)
    except (SyntaxError, ValueError) as exc:
        raise Unparseable(f"{name}: {exc}") from exc
    whole: dict[str, Collected] = {}
    _collect_body(tree.body, "", frozenset(), whole, names, source)
    return _with_inherited(Module(whole), source, names)


def _with_inherited(module: Module, source: bytes, names: TestNames) -> Module:
    """*module* with the tests its classes inherit from a mixin or base class of the same
    module, each under the collected class's name (see :mod:`bb_mine.inherited`)."""
    if not may_inherit(source):
        return module
    lines = source.splitlines()

    def make(
        qualname: str, method: ast.FunctionDef | ast.AsyncFunctionDef, owner: ast.ClassDef
    ) -> Collected:
        text = b"\n".join(lines[method.lineno - 1 : method.end_lineno])
        cases = parametrize_cases(owner.decorator_list) | parametrize_cases(method.decorator_list)
        marks = skip_marks(owner.decorator_list) | skip_marks(method.decorator_list)
        return Collected(qualname, method.lineno, text, cases, source, marks)

    extra = inherited_tests(source, names, set(module.tests), make)
    if not extra:
        return module
    tests = dict(module.tests)
    tests.update(extra)  # type: ignore[arg-type]
    return Module(tests, module.pieces, module.tests)


def _merge(found: dict[str, Collected], tests: dict[str, Collected]) -> None:
    """Add one piece's *tests*; a name defined again moves to the end, as in the module."""
    size = len(found)
    found.update(tests)
    if len(found) != size + len(tests):
        for qualname, test in tests.items():
            found.pop(qualname)
            found[qualname] = test


_PIECES: OrderedDict[tuple[bytes, TestNames], dict[str, Collected]] = OrderedDict()
_PIECES_KEPT = 8192


def _piece_tests(piece: bytes, names: TestNames) -> dict[str, Collected]:
    key = (piece, names)
    cached = _PIECES.get(key)
    if cached is not None:
        _PIECES.move_to_end(key)
        return cached
    found = _class_tests(piece, names) if piece.count(b"\n") >= MIN_LINES else None
    if found is None:
        tree = ast.parse(piece)  # SyntaxError: the caller parses the whole module
        found = {}
        _collect_body(tree.body, "", frozenset(), found, names, piece)
    _PIECES[key] = found
    if len(_PIECES) > _PIECES_KEPT:
        _PIECES.popitem(last=False)
    return found


_MemberKey = tuple[bytes, TestNames, str, frozenset[tuple[str, str]], bool, frozenset[str]]
_MEMBERS: OrderedDict[_MemberKey, dict[str, Collected]] = OrderedDict()


def _class_tests(piece: bytes, names: TestNames) -> dict[str, Collected] | None:
    """The tests of a piece that is one long class, read member by member: test classes
    of thousands of lines are common, and a change to one test would otherwise parse the
    whole class again. Each member (a method and its decorators, with what follows it up
    to the next one) is parsed inside a stand-in class, its lines untouched, and kept by
    its text. A line at the margin is a string's text when its member still parses as one
    class; code after the class ends its last member. None when the
    piece is not cut so safely (a member that does not parse alone as the only statement of
    a class): the caller then parses the piece whole.
    """
    lines = [line + b"\n" for line in piece.split(b"\n")]
    lines[-1] = lines[-1][:-1]
    found = member_cuts(lines, 0, len(lines))
    if found is None:
        return None
    indent, cuts = found
    try:
        header = ast.parse(b"".join(lines[: cuts[0]]) + indent + b"pass\n").body
    except (SyntaxError, ValueError):
        return None
    if len(header) != 1 or not isinstance(header[0], ast.ClassDef):
        return None
    node = header[0]
    if any(isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) for n in node.body):
        return None
    qualname = node.name if _is_test_class(node, names) else ""
    cases = parametrize_cases(node.decorator_list)
    skips = skip_marks(node.decorator_list)
    tests: dict[str, Collected] = {}
    for begin, end in zip(cuts, [*cuts[1:], len(lines)], strict=True):
        text = b"".join(lines[begin:end])
        member = _member_tests(text, names, qualname, cases, last=end == len(lines), skips=skips)
        if member is None:
            return None
        tests.update(member)
    return tests


def _member_tests(
    text: bytes,
    names: TestNames,
    owner: str,
    cases: frozenset[tuple[str, str]],
    *,
    last: bool,
    skips: frozenset[str] = frozenset(),
) -> dict[str, Collected] | None:
    """The tests one member of class *owner* defines (none when *owner* is ``""``, a class
    pytest does not collect: the member is still parsed, so a syntax error is found).

    The *last* member may be followed by code at the margin (the piece runs to the next
    top-level definition); any other member must be all there is in the stand-in."""
    key = (text, names, owner, cases, last, skips)
    found = _MEMBERS.get(key)
    if found is not None:
        _MEMBERS.move_to_end(key)
        return found
    source = b"class _:\n" + text
    try:
        body = ast.parse(source).body
    except (SyntaxError, ValueError):
        return None
    if not isinstance(body[0], ast.ClassDef) or (len(body) != 1 and not last):
        return None
    found = {}
    if owner:
        _collect_body(body[0].body, owner, cases, found, names, source, skips=skips)
    _MEMBERS[key] = found
    if len(_MEMBERS) > _PIECES_KEPT:
        _MEMBERS.popitem(last=False)
    return found


def added_tests(
    old: bytes | None, new: bytes | None, *, path: str = "", strict: bool = False
) -> list[str]:
    """Test ids in *new* that *old* lacks: ``path::name`` or ``path::name[case]``."""
    functions, cases, _changed = compare(collect(old, f"{path} (before)"), collect(new, path), path)
    return functions if strict else functions + cases


def compare(
    before: dict[str, Collected], after: dict[str, Collected], path: str = ""
) -> tuple[list[str], list[str], list[str]]:
    """(new test functions, new parametrize cases of existing tests, existing tests whose
    code changed otherwise or that lost a skip or xfail mark) from *before* to *after*.

    A new name whose arguments and body match a test that vanished is a rename, not new;
    a renamed test that lost a skip or xfail mark is changed, under its new name.
    """
    prefix = f"{path}::" if path else ""
    new_names = [q for q in after if q not in before]
    removed = [t for q, t in before.items() if q not in after]
    # Fingerprints are costly; only needed when a test appeared while another vanished.
    removed_prints: dict[str, frozenset[str]] = {}  # fingerprint -> the marks all of them had
    for gone in removed if new_names else ():
        kept = removed_prints.get(gone.fingerprint)
        removed_prints[gone.fingerprint] = gone.skips if kept is None else kept & gone.skips
    functions = (
        [prefix + q for q in new_names if after[q].fingerprint not in removed_prints]
        if removed_prints
        else [prefix + q for q in new_names]
    )
    unskipped_renames = [
        prefix + q
        for q in new_names
        if removed_prints and removed_prints.get(after[q].fingerprint, frozenset()) - after[q].skips
    ]
    cases = [
        f"{prefix}{q}[{case}]"
        for q, test in after.items()
        if q in before and test.cases != before[q].cases
        for _names, case in sorted(test.cases - before[q].cases)
    ]
    with_cases = {c.split("[", 1)[0] for c in cases}
    changed = [
        prefix + q
        for q, test in after.items()
        if q in before
        and test is not before[q]  # a piece read once is the same object in both versions
        and prefix + q not in with_cases
        and (
            before[q].skips - test.skips
            or (test.text != before[q].text and test.fingerprint != before[q].fingerprint)
        )
    ]
    return functions, cases, changed + unskipped_renames


def _collect_body(
    body: list[ast.stmt],
    owner: str,
    inherited: frozenset[tuple[str, str]],
    out: dict[str, Collected],
    names: TestNames = DEFAULT,
    source: bytes = b"",
    lines: list[bytes] | None = None,
    skips: frozenset[str] = frozenset(),
) -> None:
    if lines is None:
        lines = source.splitlines()
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and names.is_test_function(
            node.name
        ):
            qualname = f"{owner}::{node.name}" if owner else node.name
            cases = inherited | parametrize_cases(node.decorator_list)
            text = b"\n".join(lines[node.lineno - 1 : node.end_lineno])
            marks = skips | skip_marks(node.decorator_list) if node.decorator_list else skips
            out[qualname] = Collected(qualname, node.lineno, text, cases, source, marks)
        elif isinstance(node, ast.ClassDef) and _is_test_class(node, names):
            qualname = f"{owner}::{node.name}" if owner else node.name
            cases = inherited | parametrize_cases(node.decorator_list)
            marks = skips | skip_marks(node.decorator_list)
            _collect_body(node.body, qualname, cases, out, names, source, lines, marks)


def _is_test_class(node: ast.ClassDef, names: TestNames) -> bool:
    if names.is_test_class(node.name):
        return True
    for base in node.bases:
        name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
        if name.endswith("TestCase"):
            return True
    return False
