"""One version for the whole workspace, pinned exactly between siblings, written once per
pyproject.toml and nowhere in the code."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import bb_core
import bugbout

ROOT = Path(__file__).resolve().parents[2]
PYPROJECTS = [ROOT / "pyproject.toml", *sorted(ROOT.glob("packages/*/pyproject.toml"))]
SIBLINGS = {p.parent.name for p in PYPROJECTS[1:]}


def _project(path: Path) -> dict:
    return tomllib.loads(path.read_text())["project"]


def test_every_package_has_the_workspace_version() -> None:
    version = _project(ROOT / "pyproject.toml")["version"]
    assert {p.parent.name: _project(p)["version"] for p in PYPROJECTS[1:]} == dict.fromkeys(
        SIBLINGS, version
    )


def test_siblings_are_pinned_exactly() -> None:
    version = _project(ROOT / "pyproject.toml")["version"]
    for path in PYPROJECTS:
        for dep in _project(path)["dependencies"]:
            name = re.split(r"[<>=!~ \[]", dep, maxsplit=1)[0]
            if name in SIBLINGS:
                assert dep == f"{name}=={version}", f"{path}: {dep}"


def test_the_code_reads_the_version_from_the_metadata() -> None:
    version = _project(ROOT / "pyproject.toml")["version"]
    assert bb_core.__version__ == bugbout.__version__ == version
    literal = re.compile(r"^__version__ = ['\"]", re.MULTILINE)
    written = [
        str(p.relative_to(ROOT))
        for p in ROOT.glob("packages/*/src/*/__init__.py")
        if literal.search(p.read_text())
    ]
    assert written == []


def test_set_version_rewrites_versions_and_pins() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "set_version", ROOT / "scripts" / "set_version.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = 'version = "0.1.0"\ndependencies = [\n    "bb-core==0.1.0",\n    "click>=8.1",\n]\n'
    assert module.pin(text, "0.2.0") == (
        'version = "0.2.0"\ndependencies = [\n    "bb-core==0.2.0",\n    "click>=8.1",\n]\n'
    )
