"""A race stops at any moment and carries on without running a finished attempt again."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from support.waits import wait_until

BIN = Path(sys.executable).parent

QUICK = """
note("start")
pathlib.Path("src/textkit/quick_fix.py").write_text("FIXED = True\\n")
note("end")
"""

# Waits for the "go" flag on every task, so the test decides when it may finish.
SLOW = """
note("start")
go = pathlib.Path(os.environ["NOTES"]).parent / "go"
deadline = time.time() + 60
while not go.exists() and time.time() < deadline:
    time.sleep(0.05)
pathlib.Path("src/textkit/slow_fix.py").write_text("FIXED = True\\n")
note("end")
"""

FAILING = """
note("start")
pathlib.Path(os.environ["NOTES"]).parent.joinpath("failing-ran").touch()
mode = (pathlib.Path(os.environ["NOTES"]).parent / "mode").read_text().strip()
if mode == "quota":
    print("Error: You've hit your usage limit. Try again later.")
    sys.exit(1)
if mode == "crash":
    sys.exit(3)
pathlib.Path("src/textkit/late_fix.py").write_text("FIXED = True\\n")
"""


def wait_for(condition: Any) -> None:
    wait_until(condition, "the race's agents")


def running(script: Path) -> bool:
    """Whether any process on this machine runs *script* (a path unique to one test)."""
    needle = str(script).encode()
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and needle in (proc / "cmdline").read_bytes():
                return True
        except OSError:  # it ended while we looked
            continue
    return False


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_killing_the_race_and_running_again_repeats_no_finished_attempt(
    race_project: Any, demo_tasks: Any, race_cli: Any, sig: signal.Signals
) -> None:
    project = race_project({"quick": QUICK, "slow": SLOW})
    tasks = project.write_tasks(demo_tasks.pick("User Name", "abcdefghij"))
    proc = subprocess.Popen(
        [str(BIN / "bb-race"), str(tasks), "--config", str(project.config)],
        cwd=project.root, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        # quick finished task 1; slow is running on task 1.
        wait_for(lambda: any(n["agent"] == "slow" for n in project.read_notes()))
        stored = sorted(p.name for p in project.attempts.rglob("*.json"))
        assert stored == ["quick.json"]
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
        proc.wait()
    if sig == signal.SIGTERM:
        assert proc.returncode == 130
        assert err.decode().strip() == "bb-race: interrupted; finished work is kept"
    # The slow agent died with the race (no process of it is left): let it go, and it does
    # not finish.
    wait_for(lambda: not running(project.root / "agents" / "slow.py"))
    (project.shared / "go").touch()
    assert [n["event"] for n in project.read_notes()] == ["start", "end", "start"]

    second = race_cli(project, tasks)
    assert second.returncode == 0, second.stderr
    starts = Counter((n["agent"], n["task"]) for n in project.read_notes() if n["event"] == "start")
    assert starts == {
        ("quick", "User Name"): 1,
        ("quick", "abcdefghij"): 1,
        ("slow", "User Name"): 2,  # killed once, never stored, so run again
        ("slow", "abcdefghij"): 1,
    }
    attempts = second.attempts()
    assert len(attempts) == 4
    assert {a["status"] for a in attempts.values()} == {"finished"}

    notes = len(project.read_notes())
    third = race_cli(project, tasks)
    assert third.returncode == 0
    assert len(project.read_notes()) == notes  # nothing ran again
    assert third.stdout == second.stdout


@pytest.mark.slow
def test_retry_failed_runs_again_only_quota_and_crashed_attempts(
    race_project: Any, demo_tasks: Any, race_cli: Any
) -> None:
    project = race_project(
        {"quick": QUICK, "failing": FAILING},
        options={"failing": {"quota": "other", "quota-pattern": "hit your usage limit"}},
    )
    tasks = project.write_tasks(demo_tasks.pick("User Name", "abcdefghij"))
    flag = project.shared / "failing-ran"

    def failing_status(raced: Any) -> list[str]:
        return [a["status"] for (_, agent), a in raced.attempts().items() if agent == "failing"]

    (project.shared / "mode").write_text("quota")
    first = race_cli(project, tasks)
    assert failing_status(first) == ["quota"] * 2
    quota = next(a for (_, n), a in first.attempts().items() if n == "failing")
    assert "usage limit" in quota["summary"] and quota["exit_code"] == 1

    (project.shared / "mode").write_text("crash")
    crashed = race_cli(project, tasks, "--retry-failed")
    assert failing_status(crashed) == ["crashed"] * 2
    assert all(a["exit_code"] == 3 for (_, n), a in crashed.attempts().items() if n == "failing")

    (project.shared / "mode").write_text("fix")
    fixed = race_cli(project, tasks, "--retry-failed")
    assert failing_status(fixed) == ["finished"] * 2
    flag.unlink()
    again = race_cli(project, tasks, "--retry-failed")  # finished attempts never run again
    assert not flag.exists()
    assert again.stdout == fixed.stdout
    quick_notes = [n for n in project.read_notes() if n["agent"] == "quick"]
    assert len(quick_notes) == 2 * 2  # start and end, once per task, in all four runs


def test_quota_needs_the_agents_own_verdict(
    race_project: Any, demo_tasks: Any, race_cli: Any
) -> None:
    """A nonzero exit without a usage-limit message is a crash, not quota."""
    project = race_project({"failing": FAILING})
    (project.shared / "mode").write_text("crash")
    tasks = project.write_tasks(demo_tasks.pick("User Name"))
    raced = race_cli(project, tasks)
    [attempt] = raced.attempts().values()
    assert (attempt["status"], attempt["exit_code"]) == ("crashed", 3)
    lines = (Path(attempt["logdir"]) / "stderr.log").read_text().strip().splitlines()
    if lines:
        assert attempt["error"] == f"exited with status 3: {lines[-1].strip()}"
    else:
        assert attempt["error"] == "exited with status 3, with nothing on stderr"


def test_adding_an_agent_later_runs_only_that_agent(
    race_project: Any, demo_tasks: Any, race_lib: Any
) -> None:
    project = race_project({"quick": QUICK})
    tasks = project.write_tasks(demo_tasks.pick("User Name", "abcdefghij"))
    race_lib(project, tasks)
    project = race_project({"quick": QUICK, "late": QUICK})  # same folder, one more agent
    second = race_lib(project, tasks)
    starts = Counter(n["agent"] for n in project.read_notes() if n["event"] == "start")
    assert starts == {"quick": 2, "late": 2}
    assert [a["agent"] for r in second.records for a in r["attempts"]] == ["quick", "late"] * 2


def test_agent_option_runs_only_the_named_agents(
    race_project: Any, demo_tasks: Any, race_lib: Any
) -> None:
    project = race_project({"quick": QUICK, "other": QUICK})
    tasks = project.write_tasks(demo_tasks.pick("User Name"))
    raced = race_lib(project, tasks, only=["other"])
    assert [a["agent"] for a in raced.records[0]["attempts"]] == ["other"]
    both = race_lib(project, tasks)
    assert [a["agent"] for a in both.records[0]["attempts"]] == ["quick", "other"]
    assert Counter(n["agent"] for n in project.read_notes() if n["event"] == "start") == {
        "quick": 1,
        "other": 1,
    }


def test_an_unknown_agent_name_is_a_usage_error(
    race_project: Any, demo_tasks: Any, race_cli: Any
) -> None:
    project = race_project({"quick": QUICK})
    tasks = project.write_tasks(demo_tasks.pick("User Name"))
    raced = race_cli(project, tasks, "--agent", "nobody")
    assert raced.returncode == 2
    assert (
        raced.stderr == "bb-race: --agent nobody: no such agent is configured (configured: quick)\n"
    )
    assert raced.stdout == b""
    assert project.read_notes() == []


def test_stored_attempts_are_one_file_per_agent_per_task(
    race_project: Any, demo_tasks: Any, race_lib: Any
) -> None:
    project = race_project({"quick": QUICK})
    tasks = project.write_tasks(demo_tasks.pick("User Name"))
    raced = race_lib(project, tasks)
    [task] = raced.records
    path = project.attempts / task["id"] / "quick.json"
    assert json.loads(path.read_text()) == task["attempts"][0]
    assert (project.root / ".bugbout" / ".gitignore").exists()
    assert not list(Path(project.attempts).rglob("*.tmp"))


def test_a_task_given_twice_is_raced_once(
    race_project: Any, demo_tasks: Any, race_lib: Any
) -> None:
    project = race_project({"quick": QUICK})
    [task] = demo_tasks.pick("User Name")
    raced = race_lib(project, project.write_tasks([task, task]))
    assert len(raced.records) == 2
    assert raced.records[0] == raced.records[1]
    assert [n["event"] for n in project.read_notes()] == ["start", "end"]


@pytest.mark.parametrize("sandboxed", [True, False], ids=["sandboxed", "unsandboxed"])
def test_an_agent_that_cannot_start_is_recorded_as_crashed(
    race_project: Any, demo_tasks: Any, race_lib: Any, sandboxed: bool
) -> None:
    project = race_project(
        {"missing": QUICK},
        options={"missing": {"command": ["/no/such/agent"], "sandboxed": sandboxed}},
    )
    tasks = project.write_tasks(demo_tasks.pick("User Name"))
    [attempt] = race_lib(project, tasks).attempts().values()
    assert attempt["status"] == "crashed"
    assert attempt["patch"] == ""
    if sandboxed:  # the sandbox started and reported the missing program
        assert attempt["exit_code"] != 0
        assert "/no/such/agent" in (Path(attempt["logdir"]) / "stderr.log").read_text()
        # The reason is in the record itself, not only in the log.
        assert attempt["error"].startswith(f"exited with status {attempt['exit_code']}: ")
        # The sandbox's shell starts the command (pid 1's command line names no host
        # path), so the words are the shell's: "exec: /no/such/agent: not found".
        assert "/no/such/agent" in attempt["error"]
        assert "not found" in attempt["error"] or "No such file" in attempt["error"]
    else:  # bugbout could not start it at all
        assert attempt["exit_code"] is None
        assert attempt["error"].startswith("bugbout could not run the attempt: FileNotFoundError")
    stored = json.loads((project.attempts / attempt["task_id"] / "missing.json").read_text())
    assert stored == attempt


@pytest.mark.slow
def test_a_changed_statement_runs_again_exactly_the_attempts_it_changes(
    race_project: Any, demo_tasks: Any, race_cli: Any
) -> None:
    project = race_project({"quick": QUICK, "other": QUICK})
    picked = demo_tasks.pick("User Name", "abcdefghij")
    tasks = project.write_tasks(picked)
    first = race_cli(project, tasks)
    assert first.returncode == 0, first.stderr
    before = first.attempts()
    assert all(len(a["given"]["prompt_sha256"]) == 64 for a in before.values())
    assert {a["given"]["base_commit"] for a in before.values()} == {
        t["base_commit"] for t in picked
    }

    changed = [{**picked[0], "statement": picked[0]["statement"] + "\n\nSeen on 3.12 too."}]
    tasks = project.write_tasks([*changed, picked[1]])
    second = race_cli(project, tasks)
    assert second.returncode == 0, second.stderr
    assert "no longer match what they would be given now (changed prompt: 2)" in second.stderr
    starts = Counter((n["agent"], n["task"]) for n in project.read_notes() if n["event"] == "start")
    assert starts == {
        ("quick", "User Name"): 2,
        ("other", "User Name"): 2,
        ("quick", "abcdefghij"): 1,
        ("other", "abcdefghij"): 1,
    }
    after = second.attempts()
    assert len(after) == 4  # the earlier attempts are history, not counted
    moved = [(task, agent) for (task, agent), a in after.items() if a != before[(task, agent)]]
    assert sorted(agent for _, agent in moved) == ["other", "quick"]
    assert {task for task, _ in moved} == {picked[0]["id"]}
    history = sorted(p.name.split(".")[0] for p in project.attempts.rglob("history/*.json"))
    assert history == ["other", "quick"]

    third = race_cli(project, tasks)  # the same ask again: nothing runs
    assert sum(1 for n in project.read_notes() if n["event"] == "start") == 6
    assert third.stdout == second.stdout


@pytest.mark.slow
def test_refresh_runs_every_attempt_again(
    race_project: Any, demo_tasks: Any, race_cli: Any
) -> None:
    project = race_project({"quick": QUICK})
    tasks = project.write_tasks(demo_tasks.pick("User Name", "abcdefghij"))
    assert race_cli(project, tasks).returncode == 0
    again = race_cli(project, tasks, "--refresh")
    assert again.returncode == 0, again.stderr
    starts = Counter((n["agent"], n["task"]) for n in project.read_notes() if n["event"] == "start")
    assert starts == {("quick", "User Name"): 2, ("quick", "abcdefghij"): 2}
    assert len(again.attempts()) == 2
    assert len(list(project.attempts.rglob("history/*.json"))) == 2
