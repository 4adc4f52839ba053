"""Tests that know their own patch are no evidence: in the shared attack bout
(tests/e2e/attack_bout.py: ``bugbout run`` on the demo's camel_case task), two contestants
whose wrong fix comes with tests that check the package's bytes (a SHA-256 of its files; a
CRC-32 of their sizes behind a misleading name - tests/e2e/byte_keyed_agent.py), beside
the careful fixer and the examiner.

Their tests fail on the unfixed tree, pass on their own patch and fail on every rival's.
On the neutral twin of their own column (a comment line, a new module) they fail too:
they are brittle, their author is flagged ``brittle-tests``, their cells are left out,
and the careful fix is picked under every policy.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import expected
import pytest
from attack_bout import BYTE_KEYED as ATTACKERS
from bb_core.records import read_lines
from bb_judge.judge import judge_task
from bb_judge.policies import POLICIES
from e2e_runs import Ran, bugbout

pytestmark = pytest.mark.slow


@pytest.fixture
def bout(attack_bout: Ran) -> Ran:
    return attack_bout


def _task(bout: Ran) -> dict[str, Any]:
    judged = [
        line.record
        for line in read_lines([str(bout.results / "verdicts.jsonl")])
        if line.record.get("kind") == "task"
    ]
    [task] = judged
    assert task["title"] == expected.CAMEL_FIRST_WORD.title
    return task


def test_tests_keyed_to_their_own_bytes_are_flagged_brittle(bout: Ran) -> None:
    task = _task(bout)
    matrix = task["matrix"]
    authors = {a["name"]: a for a in matrix["authors"]}
    cells = {(c["author"], c["test"], c["column"]): c["outcome"] for c in matrix["cells"]}
    for name in ATTACKERS:
        author = authors[name]
        [test] = author["tests"]
        # The attack as it stands: fails on the unfixed tree and on the careful fix,
        # passes on its own patch ...
        assert cells[name, test, "base"] == "failed"
        assert cells[name, test, name] == "passed"
        for rival in ("careful", *ATTACKERS):
            if rival != name:
                assert cells[name, test, rival] == "failed", rival
        # ... and fails on its own patch's neutral twin.
        assert author["flags"] == ["brittle-tests"]
        assert author["brittle"] == [
            {"test": test, "why": "passed on its own patch, failed on its neutral twin"}
        ]
        assert Path(author["neutral"]["log"]).name.endswith(".neutral.log")
    # Honest tests are not brittle: the careful fixer's pass on its twin too.
    careful = authors["careful"]
    assert "flags" not in careful and "brittle" not in careful
    assert "error" not in careful["neutral"] and not careful["neutral"]["timed_out"]
    # Examiners and the suite have no column of their own: no twin run.
    assert "neutral" not in authors["examiner"] and "neutral" not in authors["suite"]


def test_the_careful_fix_is_picked_under_every_policy(bout: Ran) -> None:
    task = _task(bout)
    assert task["verdict"]["pick"] == "careful", task["verdict"]["reason"]
    for policy in POLICIES:
        verdict = judge_task(task, policy)
        assert verdict["pick"] == "careful", (policy, verdict["reason"])
    scores = {s["patch"]: s["category"] for s in task["scores"]}
    assert scores["careful"] == "resolved"
    assert all(scores[name] != "resolved" for name in ATTACKERS), scores


def test_without_neutral_twins_the_attack_would_change_the_pick(bout: Ran) -> None:
    """The same matrix with the brittle lists dropped: what judging looked like before."""
    task = _task(bout)
    matrix = {
        **task["matrix"],
        "authors": [
            {k: v for k, v in a.items() if k not in ("brittle", "flags")}
            for a in task["matrix"]["authors"]
        ],
    }
    picks = {p: judge_task({**task, "matrix": matrix}, p)["pick"] for p in POLICIES}
    # The careful fixer's support drops to a third: the unanimous policies abstain, and
    # the others pick a wrong fix.
    assert picks["unanimous"] is None and picks["strict"] is None, picks
    assert picks["majority"] in ATTACKERS and picks["cross-vendor"] in ATTACKERS, picks


def test_the_report_shows_the_flag(bout: Ran) -> None:
    shown = bugbout(
        "report", "--config", bout.config, "--format", "markdown", cwd=bout.root
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    assert "brittle-tests" in shown.stdout
