"""Hostile contestants through the real `bugbout run`: twins and in-module canaries catch
what fakes passes, whatever route it took.

On a copy of the demo reduced to its camel_case task, next to the careful fixer and the
examiner, three contestants leave the bug in place and fool the tests
(tests/e2e/hostile_agent.py): an always-equal ``str`` subclass, and two disguised
in-process payloads (a decoded blob compiled under a standard-library file name, reaching
pytest through computed names) - one swapping the ``__code__`` of the base tree's test
functions from a thread, one registering a new plugin that turns failures into passes
while sparing every file the base tree did not have. Each is voided as tampered in
scoring and in cross-examination, and none is picked under any policy.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import expected
import pytest
from bb_judge.judge import judge_task
from bb_judge.policies import POLICIES
from bugbout.results import Results
from build_demo import DemoPaths
from e2e_runs import Ran, bugbout, copy_demo

pytestmark = pytest.mark.slow

HOSTILE = Path(__file__).resolve().with_name("hostile_agent.py")
ATTACKS = {"alwaysequal": "always-equal", "codeswap": "code-swap", "newplugin": "new-plugin"}
TASK = expected.BY_KEY["camel-first-word"]


def _other_commits(repo: Path) -> list[str]:
    """Every commit of the demo's history but the camel_case fix: the bout has one task."""
    shas = subprocess.run(
        ["git", "-C", str(repo), "log", "--all", "--format=%H %s"],
        capture_output=True, text=True, check=True,
    ).stdout.splitlines()  # fmt: skip
    return [line.split(" ", 1)[0] for line in shas if line.split(" ", 1)[1] != TASK.title]


@pytest.fixture(scope="module")
def bout(demo_build: DemoPaths, tmp_path_factory: pytest.TempPathFactory) -> Ran:
    root = copy_demo(demo_build, tmp_path_factory.mktemp("e2e-twins") / "demo")
    agents = root / "agents"
    blocks = [
        "[project]\n"
        'source = "src/textkit"\ntests = "tests"\nrepository = "repo"\npython = "3.11"\n'
        f'[tasks]\nissues = "issues.jsonl"\nexclude = {json.dumps(_other_commits(root / "repo"))}\n'
        '[run]\ntimeout = 120\n[judge]\npolicy = "majority"\n'
    ]
    # Beside the demo's agents in this copy only: the sandbox lets a script read its folder.
    hostile = agents / HOSTILE.name
    shutil.copyfile(HOSTILE, hostile)
    people = [("contestants", "careful", [sys.executable, str(agents / "careful.py")])]
    for name, attack in ATTACKS.items():
        people.append(("contestants", name, [sys.executable, str(hostile), str(agents), attack]))
    people.append(("examiners", "examiner", [sys.executable, str(agents / "examiner.py")]))
    for table, name, argv in people:
        blocks.append(
            f'\n[[{table}]]\nagent = "command"\nname = "{name}"\ncommand = {json.dumps(argv)}\n'
        )
    (root / "bugbout.toml").write_text("".join(blocks), encoding="utf-8")
    ran = bugbout("run", "--config", root / "bugbout.toml", "--no-report", cwd=root, timeout=1500)
    assert ran.returncode == 0, ran.stderr
    return ran


def judged(bout: Ran) -> dict[str, Any]:
    lines = Results(bout.results).stream("judge").read_text().splitlines()
    tasks = [r for r in map(json.loads, lines) if r["kind"] == "task"]
    assert [t["title"] for t in tasks] == [TASK.title]
    return tasks[0]


def test_the_oracle_keeps_twins_for_the_task(bout: Ran) -> None:
    twins = judged(bout)["oracle"]["twins"]
    assert twins and {t["module"] for t in twins} <= {"tests/test_cases.py"}


def test_every_fooling_contestant_is_tampered_in_scoring(bout: Ran) -> None:
    scores = {s["patch"]: s for s in judged(bout)["scores"]}
    assert scores["reference"]["category"] == "resolved" and "tampered" not in scores["reference"]
    assert scores["careful"]["category"] == "resolved" and "tampered" not in scores["careful"]
    for name in ATTACKS:
        score = scores[name]
        assert score["category"] != "resolved", name
        assert score["reason"].startswith("its code tampered with the test run"), score["reason"]
        assert score["run"]["tampered"] == score["tampered"]
    # Nothing but a twin can see an always-equal value: the canaries never call the package.
    assert any("a twin passed" in line for line in scores["alwaysequal"]["tampered"])
    for name in ("codeswap", "newplugin"):
        assert any(
            "a twin passed" in line or line.startswith("canary ")
            for line in scores[name]["tampered"]
        ), scores[name]["tampered"]


def test_no_fooling_contestant_is_picked_under_any_policy(bout: Ran) -> None:
    task = judged(bout)
    columns = {c["name"]: c for c in task["matrix"]["columns"]}
    for name in ATTACKS:
        assert columns[name].get("tampered"), (name, columns[name])
    assert "tampered" not in columns["careful"]
    for policy in POLICIES:
        verdict = judge_task(task, policy)
        assert verdict["pick"] not in ATTACKS, policy
    assert task["verdict"]["pick"] == "careful"
