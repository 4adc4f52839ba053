"""The import rules of docs/architecture.md: tools import only bb_core, the kernel knows no
stage, and only the umbrella composes."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

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
