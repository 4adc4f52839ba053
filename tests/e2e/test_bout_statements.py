"""Attempts answer what they were asked: a changed issue text runs again exactly the
attempts on its task, `--refresh-attempts` runs them all, and `bugbout tasks` shows where
every statement came from and what redaction removed.

Every agent start is counted by a wrapper script (tests/e2e/counting_agent.py).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from build_demo import DemoPaths
from e2e_runs import Ran, bugbout, copy_demo

pytestmark = pytest.mark.slow

COUNTING = Path(__file__).resolve().with_name("counting_agent.py")


class Project:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.counter = root / "agent-state" / "starts.log"
        self.counter.parent.mkdir()

    @property
    def config(self) -> Path:
        return self.root / "bugbout.toml"

    def starts(self) -> Counter[tuple[str, str]]:
        if not self.counter.exists():
            return Counter()
        # The agent knows only its attempt's opaque id; .bugbout/ says which task it is.
        tasks = {
            p.read_text().strip(): p.parent.name
            for p in (self.root / ".bugbout" / "attempts").glob("*/*.id")
        }
        return Counter(
            (agent, tasks[work])
            for agent, work in (line.split() for line in self.counter.read_text().splitlines())
        )

    def tasks(self) -> list[dict[str, Any]]:
        lines = (self.root / ".bugbout" / "tasks.jsonl").read_text().splitlines()
        return [r for r in map(json.loads, lines) if r["kind"] == "task"]

    def run(self, *args: str) -> Ran:
        ran = bugbout("run", "--config", self.config, "--no-report", *args, cwd=self.root)
        assert ran.returncode == 0, ran.stderr
        return ran


@pytest.fixture(scope="module")
def project(demo_build: DemoPaths, tmp_path_factory: pytest.TempPathFactory) -> Project:
    made = Project(copy_demo(demo_build, tmp_path_factory.mktemp("e2e-statements") / "demo"))
    blocks = [
        "[project]\n"
        'source = "src/textkit"\ntests = "tests"\nrepository = "repo"\npython = "3.11"\n'
        '[tasks]\nissues = "issues.jsonl"\nlimit = 3\n'
        "[run]\ntimeout = 120\n[judge]\nrun-suite = false\n"
    ]
    for table, name in (("contestants", "careful"), ("examiners", "examiner")):
        argv = [sys.executable, str(COUNTING), str(made.counter), name]
        argv.append(str(made.root / "agents" / f"{name}.py"))
        blocks.append(
            f'\n[[{table}]]\nagent = "command"\nname = "{name}"\n'
            f"command = {json.dumps(argv)}\n"
            f"state-dirs = [{json.dumps(str(made.counter.parent))}]\n"
        )
    made.config.write_text("".join(blocks), encoding="utf-8")
    return made


@pytest.fixture(scope="module")
def first(project: Project) -> Counter[tuple[str, str]]:
    project.run()
    return project.starts()


def test_a_changed_issue_text_runs_again_exactly_the_attempts_on_its_task(
    project: Project, first: Counter[tuple[str, str]]
) -> None:
    assert first and set(first.values()) == {1}
    raced = sorted({task for _, task in first})
    target = next(t for t in project.tasks() if t["id"] == raced[0])
    number = target["statement_issue"]["number"]
    export = project.root / "issues.jsonl"
    records = [json.loads(line) for line in export.read_text().splitlines() if line.strip()]
    for record in records:
        if record["number"] == number:
            record["body"] = "It happens on every platform.\n\n" + record["body"]
    export.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")

    ran = project.run()
    assert "It happens on every platform." in next(
        t["statement"] for t in project.tasks() if t["id"] == raced[0]
    )
    again = project.starts() - first
    assert again == Counter({("careful", raced[0]): 1, ("examiner", raced[0]): 1})
    assert "no longer match what they would be given now (changed prompt: 2)" in ran.stderr
    history = list((project.root / ".bugbout" / "attempts" / raced[0] / "history").glob("*.json"))
    assert len(history) == 2  # the earlier attempts are kept, and not counted:
    lines = (project.root / ".bugbout" / "attempts.jsonl").read_text().splitlines()
    attempts = [a for r in map(json.loads, lines) if r["kind"] == "task" for a in r["attempts"]]
    assert len(attempts) == sum(first.values())

    before = project.starts()
    project.run("--refresh-attempts")
    assert project.starts() - before == Counter(dict.fromkeys(first, 1))


def test_bugbout_tasks_shows_statement_sources_and_redactions(
    project: Project, first: Counter[tuple[str, str]]
) -> None:
    shown = bugbout("tasks", "--config", project.config, "--show-redactions", cwd=project.root)
    assert shown.returncode == 0, shown.stderr
    assert "statement" in shown.stdout.splitlines()[0]
    assert "(export)" in shown.stdout and " ch " in shown.stdout
    assert "removed (fix sections):" in shown.stdout
    assert "removed (prescribing sentences):" in shown.stdout
    assert "every statement came from a commit message" not in shown.stderr
