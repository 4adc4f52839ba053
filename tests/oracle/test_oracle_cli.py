"""bb-oracle at the shell: bad input, tasks it cannot score, its cache and its progress bar."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import orjson
import pytest
from bb_core.config import load_config
from bb_core.records import Writer
from bb_core.stage_spec import run
from bb_core.store import Store, bugbout_home
from bb_core.testrun import run_pytest
from bb_oracle import SPEC, OracleSettings, OracleStage
from oracle_helpers import SmallProject
from support.tools import BIN, lines, run_tool

SOURCE_V1 = "def double(x):\n    return x + x + 1\n"
SOURCE_V2 = "def double(x):\n    return x + x\n"
TESTS_V1 = "from pkg import double\n\n\ndef test_zero_is_callable():\n    assert callable(double)\n"
TESTS_V2 = TESTS_V1 + "\n\ndef test_double():\n    assert double(2) == 4\n"


def simple_fix(project: SmallProject) -> dict[str, Any]:
    """A one-line fix with one new test: the smallest genuine task."""
    project.repo.commit({"src/pkg/__init__.py": SOURCE_V1, "tests/test_pkg.py": TESTS_V1}, "Start")
    fix = project.repo.commit(
        {"src/pkg/__init__.py": SOURCE_V2, "tests/test_pkg.py": TESTS_V2}, "Fix double (#1)"
    )
    return project.task(fix, ["tests/test_pkg.py"])


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("base_commit", "abc", "base_commit: "),
        ("test_files", "tests/test_pkg.py", "test_files: expected an array"),
        ("oracle", {"kind": "oracle", "v": 1}, "oracle.fail_to_pass: required field missing"),
    ],
)
def test_a_bad_task_line_is_one_line_error_and_exit_2(
    small_project, field: str, value: Any, problem: str
) -> None:
    project = small_project()
    note = {"kind": "skip", "v": 1, "stage": "mine", "reason": "not-a-fix", "message": "m"}
    bad = {**simple_fix(project), field: value}
    tasks = project.write_tasks(note, bad)
    done = run_tool("bb-oracle", str(tasks), cwd=project.root)
    assert done.returncode == 2
    error = done.stderr.decode()
    assert error.startswith(f"bb-oracle: {tasks}:2: {problem}")
    assert error.count("\n") == 1
    assert lines(done.stdout) == [note]


def test_a_missing_repository_is_a_usage_error(small_project) -> None:
    project = small_project()
    task = {**simple_fix(project), "repository": str(project.root / "nowhere")}
    done = run_tool("bb-oracle", str(project.write_tasks(task)), cwd=project.root)
    assert done.returncode == 2
    assert done.stderr.decode() == (
        f"bb-oracle: task {task['id']}: repository {project.root / 'nowhere'}: no such directory\n"
    )


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"fix_commit": "f" * 40}, "unknown-commit"),
        ({"test_files": ["tests/data.txt", "tests/conftest.py"]}, "no-test-modules"),
    ],
)
def test_tasks_that_cannot_be_run_are_skipped_with_a_reason(
    small_project, change: dict[str, Any], reason: str
) -> None:
    project = small_project()
    task = {**simple_fix(project), **change}
    done = run_tool("bb-oracle", str(project.write_tasks(task)), cwd=project.root)
    assert done.returncode == 0, done.stderr.decode()
    [skip] = lines(done.stdout)
    assert skip["kind"] == "skip"
    assert (skip["stage"], skip["reason"], skip["task_id"]) == ("oracle", reason, task["id"])
    assert skip["commit"] == task["fix_commit"]


@pytest.mark.slow
def test_a_repository_given_as_a_url_is_read_from_a_mirror(small_project) -> None:
    project = small_project()
    task = {**simple_fix(project), "repository": project.repo.path.as_uri()}
    done = run_tool("bb-oracle", "--repeat", "1", str(project.write_tasks(task)), cwd=project.root)
    assert done.returncode == 0, done.stderr.decode()
    [record] = lines(done.stdout)
    assert record["oracle"]["fail_to_pass"] == ["tests/test_pkg.py::test_double"]
    assert record["oracle"]["pass_to_pass"] == ["tests/test_pkg.py::test_zero_is_callable"]


@pytest.mark.slow
def test_project_env_and_pytest_args_reach_every_run(small_project) -> None:
    project = small_project()
    project.configure('pytest-args = ["-k", "not deselected"]\nenv = { ORACLE_FLAG = "on" }\n')
    extra = (
        "\n\nimport os\n\n\ndef test_flag():\n    assert os.environ.get('ORACLE_FLAG') == 'on'\n"
        "\n\ndef test_deselected():\n    assert False\n"
    )
    project.repo.commit({"src/pkg/__init__.py": SOURCE_V1, "tests/test_pkg.py": TESTS_V1}, "Start")
    fix = project.repo.commit(
        {"src/pkg/__init__.py": SOURCE_V2, "tests/test_pkg.py": TESTS_V2 + extra}, "Fix (#2)"
    )
    tasks = project.write_tasks(project.task(fix, ["tests/test_pkg.py"]))
    done = run_tool("bb-oracle", "--repeat", "1", str(tasks), cwd=project.root)
    assert done.returncode == 0, done.stderr.decode()
    [record] = lines(done.stdout)
    oracle = record["oracle"]
    assert oracle["fail_to_pass"] == ["tests/test_pkg.py::test_double"]
    assert oracle["pass_to_pass"] == [
        "tests/test_pkg.py::test_flag", "tests/test_pkg.py::test_zero_is_callable",
    ]  # fmt: skip
    assert oracle["broken_after"] == []


@pytest.mark.slow
def test_an_environment_uv_cannot_build_skips_with_uvs_error(small_project) -> None:
    project = small_project()
    project.configure('test-dependencies = ["pytest", "bugbout-no-such-package-anywhere"]\n')
    tasks = project.write_tasks(simple_fix(project))
    done = run_tool("bb-oracle", str(tasks), cwd=project.root)
    assert done.returncode == 0, done.stderr.decode()
    [skip] = lines(done.stdout)
    assert skip["reason"] == "environment-failed"
    assert "bugbout-no-such-package-anywhere" in skip["message"]
    assert "bugbout-no-such-package-anywhere" in skip["detail"]["uv_output"]
    assert not list((project.root / ".bugbout" / "cache" / "oracle").glob("*.json"))


class CountingRunner:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return run_pytest(*args, **kwargs)


@pytest.mark.slow
def test_the_cache_key_covers_the_arguments_that_change_a_result(
    small_project, tmp_path: Path
) -> None:
    project = small_project()
    tasks = project.write_tasks(simple_fix(project))
    config = load_config(project.config)

    def runs(**settings: Any) -> int:
        runner = CountingRunner()
        with (tmp_path / "out.jsonl").open("wb") as out:
            chosen = OracleSettings.from_config(config, **settings)
            stage = OracleStage(config, chosen, store=Store(config.root), runner=runner)
            run(SPEC, [str(tasks)], chosen, writer=Writer(out), config=config, stage=stage)
        [task] = lines((tmp_path / "out.jsonl").read_bytes())
        assert task["oracle"]["fail_to_pass"] == ["tests/test_pkg.py::test_double"]
        return runner.calls

    # One run per side and repeat, then the twins' three runs (one before the fix, two on it).
    twins = 3
    assert runs(repeat=1) == 2 + twins
    assert runs(repeat=1) == 0
    assert runs(repeat=1, test_timeout=30) == 2 + twins
    assert runs(repeat=1, use_cache=False) == 2 + twins
    assert runs(repeat=2) == 4 + twins
    assert runs(repeat=1, test_timeout=30) == 0


@pytest.mark.slow
def test_a_killed_run_resumes_where_it_stopped(small_project) -> None:
    """SIGKILL in the middle of a task: the finished task is cached, the other reruns."""
    project = small_project()
    first = simple_fix(project)
    project.repo.commit(
        {"src/pkg/__init__.py": "def double(x):\n    while True:\n        pass\n"}, "Break"
    )
    second = project.task(
        project.repo.commit({"src/pkg/__init__.py": SOURCE_V2}, "Fix the hang (#3)"),
        ["tests/test_pkg.py"],
    )
    tasks = project.write_tasks(first, second)
    command = [str(BIN / "bb-oracle"), "--repeat", "1", "--test-timeout", "2", str(tasks)]
    # A BUGBOUT_HOME of its own: what the two runs share is exactly what the first left.
    env = {**os.environ, "BUGBOUT_HOME": str(project.root / "bugbout-home")}
    with subprocess.Popen(command, cwd=project.root, stdout=subprocess.PIPE, env=env) as proc:
        assert proc.stdout is not None
        finished = proc.stdout.readline()
        proc.kill()
    assert orjson.loads(finished)["id"] == first["id"]
    done = subprocess.run(
        [*command, "--debug"], cwd=project.root, capture_output=True, check=False, env=env
    )
    assert done.returncode == 0, done.stderr.decode()
    # (A skip line here names its reason and the log of the run it distrusts.)
    ids = [r.get("id", r.get("task_id")) for r in lines(done.stdout)]
    assert ids == [first["id"], second["id"]] and lines(done.stdout)[1]["kind"] == "task", (
        done.stdout.decode()
    )
    assert lines(done.stdout)[0] == orjson.loads(finished)
    # The first task came from the cache; the second ran its two sides and three runs
    # for its twins.
    assert "5 test runs, 1 from cache" in done.stderr.decode()
    # The runs' own BUGBOUT_HOME: the killed run's checkout was swept, the rerun's removed.
    assert list((project.root / "bugbout-home" / "checkouts" / "oracle").iterdir()) == []


def test_checkouts_left_by_a_killed_run_are_removed(small_project) -> None:
    project = small_project()
    gone = subprocess.Popen(["true"])
    gone.wait()
    stale = bugbout_home() / "checkouts" / "oracle" / f"{gone.pid}-small-before-x"
    (stale / "tests").mkdir(parents=True)
    (stale / "tests" / "test_x.py").write_text("")
    (stale / "tests").chmod(0o500)
    task = {**simple_fix(project), "fix_commit": "f" * 40}
    done = run_tool("bb-oracle", str(project.write_tasks(task)), cwd=project.root)
    assert done.returncode == 0, done.stderr.decode()
    assert not stale.exists()


def test_progress_goes_to_a_terminal_on_stderr_and_never_to_stdout(small_project) -> None:
    project = small_project()
    task = {**simple_fix(project), "fix_commit": "f" * 40}
    tasks = project.write_tasks(task, task)
    leader, follower = os.openpty()
    try:
        done = subprocess.run(
            [str(BIN / "bb-oracle"), str(tasks)], cwd=project.root, stdout=subprocess.PIPE,
            stderr=follower, timeout=60, check=False,
        )  # fmt: skip
        os.close(follower)
        drawn = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                break
            if not chunk:
                break
            drawn += chunk
    finally:
        os.close(leader)
    assert done.returncode == 0
    assert [r["reason"] for r in lines(done.stdout)] == ["unknown-commit"] * 2
    assert b"bb-oracle 2/2" in drawn
    assert b"bb-oracle: 2 tasks: 0 with an oracle, 2 skipped (2 unknown-commit)" in drawn
    assert orjson.loads(done.stdout.splitlines()[0])["kind"] == "skip"
