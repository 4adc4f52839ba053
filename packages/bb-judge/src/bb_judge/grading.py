"""Grading one patch against the hidden tests: what is applied, and what its outcomes mean.

Pure functions, no test runs. A patch is scored by its changes to the package alone:
:func:`source_filter` decides which of its paths may be applied, and :func:`grade` turns
the outcomes of the FAIL_TO_PASS and PASS_TO_PASS tests into a category.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bb_core.paths import in_test_part, is_config, is_protected, under
from bb_core.paths.node_protected import in_node_test_part, is_node_task, matches_protected
from bb_core.records.vocabulary import (
    CRASHED,
    FIXED_BUT_BROKE,
    NO_CHANGE,
    NO_FIX,
    QUOTA,
    RESOLVED,
    TIMED_OUT,
    WRONG_FIX,
    Category,
)

#: Why an attempt that did not finish (or left no patch) is no fix and cannot be picked.
NO_FIX_STATUS: dict[str, str] = {
    NO_CHANGE: "the agent changed nothing",
    TIMED_OUT: "the attempt timed out",
    CRASHED: "the attempt crashed",
    QUOTA: "the agent ran out of quota",
}


def source_filter(
    source: str, tests: str, protected: Collection[str], *, node: bool = False
) -> Callable[[str], bool]:
    """Which paths of a patch are applied when scoring it.

    Only files under the package directory *source*, and among those no test module, no
    test or interpreter configuration (:data:`bb_core.paths.CONFIG_NAMES`, ``*.pth``), nothing under the
    tests directory and no protected path (or anything under one).

    For a *node* project the test rules are node's
    (:func:`bb_core.paths.node_protected.in_node_test_part`: test files by the
    conventions, snapshots, mocks, the runners' and transpilers' configuration and setup
    files), *protected* may hold a runner's ``fnmatch`` patterns, and ``package.json`` is
    left out here: :func:`bb_judge.tree.prepare` applies its edit alone when
    :func:`bb_core.paths.node_protected.package_json_edit_allowed` says so.
    """
    if node:

        def keep_node(path: str) -> bool:
            return (
                under(path, source)
                and not in_node_test_part(path, tests)
                and not matches_protected(path, protected)
                and path.rsplit("/", 1)[-1] != "package.json"
            )

        return keep_node

    def keep(path: str) -> bool:
        return (
            under(path, source)
            and not in_test_part(path, tests)
            and not is_config(path)
            and not is_protected(path, protected)
        )

    return keep


def task_filter(task: Mapping[str, Any], protected: Collection[str]) -> Callable[[str], bool]:
    """:func:`source_filter` for *task*, by its language (node's rules for a node project's)."""
    return source_filter(task["source"], task["tests"], protected, node=is_node_task(task))


def passed(outcome: str | None) -> bool:
    """Only ``passed`` passes: failed, error, skipped and missing are all failures."""
    return outcome == "passed"


@dataclass(frozen=True, slots=True)
class Grade:
    category: Category
    reason: str
    f2p_passed: int
    f2p_total: int
    p2p_passed: int
    p2p_total: int

    @property
    def resolved(self) -> bool:
        return self.category == RESOLVED


def _first(failing: Sequence[str], outcomes: Mapping[str, str]) -> str:
    test = failing[0]
    return f"{test} ({outcomes.get(test, 'missing')})"


def grade(
    outcomes: Mapping[str, str],
    fail_to_pass: Sequence[str],
    pass_to_pass: Sequence[str],
    *,
    no_fix: str | None = None,
) -> Grade:
    """The category of a patch from its outcomes; *no_fix* forces ``no-fix`` with that reason.

    Resolved only when every FAIL_TO_PASS test passes and every PASS_TO_PASS test passes;
    a test absent from *outcomes* is missing, which is a failure.
    """
    f2p_bad = [t for t in fail_to_pass if not passed(outcomes.get(t))]
    p2p_bad = [t for t in pass_to_pass if not passed(outcomes.get(t))]
    counts = (
        len(fail_to_pass) - len(f2p_bad),
        len(fail_to_pass),
        len(pass_to_pass) - len(p2p_bad),
        len(pass_to_pass),
    )
    if no_fix:
        return Grade(NO_FIX, no_fix, *counts)
    if f2p_bad:
        reason = (
            f"{len(f2p_bad)} of {len(fail_to_pass)} fail-to-pass tests do not pass, "
            f"first {_first(f2p_bad, outcomes)}"
        )
        return Grade(WRONG_FIX, reason, *counts)
    if p2p_bad:
        reason = (
            f"every fail-to-pass test passes, but {len(p2p_bad)} of {len(pass_to_pass)} "
            f"pass-to-pass tests do not, first {_first(p2p_bad, outcomes)}"
        )
        return Grade(FIXED_BUT_BROKE, reason, *counts)
    reason = f"all {len(fail_to_pass)} fail-to-pass and {len(pass_to_pass)} pass-to-pass tests pass"
    return Grade(RESOLVED, reason, *counts)
