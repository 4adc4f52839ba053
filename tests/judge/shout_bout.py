"""A tiny repository whose fix makes ``shout`` loud, and the task of that fix, raced by
``careful`` (the fix itself) and ``breaker`` (the fix, plus ``double`` made wrong - tested
in a module the fix never touched): the full-suite check's and the stage's test bout; :func:`shout_task` and
:func:`write_config` build the task line and the configuration of such a bout."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from bb_core.config import Config, load_config

PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"

BEFORE = """\
def double(n):
    return n + n


def shout(text):
    return text
"""

AFTER = BEFORE.replace("return text", 'return text.upper() + "!"')

OLD_TESTS = """\
from pkg import shout


def test_shout_keeps_text():
    assert "hi" in shout("hi").lower()
"""

NEW_TESTS = (
    OLD_TESTS
    + """

def test_shout_is_loud():
    assert shout("hi") == "HI!"
"""
)

OTHER_TESTS = """\
from pkg import double


def test_double():
    assert double(2) == 4
"""


def diff(repo: Any, commit: str, paths: str = "src") -> str:
    return subprocess.run(
        ["git", "diff", f"{commit}^", commit, "--", paths],
        cwd=repo.path, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip


def shout_bout(git_repo: Any, tmp_path: Path) -> tuple[Config, dict[str, Any]]:
    """The configuration (``tmp_path/bugbout.toml``) and the task, with its oracle."""
    repo = git_repo()
    repo.commit(
        {"src/pkg/__init__.py": BEFORE, "tests/test_shout.py": OLD_TESTS,
         "tests/test_other.py": OTHER_TESTS},
        "Start",
    )  # fmt: skip
    fix = repo.commit(
        {"src/pkg/__init__.py": AFTER, "tests/test_shout.py": NEW_TESTS}, "Shout loudly"
    )
    base = repo.sha(f"{fix}^")
    reference = diff(repo, fix)
    # The breaking patch: the fix, plus `double` made wrong - tested in a module the fix
    # never touched.
    repo.branch("breaker", base)
    wrong = repo.commit({"src/pkg/__init__.py": AFTER.replace("n + n", "n * 3")}, "Break")
    breaking = diff(repo, wrong)
    config = write_config(tmp_path, repo)
    attempts = [
        {"agent": "careful", "patch": reference, "status": "finished"},
        {"agent": "breaker", "patch": breaking, "status": "finished"},
    ]
    return config, shout_task("suite-1", repo, base, fix, reference, attempts)


def write_config(tmp_path: Path, repo: Any, extra: str = "") -> Config:
    """``tmp_path/bugbout.toml`` for *repo*'s ``src/pkg``, with *extra* TOML after it."""
    (tmp_path / "bugbout.toml").write_text(
        f'[project]\nsource = "src/pkg"\nrepository = "{repo.path}"\npython = "{PYTHON}"\n' + extra
    )
    return load_config(tmp_path / "bugbout.toml")


def shout_task(
    task_id: str, repo: Any, base: str, fix: str, reference: str, attempts: list[dict[str, Any]]
) -> dict[str, Any]:
    """The task line of the fix that makes ``shout`` loud, with its oracle and *attempts*."""
    return {
        "kind": "task", "v": 1, "id": task_id, "repository": str(repo.path),
        "base_commit": base, "fix_commit": fix, "title": "Shout loudly",
        "statement": "Shout is quiet.", "statement_source": "commit", "source": "src/pkg",
        "tests": "tests", "source_files": ["src/pkg/__init__.py"],
        "test_files": ["tests/test_shout.py"], "protected_paths": ["tests/test_shout.py"],
        "reference_patch": reference, "test_patch": "",
        "oracle": {
            "kind": "oracle", "v": 1, "fail_to_pass": ["tests/test_shout.py::test_shout_is_loud"],
            "pass_to_pass": ["tests/test_shout.py::test_shout_keeps_text"], "flaky": [],
            "broken_after": [], "runs": [], "test_modules": ["tests/test_shout.py"],
        },
        "attempts": attempts,
    }  # fmt: skip
