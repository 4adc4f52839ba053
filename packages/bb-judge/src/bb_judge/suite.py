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
``resolved-but-breaks-suite``: its score keeps ``category: "resolved"`` (the maintainers'
tests were met) and gains ``suite.breaks: true`` with the tests it broke, and the report
counts it apart from resolved. Baselines and patch runs are cached by what they depend on.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from bb_core.envs import TestEnv
from bb_core.git import Repo
from bb_core.patch import apply_patch
from bb_core.patchcheck import outside_links
from bb_core.store import Store, cache_key, home_dir, read_json, write_json
from bb_core.testrun import TestRun

from bb_judge.divergence import outcome_kind
from bb_judge.grading import source_filter

#: The names scores use for the control and the judge's pick (as in bb_judge.score).
REFERENCE = "reference"
PICK = "pick"

#: The name a breaking resolved patch is given in scores and the report.
BREAKS_SUITE = "resolved-but-breaks-suite"
FORMAT = 2


def fix_modules(task: Mapping[str, Any]) -> set[str]:
    """The test files the fix touches: their tests are the oracle's business, not the suite's."""
    return {str(p) for p in task.get("test_files", ())}


def _module(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def steady(runs: Sequence[Mapping[str, str]], leave_out: set[str]) -> tuple[list[str], list[str]]:
    """(tests passing in every baseline run, tests whose outcome differed), fix modules out."""
    ids = sorted({t for r in runs for t in r if _module(t) not in leave_out})
    passing = [t for t in ids if all(r.get(t) == "passed" for r in runs)]
    flaky = [t for t in ids if len({outcome_kind(r.get(t)) for r in runs}) > 1]
    return passing, flaky


def broken(passing: Sequence[str], outcomes: Mapping[str, str]) -> list[str]:
    """The steadily passing tests that did not pass on the patch."""
    return [t for t in passing if outcomes.get(t) != "passed"]


class SuiteCheck:
    """Runs baselines and patch runs for a scorer; one per :class:`bb_judge.score.Scorer`."""

    def __init__(
        self,
        store: Store,
        run: Callable[..., TestRun],
        key_parts: Sequence[Any],
        checkout: Callable[[str], Any],
        use_cache: bool = True,
    ) -> None:
        self.store = store
        self.run = run  # the scorer's runner with sandbox and limits bound
        self.key_parts = list(key_parts)
        self.checkout = checkout
        self.use_cache = use_cache

    def baseline(self, repo: Repo, task: Mapping[str, Any], env: TestEnv) -> dict[str, Any]:
        """The base tree's suite, run twice: ``passing``, ``flaky`` and the runs' logs."""
        key = self._key("baseline", task, env, "")
        found = self._cached(key)
        if found is not None:
            return found
        tests = str(task["tests"])
        runs: list[TestRun] = []
        with self.checkout(str(task["id"])) as dest:
            repo.materialize(str(task["base_commit"]), dest)
            logs = home_dir("logs", "judge", str(task["id"]))
            for n in (1, 2):
                runs.append(self.run(dest, env, [tests], log_path=logs / f"suite-base-{n}.log"))
        passing, flaky = steady([r.outcomes for r in runs], fix_modules(task))
        result = {
            "passing": passing,
            "flaky": flaky,
            "sound": all(r.ok for r in runs),
            "logs": [str(r.log) for r in runs],
        }
        if result["sound"]:
            self._put(key, result)
        return result

    def check(
        self,
        repo: Repo,
        task: Mapping[str, Any],
        env: TestEnv,
        patch: str,
        baseline: Mapping[str, Any],
    ) -> dict[str, Any]:
        """The ``suite`` section of a resolved patch's score."""
        key = self._key("patch", task, env, patch)
        outcomes: dict[str, str] | None = None
        log = ""
        tampered: list[str] = []
        cached = self._cached(key)
        if cached is not None:
            outcomes, log = dict(cached["outcomes"]), str(cached["log"])
        else:
            in_package = source_filter(
                task["source"], task["tests"], task.get("protected_paths", ())
            )
            links = outside_links(patch)

            def keep(path: str) -> bool:
                # As in scoring: a link out of the tree is never applied.
                return in_package(path) and path not in links

            with self.checkout(str(task["id"])) as dest:
                repo.materialize(str(task["base_commit"]), dest)
                if patch.strip():
                    apply_patch(patch, dest, include=keep)
                logs = home_dir("logs", "judge", str(task["id"]))
                run = self.run(
                    dest, env, [str(task["tests"])], log_path=logs / f"suite-{key[:16]}.log"
                )
            outcomes, log = dict(run.outcomes), str(run.log)
            # A void run (the patch tampered with it) errors every test: it breaks the suite.
            tampered = list(run.tampered)
            if run.ok:
                self._put(key, {"outcomes": outcomes, "log": log})
        passing = list(baseline["passing"])
        broke = broken(passing, outcomes)
        return {
            "breaks": bool(broke),
            "checked": len(passing),
            "broken": broke,
            "flaky": list(baseline["flaky"]),
            "left_out": sorted(fix_modules(task)),
            "log": log,
        } | ({"tampered": tampered} if tampered else {})

    # -- cache --------------------------------------------------------------------------

    def _key(self, what: str, task: Mapping[str, Any], env: TestEnv, patch: str) -> str:
        return cache_key(
            "suite", FORMAT, what, task["base_commit"], task["source"], task["tests"],
            sorted(task.get("test_files", ())), sorted(task.get("protected_paths", ())),
            patch, env.key, *self.key_parts,
        )  # fmt: skip

    def _path(self, key: str) -> Path:
        return self.store.path("cache", "suite", f"{key}.json")

    def _cached(self, key: str) -> dict[str, Any] | None:
        if not self.use_cache:
            return None
        entry = read_json(self._path(key))
        if not isinstance(entry, dict) or entry.get("key") != key:
            return None
        value = entry.get("result")
        return value if isinstance(value, dict) else None

    def _put(self, key: str, result: Mapping[str, Any]) -> None:
        write_json(self._path(key), {"key": key, "result": dict(result)})


def add_suite(
    check: SuiteCheck,
    repo: Repo,
    task: Mapping[str, Any],
    env: TestEnv,
    patches: Mapping[str, str],
    records: list[dict[str, Any]],
) -> None:
    """Add ``suite`` to every resolved score of *records* (the reference's first).

    Tests the reference itself breaks are set aside for every patch: the maintainers' fix
    changed them. The pick's record gets a copy of its patch's section.
    """
    baseline = check.baseline(repo, task, env)
    if not baseline["passing"]:
        return
    reference = check.check(repo, task, env, patches[REFERENCE], baseline)
    changed = set(reference["broken"])
    kept = {**baseline, "passing": [t for t in baseline["passing"] if t not in changed]}
    by_name = {r["patch"]: r for r in records}
    for record in records:
        if record["category"] != "resolved" or record["patch"] == PICK:
            continue
        if record["patch"] == REFERENCE:
            record["suite"] = {
                **reference,
                "breaks": False,
                "broken": [],
                "changed_by_fix": sorted(changed),
            }
        else:
            record["suite"] = check.check(repo, task, env, patches[record["patch"]], kept)
    for record in records:
        source = by_name.get(str(record.get("picked", "")))
        if record["patch"] == PICK and source is not None and "suite" in source:
            record["suite"] = source["suite"]


def describe(suite: Mapping[str, Any]) -> str:
    """``breaks 2 repository tests, first tests/test_x.py::test_y`` or ``keeps the suite``."""
    if not suite.get("breaks"):
        return f"keeps the {suite.get('checked', 0)} passing repository tests passing"
    broke = suite["broken"]
    return (
        f"breaks {len(broke)} repository test(s) outside the fix's modules, "
        f"first {broke[0]} ({posixpath.basename(str(suite.get('log', '')))})"
    )
