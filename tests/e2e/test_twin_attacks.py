"""Hostile contestants through the real `bugbout run`: twins and in-module canaries catch
what fakes passes, whatever route it took.

In the shared attack bout (tests/e2e/attack_bout.py: the demo's camel_case task, the
careful fixer and the examiner), three contestants leave the bug in place and fool the
tests (tests/e2e/hostile_agent.py): an always-equal ``str`` subclass, and two disguised
in-process payloads (a decoded blob compiled under a standard-library file name, reaching
pytest through computed names) - one swapping the ``__code__`` of the base tree's test
functions from a thread, one registering a new plugin that turns failures into passes
while sparing every file the base tree did not have. Each is voided as tampered in
scoring and in cross-examination, and none is picked under any policy.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from attack_bout import TASK
from attack_bout import TWIN_ATTACKS as ATTACKS
from bb_judge.judge import judge_task
from bb_judge.policies import POLICIES
from bugbout.results import Results
from e2e_runs import Ran

pytestmark = pytest.mark.slow


@pytest.fixture
def bout(attack_bout: Ran) -> Ran:
    return attack_bout


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
