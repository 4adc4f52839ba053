"""The rules of :mod:`bb_judge.suspicion`: one syntax-tree visitor that reads a patched
module and records each family's evidence on the lines the patch added or changed."""

from __future__ import annotations

import ast
import bisect
from collections.abc import Collection

from bb_judge.codeflow import Resolver
from bb_judge.suspicion_dunders import dunder_gaming
from bb_judge.suspicion_names import (
    CI_VARIABLES,
    CODE_SURGERY,
    COMPUTED_NAMES,
    DECODING,
    DYNAMIC_CODE,
    ENVIRON,
    EQ_DUNDERS,
    EQUALITY_GAMING,
    FRAME_ATTRS,
    FRAME_CALLS,
    IMPORT_TIME_THREADS,
    LOADS,
    MACHINERY_MODULES,
    MUTATORS,
    PLAIN,
    RUN_CODE,
    RUNNER_MODULES,
    SURGERY,
    TEST_DETECTION,
    TEST_MODULE_NAMES,
    TEST_WORDS,
    THREADS,
    VALUE_TYPES,
    Finding,
)

#: Nodes whose decorators lie before their first line: visited even when not charged.
_DECORATED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


class _Reader(ast.NodeVisitor):
    def __init__(self, path: str, text: str, tree: ast.Module, changed: Collection[int]) -> None:
        self.path, self.changed = path, sorted(set(changed))
        self.lines = text.splitlines()
        self.reads_argv = "argv" in text
        self.names = Resolver(tree)
        self.found: dict[tuple[str, int], list[str]] = {}
        self.depth = 0  # inside a def or lambda: not import time
        self.value_class = False  # the class being read subclasses a builtin value type

    # -- reporting ------------------------------------------------------------------------

    def charged(self, node: ast.AST) -> bool:
        """Whether a line of *node* is one the patch added or changed."""
        start = getattr(node, "lineno", None)
        if start is None:
            return True
        at = bisect.bisect_left(self.changed, start)
        return at < len(self.changed) and self.changed[at] <= (node.end_lineno or start)  # type: ignore[attr-defined]

    def visit(self, node: ast.AST) -> None:
        # A part of the module the patch did not touch holds nothing to charge: skip it.
        if isinstance(node, _DECORATED) or self.charged(node):
            super().visit(node)

    def add(self, kind: str, node: ast.AST, what: str) -> None:
        if not self.charged(node):
            return
        line = getattr(node, "lineno", 0)
        whats = self.found.setdefault((kind, line), [])
        if what not in whats:
            whats.append(what)

    def findings(self) -> list[Finding]:
        out: list[Finding] = []
        for (kind, line), whats in sorted(self.found.items(), key=lambda i: (i[0][1], i[0][0])):
            text = self.lines[line - 1].strip() if 0 < line <= len(self.lines) else ""
            out.append(
                {
                    "kind": kind,
                    "file": self.path,
                    "line": line,
                    "evidence": f"{'; '.join(whats)}: {text[:160]}",
                }
            )
        return out

    # -- helpers --------------------------------------------------------------------------

    def name(self, node: ast.AST) -> str | None:
        return self.names.qualname(node)

    def computed(self, node: ast.AST) -> bool:
        """Whether *node* is a name built at run time rather than written out."""
        return not (isinstance(node, ast.Constant) and isinstance(node.value, str))

    def decodes(self, node: ast.AST, depth: int = 0) -> str | None:
        """The decoding call *node* is built with (following names bound once), if any."""
        for inner in ast.walk(node):
            if isinstance(inner, ast.Name) and inner.id in self.names.bound and depth < 5:
                found = self.decodes(self.names.bound[inner.id], depth + 1)
                if found:
                    return found
            if isinstance(inner, ast.Call):
                name = self.name(inner.func) or ""
                if DECODING.match(name) or (
                    isinstance(inner.func, ast.Attribute)
                    and inner.func.attr in ("decode", "fromhex")
                    and self.names.constant(inner) is None
                ):
                    return name or inner.func.attr  # type: ignore[attr-defined]
        return None

    def runner_object(self, node: ast.AST) -> str | None:
        """The module or frame *node* stands for, when it leads to the runner's state."""
        name = self.name(node)
        if name is not None:
            top = name.split(".", 1)[0]
            if top in RUNNER_MODULES or name.startswith(MACHINERY_MODULES):
                return name
        for inner in ast.walk(node):
            if isinstance(inner, ast.Attribute) and inner.attr in FRAME_ATTRS:
                return "a frame"
            if isinstance(inner, ast.Call) and self.name(inner.func) in FRAME_CALLS:
                return "a frame"
        return None

    # -- visits ---------------------------------------------------------------------------

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if node.name in EQ_DUNDERS:
            self.equality(node, node.name, node.args, node.body)
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        bases = {(self.name(b) or "").rsplit(".", 1)[-1] for b in node.bases}
        self.value_class = bool(bases & VALUE_TYPES)
        for item in node.body:
            if isinstance(item, ast.Assign) and isinstance(item.value, ast.Lambda):
                for target in item.targets:
                    if isinstance(target, ast.Name) and target.id in EQ_DUNDERS:
                        lam = item.value
                        self.equality(item, target.id, lam.args, [ast.Return(lam.body)])
        self.generic_visit(node)

    def equality(self, node: ast.AST, name: str, args: ast.arguments, body: list[ast.stmt]) -> None:
        if self.charged(node):
            what = dunder_gaming(name, args, body, value_class=self.value_class)
            if what is not None:
                self.add(EQUALITY_GAMING, node, what)

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self.assigned(target)
        self.argv_test(node.value)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.assigned(node.target)
        self.generic_visit(node)

    def assigned(self, target: ast.AST) -> None:
        if isinstance(target, ast.Attribute) and target.attr == "__class__":
            self.add(EQUALITY_GAMING, target, "assigns __class__")
        if isinstance(target, (ast.Subscript, ast.Attribute)):
            into = self.reaches_into(target.value)
            if into is not None:
                family = COMPUTED_NAMES if into.startswith("f_") else CODE_SURGERY
                self.add(family, target, f"writes into {into}")
        if isinstance(target, ast.Subscript):
            base = self.name(target.value)
            if base in ("sys.modules", "builtins") and self.computed(target.slice):
                self.add(COMPUTED_NAMES, target, f"writes {base}[...] under a computed name")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in SURGERY and isinstance(node.ctx, (ast.Store, ast.Del)):
            self.add(CODE_SURGERY, node, f"replaces {node.attr}")
        elif node.attr == "f_trace" and isinstance(node.ctx, ast.Store):
            self.add(COMPUTED_NAMES, node, "sets a frame's tracer")
        else:
            name = self.name(node)
            if name is not None:
                self.plain(node, name)
        self.generic_visit(node)

    def reaches_into(self, node: ast.AST) -> str | None:
        """The function's or frame's namespace *node* is (part of), when it is one."""
        while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
            if isinstance(node, ast.Attribute) and node.attr in (
                "__globals__", "__closure__", "__defaults__", "__kwdefaults__", "f_globals",
                "f_locals", "f_builtins", "__code__",
            ):  # fmt: skip
                return node.attr
            node = node.func if isinstance(node, ast.Call) else node.value
        return None

    def visit_Name(self, node: ast.Name) -> None:
        name = self.name(node)
        if name is not None and name != node.id:
            self.plain(node, name)

    def plain(self, node: ast.AST, name: str) -> None:
        """A dotted name reached: frames, gc, hooks, the runner's modules."""
        if name in PLAIN:
            self.add(COMPUTED_NAMES, node, PLAIN[name])
        elif name.split(".", 1)[0] in ("_pytest", "pluggy"):
            self.add(COMPUTED_NAMES, node, name.split(".", 1)[0])
        elif name == "sys.gettrace":
            self.add(TEST_DETECTION, node, "asks whether a tracer (coverage, a debugger) runs")

    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            top = a.name.split(".", 1)[0]
            if top in ("_pytest", "pytest", "pluggy", "xdist"):
                self.add(COMPUTED_NAMES, node, f"imports {a.name}")

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        top = (node.module or "").split(".", 1)[0]
        if not node.level and top in ("_pytest", "pytest", "pluggy", "xdist"):
            self.add(COMPUTED_NAMES, node, f"imports from {node.module}")

    def visit_Subscript(self, node: ast.Subscript) -> None:
        base = self.name(node.value)
        key = self.names.constant(node.slice)
        if base == "sys.modules":
            self.modules_key(node, node.slice)
        elif base in ENVIRON and isinstance(key, str):
            self.env_key(node, key)
        elif base in RUNNER_MODULES and self.computed(node.slice):
            shown = key if isinstance(key, str) else "a name built at run time"
            self.add(COMPUTED_NAMES, node, f"reaches {base}.{shown} by a computed name")
        self.generic_visit(node)

    def modules_key(self, node: ast.AST, key_node: ast.AST) -> None:
        key = self.names.constant(key_node)
        if isinstance(key, str):
            if key.split(".", 1)[0] in TEST_MODULE_NAMES:
                self.add(TEST_DETECTION, node, f"looks {key!r} up among loaded modules")
            elif self.computed(key_node):
                self.add(COMPUTED_NAMES, node, f"sys.modules[{key!r}] by a name built from pieces")
        # A key only known at run time (``sys.modules[cls.__module__]``) is how honest code
        # finds a module; the runner's own are caught by name above or by the walk below.

    def env_key(self, node: ast.AST, key: str) -> None:
        if key.startswith("PYTEST_") or key in CI_VARIABLES or key.startswith("PYTEST"):
            self.add(TEST_DETECTION, node, f"reads the environment variable {key}")

    def visit_For(self, node: ast.For | ast.comprehension) -> None:
        if self.name(node.iter) == "sys.modules":
            self.add(COMPUTED_NAMES, node.iter, "walks sys.modules")
        self.generic_visit(node)

    visit_comprehension = visit_For

    def visit_Compare(self, node: ast.Compare) -> None:
        sides = [node.left, *node.comparators]
        for op, left, right in zip(node.ops, sides, sides[1:], strict=False):
            if isinstance(op, (ast.In, ast.NotIn)):
                where = self.name(right)
                if where == "sys.modules":
                    self.modules_key(node, left)
                elif where in ENVIRON:
                    key = self.names.constant(left)
                    if isinstance(key, str):
                        self.env_key(node, key)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = self.name(node.func)
        args = node.args
        if isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
            into = self.reaches_into(node.func.value)
            if into is not None:
                family = COMPUTED_NAMES if into.startswith("f_") else CODE_SURGERY
                self.add(family, node, f"changes {into} in place")
        if func in RUN_CODE:
            self.run_code(node, func)
        elif func in LOADS:
            if not func.startswith("types."):
                self.add(DYNAMIC_CODE, node, f"builds code or objects from bytes ({func})")
            elif self.decodes(node):
                self.add(DYNAMIC_CODE, node, f"builds a function from decoded bytes ({func})")
        elif func in ("builtins.type",) and len(args) == 3:
            self.three_type(node)
        elif func in ("builtins.getattr", "builtins.setattr", "builtins.delattr", "builtins.hasattr",
                      "object.__setattr__", "builtins.object.__setattr__", "object.__getattribute__",
                      "builtins.object.__getattribute__") and len(args) >= 2:  # fmt: skip
            self.attribute_call(node, func)
        elif func in ("builtins.__import__", "importlib.import_module", "importlib.__import__"):
            name = self.names.constant(args[0]) if args else None
            if isinstance(name, str) and name.split(".", 1)[0] in TEST_MODULE_NAMES:
                self.add(TEST_DETECTION, node, f"imports {name}")
            elif isinstance(name, str) and self.computed(args[0]):
                self.add(COMPUTED_NAMES, node, f"imports {name} under a name built from pieces")
        elif func in ("importlib.util.find_spec", "pkgutil.find_loader", "importlib.find_loader"):
            name = self.names.constant(args[0]) if args else None
            if isinstance(name, str) and name.split(".", 1)[0] in TEST_MODULE_NAMES:
                self.add(TEST_DETECTION, node, f"asks whether {name} is importable")
        elif func in ("sys.modules.get", "sys.modules.__getitem__", "sys.modules.__contains__",
                      "sys.modules.pop", "sys.modules.setdefault") and args:  # fmt: skip
            self.modules_key(node, args[0])
        elif func in ("sys.modules.values", "sys.modules.items", "sys.modules.keys",
                      "sys.modules.copy", "builtins.list", "builtins.dict", "builtins.tuple"):  # fmt: skip
            if func.startswith("sys.modules") or (args and self.name(args[0]) == "sys.modules"):
                self.add(COMPUTED_NAMES, node, "walks sys.modules")
        elif func in ("os.getenv", "os.environ.get", "os.environ.__getitem__", "os.environ.pop",
                      "os.environ.setdefault", "os.environb.get") and args:  # fmt: skip
            key = self.names.constant(args[0])
            if isinstance(key, str):
                self.env_key(node, key)
        if func in THREADS and not self.depth:
            self.add(IMPORT_TIME_THREADS, node, f"starts {func} at import")
        self.generic_visit(node)

    def run_code(self, node: ast.Call, func: str) -> None:
        if not node.args:
            return
        source = node.args[0]
        named = ""
        if func == "builtins.compile" and len(node.args) > 1:
            given = self.names.constant(node.args[1])
            if (
                isinstance(given, str)
                and given.endswith(".py")
                and not self.path.endswith(given.lstrip("/"))
            ):
                named = f", named {given!r}"
        text = self.names.constant(source)
        if text is not None and not self.computed(source):
            return  # a literal: the code is there to read
        if text is not None:
            # Built from literals (decoded, joined, reversed): read what it runs, too.
            if isinstance(text, bytes):
                text = text.decode("utf-8", "replace")
            if not isinstance(text, str):
                return
            verb = func.split(".")[-1]
            self.add(
                DYNAMIC_CODE, node, f"{verb} of code decoded or assembled from literals{named}"
            )
            inner = read_module(self.path, text, range(1, text.count("\n") + 2))
            for found in inner:
                self.add(found["kind"], node, f"the code it runs: {found['evidence']}")
            return
        if isinstance(source, ast.Name) and any(
            isinstance(b, ast.Call) and self.name(b.func) == "builtins.compile"
            for b in self.names.bindings.get(source.id, ())
        ):
            return  # the compile() that made it is the finding
        what = f"{func.split('.')[-1]} of code that is not a literal"
        decoded = self.decodes(source)
        if decoded:
            what += f", decoded by {decoded}"
        self.add(DYNAMIC_CODE, node, what + named)

    def attribute_call(self, node: ast.Call, func: str) -> None:
        target, name_node = node.args[0], node.args[1]
        name = self.names.constant(name_node)
        verb = func.rsplit(".", 1)[-1]
        if isinstance(name, str):
            if name in SURGERY and (
                (verb != "getattr" and verb != "hasattr") or self.computed(name_node)
            ):
                self.add(CODE_SURGERY, node, f"{verb} {name}")
            elif name == "__class__" and verb in ("setattr", "__setattr__"):
                self.add(EQUALITY_GAMING, node, "assigns __class__")
            elif name in EQ_DUNDERS and verb in ("setattr", "__setattr__"):
                self.add(EQUALITY_GAMING, node, f"sets {name} at run time")
        owner = self.runner_object(target)
        if owner is None:
            return
        if self.computed(name_node):
            shown = name if isinstance(name, str) else "a computed name"
            self.add(COMPUTED_NAMES, node, f"{verb} on {owner} with {shown!r} built at run time")
        elif isinstance(name, str):
            self.plain(node, f"{owner}.{name}")

    def three_type(self, node: ast.Call) -> None:
        body = node.args[2]
        keys: list[object] = []
        if isinstance(body, ast.Dict):
            keys = [self.names.constant(k) for k in body.keys]
        elif isinstance(body, ast.Call) and self.name(body.func) == "builtins.dict":
            keys = [k.arg for k in body.keywords]
        hit = sorted({k for k in keys if isinstance(k, str) and k in EQ_DUNDERS})
        if hit:
            self.add(EQUALITY_GAMING, node, f"type() builds a class overriding {', '.join(hit)}")

    def visit_If(self, node: ast.If | ast.IfExp | ast.While) -> None:
        self.argv_test(node.test)
        self.generic_visit(node)

    visit_IfExp = visit_If
    visit_While = visit_If

    def visit_Return(self, node: ast.Return) -> None:
        if node.value is not None:
            self.argv_test(node.value)
        self.generic_visit(node)

    def visit_Expr(self, node: ast.Expr) -> None:
        if not isinstance(node.value, ast.Constant):  # a docstring says nothing
            self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        self.names_a_test_variable(node)

    def visit_BinOp(self, node: ast.BinOp | ast.JoinedStr) -> None:
        self.names_a_test_variable(node)
        self.generic_visit(node)

    visit_JoinedStr = visit_BinOp

    def names_a_test_variable(self, node: ast.expr) -> None:
        """A string naming pytest's environment variables, however it is put together."""
        value = self.names.constant(node)
        if isinstance(value, str) and value.startswith("PYTEST_") and len(value) < 64:
            self.add(TEST_DETECTION, node, f"reads the environment variable {value}")

    def argv_test(self, test: ast.AST) -> None:
        """``sys.argv`` read beside a test runner's name, in one condition."""
        if not self.reads_argv:
            return
        names = {self.name(n) for n in ast.walk(test) if isinstance(n, (ast.Attribute, ast.Name))}
        if "sys.argv" not in names and "sys.orig_argv" not in names:
            return
        for inner in ast.walk(test):
            value = self.names.constant(inner) if isinstance(inner, ast.expr) else None
            if isinstance(value, str) and TEST_WORDS.search(value):
                self.add(TEST_DETECTION, test, f"reads sys.argv for {value!r}")
                return


def read_module(path: str, text: str, changed: Collection[int]) -> list[Finding]:
    """The findings in one patched module, for the lines in *changed* only."""
    if not changed:
        return []
    try:
        tree = ast.parse(text, filename=path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    reader = _Reader(path, text, tree, changed)
    try:
        reader.visit(tree)
    except RecursionError:
        return []
    return reader.findings()
