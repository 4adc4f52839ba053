"""run_pytest on small projects built in tmp, inside the real bubblewrap sandbox."""

from __future__ import annotations

import os
import pickle
import secrets
import socket
import textwrap
from pathlib import Path
from typing import Any

import expected
import orjson
import pytest
from bb_core.envs import TestEnv
from bb_core.sandbox import Sandbox
from bb_core.testrun import CollectionError, TestRun, run_pytest
from support.waits import wait_until


def running(needle: bytes) -> bool:
    """Whether any process on this machine has *needle* in its command line."""
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and needle in (proc / "cmdline").read_bytes():
                return True
        except OSError:  # it ended while we looked
            continue
    return False


def make_project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def run(
    project: Path,
    env: TestEnv,
    sandbox: Sandbox,
    targets: list[str] | None = None,
    **options: object,
) -> TestRun:
    options.setdefault("timeout", 60)
    options.setdefault("test_timeout", 10)
    return run_pytest(
        project / "repo",
        env,
        targets if targets is not None else ["tests"],
        sandbox=sandbox,
        log_path=project / "logs" / "run.log",
        **options,  # type: ignore[arg-type]
    )


OUTCOMES = {
    "tests/test_kinds.py": """
        import pytest

        def test_pass(): pass
        def test_fail(): assert 1 == 2
        def test_skip(): pytest.skip("not here")
        @pytest.mark.xfail(reason="known")
        def test_xfailed(): assert 0
        @pytest.mark.xfail(reason="known")
        def test_xpassed(): pass
        @pytest.mark.xfail(reason="known", strict=True)
        def test_xpassed_strict(): pass
        @pytest.fixture
        def broken_setup(): raise RuntimeError("setup boom")
        def test_setup_error(broken_setup): pass
        @pytest.fixture
        def broken_teardown():
            yield
            raise RuntimeError("teardown boom")
        def test_teardown_error(broken_teardown): pass
        def test_fail_and_teardown_error(broken_teardown): assert 0
    """,
    "tests/test_skipped_module.py": """
        import pytest
        pytest.skip("whole module", allow_module_level=True)
        def test_never(): pass
    """,
}


def test_every_outcome_from_the_report(
    tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox
) -> None:
    project = make_project(tmp_path / "repo", OUTCOMES).parent
    expected = {
        "tests/test_kinds.py::test_pass": "passed",
        "tests/test_kinds.py::test_fail": "failed",
        "tests/test_kinds.py::test_skip": "skipped",
        "tests/test_kinds.py::test_xfailed": "skipped",
        "tests/test_kinds.py::test_xpassed": "passed",
        "tests/test_kinds.py::test_xpassed_strict": "failed",
        "tests/test_kinds.py::test_setup_error": "error",
        "tests/test_kinds.py::test_teardown_error": "error",
        "tests/test_kinds.py::test_fail_and_teardown_error": "failed",
        "tests/test_skipped_module.py::test_never": "skipped",
        "tests/test_kinds.py::test_not_there": "missing",
    }
    result = run(project, host_env, bwrap_sandbox, nodeids=list(expected))
    assert result.outcomes == expected
    assert result.problem is None and result.exit_code == 1 and not result.timed_out
    assert result.counts == {"passed": 2, "failed": 3, "error": 2, "skipped": 3, "missing": 1}
    assert "setup boom" in result.messages["tests/test_kinds.py::test_setup_error"]
    assert "teardown boom" in result.messages["tests/test_kinds.py::test_teardown_error"]


NODE_IDS = {
    "tests/test_ids.py": """
        import pytest

        @pytest.mark.parametrize("value", [1, "a b", "x::y", "[br]", "ünï"])
        def test_param(value): assert value != 1

        @pytest.mark.parametrize("a,b", [(1, 2), (3, 4)], ids=["first", "second"])
        def test_ids(a, b): pass

        class TestGroup:
            def test_method(self): pass

            class TestInner:
                @pytest.mark.parametrize("n", [0])
                def test_deep(self, n): pass
    """,
    "tests/deeper/nested/test_far.py": "def test_far(): pass\n",
}


def test_node_ids_are_exact(tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox) -> None:
    project = make_project(tmp_path / "repo", NODE_IDS).parent
    result = run(project, host_env, bwrap_sandbox)  # nodeids=None: every collected test
    assert result.outcomes == {
        "tests/deeper/nested/test_far.py::test_far": "passed",
        "tests/test_ids.py::test_param[1]": "failed",
        "tests/test_ids.py::test_param[a b]": "passed",
        "tests/test_ids.py::test_param[x::y]": "passed",
        "tests/test_ids.py::test_param[[br]]": "passed",
        "tests/test_ids.py::test_param[\\xfcn\\xef]": "passed",
        "tests/test_ids.py::test_ids[first]": "passed",
        "tests/test_ids.py::test_ids[second]": "passed",
        "tests/test_ids.py::TestGroup::test_method": "passed",
        "tests/test_ids.py::TestGroup::TestInner::test_deep[0]": "passed",
    }
    # Asking for a few by id, pytest running just those.
    wanted = ["tests/test_ids.py::test_param[x::y]", "tests/test_ids.py::TestGroup::test_method"]
    only = run(project, host_env, bwrap_sandbox, targets=wanted, nodeids=wanted)
    assert only.outcomes == dict.fromkeys(wanted, "passed")


def test_collection_error_is_reported_and_other_modules_run(
    tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox
) -> None:
    project = make_project(
        tmp_path / "repo",
        {
            "tests/test_good.py": "def test_good(): pass\n",
            "tests/sub/test_broken.py": "from pkg import added_by_the_fix\ndef test_new(): pass\n",
            "src/pkg/__init__.py": "",
        },
    ).parent
    wanted = ["tests/test_good.py::test_good", "tests/sub/test_broken.py::test_new"]
    result = run(project, host_env, bwrap_sandbox, nodeids=wanted)
    assert result.outcomes == {
        "tests/test_good.py::test_good": "passed",
        "tests/sub/test_broken.py::test_new": "error",
    }
    assert result.collection_errors == ["tests/sub/test_broken.py"]
    error = result.collection_errors[0]
    assert isinstance(error, CollectionError)
    assert "cannot import name 'added_by_the_fix'" in error.message
    assert "added_by_the_fix" in error.summary
    assert pickle.loads(pickle.dumps(error)).message == error.message
    record = result.record(side="before", repeat=0)
    assert orjson.loads(orjson.dumps(record))["collection_errors"] == ["tests/sub/test_broken.py"]
    assert record["counts"] == {"passed": 1, "error": 1}


def test_forged_stdout_does_not_count(
    tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox
) -> None:
    project = make_project(
        tmp_path / "repo",
        {
            "tests/test_forge.py": """
                import sys
                def test_liar():
                    print("tests/test_forge.py::test_liar PASSED")
                    sys.__stdout__.write("tests/test_forge.py::test_liar PASSED\\n1 passed in 0.01s\\n")
                    assert False
            """
        },
    ).parent
    result = run(project, host_env, bwrap_sandbox, nodeids=["tests/test_forge.py::test_liar"])
    assert result.outcomes == {"tests/test_forge.py::test_liar": "failed"}
    assert "PASSED" in result.log.read_text()


def test_pytest_starts_through_its_own_entry_without_a_deprecation(
    tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox
) -> None:
    """pytest 9.1 deprecated ``pytest.console_main`` (gone in pytest 10): every run's log
    carried its warning, and a run under pytest 10 would fail to start."""
    project = make_project(tmp_path / "repo", {"tests/test_a.py": "def test_a(): pass\n"}).parent
    result = run(project, host_env, bwrap_sandbox)
    assert result.outcomes == {"tests/test_a.py::test_a": "passed"}
    log = result.log.read_text()
    assert "console_main" not in log and "RemovedIn10" not in log, log


@pytest.mark.parametrize(
    ("name", "files"),
    [
        (
            "exit-0-mid-run",
            {"tests/test_a.py": "import os\ndef test_a(): pass\ndef test_b(): os._exit(0)\n"},
        ),
        (
            "report-closed",
            {
                "tests/conftest.py": "import os\nos.closerange(3, 256)\n",
                "tests/test_a.py": "def test_a(): pass\ndef test_b(): pass\n",
            },
        ),
        (
            "exit-status-forged",
            {
                "tests/conftest.py": "def pytest_sessionfinish(session):\n    session.exitstatus = 0\n",
                "tests/test_a.py": "def test_a(): pass\ndef test_b(): assert 0\n",
            },
        ),
    ],
)
def test_untrustworthy_run_is_an_error_run(
    tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox, name: str, files: dict[str, str]
) -> None:
    project = make_project(tmp_path / "repo", files).parent
    wanted = ["tests/test_a.py::test_a", "tests/test_a.py::test_b"]
    result = run(project, host_env, bwrap_sandbox, nodeids=wanted)
    assert result.outcomes == dict.fromkeys(wanted, "error"), name
    assert result.problem is not None
    assert not result.ok


def test_alarm_fails_only_the_slow_test(
    tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox
) -> None:
    project = make_project(
        tmp_path / "repo",
        {
            "tests/test_time.py": """
                import time
                def test_before(): pass
                def test_sleeps():
                    try:
                        time.sleep(60)
                    except Exception:
                        pass  # the limit is not an Exception: this cannot swallow it
                def test_after(): assert 1 == 2
            """
        },
    ).parent
    result = run(project, host_env, bwrap_sandbox, test_timeout=1)
    assert result.outcomes == {
        "tests/test_time.py::test_before": "passed",
        "tests/test_time.py::test_sleeps": "failed",
        "tests/test_time.py::test_after": "failed",
    }
    assert result.timeouts == ["tests/test_time.py::test_sleeps"]
    assert "timed out after 1s" in result.messages["tests/test_time.py::test_sleeps"]
    assert result.attempts == 1 and result.duration < 60  # before the 60 s sleep ends


@pytest.mark.slow
def test_uninterruptible_hang_is_killed_and_the_rest_rerun(
    tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox
) -> None:
    # A sleep no other run on this machine has (other suites may run this test too).
    mark = f"300.{secrets.randbelow(10**6):06d}"
    project = make_project(
        tmp_path / "repo",
        {
            "tests/test_hang.py": """
                import os, signal, time
                def test_before(): pass
                def test_blocks_the_alarm():
                    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
                    os.system("sleep MARK")
                def test_after(): pass
                def test_after_fails(): assert 0
            """.replace("MARK", mark),
            "tests/test_other.py": "def test_other(): pass\n",
        },
    ).parent
    result = run(project, host_env, bwrap_sandbox, test_timeout=1)
    assert result.outcomes == {
        "tests/test_hang.py::test_before": "passed",
        "tests/test_hang.py::test_blocks_the_alarm": "failed",
        "tests/test_hang.py::test_after": "passed",
        "tests/test_hang.py::test_after_fails": "failed",
        "tests/test_other.py::test_other": "passed",
    }
    assert result.timeouts == ["tests/test_hang.py::test_blocks_the_alarm"]
    assert result.attempts == 2 and not result.timed_out and result.problem is None
    assert "re-running without tests/test_hang.py::test_blocks_the_alarm" in result.log.read_text()
    wait_until(lambda: not running(mark.encode()), "the marked processes to die")


def test_hanging_import_fails_its_module_alone(
    tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox
) -> None:
    project = make_project(
        tmp_path / "repo",
        {
            "tests/test_slow_import.py": "import time\ntime.sleep(60)\ndef test_x(): pass\n",
            "tests/test_fine.py": "def test_fine(): pass\n",
        },
    ).parent
    wanted = ["tests/test_slow_import.py::test_x", "tests/test_fine.py::test_fine"]
    result = run(project, host_env, bwrap_sandbox, nodeids=wanted, test_timeout=1)
    assert result.outcomes == {wanted[0]: "error", wanted[1]: "passed"}
    assert result.collection_errors == ["tests/test_slow_import.py"]
    assert "timed out" in result.collection_errors[0].message


@pytest.mark.slow
def test_whole_run_limit_kills_the_tree(
    tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox
) -> None:
    project = make_project(
        tmp_path / "repo",
        {
            "tests/test_slow.py": """
                import time
                def test_quick(): pass
                def test_slow(): time.sleep(30)
                def test_never_reached(): pass
            """
        },
    ).parent
    # 8 s: time for test_quick to pass first even at a load of 20 on 2 cores.
    result = run(project, host_env, bwrap_sandbox, timeout=8, test_timeout=20)
    assert result.timed_out and result.exit_code is None
    assert result.outcomes == {
        "tests/test_slow.py::test_quick": "passed",
        "tests/test_slow.py::test_slow": "error",
        "tests/test_slow.py::test_never_reached": "error",
    }
    assert result.duration >= 8  # the limit, not the sleep: test_slow did not pass


def test_project_addopts_are_ignored_and_pytest_args_used(
    tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox
) -> None:
    project = make_project(
        tmp_path / "repo",
        {
            "pyproject.toml": '[tool.pytest.ini_options]\naddopts = "--cov=pkg -n 4 -x"\n',
            "tests/test_a.py": "def test_one(): assert 0\ndef test_two(): pass\ndef test_three(): pass\n",
        },
    ).parent
    env = TestEnv(host_env.python, {}, "host", ("src", "."), pytest_args=("-k", "not three"))
    result = run(project, env, bwrap_sandbox)
    # No -x: test_two still ran; -k from pytest-args: test_three deselected.
    assert result.outcomes == {
        "tests/test_a.py::test_one": "failed",
        "tests/test_a.py::test_two": "passed",
    }


def test_src_layout_env_and_no_leaked_credentials(
    tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    project = make_project(
        tmp_path / "repo",
        {
            "src/pkg/__init__.py": "def answer(): return 42\n",
            "tests/helpers.py": "HELP = 1\n",
            "tests/test_env.py": """
                import os
                from pkg import answer
                from tests.helpers import HELP

                def test_imports(): assert answer() == 42 and HELP == 1
                def test_project_env(): assert os.environ["DATABASE_URL"] == "sqlite://"
                def test_no_credentials(): assert "OPENAI_API_KEY" not in os.environ
                def test_no_bugbout_settings():
                    assert not [k for k in os.environ if k.startswith("BUGBOUT_") and k != "BUGBOUT_RUN"]
            """,
        },
    ).parent
    env = TestEnv(host_env.python, {"DATABASE_URL": "sqlite://"}, "host", ("src", "."))
    result = run(project, env, bwrap_sandbox)
    assert set(result.outcomes.values()) == {"passed"}, result.messages


def test_tests_cannot_reach_the_network_or_write_outside(
    tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox
) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    outside = tmp_path / "outside"
    outside.mkdir()
    project = make_project(
        tmp_path / "repo",
        {
            "tests/test_escape.py": f"""
                import socket
                def test_network():
                    socket.create_connection(("127.0.0.1", {port}), timeout=3)
                def test_write_outside():
                    open({str(outside / "stolen")!r}, "w").write("x")
                def test_write_inside(tmp_path):
                    (tmp_path / "f").write_text("x")
                    open("inside.txt", "w").write("x")
            """
        },
    ).parent
    try:
        result = run(project, host_env, bwrap_sandbox)
    finally:
        server.close()
    assert result.outcomes == {
        "tests/test_escape.py::test_network": "failed",
        "tests/test_escape.py::test_write_outside": "failed",
        "tests/test_escape.py::test_write_inside": "passed",
    }
    assert "ConnectionRefusedError" in result.messages["tests/test_escape.py::test_network"]
    assert not (outside / "stolen").exists()
    assert (project / "repo" / "inside.txt").exists()


def test_no_tests_collected_is_not_an_error(
    tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox
) -> None:
    project = make_project(tmp_path / "repo", {"tests/test_empty.py": "X = 1\n"}).parent
    result = run(project, host_env, bwrap_sandbox)
    assert (result.outcomes, result.problem, result.tampered) == ({}, None, [])
    # pytest itself found none: with canaries off it says so with status 5.
    bare = run_pytest(
        project / "repo", host_env, ["tests"], sandbox=bwrap_sandbox, timeout=60,
        log_path=project / "bare.log", canaries=False,
    )  # fmt: skip
    assert (bare.outcomes, bare.exit_code, bare.problem) == ({}, 5, None)


def test_conftest_import_failure_is_an_error_run(
    tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox
) -> None:
    project = make_project(
        tmp_path / "repo",
        {
            "conftest.py": "import not_installed_anywhere\n",
            "tests/test_a.py": "def test_a(): pass\n",
        },
    ).parent
    result = run(project, host_env, bwrap_sandbox, nodeids=["tests/test_a.py::test_a"])
    assert result.outcomes == {"tests/test_a.py::test_a": "error"}
    assert result.problem is not None and "status 4" in result.problem
    assert (
        "the log ends with: E   ModuleNotFoundError: No module named 'not_installed_anywhere'"
        in result.problem
    )


def test_runs_unconfined_with_sandbox_none(tmp_path: Path, host_env: TestEnv) -> None:
    from bb_core.sandbox import NoSandbox

    project = make_project(tmp_path / "repo", {"tests/test_a.py": "def test_a(): pass\n"}).parent
    result = run(project, host_env, NoSandbox())
    assert result.outcomes == {"tests/test_a.py::test_a": "passed"}
    assert os.path.exists(str(result.log) + ".report.jsonl")


def test_targets_that_do_not_exist_are_missing_not_fatal(
    tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox
) -> None:
    """Regression: one unknown node id made pytest run nothing (exit status 4)."""
    project = make_project(
        tmp_path / "repo",
        {
            "tests/test_a.py": "import pytest\n@pytest.mark.parametrize('n', [1, 2])\ndef test_p(n): pass\ndef test_q(): pass\n"
        },
    ).parent
    targets = [
        "tests/test_a.py::test_p",
        "tests/test_a.py::test_gone",
        "tests/test_absent.py::test_x",
    ]
    wanted = [
        "tests/test_a.py::test_p[1]",
        "tests/test_a.py::test_p[2]",
        "tests/test_a.py::test_q",
        "tests/test_a.py::test_gone",
        "tests/test_absent.py::test_x",
    ]
    result = run(project, host_env, bwrap_sandbox, targets=targets, nodeids=wanted)
    assert result.outcomes == {
        "tests/test_a.py::test_p[1]": "passed",
        "tests/test_a.py::test_p[2]": "passed",
        "tests/test_a.py::test_q": "missing",  # in the file, but not a target
        "tests/test_a.py::test_gone": "missing",
        "tests/test_absent.py::test_x": "missing",
    }
    assert result.problem is None
    nothing = run(
        project, host_env, bwrap_sandbox, targets=["tests/test_absent.py"], nodeids=wanted[-1:]
    )
    assert (nothing.outcomes, nothing.attempts) == ({"tests/test_absent.py::test_x": "missing"}, 0)
    assert "left out, not in the checkout: tests/test_absent.py" in nothing.log.read_text()


@pytest.mark.parametrize("kind", ["bubblewrap", "none"])
def test_missing_interpreter_is_an_error_run(
    tmp_path: Path, kind: str, request: pytest.FixtureRequest
) -> None:
    from bb_core.sandbox import NoSandbox

    sandbox = NoSandbox() if kind == "none" else request.getfixturevalue("bwrap_sandbox")
    project = make_project(tmp_path / "repo", {"tests/test_a.py": "def test_a(): pass\n"}).parent
    env = TestEnv(python=tmp_path / "gone" / "bin" / "python", env={}, key="gone")
    result = run(project, env, sandbox, nodeids=["tests/test_a.py::test_a"])
    assert result.outcomes == {"tests/test_a.py::test_a": "error"}
    assert result.problem is not None


# --- on the demo repository -------------------------------------------------------------


def _sides(demo_repo: Path, task: Any, dest: Path) -> tuple[Path, Path]:
    """The task's base tree with the fix's test files on top, and the fix's own tree."""
    from bb_core.git import open_repo

    with open_repo(demo_repo) as repo:
        fix = expected.SHAS[task.title]
        base = repo.commit(fix).parents[0]
        overlay = {path: repo.read_blob(fix, path) or b"" for path in task.test_files}
        before = repo.materialize(base, dest / "before", overlay=overlay)
        after = repo.materialize(fix, dest / "after")
    return before, after


@pytest.mark.parametrize("key", ["lone-punctuation", "truncation-width"])
def test_demo_fix_flips_exactly_its_fail_to_pass(
    key: str, demo_build: Any, tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox
) -> None:
    task = next(t for t in expected.GENUINE if t.key == key)
    before, after = _sides(demo_build.repo, task, tmp_path)
    wanted = [*task.fail_to_pass, *task.pass_to_pass]
    runs = {
        side: run_pytest(
            tree,
            host_env,
            list(task.test_files),
            nodeids=wanted,
            sandbox=bwrap_sandbox,
            timeout=60,
            test_timeout=10,
            log_path=tmp_path / "logs" / f"{side}.log",
        )
        for side, tree in (("before", before), ("after", after))
    }
    assert runs["after"].outcomes == dict.fromkeys(wanted, "passed")
    before_run = runs["before"]
    assert {n: before_run.outcomes[n] for n in task.pass_to_pass} == dict.fromkeys(
        task.pass_to_pass, "passed"
    )
    assert all(before_run.outcomes[n] in ("failed", "error") for n in task.fail_to_pass)
    if task.import_error_before:
        assert before_run.collection_errors == ["tests/test_tokens.py"]
        assert "split_words" in before_run.collection_errors[0].message
        assert {before_run.outcomes[n] for n in task.fail_to_pass if "test_tokens" in n} == {
            "error"
        }
    else:
        assert before_run.collection_errors == []


def test_huge_output_is_capped(tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox) -> None:
    project = make_project(
        tmp_path / "repo",
        {
            "tests/test_loud.py": "import sys\ndef test_loud():\n    sys.stdout.write('x' * 12_000_000)\n"
        },
    ).parent
    env = TestEnv(host_env.python, {}, "host", pytest_args=("-s",))
    result = run(project, env, bwrap_sandbox)
    assert result.outcomes == {"tests/test_loud.py::test_loud": "passed"}
    log = result.log.read_bytes()
    assert len(log) < 8_500_000
    assert b"bytes cut by bugbout" in log and log.startswith(b"[bugbout: ")


def test_a_run_that_reports_its_end_but_does_not_exit_keeps_its_outcomes(
    tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox
) -> None:
    """luigi's server tests: every test reported, then a thread that never lets pytest go."""
    mark = f"300.{secrets.randbelow(10**6):06d}"  # no other run on this machine sleeps so
    project = make_project(
        tmp_path / "repo",
        {
            "tests/test_server.py": """
                import subprocess, threading, time
                def test_starts_a_server():
                    threading.Thread(target=time.sleep, args=(300.4343,)).start()
                    subprocess.Popen(["sleep", "MARK"])
                def test_fails(): assert 0
            """.replace("MARK", mark),
        },
    ).parent
    result = run(project, host_env, bwrap_sandbox, timeout=120)
    assert result.outcomes == {
        "tests/test_server.py::test_starts_a_server": "passed",
        "tests/test_server.py::test_fails": "failed",
    }
    assert (result.lingered, result.timed_out, result.problem, result.exit_code) == (
        True, False, None, 1,
    )  # fmt: skip
    assert result.duration < 300  # its lingering thread sleeps 300.4343 s
    assert result.record()["lingered"] is True
    assert "reported the end of its session" in result.log.read_text()
    wait_until(lambda: not running(mark.encode()), "the marked processes to die")


def test_a_run_that_exits_is_not_flagged(
    tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox
) -> None:
    project = make_project(tmp_path / "repo", {"tests/test_a.py": "def test_a(): pass\n"}).parent
    result = run(project, host_env, bwrap_sandbox)
    assert not result.lingered and "lingered" not in result.record()
