"""Each package declares exactly the third-party and workspace packages it imports."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = sorted(p for p in (ROOT / "packages").iterdir() if (p / "pyproject.toml").is_file())
#: Import name -> distribution, for every dependency the project allows.
DISTRIBUTIONS = {
    "click": "click",
    "orjson": "orjson",
    "unidiff": "unidiff",
    "dulwich": "dulwich",
    "jsonschema": "jsonschema",
    "referencing": "referencing",
    "tabulate": "tabulate",
    "coverage": "coverage",
    "tree_sitter": "tree-sitter",
    "tree_sitter_javascript": "tree-sitter-javascript",
    "tree_sitter_typescript": "tree-sitter-typescript",
    **{p.name.replace("-", "_"): p.name for p in PACKAGES},
}
#: Import name -> distribution, for the optional extras (``bb-core[ray]``); imported only
#: when their feature is asked for, and declared in ``[project.optional-dependencies]``.
OPTIONAL = {"ray": "ray"}


def _imported(package: Path) -> set[str]:
    found: set[str] = set()
    for source in (package / "src").rglob("*.py"):
        if "pytest_plugin" in source.parts or "probe" in source.parts:
            continue  # runs inside the project's own environment
        for node in ast.walk(ast.parse(source.read_text(), str(source))):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module.split(".")[0])
    own = package.name.replace("-", "_")
    return {DISTRIBUTIONS[n] for n in found if n in DISTRIBUTIONS and n != own}


def _declared(package: Path) -> set[str]:
    project = tomllib.loads((package / "pyproject.toml").read_text())["project"]
    return {re.split(r"[<>=!~ \[]", dep, maxsplit=1)[0] for dep in project["dependencies"]}


def _optional_imports(package: Path) -> set[str]:
    found: set[str] = set()
    for source in (package / "src").rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(), str(source))):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module.split(".")[0])
    return {OPTIONAL[n] for n in found if n in OPTIONAL}


def _declared_extras(package: Path) -> set[str]:
    project = tomllib.loads((package / "pyproject.toml").read_text())["project"]
    extras = project.get("optional-dependencies", {})
    return {re.split(r"[<>=!~ \[]", d, maxsplit=1)[0] for deps in extras.values() for d in deps}


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.name)
def test_optional_imports_are_declared_extras(package: Path) -> None:
    assert _optional_imports(package) <= _declared_extras(package)


def _publish_stages(package: Path) -> bool:
    project = tomllib.loads((package / "pyproject.toml").read_text())["project"]
    return "bugbout.stages" in project.get("entry-points", {})


#: Tools that publish a stage (``bugbout.stages`` entry points): bugbout runs them in a bout
#: through their entry points, never by importing them, and so declares without importing.
STAGES = {p.name for p in PACKAGES if _publish_stages(p)}


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.name)
def test_declared_dependencies_are_the_imported_ones(package: Path) -> None:
    run_by_entry_point = STAGES if package.name == "bugbout" else set()
    assert _declared(package) - run_by_entry_point == _imported(package) - run_by_entry_point


def test_bugbout_declares_every_stage_it_runs() -> None:
    assert {"bb-mine", "bb-oracle", "bb-race", "bb-xexam", "bb-judge"} <= STAGES
    assert _declared(ROOT / "packages" / "bugbout") >= STAGES


def test_nothing_outside_the_allowed_dependencies_is_imported() -> None:
    allowed = (
        set(DISTRIBUTIONS) | set(OPTIONAL) | set(sys.stdlib_module_names) | {"_pytest", "pytest"}
    )
    strays = set()
    for package in PACKAGES:
        for source in (package / "src").rglob("*.py"):
            # The pytest plugin's modules import one another by their top-level names.
            beside = {p.stem for p in source.parent.glob("*.py")}
            here = allowed | beside if "pytest_plugin" in source.parts else allowed
            for node in ast.walk(ast.parse(source.read_text())):
                names = []
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    names = [node.module]
                strays.update(f"{source.name}: {n}" for n in names if n.split(".")[0] not in here)
    assert strays == set()
