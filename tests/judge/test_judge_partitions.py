"""Fifteen candidate repairs of three small bugs, scored by two test partitions.

A real git repository: three buggy functions, then one fix commit per function that adds
the maintainers' tests (FAIL_TO_PASS: the inputs the bug gets wrong; PASS_TO_PASS: the
inputs it already got right). Each bug gets five candidate patches, from the untouched
original to a complete repair; the scorer must report the same counts per partition as
the recorded output of "A patch needs two test partitions", and exactly 3 resolved.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from bb_core.config import Config, ProjectConfig, load_config
from bb_core.git import open_repo
from bb_core.patch import diff_trees
from bb_core.records import check
from bb_judge.settings import JudgeSettings
from bb_judge.stage import Scorer
from bb_judge.work import remove_stale
from build_demo import GitRepo

BUGS: dict[str, dict[str, Any]] = {
    "absolute": {
        "signature": "def absolute(x):",
        "call": "absolute",
        "f2p": [("-2", "2"), ("-3", "3")],
        "p2p": [("0", "0"), ("2", "2"), ("3", "3")],
        "bodies": [
            "return x",
            "return 2",
            "return -x",
            "return 2 if x == -2 else x",
            "return abs(x)",
        ],
    },
    "clamp": {
        "signature": "def clamp(x):",
        "call": "clamp",
        "f2p": [("-1", "0"), ("-5", "0")],
        "p2p": [("0", "0"), ("5", "5"), ("10", "10"), ("15", "10")],
        "bodies": [
            "return min(x, 10)",
            "return 0",
            "return max(0, x)",
            "return 0 if x == -1 else min(x, 10)",
            "return max(0, min(x, 10))",
        ],
    },
    "average": {
        "signature": "def average(x):",
        "call": "average",
        "f2p": [("[]", "0")],
        "p2p": [("[2, 4]", "3"), ("[1]", "1"), ("[-2, 4]", "1")],
        "bodies": [
            "return sum(x) / len(x)",
            "return 0",
            "return sum(x)",
            "return x[0] if x else 0",
            "return sum(x) / (len(x) or 1)",
        ],
    },
}

# The article's recorded output: (F2P passed, F2P total, P2P passed, P2P total) per candidate.
RECORDED = {
    "absolute": [(0, 2, 3, 3), (1, 2, 1, 3), (2, 2, 1, 3), (1, 2, 3, 3), (2, 2, 3, 3)],
    "clamp": [(0, 2, 4, 4), (2, 2, 1, 4), (2, 2, 3, 4), (1, 2, 4, 4), (2, 2, 4, 4)],
    "average": [(0, 1, 3, 3), (1, 1, 0, 3), (1, 1, 1, 3), (1, 1, 1, 3), (1, 1, 3, 3)],
}
CATEGORIES = {
    "absolute": ["no-fix", "wrong-fix", "fixed-but-broke", "wrong-fix", "resolved"],
    "clamp": ["no-fix", "fixed-but-broke", "fixed-but-broke", "wrong-fix", "resolved"],
    "average": ["no-fix", "fixed-but-broke", "fixed-but-broke", "fixed-but-broke", "resolved"],
}


def module(bug: str, body: str) -> str:
    return f"{BUGS[bug]['signature']}\n    {body}\n"


def maintainer_tests(bug: str) -> str:
    spec = BUGS[bug]
    lines = [
        "import pytest\n",
        f"from calc.{bug} import {spec['call']}\n",
    ]
    for name, cases in (("test_reported", spec["f2p"]), ("test_ordinary", spec["p2p"])):
        params = ", ".join(f"({value}, {expected})" for value, expected in cases)
        ids = ", ".join(json.dumps(case_id(value)) for value, _ in cases)
        lines += [
            f"\n\n@pytest.mark.parametrize(('value', 'expected'), [{params}], ids=[{ids}])\n",
            f"def {name}(value, expected):\n",
            f"    assert {spec['call']}(value) == expected\n",
        ]
    return "".join(lines)


def case_id(value: str) -> str:
    """A test id for an input: ``-2``, ``empty``, ``2_4``."""
    return value.strip("[]").replace(", ", "_") or "empty"


def nodeids(bug: str, partition: str) -> list[str]:
    name = "test_reported" if partition == "f2p" else "test_ordinary"
    return [f"tests/test_{bug}.py::{name}[{case_id(v)}]" for v, _ in BUGS[bug][partition]]


@pytest.fixture(scope="module")
def partitions(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("partitions")
    git = GitRepo(root / "repo")
    git.commit(
        {
            "pyproject.toml": '[project]\nname = "calc"\nversion = "0"\n',
            "src/calc/__init__.py": "",
            **{f"src/calc/{bug}.py": module(bug, spec["bodies"][0]) for bug, spec in BUGS.items()},
            "tests/test_smoke.py": "def test_imports():\n    import calc  # noqa: F401\n",
        },
        "Add calc",
    )
    fixes = {}
    for number, (bug, spec) in enumerate(BUGS.items(), 1):
        parent = git.sha()
        fix = git.commit(
            {
                f"src/calc/{bug}.py": module(bug, spec["bodies"][-1]),
                f"tests/test_{bug}.py": maintainer_tests(bug),
            },
            f"Fix {bug} (#{number})",
        )
        fixes[bug] = (parent, fix)
    (root / "bugbout.toml").write_text(
        "[project]\n"
        'source = "src/calc"\n'
        'repository = "repo"\n'
        f"interpreter = {json.dumps(sys.executable)}\n"
        "install-project = false\n"
    )
    tasks = []
    with open_repo(git.path) as repo:
        for bug, (parent, fix) in fixes.items():
            base_dir = repo.materialize(parent, root / "trees" / bug / "base")
            attempts = []
            for index, body in enumerate(BUGS[bug]["bodies"]):
                work = root / "trees" / bug / str(index)
                shutil.copytree(base_dir, work)
                (work / f"src/calc/{bug}.py").write_text(module(bug, body))
                patch = diff_trees(base_dir, work)
                attempts.append(
                    {
                        "kind": "attempt",
                        "v": 1,
                        "task_id": f"calc-{bug}",
                        "agent": f"candidate-{index}",
                        "role": "contestant",
                        "status": "finished" if patch else "no-change",
                        "duration": 1.0,
                        "patch": patch,
                    }
                )
            task = {
                "kind": "task",
                "v": 1,
                "id": f"calc-{bug}",
                "repository": "repo",
                "base_commit": parent,
                "fix_commit": fix,
                "title": f"Fix {bug} (#1)",
                "statement": f"{bug} is wrong for some inputs.",
                "statement_source": "commit",
                "source": "src/calc",
                "tests": "tests",
                "source_files": [f"src/calc/{bug}.py"],
                "test_files": [f"tests/test_{bug}.py"],
                "protected_paths": [f"tests/test_{bug}.py"],
                "reference_patch": repo.diff(parent, fix, paths=["src/calc"]),
                "test_patch": repo.diff(parent, fix, paths=["tests"]),
                "oracle": {
                    "kind": "oracle",
                    "v": 1,
                    "fail_to_pass": nodeids(bug, "f2p"),
                    "pass_to_pass": nodeids(bug, "p2p"),
                    "flaky": [],
                    "broken_after": [],
                    "runs": [],
                },
                "attempts": attempts,
            }
            assert check(task, "task") is None, check(task, "task")
            tasks.append(task)
    (root / "tasks.jsonl").write_text("".join(json.dumps(t) + "\n" for t in tasks))
    return {"root": root, "tasks": tasks}


@pytest.fixture(scope="module")
def judged(partitions: dict[str, Any]) -> list[dict[str, Any]]:
    """bb-judge run on the three tasks, as a real command."""
    root = partitions["root"]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "bb_judge",
            str(root / "tasks.jsonl"),
            "--config",
            str(root / "bugbout.toml"),
            "--jobs",
            "2",
        ],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


@pytest.mark.slow
def test_counts_match_the_recorded_output(judged: list[dict[str, Any]]) -> None:
    assert [t["id"] for t in judged] == ["calc-absolute", "calc-clamp", "calc-average"]
    resolved = 0
    for task in judged:
        bug = task["id"].removeprefix("calc-")
        by_name = {s["patch"]: s for s in task["scores"]}
        assert by_name["reference"]["category"] == "resolved"
        for index, expected in enumerate(RECORDED[bug]):
            score = by_name[f"candidate-{index}"]
            assert check(score, "score") is None
            got = (
                score["f2p"]["passed"],
                score["f2p"]["total"],
                score["p2p"]["passed"],
                score["p2p"]["total"],
            )
            assert got == expected, (bug, index, score["outcomes"])
            assert score["category"] == CATEGORIES[bug][index], (bug, index)
            assert score["environment_broken"] is False
            resolved += score["category"] == "resolved"
    assert resolved == 3


@pytest.mark.slow
def test_each_test_outcome_is_recorded(judged: list[dict[str, Any]]) -> None:
    absolute = {s["patch"]: s for s in judged[0]["scores"]}
    negate = absolute["candidate-2"]["outcomes"]
    assert negate == {
        "tests/test_absolute.py::test_reported[-2]": "passed",
        "tests/test_absolute.py::test_reported[-3]": "passed",
        "tests/test_absolute.py::test_ordinary[0]": "passed",
        "tests/test_absolute.py::test_ordinary[2]": "failed",
        "tests/test_absolute.py::test_ordinary[3]": "failed",
    }
    assert absolute["candidate-2"]["applied"] == ["src/calc/absolute.py"]
    assert absolute["candidate-2"]["run"]["exit_code"] == 1


@pytest.mark.slow
def test_a_second_run_is_served_from_the_cache(
    partitions: dict[str, Any], judged: list[dict[str, Any]]
) -> None:
    """Scoring depends only on its inputs, kept in .bugbout/: nothing runs twice."""
    root = partitions["root"]
    scorer = Scorer(load_config(root / "bugbout.toml"))
    again = [scorer.score_task(task) for task in partitions["tasks"]]
    assert scorer.runs == 0
    assert again == [task["scores"] for task in judged]


@pytest.mark.slow
def test_a_reference_that_does_not_resolve_blames_no_patch(
    partitions: dict[str, Any], judged: list[dict[str, Any]]
) -> None:
    """When the control fails, the environment is suspect: every score says so."""
    root = partitions["root"]
    task = {**partitions["tasks"][0], "reference_patch": ""}
    scorer = Scorer(load_config(root / "bugbout.toml"))
    scores = scorer.score_task(task, "candidate-4")
    assert scores[0]["patch"] == "reference" and scores[0]["category"] == "wrong-fix"
    assert all(s["environment_broken"] for s in scores)
    assert scores[-1]["patch"] == "pick" and scores[-1]["picked"] == "candidate-4"


@pytest.mark.slow
def test_a_patch_that_does_not_apply_is_no_fix(partitions: dict[str, Any]) -> None:
    root = partitions["root"]
    task = partitions["tasks"][0]
    stale = task["attempts"][2]["patch"].replace("-    return x\n", "-    return y\n")
    task = {**task, "attempts": [{**task["attempts"][2], "agent": "stale", "patch": stale}]}
    scorer = Scorer(load_config(root / "bugbout.toml"))
    stale_score = scorer.score_task(task)[1]
    assert stale_score["category"] == "no-fix"
    assert stale_score["error"].startswith("the patch does not apply")
    assert "run" not in stale_score
    assert set(stale_score["outcomes"].values()) == {"missing"}


def test_checkouts_of_killed_runs_are_swept(bugbout_home: Path) -> None:
    folder = bugbout_home / "checkouts" / "judge"
    folder.mkdir(parents=True, exist_ok=True)
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    dead = folder / f"{gone.stdout.strip()}-calc-x-abc"
    mine = folder / f"{os.getpid()}-calc-x-def"
    dead.mkdir()
    mine.mkdir()
    assert remove_stale() >= 1
    assert not dead.exists() and mine.exists()
    mine.rmdir()


@pytest.mark.slow
def test_tasks_carry_enough_to_be_scored_without_a_package_setting(
    partitions: dict[str, Any],
) -> None:
    """With no [project] source, the task's own package folder goes on PYTHONPATH."""
    root = partitions["root"]
    config = Config(
        path=None,
        root=root,
        project=ProjectConfig(interpreter=sys.executable, install_project=False),
    )
    scorer = Scorer(config, JudgeSettings(use_cache=False))
    task = {**partitions["tasks"][2], "attempts": partitions["tasks"][2]["attempts"][-1:]}
    scores = scorer.score_task(task)
    assert [(s["patch"], s["category"]) for s in scores] == [
        ("reference", "resolved"),
        ("candidate-4", "resolved"),
    ]
    assert scorer.runs >= 1
