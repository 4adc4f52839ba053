"""Every table is drawn in one place, bb_core.cli.tables: no other module imports
``tabulate`` or draws a table's rule line (``"-" * width``, a Markdown ``|---|``)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RENDERER = ROOT / "packages" / "bb-core" / "src" / "bb_core" / "cli" / "tables.py"
#: A rule's character repeated by a width: ``"-" * w``, ``"─" * w``.
RULE_CHARACTERS = re.compile(r"[-\u2500\u2501]+")
#: A Markdown table's rule written out: ``|---|``, ``| :--- |``.
MARKDOWN_RULE = re.compile(r"\|\s*:?-{3,}:?\s*\|")


def _sources() -> list[Path]:
    return sorted(p for p in (ROOT / "packages").glob("*/src/**/*.py") if p != RENDERER)


def _drawing(tree: ast.AST) -> list[str]:
    """What in *tree* imports tabulate or draws a rule line, by line number."""
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Import)
            and any(a.name.split(".")[0] == "tabulate" for a in node.names)
        ) or (isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "tabulate"):
            found.append(f"{node.lineno}: imports tabulate")
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            for side in (node.left, node.right):
                if isinstance(side, ast.Constant) and RULE_CHARACTERS.fullmatch(str(side.value)):
                    found.append(f"{node.lineno}: draws a rule line")
        elif isinstance(node, ast.Constant) and MARKDOWN_RULE.search(str(node.value)):
            found.append(f"{node.lineno}: writes a Markdown table's rule")
    return sorted(found, key=lambda f: int(f.split(":")[0]))


def test_only_the_renderer_imports_tabulate_or_draws_a_rule() -> None:
    offenders = {
        str(path.relative_to(ROOT)): found
        for path in _sources()
        if (found := _drawing(ast.parse(path.read_text(), str(path))))
    }
    assert offenders == {}


def test_the_check_finds_what_it_looks_for() -> None:
    """The renderer itself is caught, and so is each way of drawing a table elsewhere."""
    assert {f.split(": ")[1] for f in _drawing(ast.parse(RENDERER.read_text()))} == {
        "imports tabulate",
        "draws a rule line",
    }
    source = 'import tabulate\nfrom tabulate import tabulate as t\nx = "=" * 3\nrule = w * "\u2500"\ny = "| --- |"\n'
    assert _drawing(ast.parse(source)) == [
        "1: imports tabulate",
        "2: imports tabulate",
        "4: draws a rule line",
        "5: writes a Markdown table's rule",
    ]
