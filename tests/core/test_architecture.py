"""The import rules of docs/architecture.md: tools import only bb_core, the kernel knows no
stage, and only the umbrella composes."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from bb_core.testrun.runner import RUNNERS

ROOT = Path(__file__).resolve().parents[2]
KERNEL = "bb_core"
TOOLS = ("bb_mine", "bb_oracle", "bb_race", "bb_xexam", "bb_judge", "bb_report")
UMBRELLA = "bugbout"
WORKSPACE = {KERNEL, *TOOLS, UMBRELLA}

#: What each package may import of the workspace, besides itself.
ALLOWED = {KERNEL: set(), **{tool: {KERNEL} for tool in TOOLS}, UMBRELLA: {KERNEL, *TOOLS}}


def imports(source: str, filename: str) -> list[tuple[int, str]]:
    """Every absolute import of a workspace package in *source*: (line, top-level name)."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name.split(".")[0]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append((node.lineno, node.module.split(".")[0]))
    return [(line, name) for line, name in found if name in WORKSPACE]


def breaches(package: str, folder: Path) -> list[str]:
    out = []
    for path in sorted(folder.rglob("*.py")):
        for line, name in imports(path.read_text(encoding="utf-8"), str(path)):
            if name != package and name not in ALLOWED[package]:
                out.append(f"{path.relative_to(folder)}:{line}: imports {name}")
    return out


@pytest.mark.parametrize("package", sorted(WORKSPACE))
def test_imports_keep_the_rules(package: str) -> None:
    (folder,) = ROOT.glob(f"packages/*/src/{package}")
    assert breaches(package, folder) == []


def test_the_rule_catches_an_import_inside_a_function(tmp_path: Path) -> None:
    module = tmp_path / "leak.py"
    module.write_text("def f():\n    from bb_race.cli import main\n    import bb_mine\n")
    assert breaches("bb_judge", tmp_path) == [
        "leak.py:2: imports bb_race",
        "leak.py:3: imports bb_mine",
    ]
    assert breaches(UMBRELLA, tmp_path) == []


def test_the_kernel_may_not_import_a_stage(tmp_path: Path) -> None:
    module = tmp_path / "k.py"
    module.write_text("import bugbout\nfrom bb_core.records import Writer\nfrom . import x\n")
    assert breaches(KERNEL, tmp_path) == ["k.py:1: imports bugbout"]


# No import circle inside a package. Every import counts - at the top of a module or inside a
# function (a function-level import is a circle postponed, not one broken) - except those
# under ``if TYPE_CHECKING:``, which never run: they name a type for the type checker.


def module_name(path: Path, src: Path) -> str:
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_only(tree: ast.AST) -> set[int]:
    """The ids of the import nodes under ``if TYPE_CHECKING:``."""
    hidden: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for statement in node.body:
                hidden |= {id(n) for n in ast.walk(statement)}
    return hidden


def module_imports(path: Path, name: str, modules: set[str]) -> set[str]:
    """The modules of *modules* that the module *name* at *path* imports. ``from p import
    m`` names the module ``p.m`` when there is one, else ``p``; relative imports are
    resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    hidden = _type_checking_only(tree)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in hidden:
            continue
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                found.add(sub if sub in modules else source)
    named = set()
    for target in found:
        while target and target not in modules:
            target = target.rpartition(".")[0]
        if target and target != name:
            named.add(target)
    return named


def import_graph(src: Path) -> dict[str, set[str]]:
    """Every module under *src* (a ``src`` folder) and the modules of the same package it imports."""
    paths = {module_name(p, src): p for p in sorted(src.rglob("*.py"))}
    modules = set(paths)
    return {name: module_imports(path, name, modules) for name, path in paths.items()}


def circles(graph: dict[str, set[str]]) -> list[str]:
    """One circle of each strongly connected group of modules, as ``a -> b -> a``."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def connect(node: str) -> None:  # Tarjan's algorithm
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    found = []
    for group in groups:
        members = set(group)
        start = group[0]
        path, seen = [start], {start: 0}
        while True:  # walk inside the group until a module repeats
            here = path[-1]
            step = min(t for t in graph[here] if t in members)
            if step in seen:
                found.append(" -> ".join([*path[seen[step] :], step]))
                break
            seen[step] = len(path)
            path.append(step)
    return sorted(found)


@pytest.mark.parametrize("package", sorted(WORKSPACE))
def test_no_import_circle_inside_a_package(package: str) -> None:
    (folder,) = ROOT.glob(f"packages/*/src/{package}")
    assert circles(import_graph(folder.parent)) == []


def test_a_circle_is_named_module_by_module(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg.b import x\n")
    (package / "b.py").write_text("def f():\n    from pkg import c\n")
    (package / "c.py").write_text("from . import a\n")
    (package / "d.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.e import y\n"
    )
    (package / "e.py").write_text("import pkg.d\n")
    assert circles(import_graph(tmp_path)) == ["pkg.a -> pkg.b -> pkg.c -> pkg.a"]


# The architecture page's table of the kernel's packages is the code's.

KERNEL_DIR = ROOT / "packages" / "bb-core" / "src" / "bb_core"


def kernel_table() -> dict[str, set[str]]:
    """The rows of docs/architecture.md's "The kernel by concept": each package or module
    of bb_core, with the modules its last column names."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## The kernel by concept", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, set[str]] = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`bb_core."):
            assert cells[1], f"{cells[0]} says nothing of what it holds"
            name = cells[0].strip("`").removeprefix("bb_core.")
            rows[name] = set(re.findall(r"`(\w+)`", cells[2]))
    return rows


def kernel_layout() -> dict[str, set[str]]:
    """bb_core's packages (and the packages inside them, as ``testrun.node``), each with
    its modules, and its top-level modules."""
    layout: dict[str, set[str]] = {}
    for path in sorted(KERNEL_DIR.iterdir()):
        if path.is_dir() and any(path.glob("*.py")):
            layout[path.name] = {p.stem for p in path.glob("*.py") if p.stem != "__init__"}
            for inner in sorted(path.iterdir()):
                if (inner / "__init__.py").is_file():
                    modules = {p.stem for p in inner.glob("*.py") if p.stem != "__init__"}
                    layout[f"{path.name}.{inner.name}"] = modules
        elif path.suffix == ".py" and path.stem != "__init__":
            layout[path.stem] = set()
    return layout


def test_the_architecture_page_describes_every_kernel_package_and_module() -> None:
    table, layout = kernel_table(), kernel_layout()
    assert sorted(set(layout) - set(table)) == [], "in bb_core but not on the page"
    assert sorted(set(table) - set(layout)) == [], "on the page but not in bb_core"
    for name, modules in layout.items():
        assert table[name] == modules, f"bb_core.{name}: the page's modules are not the code's"


# What only one tool uses lives in that tool.

#: Kernel modules one tool uses that stay in the kernel, each with why.
ONE_TOOL_IN_THE_KERNEL = {
    # bb-race reads a tree's .gitignore; dulwich, which reads it, is the kernel's dependency.
    "bb_core.git.ignores": "bb_race",
}


def test_a_kernel_module_serves_the_kernel_or_more_than_one_package() -> None:
    """Every module of bb_core is imported by another of the kernel's, or by two packages
    at least. The pytest plugin is loaded by file into a confined pytest, never imported."""
    kernel = import_graph(KERNEL_DIR.parent)
    modules = set(kernel)
    users: dict[str, set[str]] = {name: set() for name in modules}
    for package in sorted(WORKSPACE - {KERNEL}):
        (folder,) = ROOT.glob(f"packages/*/src/{package}")
        for path in folder.rglob("*.py"):
            for used in module_imports(path, module_name(path, folder.parent), modules):
                users[used].add(package)
    by_the_kernel = set().union(*kernel.values())
    # The test runners the kernel's runner table loads by name when first asked for (an
    # entry already loaded by an earlier test holds the runner itself).
    by_the_kernel |= {
        found.partition(":")[0] if isinstance(found, str) else type(found).__module__
        for found in RUNNERS.values()
    }
    alone = {
        name: ", ".join(sorted(users[name]))
        for name in sorted(modules - by_the_kernel)
        if len(users[name]) < 2
        and not (KERNEL_DIR / name.removeprefix("bb_core.").replace(".", "/")).is_dir()
        and not name.startswith("bb_core.pytest_plugin.")
    }
    assert alone == ONE_TOOL_IN_THE_KERNEL
