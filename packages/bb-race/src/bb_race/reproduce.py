"""Run an examiner's tests on the unfixed code: does each one reproduce the bug?

The examiner's test files (its test part only - any source edit it made is ignored) are
laid on a fresh copy of the code before the fix, and run there in the sandbox with no
network. ``reproducing`` maps each of its tests to the outcome: ``failed`` or ``error``
means the test reproduces the bug (it fails where the bug is), ``passed`` means it
does not.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from bb_core.patch import apply_patch
from bb_core.paths import in_test_part
from bb_core.paths.node_protected import in_node_test_part, is_node_task
from bb_core.records.kinds import Attempt, Outcome, Task
from bb_core.sandbox import Sandbox
from bb_core.store.scratch import remove_tree

from bb_race.checkout import Checkouts


def _base_id(nodeid: str) -> str:
    """``path::test[param]`` -> ``path::test``."""
    head, bracket, _ = nodeid.partition("[")
    return head if bracket else nodeid


def reproduce(
    task: Task,
    record: Attempt,
    *,
    folder: Path,
    location: str,
    checkouts: Checkouts,
    test_env: Callable[..., Any],
    sandbox: Sandbox,
    timeout: float,
    test_timeout: float | None,
) -> dict[str, Outcome]:
    """Node id -> outcome of the examiner's tests on the unfixed tree."""
    from bb_core.testrun import run_tests
    from bb_core.testrun.touched import whole_files

    tests = [str(t) for t in record.get("tests") or []]
    files = [str(f) for f in record.get("test_files") or []]
    if not tests or not files:
        return {}
    env = test_env(task)
    checkout = folder / "unfixed"
    remove_tree(checkout)
    checkouts.materialize(location, str(task["base_commit"]), checkout, [])
    tests_dir = str(task["tests"])
    in_tests = in_node_test_part if is_node_task(task) else in_test_part
    applied, _ = apply_patch(
        str(record.get("test_patch") or ""), checkout, include=lambda p: in_tests(p, tests_dir)
    )
    run = run_tests(
        checkout,
        env,
        files,
        sandbox=sandbox,
        timeout=timeout,
        test_timeout=test_timeout,
        log_path=folder / "logs" / "reproduce.log",
        touched=whole_files(applied),  # the examiner's files; the rest is the project's
    )
    wanted = set(tests)
    outcomes: dict[str, Outcome] = {}
    for nodeid, outcome in run.outcomes.items():
        if nodeid in wanted or _base_id(nodeid) in wanted:
            outcomes[nodeid] = outcome
    reported = {_base_id(n) for n in outcomes}
    for nodeid in tests:
        if nodeid not in outcomes and nodeid not in reported:
            outcomes[nodeid] = "missing"
    remove_tree(checkout)
    return outcomes
