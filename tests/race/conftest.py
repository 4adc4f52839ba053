"""Fixtures for racing scripted agents: the demo's tasks, projects with made-up agents,
and a way to run ``bb-race`` as a real command.

``demo_tasks`` mines the demo once per session with ``bb-mine``; every race test reuses
its task lines and its repository (read only). ``race_project`` writes a bugbout.toml
whose agents are small Python scripts made for one test; they run through the
``command`` adapter in the real sandbox.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from support.tools import run_tool

#: What every scripted agent starts with: the prompt from stdin, and ``note(event)``,
#: which appends a JSON line (event, task issue, agent, time) to $NOTES.
AGENT_HEADER = """\
import json, os, pathlib, re, sys, time
PROMPT = sys.stdin.read()
ISSUE = (re.findall(r"User Name|abcdefghij|wait - what|Crème Brûlée|HTTPServer", PROMPT) or ["?"])[0]
def note(event, **extra):
    path = os.environ.get("NOTES")
    if path:
        with open(path, "a") as handle:
            handle.write(json.dumps({"event": event, "task": ISSUE, "agent": os.environ.get("AGENT", "?"),
                                     "time": time.time(), **extra}) + "\\n")
"""


@dataclass
class DemoTasks:
    repo: Path
    lines: list[dict[str, Any]]

    def pick(self, *inputs: str) -> list[dict[str, Any]]:
        """The tasks whose statement holds each of *inputs* (the reported inputs)."""
        found = []
        for wanted in inputs:
            [task] = [t for t in self.lines if wanted in t["statement"]]
            found.append(task)
        return found


def task_line(repo_path: Path, fact: Any) -> dict[str, Any]:
    """The task line of one of the demo's fixes, built from the facts in expected.py."""
    import expected
    from bb_core.git import open_repo
    from bb_core.records import check
    from issues import ISSUES

    fix = expected.SHAS[fact.title]
    issue = next(i for i in ISSUES if i["number"] == fact.issue)
    with open_repo(repo_path) as repo:
        base = repo.commit(fix).parents[0]
        source_patch = repo.diff(base, fix, list(fact.source_files))
        test_patch = repo.diff(base, fix, list(fact.test_files))
    record = {
        "kind": "task", "v": 1, "id": f"repo-{fix[:10]}", "repository": str(repo_path),
        "base_commit": base, "fix_commit": fix, "title": fact.title,
        "statement": f"{issue['title']}\n\n{issue['body']}", "statement_source": "export",
        "source": expected.SOURCE, "tests": expected.TESTS,
        "source_files": list(fact.source_files), "test_files": list(fact.test_files),
        "protected_paths": sorted({*fact.test_files, *expected.PROTECTED}),
        "reference_patch": source_patch, "test_patch": test_patch,
    }  # fmt: skip
    assert check(record, "task") is None
    return record


@pytest.fixture(scope="session")
def demo_tasks(demo_build: Any, tmp_path_factory: pytest.TempPathFactory) -> DemoTasks:
    """Task lines for the demo's fixes, on a private copy of its repository (read only)."""
    import expected

    root = tmp_path_factory.mktemp("race-demo") / "demo"
    shutil.copytree(demo_build.root, root, symlinks=True)
    return DemoTasks(root / "repo", [task_line(root / "repo", fact) for fact in expected.MINED])


@dataclass
class Project:
    root: Path
    repo: Path
    shared: Path  # writable for every agent (a state dir): notes, counters, flags
    agents: list[str] = field(default_factory=list)

    @property
    def config(self) -> Path:
        return self.root / "bugbout.toml"

    @property
    def notes(self) -> Path:
        return self.shared / "notes.jsonl"

    def read_notes(self) -> list[dict[str, Any]]:
        if not self.notes.exists():
            return []
        return [json.loads(line) for line in self.notes.read_text().splitlines() if line]

    @property
    def attempts(self) -> Path:
        return self.root / ".bugbout" / "attempts"

    def write_tasks(self, tasks: Sequence[Mapping[str, Any]], name: str = "tasks.jsonl") -> Path:
        path = self.root / name
        path.write_text("".join(json.dumps(t) + "\n" for t in tasks))
        return path


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()) + " }"
    raise TypeError(value)


@pytest.fixture
def race_project(tmp_path: Path, demo_tasks: DemoTasks) -> Callable[..., Project]:
    """``make(agents={"name": "python body", ...}, examiners=..., run={...}, options={...})``:
    a project on the demo repository whose agents are the given scripts."""

    def make(
        agents: Mapping[str, str],
        *,
        examiners: Mapping[str, str] | None = None,
        run: Mapping[str, Any] | None = None,
        options: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> Project:
        root = tmp_path / "project"
        root.mkdir(exist_ok=True)
        shared = tmp_path / "shared"
        shared.mkdir(exist_ok=True)
        project = Project(root, demo_tasks.repo, shared)
        blocks = [
            "[project]\n"
            'source = "src/textkit"\ntests = "tests"\n'
            f"repository = {_toml(str(demo_tasks.repo))}\n"
            f"interpreter = {_toml(sys.executable)}\n",
            "[run]\n" + "".join(f"{k} = {_toml(v)}\n" for k, v in (run or {"timeout": 60}).items()),
        ]
        for table, group in (("contestants", agents), ("examiners", examiners or {})):
            for name, body in group.items():
                script = root / "agents" / f"{name}.py"
                script.parent.mkdir(exist_ok=True)
                script.write_text(AGENT_HEADER + textwrap.dedent(body))
                entry: dict[str, Any] = {
                    "agent": "command",
                    "name": name,
                    "command": [sys.executable, str(script)],
                    "env": {"NOTES": str(project.notes), "AGENT": name},
                    "state-dirs": [str(shared)],
                }
                extra = dict((options or {}).get(name, {}))
                entry["env"].update(extra.pop("env", {}))
                entry.update(extra)
                blocks.append(
                    f"[[{table}]]\n" + "".join(f"{k} = {_toml(v)}\n" for k, v in entry.items())
                )
                project.agents.append(name)
        project.config.write_text("\n".join(blocks))
        return project

    return make


@dataclass
class Raced:
    returncode: int
    stdout: bytes
    stderr: str

    @property
    def records(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.stdout.splitlines()]

    def attempts(self) -> dict[tuple[str, str], dict[str, Any]]:
        """(task id, agent) -> attempt, over every task written."""
        return {
            (r["id"], a["agent"]): a
            for r in self.records
            if r["kind"] == "task"
            for a in r["attempts"]
        }


def race_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BUGBOUT_RUN")}
    env.update(extra or {})
    return env


def run_race(
    project: Project,
    tasks: Path,
    *args: str,
    env: Mapping[str, str] | None = None,
    timeout: float = 120,
) -> Raced:
    done = run_tool(
        "bb-race", tasks, "--config", project.config, *args,
        cwd=project.root, timeout=timeout, env=race_env(env),
    )  # fmt: skip
    return Raced(done.returncode, done.stdout, done.stderr.decode())


@pytest.fixture
def race_cli() -> Callable[..., Raced]:
    """``race_cli(project, tasks_file, *args, env=None)``: run bb-race as a command."""
    return run_race


def race_in_process(
    project: Project, tasks: Path, *, agents: Sequence[Any] | None = None, **options: Any
) -> Raced:
    """Race through the library, in this process: quicker than the command, and open to
    agents defined in the test."""
    import io

    from bb_core.config import load_config
    from bb_core.records import Writer
    from bb_core.stage_spec import run
    from bb_race.spec import SPEC

    buffer = io.BytesIO()
    config = load_config(project.config)
    given = None if agents is None else tuple(agents)
    executor = options.pop("executor", None)
    settings = SPEC.settings_of(
        config, agents=given, only=tuple(options.pop("only", ())), **options
    )
    run(SPEC, [str(tasks)], settings, executor, writer=Writer(buffer), config=config)
    return Raced(0, buffer.getvalue(), "")


@pytest.fixture
def race_lib() -> Callable[..., Raced]:
    """``race_lib(project, tasks_file, agents=None, **options)``: race in this process."""
    return race_in_process
