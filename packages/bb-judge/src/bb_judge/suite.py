"""The full-suite check: a resolved patch must not break the repository's own tests.

The maintainers' FAIL_TO_PASS and PASS_TO_PASS come from the modules the fix touched;
a patch can satisfy them and still break something elsewhere. So every patch scored
resolved also runs the repository's whole test folder as it stands at base:

- the **baseline** is the base tree itself, run twice; a test that passes in both runs
  must keep passing, a test whose outcome differs between them is flaky and set aside;
- the tests of the modules the fix touches are left out (the fix may change what they
  expect; the oracle already holds the patch to them);
- the **patch** run is the base tree with the patch's changes to the package applied.

A resolved patch that fails, errors or loses a test that passed steadily at base is
``resolved-but-breaks-suite``: its score's category becomes that (the reason names the
first test it broke) and ``suite.breaks: true`` lists them all. It is counted apart from
resolved and never in a resolve rate: the maintainers' tests were met, the repository's
were not. Baselines and patch runs are cached by what they depend on.

The runs (:func:`run_baseline`, :func:`run_patch`) are work units' business
(:mod:`bb_judge.work`); turning them into each score's ``suite`` section
(:func:`add_suite`) is the stage's, once every run of the task is back.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from bb_core.envs import TestEnv
from bb_core.executors.units import Failed
from bb_core.git import Repo
from bb_core.patch import apply_patch
from bb_core.patch.check import outside_links
from bb_core.records import kinds
from bb_core.records.kinds import Task, as_task
from bb_core.records.vocabulary import (
    PICK,
    REFERENCE,
    RESOLVED,
    RESOLVED_BUT_BREAKS_SUITE,
    SCORE_CRASHED,
)
from bb_core.store import cache_key, home_dir
from bb_core.testrun import TestRun
from bb_core.testrun.steady import flaky, steadily_passing
from bb_core.testrun.touched import touched_lines

from bb_judge.grading import task_filter

FORMAT = 2

#: A test runner with sandbox and limits bound: ``run(checkout, env, targets, log_path=)``.
Run = Callable[..., TestRun]
#: A scratch checkout for a task: ``with checkout(task_id) as folder``.
Checkout = Callable[[str], AbstractContextManager[Path]]


def fix_modules(task: Task) -> set[str]:
    """The test files the fix touches: their tests are the oracle's business, not the suite's."""
    return {str(p) for p in task.get("test_files", ())}


def steady(runs: Sequence[Mapping[str, str]], leave_out: set[str]) -> tuple[list[str], list[str]]:
    """(tests passing in every baseline run, tests whose outcome differed), fix modules out."""
    return steadily_passing(runs, leave_out), flaky(runs, leave_out)


def broken(passing: Sequence[str], outcomes: Mapping[str, str]) -> list[str]:
    """The steadily passing tests that did not pass on the patch."""
    return [t for t in passing if outcomes.get(t) != "passed"]


def suite_key(
    what: str, task: Mapping[str, Any], env_key: str, patch: str, parts: Sequence[Any]
) -> str:
    """The cache key of a ``baseline`` or a ``patch`` run; *parts*: sandbox, limits, arguments."""
    return cache_key(
        "suite", FORMAT, what, task["base_commit"], task["source"], task["tests"],
        sorted(task.get("test_files", ())), sorted(task.get("protected_paths", ())),
        patch, env_key, *parts,
    )  # fmt: skip


def run_baseline(
    repo: Repo, task: Task, env: TestEnv, run: Run, checkout: Checkout
) -> dict[str, Any]:
    """The base tree's suite, run twice: ``passing``, ``flaky``, ``sound`` and the runs' logs."""
    tests = str(task["tests"])
    runs: list[TestRun] = []
    with checkout(str(task["id"])) as dest:
        repo.materialize(str(task["base_commit"]), dest)
        logs = home_dir("logs", "judge", str(task["id"]))
        for n in (1, 2):
            runs.append(run(dest, env, [tests], log_path=logs / f"suite-base-{n}.log", touched={}))
    passing, flaky = steady([r.outcomes for r in runs], fix_modules(task))
    return {
        "passing": passing,
        "flaky": flaky,
        "sound": all(r.ok for r in runs),
        "logs": [str(r.log) for r in runs],
    }


def run_patch(
    repo: Repo,
    task: Task,
    env: TestEnv,
    patch: str,
    key: str,
    run: Run,
    checkout: Checkout,
) -> dict[str, Any]:
    """The base tree with *patch*'s changes to the package, its whole suite run once:
    ``outcomes``, ``log``, ``tampered`` and whether the run was ``ok``."""
    in_package = task_filter(task, task.get("protected_paths", ()))
    links = outside_links(patch)

    def keep(path: str) -> bool:
        # As in scoring: a link out of the tree is never applied.
        return in_package(path) and path not in links

    with checkout(str(task["id"])) as dest:
        repo.materialize(str(task["base_commit"]), dest)
        applied: list[str] = []
        if patch.strip():
            applied, _ = apply_patch(patch, dest, include=keep)
        logs = home_dir("logs", "judge", str(task["id"]))
        done = run(
            dest, env, [str(task["tests"])], log_path=logs / f"suite-{key[:16]}.log",
            touched=touched_lines(patch, include=applied),
        )  # fmt: skip
    # A void run (the patch tampered with it) errors every test: it breaks the suite.
    return {
        "outcomes": dict(done.outcomes),
        "log": str(done.log),
        "tampered": list(done.tampered),
        "ok": done.ok,
    }


def section(task: Task, ran: Mapping[str, Any], baseline: Mapping[str, Any]) -> kinds.ScoreSuite:
    """The ``suite`` section of a resolved patch's score, from its run (or cached run)."""
    passing = list(baseline["passing"])
    broke = broken(passing, ran["outcomes"])
    tampered = list(ran.get("tampered", ()))
    found: kinds.ScoreSuite = {
        "breaks": bool(broke),
        "checked": len(passing),
        "broken": broke,
        "flaky": list(baseline["flaky"]),
        "left_out": sorted(fix_modules(task)),
        "log": str(ran["log"]),
    }
    if tampered:
        found["tampered"] = tampered
    return found


#: A patch's suite run as :func:`add_suite` takes it: the run, or why there is none.
Ran = Mapping[str, Any] | Failed


def add_suite(
    task: Mapping[str, Any],
    records: list[kinds.Score],
    baseline: Mapping[str, Any] | Failed,
    runs: Mapping[str, Ran],
) -> None:
    """Add ``suite`` to every resolved score of *records* (the reference's first), given
    the task's *baseline* and each resolved patch's run by score name.

    Tests the reference itself breaks are set aside for every patch: the maintainers' fix
    changed them. The pick's record gets a copy of its patch's section. A resolved
    contestant whose check could not be finished (its run, the baseline or the
    reference's run crashed) is ``score-crashed``, never resolved.
    """
    if not isinstance(baseline, Failed) and not baseline["passing"]:
        return
    reference = runs.get(REFERENCE)
    if reference is None:
        return
    by_name = {r["patch"]: r for r in records}
    lost: Failed | None = None
    kept: Mapping[str, Any] = {}
    if isinstance(baseline, Failed):
        lost = baseline
    elif isinstance(reference, Failed):
        lost = reference
    else:
        checked = section(as_task(task), reference, baseline)
        changed = set(checked["broken"])
        kept = {**baseline, "passing": [t for t in baseline["passing"] if t not in changed]}
        by_name[REFERENCE]["suite"] = {
            **checked,
            "breaks": False,
            "broken": [],
            "changed_by_fix": sorted(changed),
        }
    for record in records:
        name = record["patch"]
        if record["category"] != RESOLVED or name in (PICK, REFERENCE):
            continue
        ran = lost or runs.get(name)
        if isinstance(ran, Failed):
            _crashed(record, ran)
        elif ran is not None:
            record["suite"] = section(as_task(task), ran, kept)
            if record["suite"]["breaks"]:
                record["category"] = RESOLVED_BUT_BREAKS_SUITE
                record["reason"] = f"{record['reason']}; but it {describe(record['suite'])}"
    for record in records:
        source = by_name.get(str(record.get("picked", "")))
        if record["patch"] != PICK or source is None:
            continue
        if "suite" in source:
            record["suite"] = source["suite"]
        if "crash" in source:
            record["crash"] = source["crash"]
        record["category"], record["reason"] = source["category"], source["reason"]


def _crashed(record: kinds.Score, failed: Failed) -> None:
    """A resolved score whose full-suite check no worker could finish."""
    message = (
        f"{record['reason']}; but its full-suite check could not be finished "
        f"({failed.reason}): {failed.message}"
    )
    record["category"], record["reason"] = SCORE_CRASHED, message
    record["crash"] = {"reason": failed.reason, "message": message, "log": failed.log}


def describe(suite: Mapping[str, Any]) -> str:
    """``breaks 2 repository tests, first tests/test_x.py::test_y`` or ``keeps the suite``."""
    if not suite.get("breaks"):
        return f"keeps the {suite.get('checked', 0)} passing repository tests passing"
    broke = suite["broken"]
    return (
        f"breaks {len(broke)} repository test(s) outside the fix's modules, "
        f"first {broke[0]} ({posixpath.basename(str(suite.get('log', '')))})"
    )
