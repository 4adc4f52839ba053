"""The Python API's names and argument checks, the .bugbout/ bookkeeping, and the command
line's refusals - everything that needs no bout to run."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import bb_core.agents
import bb_core.sandbox
import bugbout
import bugbout.sandbox
import pytest
from bb_core.config import load_config
from bb_core.errors import ConfigError, UsageError
from bb_mine.tasks_section import TasksConfig
from bugbout import Bout, CodingAgent, Invocation, Project, Session
from bugbout.results import STAGES, Results, atomic_output
from build_demo import DemoPaths

BUGBOUT = Path(sys.executable).parent / "bugbout"


def cli(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BUGBOUT), *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


# -- names ----------------------------------------------------------------------------


def test_api_reexports_the_agents_api() -> None:
    assert bugbout.CodingAgent is bb_core.agents.CodingAgent
    assert bugbout.Session is bb_core.agents.Session
    assert bugbout.Invocation is bb_core.agents.Invocation
    assert bugbout.Confinement is bb_core.sandbox.Confinement
    assert bugbout.sandbox.Confinement is bb_core.sandbox.Confinement


@pytest.mark.parametrize(
    ("name", "module", "harness"),
    [
        ("CommandAgent", "bb_race.adapters.command", "command"),
        ("CodexAgent", "bb_race.adapters.codex", "codex"),
        ("ClaudeCodeAgent", "bb_race.adapters.claude_code", "claude-code"),
        ("GeminiCliAgent", "bb_race.adapters.gemini_cli", "gemini-cli"),
        ("MiniSweAgent", "bb_race.adapters.mini_swe_agent", "mini-swe-agent"),
    ],
)
def test_api_gives_the_builtin_adapters(name: str, module: str, harness: str) -> None:
    cls = getattr(bugbout, name)
    assert cls is getattr(importlib.import_module(module), name)
    assert issubclass(cls, CodingAgent) and cls.harness == harness
    assert bb_core.agents.agent_class(harness) is cls


def test_api_has_no_other_names() -> None:
    with pytest.raises(AttributeError):
        _ = bugbout.NoSuchAgent


class Scripted(CodingAgent):
    harness = "scripted"
    executable = "true"

    def invocation(self, session: Session) -> Invocation:
        return Invocation(["true"], stdin=session.prompt)


def test_bout_takes_adapter_instances_in_their_roles(demo_build: DemoPaths) -> None:
    project = Project.load(demo_build.config)
    tester = Scripted(name="tester")
    bout = Bout(project, contestants=[Scripted(name="fixer")], examiners=[tester])
    agents = bout.agents()
    assert agents is not None
    assert [(a.name, a.role, a.assignment) for a in agents] == [
        ("fixer", "contestant", None),
        ("tester", "examiner", "reproduce"),
    ]
    assert tester.role == "contestant"  # the caller's instance is left as it was
    configured = Bout(project, contestants=[Scripted(name="fixer")]).agents()
    assert configured is not None
    assert [a.name for a in configured] == ["fixer", "examiner"]
    assert Bout(project).agents() is None  # all from bugbout.toml


@pytest.mark.parametrize(
    ("contestants", "error", "said"),
    [
        (["not an agent"], UsageError, "is not a CodingAgent"),
        ([Scripted(name="same"), Scripted(name="same")], ConfigError, "two agents are named"),
    ],
)
def test_bout_refuses_bad_agents(
    demo_build: DemoPaths, contestants: list[object], error: type[Exception], said: str
) -> None:
    bout = Bout(Project.load(demo_build.config), contestants=contestants, examiners=[])  # type: ignore[arg-type]
    with pytest.raises(error, match=said):
        bout.run()


def test_bout_needs_a_bugbout_toml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=r"no bugbout\.toml in"):
        Bout.load().run()
    assert not (tmp_path / ".bugbout").exists()


def test_bout_accepts_a_config_or_a_path(demo_build: DemoPaths) -> None:
    config = load_config(demo_build.config)
    assert Bout(config).config is config
    assert Bout(demo_build.config).project.root == demo_build.root
    issues = Bout.load(demo_build.config, issues=demo_build.issues)
    assert issues.config.section("tasks", TasksConfig).issues == demo_build.issues
    with pytest.raises(UsageError, match="no such file"):
        Bout.load(demo_build.config, issues=demo_build.root / "absent.jsonl")


def test_bout_runs_up_to_a_stage(demo_project: DemoPaths) -> None:
    """run(until="mine") mines, keeps tasks.jsonl, and reports the mined tasks."""
    said: list[str] = []
    bout = Bout.load(demo_project.config, echo=said.append)
    report = bout.run(until="mine")
    assert isinstance(report, bugbout.Report)
    assert report.overview.tasks == 6 and report.overview.stages["mined"] == 6
    assert bout.results.finished() == ["mine"]
    assert bout.report() == report
    assert len(said) == 2 and said[0] == "[1/6] mine: mining the history"
    assert said[1].startswith("[1/6] mine: 6 tasks from 14 commits examined (5 fixes left out)")
    with pytest.raises(UsageError, match="unknown stage 'score'"):
        bout.run(until="score")


# -- .bugbout/ bookkeeping ---------------------------------------------------------------


def finish(results: Results, stage: str, digest: str | None = None) -> None:
    if stage != "report":
        results.stream(stage).write_text("")
    results.record(stage, digest)


def test_a_stage_with_new_content_makes_later_stages_stale(tmp_path: Path) -> None:
    results = Results(tmp_path / ".bugbout")
    results.ensure()
    for stage in STAGES:
        finish(results, stage, f"{stage}-1")
    assert results.finished() == list(STAGES)
    finish(results, "mine", "mine-1")  # mined again, the same tasks
    assert results.finished() == list(STAGES)
    finish(results, "oracle", "oracle-2")  # different ground truth
    assert results.finished() == ["mine", "oracle"]
    assert results.latest() == results.stream("oracle")


def test_latest_falls_back_to_the_furthest_file_without_a_manifest(tmp_path: Path) -> None:
    results = Results(tmp_path / ".bugbout")
    results.ensure()
    assert results.latest() is None
    results.stream("mine").write_text("")
    results.stream("race").write_text("")
    assert results.latest() == results.stream("race")


def test_atomic_output_keeps_the_old_file_when_writing_fails(tmp_path: Path) -> None:
    target = tmp_path / "tasks.jsonl"
    target.write_text("old\n")
    with pytest.raises(RuntimeError), atomic_output(target) as handle:
        handle.write(b"half")
        raise RuntimeError("killed")
    assert target.read_text() == "old\n"
    assert list(tmp_path.iterdir()) == [target]
    with atomic_output(target) as handle:
        handle.write(b"new\n")
    assert target.read_text() == "new\n"


def test_atomic_output_sweeps_what_a_dead_writer_left(tmp_path: Path) -> None:
    """A temporary file of a process that no longer runs is removed; a live one's stays."""
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    orphan = tmp_path / f".tasks.jsonl.{dead}.abc123.tmp"
    live = tmp_path / f".tasks.jsonl.{os.getppid()}.def456.tmp"
    orphan.write_text("half")
    live.write_text("busy")
    with atomic_output(tmp_path / "tasks.jsonl") as handle:
        handle.write(b"")
    assert not orphan.exists() and live.exists()


# -- the command line's refusals -----------------------------------------------------------


def test_report_without_results_is_a_usage_error(demo_project: DemoPaths) -> None:
    done = cli("report", "--config", demo_project.config, cwd=demo_project.root)
    assert done.returncode == 2
    assert done.stderr == (
        f"bugbout: nothing to report in {demo_project.root / '.bugbout'} "
        "(run `bugbout run` first)\n"
    )


def test_run_with_a_missing_issue_export_is_a_usage_error(demo_project: DemoPaths) -> None:
    done = cli(
        "run", "--config", demo_project.config, "--issues", "nope.jsonl", cwd=demo_project.root
    )
    assert done.returncode == 2
    assert done.stderr == "bugbout: --issues nope.jsonl: no such file\n"
    assert not (demo_project.root / ".bugbout").exists()


def test_run_with_an_unknown_agent_is_a_usage_error(demo_project: DemoPaths) -> None:
    """An unknown --agent stops the run before anything runs, naming the configured ones."""
    done = cli("run", "--config", demo_project.config, "--agent", "nobody", cwd=demo_project.root)
    assert done.returncode == 2
    assert done.stderr == (
        "bugbout: --agent nobody: no such agent is configured (configured: careful, shortcut, "
        "tamperer, breaker, idler, examiner)\n"
    )
    assert not (demo_project.root / ".bugbout").exists()


@pytest.mark.parametrize("command", ["init", "doctor", "tasks", "run", "report"])
def test_every_command_explains_itself(command: str, tmp_path: Path) -> None:
    done = cli(command, "--help", cwd=tmp_path)
    assert done.returncode == 0
    assert done.stdout.startswith(f"Usage: bugbout {command}")
    listed = cli("--help", cwd=tmp_path)
    assert f"  {command} " in listed.stdout
