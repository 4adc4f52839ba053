"""A bout carries on where it stopped and never spends an agent's run twice.

One small demo project (three newest fixes, two of them raced) goes through, in order:
a `bugbout run` killed with SIGKILL once the first attempt is saved; a run that resumes;
an agent added to bugbout.toml; `--retry-failed` after a crashing agent is mended; and
the Python API with an adapter instance. Every agent start is counted by a wrapper
script (tests/e2e/counting_agent.py), so "nothing ran again" is counted, not assumed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bugbout as api
import pytest
from bb_core.agents import CodingAgent, Invocation, Session
from bugbout.results import Results
from build_demo import DemoPaths
from e2e_runs import BUGBOUT, Ran, bugbout, copy_demo
from support.tools import tool_env

pytestmark = pytest.mark.slow

COUNTING = Path(__file__).resolve().with_name("counting_agent.py")
PAUSE = "0.3"  # seconds each agent waits, so that a race is still running when killed
RACED = 2  # tasks with ground truth among the three newest fixes of the demo


@dataclass
class Project:
    root: Path
    counter: Path

    @property
    def config(self) -> Path:
        return self.root / "bugbout.toml"

    @property
    def results(self) -> Results:
        return Results(self.root / ".bugbout")

    def starts(self) -> Counter[tuple[str, str]]:
        """How often each (agent, task id) was started so far."""
        if not self.counter.exists():
            return Counter()
        # The agent knows only its attempt's opaque id; .bugbout/ says which task it is.
        tasks = {
            p.read_text().strip(): p.parent.name
            for p in (self.root / ".bugbout" / "attempts").glob("*/*.id")
        }
        lines = self.counter.read_text().splitlines()
        return Counter((agent, tasks[work]) for agent, work in (line.split() for line in lines))

    def saved(self) -> set[tuple[str, str]]:
        """(agent, task id) of every attempt file in .bugbout/attempts/."""
        return {
            (json.loads(p.read_text())["agent"], p.parent.name)
            for p in self.results.attempts.glob("*/*.json")
        }

    def statuses(self) -> dict[tuple[str, str], str]:
        tasks = (
            json.loads(line)
            for line in self.results.stream("race").read_text().splitlines()
            if line.strip()
        )
        return {
            (a["agent"], t["id"]): a["status"]
            for t in tasks
            if t["kind"] == "task"
            for a in t["attempts"]
        }

    def add_agent(self, table: str, name: str, script: str, extra: str = "") -> None:
        argv = [sys.executable, str(COUNTING), str(self.counter), name]
        argv += [str(self.root / "agents" / f"{script}.py"), PAUSE]
        block = (
            f'\n[[{table}]]\nagent = "command"\nname = "{name}"\n'
            f"command = {json.dumps(argv)}\nstate-dirs = [{json.dumps(str(self.counter.parent))}]\n"
            f"{extra}"
        )
        with self.config.open("a", encoding="utf-8") as handle:
            handle.write(block)

    def run(self, *args: str) -> Ran:
        ran = bugbout("run", "--config", self.config, "--no-report", *args, cwd=self.root)
        assert ran.returncode == 0, ran.stderr
        return ran


def new_starts(before: Counter[tuple[str, str]], after: Counter[tuple[str, str]]) -> Counter[Any]:
    return after - before


@pytest.fixture(scope="module")
def project(demo_build: DemoPaths, tmp_path_factory: pytest.TempPathFactory) -> Project:
    root = copy_demo(demo_build, tmp_path_factory.mktemp("e2e-resume") / "demo")
    state = root / "agent-state"
    state.mkdir()
    made = Project(root, state / "starts.log")
    made.config.write_text(
        "[project]\n"
        'source = "src/textkit"\ntests = "tests"\nrepository = "repo"\npython = "3.11"\n'
        '[tasks]\nissues = "issues.jsonl"\nlimit = 3\n'
        "[run]\ntimeout = 120\n"
        "[judge]\nrun-suite = false\n",
        encoding="utf-8",
    )
    made.add_agent("contestants", "careful", "careful")
    made.add_agent("contestants", "shortcut", "shortcut")
    made.add_agent("examiners", "examiner", "examiner", 'assignment = "reproduce"\n')
    (state / "crash-shortcut").touch()  # shortcut crashes until the test mends it
    return made


@dataclass
class Killed:
    saved: set[tuple[str, str]]
    starts: Counter[tuple[str, str]]
    mtimes: dict[Path, int]


@pytest.fixture(scope="module")
def killed(project: Project) -> Killed:
    """`bugbout run`, killed with SIGKILL as soon as the first attempt is saved."""
    proc = subprocess.Popen(
        [str(BUGBOUT), "run", "--config", str(project.config), "--no-report"],
        cwd=project.root,
        env=tool_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + 300
    try:
        while not list(project.results.attempts.glob("*/*.json")):
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            assert time.monotonic() < deadline, "no attempt was saved within 300 s"
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=60)
        if proc.stderr:
            proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL
    files = list(project.results.attempts.glob("*/*.json"))
    return Killed(project.saved(), project.starts(), {p: p.stat().st_mtime_ns for p in files})


@pytest.fixture(scope="module")
def resumed(project: Project, killed: Killed) -> Counter[tuple[str, str]]:
    """The run after the kill, to the end; returns every start so far."""
    project.run()
    return project.starts()


def test_killed_run_stopped_mid_race(project: Project, killed: Killed) -> None:
    assert 1 <= len(killed.saved) < 3 * RACED
    assert not project.results.stream("race").exists()
    assert "race" not in project.results.finished()


def test_resumed_run_repeats_no_finished_attempt(
    project: Project, killed: Killed, resumed: Counter[tuple[str, str]]
) -> None:
    pairs = project.saved()
    assert len(pairs) == 3 * RACED
    assert set(resumed) == pairs
    for pair in killed.saved:
        assert resumed[pair] == 1, f"{pair} ran again"
    # At most the one attempt running at the kill was started twice.
    assert sum(resumed.values()) - len(pairs) <= 1
    for path, mtime in killed.mtimes.items():
        assert path.stat().st_mtime_ns == mtime, f"{path.name} was written again"
    assert project.results.finished()[-1] == "report"
    assert not list(project.results.root.glob(".*.tmp")), "the killed run's temp file stayed"
    statuses = project.statuses()
    assert {s for (agent, _), s in statuses.items() if agent == "shortcut"} == {"crashed"}


@pytest.fixture(scope="module")
def extended(project: Project, resumed: Counter[tuple[str, str]]) -> Counter[Any]:
    """An agent added to bugbout.toml, then `bugbout run`: the new starts."""
    project.add_agent("contestants", "breaker", "breaker")
    project.run()
    return new_starts(resumed, project.starts())


def test_added_agent_is_the_only_one_that_races(project: Project, extended: Counter[Any]) -> None:
    assert sorted(extended.elements()) == sorted(("breaker", t) for _, t in extended)
    assert sum(extended.values()) == RACED
    report = json.loads(project.results.report_json.read_text())["sections"]
    assert [row["name"] for row in report["agents"]["rows"]] == ["careful", "shortcut", "breaker"]
    statuses = project.statuses()
    assert {s for (agent, _), s in statuses.items() if agent == "shortcut"} == {"crashed"}


@pytest.fixture(scope="module")
def retried(project: Project, extended: Counter[Any]) -> Counter[Any]:
    """shortcut mended, then `bugbout run --retry-failed`: the new starts."""
    before = project.starts()
    (project.counter.parent / "crash-shortcut").unlink()
    project.run("--retry-failed")
    return new_starts(before, project.starts())


def test_retry_failed_runs_only_the_crashed_attempts(
    project: Project, retried: Counter[Any]
) -> None:
    assert {agent for agent, _ in retried} == {"shortcut"}
    assert sum(retried.values()) == RACED
    statuses = project.statuses()
    assert {s for (agent, _), s in statuses.items() if agent == "shortcut"} == {"finished"}


class CountingAdapter(CodingAgent):
    """A Python adapter that runs a demo agent through the counting wrapper."""

    harness = "counting"
    executable = Path(sys.executable).name

    def __init__(self, script: Path, counter: Path, **options: Any) -> None:
        self.script = script
        self.counter = counter
        super().__init__(**options)

    def command(self) -> str:
        return sys.executable

    def invocation(self, session: Session) -> Invocation:
        argv = [self.command(), str(COUNTING), str(self.counter), self.name, str(self.script)]
        return Invocation(
            argv, stdin=session.prompt, state_dirs=[self.counter.parent], network=False
        )


def test_python_api_races_adapter_instances(
    project: Project, retried: Counter[Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """Bout(Project.load(path), contestants=[...]): only the given adapter races."""
    before = project.starts()
    agent = CountingAdapter(
        project.root / "agents" / "careful.py", project.counter, name="careful-py", vendor="acme"
    )
    report = api.Bout(api.Project.load(project.config), contestants=[agent]).run()
    started = new_starts(before, project.starts())
    assert sorted(started) == sorted(("careful-py", t) for _, t in started)
    assert sum(started.values()) == RACED
    assert isinstance(report, api.Report)
    [row] = report.agents.rows
    assert (row.name, row.categories["resolved"]) == ("careful-py", RACED)
    assert "careful-py" in api.render_markdown(report)
    assert "[6/6] report" in capsys.readouterr().err
    again = api.Bout.load(project.config, contestants=[agent], echo=None).run()
    assert sum(new_starts(before, project.starts()).values()) == RACED
    assert api.render_markdown(again) == api.render_markdown(report)
