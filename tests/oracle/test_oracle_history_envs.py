"""The oracle on histories whose old commits need their own environment or a set-up step:
each task runs in its base commit's environment, and a set-up command runs confined in
every checkout before its tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from oracle_helpers import SmallProject, lines, run_tool

#: 2019-era code: packaging's LegacyVersion, removed in packaging 22.
OLD_SETUP = "from setuptools import setup\nsetup(name='pkg', install_requires=['packaging<22'])\n"
OLD_V1 = (
    "from packaging.version import LegacyVersion\n\n\n"
    "def newest(versions):\n    return max(versions, key=LegacyVersion)[0]\n"
)
OLD_V2 = OLD_V1.replace("[0]", "")
OLD_TESTS_V1 = "from pkg import newest\n\n\ndef test_one():\n    assert newest(['1']) == '1'\n"
OLD_TESTS_V2 = OLD_TESTS_V1 + "\n\ndef test_pair():\n    assert newest(['1.2', '1.10']) == '1.10'\n"
#: Today's code: packaging 22 or newer.
NEW_PYPROJECT = '[project]\nname = "pkg"\nversion = "2"\ndependencies = ["packaging>=22"]\n'
NEW_V1 = (
    "from packaging.version import Version\n\n\n"
    "def newest(versions):\n    return min(versions, key=Version)\n"
)
NEW_V2 = NEW_V1.replace("min(", "max(")


def _eras(project: SmallProject) -> tuple[dict[str, Any], dict[str, Any]]:
    """A fix from the setup.py era and one from the pyproject era."""
    repo = project.repo
    repo.commit(
        {"setup.py": OLD_SETUP, "src/pkg/__init__.py": OLD_V1, "tests/test_pkg.py": OLD_TESTS_V1},
        "Start",
        date="2019-03-01T12:00:00+00:00",
    )
    old = repo.commit(
        {"src/pkg/__init__.py": OLD_V2, "tests/test_pkg.py": OLD_TESTS_V2},
        "Fix newest (#1)",
        date="2019-03-02T12:00:00+00:00",
    )
    repo.commit(
        {"setup.py": None, "pyproject.toml": NEW_PYPROJECT, "src/pkg/__init__.py": NEW_V1,
         "tests/test_pkg.py": OLD_TESTS_V1},
        "Move to pyproject and packaging 22",
        date="2024-05-01T12:00:00+00:00",
    )  # fmt: skip
    new = repo.commit(
        {"src/pkg/__init__.py": NEW_V2, "tests/test_pkg.py": OLD_TESTS_V2},
        "Fix newest again (#2)",
        date="2024-05-02T12:00:00+00:00",
    )
    return project.task(old, ["tests/test_pkg.py"]), project.task(new, ["tests/test_pkg.py"])


@pytest.mark.slow
def test_each_task_runs_in_its_base_commits_environment(small_project) -> None:
    project = small_project()
    old, new = _eras(project)
    tasks = project.write_tasks(old, new)
    # One environment from today's declarations: the 2019 fix cannot even import.
    done = run_tool("bb-oracle", "--repeat", "1", str(tasks), cwd=project.root)
    assert done.returncode == 0, done.stderr.decode()
    first = {r.get("id") or r.get("task_id"): r for r in lines(done.stdout)}
    assert first[new["id"]]["oracle"]["fail_to_pass"] == ["tests/test_pkg.py::test_pair"]
    assert first[old["id"]]["kind"] == "skip"
    # History: each base commit's declarations, two environments.
    project.configure('environments = "history"\n')
    done = run_tool("bb-oracle", "--repeat", "1", str(tasks), cwd=project.root)
    assert done.returncode == 0, done.stderr.decode()
    found = {r["id"]: r["oracle"] for r in lines(done.stdout)}
    assert found[old["id"]]["fail_to_pass"] == ["tests/test_pkg.py::test_pair"]
    assert found[new["id"]]["fail_to_pass"] == ["tests/test_pkg.py::test_pair"]
    assert found[old["id"]]["environment"] != found[new["id"]]["environment"]
    # Pinned per era instead, in bugbout.toml: the same.
    project.configure(
        "install-project = false\n[project.test-dependencies]\n"
        '"<2020-01-01" = ["pytest", "packaging<22"]\ndefault = ["pytest", "packaging>=22"]\n'
    )
    done = run_tool("bb-oracle", "--repeat", "1", str(tasks), cwd=project.root)
    assert done.returncode == 0, done.stderr.decode()
    pinned = {r["id"]: r["oracle"] for r in lines(done.stdout)}
    assert pinned[old["id"]]["fail_to_pass"] == ["tests/test_pkg.py::test_pair"]
    assert pinned[new["id"]]["fail_to_pass"] == ["tests/test_pkg.py::test_pair"]


VERSIONED = "from pkg._version import VERSION\n\n\ndef label():\n    return 'pkg ' + VERSION{}\n"
VERSION_TESTS_V1 = "from pkg import label\n\n\ndef test_callable():\n    assert callable(label)\n"
VERSION_TESTS_V2 = VERSION_TESTS_V1 + "\n\ndef test_label():\n    assert label() == 'pkg 1.0'\n"
WRITE_VERSION = "echo \"VERSION = '1.0'\" > src/pkg/_version.py"


def _versioned(project: SmallProject) -> dict[str, Any]:
    """A package that imports a module its installer writes (gitignored, not in the tree)."""
    repo = project.repo
    repo.commit(
        {".gitignore": "src/pkg/_version.py\n", "src/pkg/__init__.py": VERSIONED.format(" + '!'"),
         "tests/test_pkg.py": VERSION_TESTS_V1},
        "Start",
    )  # fmt: skip
    fix = repo.commit(
        {"src/pkg/__init__.py": VERSIONED.format(""), "tests/test_pkg.py": VERSION_TESTS_V2},
        "Fix the label (#3)",
    )
    return project.task(fix, ["tests/test_pkg.py"])


@pytest.mark.slow
def test_a_setup_command_makes_a_bare_checkout_importable(small_project) -> None:
    project = small_project()
    task = _versioned(project)
    tasks = project.write_tasks(task)
    done = run_tool("bb-oracle", "--repeat", "1", str(tasks), cwd=project.root)
    [skip] = lines(done.stdout)
    assert skip["kind"] == "skip"  # nothing imports without the version module
    project.configure("setup = ['''" + WRITE_VERSION + "''']\n")
    done = run_tool("bb-oracle", "--repeat", "1", str(tasks), cwd=project.root)
    assert done.returncode == 0, done.stderr.decode()
    [record] = lines(done.stdout)
    assert record["oracle"]["fail_to_pass"] == ["tests/test_pkg.py::test_label"]
    assert record["oracle"]["pass_to_pass"] == ["tests/test_pkg.py::test_callable"]


@pytest.mark.slow
def test_a_failing_setup_skips_the_task_as_setup_failed(small_project) -> None:
    project = small_project()
    tasks = project.write_tasks(_versioned(project))
    project.configure("setup = [['python', '-c', 'import sys; sys.exit(\"no version\")']]\n")
    done = run_tool("bb-oracle", "--repeat", "1", str(tasks), cwd=project.root)
    assert done.returncode == 0, done.stderr.decode()
    [skip] = lines(done.stdout)
    assert (skip["kind"], skip["reason"]) == ("skip", "setup-failed")
    runs = skip["detail"]["runs"]
    assert runs and all(r["reason"] == "setup-failed" for r in runs)
    assert "exited with status 1; the log ends with: no version" in skip["message"]
    assert all("no version" in Path(r["log"]).read_text() for r in runs)
