"""``[judge] samples``: with ``first`` only each contestant's first sample is cross-examined
and may be picked; with ``all`` every further sample is a column of the matrix and a
candidate of its own, through bb-xexam's and bb-judge's real stages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from bb_core.config import Config
from bb_core.errors import UsageError
from bb_core.records import check
from bb_core.stage import run_one
from bb_judge.matrix import Author, Column, OutcomeTable, Row
from bb_judge.policies import Candidate, assess, get_policy, own_columns, reproductions
from bb_judge.score import sample_name as judge_sample_name
from bb_judge.settings import JudgeSettings
from bb_judge.stage import JudgeStage
from bb_xexam.authors import columns_of
from bb_xexam.authors import sample_name as xexam_sample_name
from bb_xexam.settings import XexamSettings
from bb_xexam.stage import XexamStage
from shout_bout import AFTER, BEFORE, NEW_TESTS, OLD_TESTS, diff, shout_task, write_config

#: An examiner's test that reproduces the bug: it fails on the unfixed tree.
LOUD_TEST = """\
diff --git a/tests/test_loud.py b/tests/test_loud.py
new file mode 100644
--- /dev/null
+++ b/tests/test_loud.py
@@ -0,0 +1,5 @@
+from pkg import shout
+
+
+def test_loud():
+    assert shout("hi") == "HI!"
"""


def attempt(task_id: str, agent: str, patch: str, **more: Any) -> dict[str, Any]:
    return {
        "kind": "attempt", "v": 1, "task_id": task_id, "agent": agent, "role": "contestant",
        "status": "finished", "duration": 1.0, "patch": patch, **more,
    }  # fmt: skip


def gambler_task(git_repo: Any) -> tuple[Any, dict[str, Any]]:
    """The shout fix raced by ``gambler`` twice - its first sample wrong (no ``!``), its
    second the maintainers' fix - and examined by ``examiner``, whose test reproduces it."""
    repo = git_repo()
    repo.commit({"src/pkg/__init__.py": BEFORE, "tests/test_shout.py": OLD_TESTS}, "Start")
    fix = repo.commit(
        {"src/pkg/__init__.py": AFTER, "tests/test_shout.py": NEW_TESTS}, "Shout loudly"
    )
    base = repo.sha(f"{fix}^")
    repo.branch("wrong", base)
    wrong = diff(repo, repo.commit({"src/pkg/__init__.py": AFTER.replace(' + "!"', "")}, "Upper"))
    right = diff(repo, fix)
    attempts = [
        attempt("samples-1", "gambler", wrong),
        attempt("samples-1", "examiner", LOUD_TEST, role="examiner"),
    ]
    task = shout_task("samples-1", repo, base, fix, right, attempts)
    task["samples"] = [attempt("samples-1", "gambler", right, sample=2)]
    assert check(task, "task") is None, check(task, "task")
    return repo, task


def bout(config: Config, task: dict[str, Any], store: Path) -> dict[str, Any]:
    """*task* through bb-xexam's and bb-judge's stages (hidden tests not run)."""
    xexam = XexamStage(config, XexamSettings.from_config(config))
    try:
        [examined] = run_one(xexam, task)  # type: ignore[arg-type]
    finally:
        xexam.close()
    judge = JudgeStage(config, JudgeSettings.from_config(config, score=False))
    try:
        [judged] = run_one(judge, examined)
    finally:
        judge.close()
    return dict(judged)


def test_bb_xexam_names_a_further_sample_as_bb_judge_scores_it() -> None:
    assert xexam_sample_name("careful", 2) == judge_sample_name("careful", 2) == "careful #2"


def test_further_samples_are_columns_only_under_all(git_repo, tmp_path: Path) -> None:
    _, task = gambler_task(git_repo)
    first = [(c.name, c.patch_of) for c in columns_of(task)]
    assert first == [("base", None), ("gambler", "gambler")]
    assert [(c.name, c.patch_of) for c in columns_of(task, samples="all")] == [
        *first, ("gambler #2", "gambler"),
    ]  # fmt: skip


def test_an_agent_named_like_a_further_sample_is_a_usage_error(git_repo) -> None:
    _, task = gambler_task(git_repo)
    task["attempts"].append(attempt("samples-1", "gambler #2", task["reference_patch"]))
    assert [c.name for c in columns_of(task)] == ["base", "gambler", "gambler #2"]
    with pytest.raises(UsageError, match="the agent 'gambler #2' has the name of 'gambler'"):
        columns_of(task, samples="all")


def test_a_further_sample_is_never_its_agents_own_column() -> None:
    """``gambler``'s first sample changed nothing in the package (no column); its test,
    failing on base and on its second sample's patch, is still a reproduction - rule 1
    checks an agent's tests against its first sample's patch only - and never supports
    that second sample (rule 2), so the examiner's test alone decides."""
    test, loud = "tests/test_g.py::test_g", "tests/test_loud.py::test_loud"
    table = OutcomeTable(
        [Author("gambler", "contestant", None, (test,)), Author("examiner", "examiner", None, (loud,))],
        [Column("base", None), Column("gambler #2", "gambler")],
        {
            ("gambler", test, "base"): "failed", ("gambler", test, "gambler #2"): "failed",
            ("examiner", loud, "base"): "failed", ("examiner", loud, "gambler #2"): "passed",
        },
        "base",
    )  # fmt: skip
    assert own_columns(table) == {}
    assert reproductions(table) == [Row("gambler", test), Row("examiner", loud)]
    candidate = Candidate("gambler #2", "gambler #2", agent="gambler")
    assessed = assess(table, candidate, get_policy("majority"))
    assert assessed.approved and [a.author for a in assessed.authors] == ["examiner"]


@pytest.mark.slow
def test_all_samples_lets_the_right_sample_be_picked(git_repo, tmp_path: Path) -> None:
    repo, task = gambler_task(git_repo)
    suite_off = "[judge]\nrun-suite = false\n"
    first = bout(write_config(tmp_path, repo, suite_off), task, tmp_path)
    # "first": the wrong first sample is the only candidate, and the judge abstains.
    assert [c["name"] for c in first["matrix"]["columns"]] == ["base", "gambler"]
    assert first["verdict"]["pick"] is None
    assert [r["patch"] for r in first["verdict"]["ranking"]] == ["gambler"]
    # The same, byte for byte, as a task raced once (no samples at all).
    once = bout(write_config(tmp_path, repo, suite_off), {**task, "samples": []}, tmp_path)
    assert once["matrix"] == first["matrix"] and once["verdict"] == first["verdict"]

    config = write_config(tmp_path, repo, suite_off + 'samples = "all"\n')
    every = bout(config, task, tmp_path)
    columns = {c["name"]: c for c in every["matrix"]["columns"]}
    assert list(columns) == ["base", "gambler", "gambler #2"]
    assert columns["gambler #2"]["patch_of"] == "gambler"
    verdict = every["verdict"]
    assert verdict["pick"] == "gambler #2"
    ranking = {r["patch"]: r for r in verdict["ranking"]}
    assert ranking["gambler #2"]["column"] == "gambler #2"
    assert ranking["gambler #2"]["approved"] and not ranking["gambler"]["approved"]
    # The pick's support is the examiner's reproduction, passing in the sample's column.
    loud = "tests/test_loud.py::test_loud"
    cells = {(c["author"], c["test"], c["column"]): c["outcome"] for c in every["matrix"]["cells"]}
    assert cells["examiner", loud, "base"] == "failed"
    assert cells["examiner", loud, "gambler"] == "failed"
    assert cells["examiner", loud, "gambler #2"] == "passed"
    assert {"author": "examiner", "test": loud, "column": "gambler #2", "outcome": "passed"} in [
        {k: cell[k] for k in ("author", "test", "column", "outcome")} for cell in verdict["cited"]
    ]
    assert check(every, "task") is None, check(every, "task")
