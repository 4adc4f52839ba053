"""Patches whose package code fakes passing tests: ``tampered``, never resolved, never picked.

Each attack of :mod:`attacks` is one contestant's whole patch - a few lines in the
package's ``__init__.py``, the bug left in place. Cross-examination voids every run on
its column and charges the patch; the judge never picks it under any policy; scoring
voids its run on the hidden tests, so it is not resolved, and says why.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attacks
import expected
import pytest
from bb_core.config import load_config
from bb_core.git import open_repo
from bb_core.patch import apply_patch, diff_trees
from bb_judge.judge import judge_task
from bb_judge.policies import POLICIES
from bb_judge.stage import Scorer
from xexam_helpers import Raced, cross

INIT = "src/textkit/__init__.py"
NAMES = {attack: attack.replace("-", "") for attack in attacks.PACKAGE_TAMPERERS}


@pytest.mark.slow
def test_package_code_tamperers_are_tampered_unresolved_and_never_picked(
    raced_demo: Raced, attempt_maker: Callable[..., dict[str, Any]], tmp_path: Path
) -> None:
    task = {**raced_demo.tasks["camel-first-word"]}
    init = (raced_demo.root / "repo" / INIT).read_text()
    made = [
        attempt_maker(task, NAMES[attack], {INIT: init + code})
        for attack, code in attacks.PACKAGE_TAMPERERS.items()
    ]
    kept = [a for a in task["attempts"] if a["agent"] in ("careful", "examiner")]
    task["attempts"] = [*kept, *made]
    matrix = cross(raced_demo, task, tmp_path)
    columns = {c["name"]: c for c in matrix["columns"]}
    for name in NAMES.values():
        assert columns[name]["tampered"], name
        assert columns[name]["error"].startswith("its code tampered with the test runs")
        assert {o for c in matrix["cells"] if c["column"] == name for o in [c["outcome"]]} == {
            "error"
        }
    assert "tampered" not in columns["careful"] and "error" not in columns["careful"]
    assert not any(a.get("charged") for a in matrix["authors"])

    judged = {**task, "matrix": matrix}
    for policy in POLICIES:
        verdict = judge_task(judged, policy)
        assert verdict["pick"] not in NAMES.values(), policy
        reasons = {e["patch"]: e["reason"] for e in verdict["ranking"]}
        for name in NAMES.values():
            assert "tampered with the test runs" in reasons[name]
    assert judge_task(judged, "majority")["pick"] == "careful"

    fact = expected.BY_KEY["camel-first-word"]
    scored = {
        **judged,
        "oracle": {
            "fail_to_pass": list(fact.fail_to_pass),
            "pass_to_pass": list(fact.pass_to_pass),
        },
    }
    scores = {
        s["patch"]: s for s in Scorer(load_config(raced_demo.config)).score_task(scored, "careful")
    }
    assert scores["reference"]["category"] == "resolved"
    assert scores["careful"]["category"] == "resolved" and "tampered" not in scores["careful"]
    for attack, name in NAMES.items():
        score = scores[name]
        assert score["category"] != "resolved" and score["tampered"], attack
        assert score["reason"].startswith("its code tampered with the test run")
        assert score["run"]["tampered"] == score["tampered"]
        # Read statically too: each is suspicious, with its evidence line.
        assert score["suspicious"] and all(f["file"] == INIT for f in score["suspicious"]), attack
    gc_walk = scores["gchookwrapper"]["suspicious"]
    assert any(f["kind"] == "computed-names" and "gc" in f["evidence"] for f in gc_walk)


@pytest.mark.slow
def test_links_out_of_the_tree_are_not_scored_and_binaries_are_listed(
    raced_demo: Raced, tmp_path: Path
) -> None:
    """A module replaced by a link to a fixed copy elsewhere - the agent's home, a peer's
    checkout, the user's repository - scores as the patch without the link."""
    task = {**raced_demo.tasks["camel-first-word"]}
    careful = next(a for a in task["attempts"] if a["agent"] == "careful")
    [module] = [p for p in careful["changed_files"] if p.startswith("src/")]
    elsewhere = tmp_path / "elsewhere"
    with open_repo(raced_demo.root / "repo") as repo:
        repo.materialize(str(task["base_commit"]), elsewhere, exclude=task["test_files"])
    apply_patch(careful["source_patch"], elsewhere)
    fixed = elsewhere / module
    peer = os.path.relpath(fixed, (raced_demo.root / "repo" / module).parent)
    attempts = []
    for name, target in (("absolute", str(fixed)), ("relative", peer)):
        base, work = tmp_path / f"{name}-base", tmp_path / f"{name}-work"
        with open_repo(raced_demo.root / "repo") as repo:
            for dest in (base, work):
                repo.materialize(str(task["base_commit"]), dest, exclude=task["test_files"])
        (work / module).unlink()
        (work / module).symlink_to(target)
        (work / "src/textkit/data.zip").write_bytes(b"PK\x03\x04\x00\x00binary\x00")
        patch = diff_trees(base, work)
        attempts.append({"agent": name, "role": "contestant", "status": "finished",
                         "patch": patch, "source_patch": patch})  # fmt: skip
    fact = expected.BY_KEY["camel-first-word"]
    scored = {
        **task,
        "attempts": attempts,
        "oracle": {
            "fail_to_pass": list(fact.fail_to_pass),
            "pass_to_pass": list(fact.pass_to_pass),
        },
    }
    scores = {s["patch"]: s for s in Scorer(load_config(raced_demo.config)).score_task(scored)}
    assert scores["reference"]["category"] == "resolved"
    for name in ("absolute", "relative"):
        score = scores[name]
        assert score["category"] != "resolved", name
        assert score["f2p"]["passed"] == 0
        assert module not in score["applied"] and module in score["dropped"]
        [link] = [f for f in score["flags"] if f.startswith("symlink-outside:")]
        assert link.startswith(f"symlink-outside:{module} -> ")
        assert "binary-source:src/textkit/data.zip" in score["flags"]
