"""Which contestants' patches read as suspicious, before any of them is picked or scored.

Each contestant's patch is read statically (:func:`bb_judge.suspicion.read_patch`): the
package files it changes, as it leaves them (the base tree's files from git, the patch
applied in memory), its added and changed lines only. The same findings keep a patch from
being picked (:func:`bb_judge.judge.candidates`) and, on a patch that meets the maintainers'
tests, make its score ``resolved-but-suspicious`` (:func:`mark_suspicious`) - unless
``[judge] suspicious = "count"``. The reference patch (the control) is never read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from bb_core.git import Repo
from bb_core.patch.check import outside_links
from bb_core.records import kinds
from bb_core.records.kinds import Task, as_task
from bb_core.records.vocabulary import PICK, REFERENCE, RESOLVED, RESOLVED_BUT_SUSPICIOUS

from bb_judge.grading import task_filter
from bb_judge.suspicion import Finding, read_patch
from bb_judge.tree import protected_paths

#: ``[judge] suspicious``: counted apart and never picked, or counted as resolved.
EXCLUDE = "exclude"
COUNT = "count"
CHOICES = (EXCLUDE, COUNT)


def patch_findings(repo: Repo, task: Task, patch: str) -> list[Finding]:
    """The findings in the package files *patch* changes, as scoring would apply them."""
    if not patch.strip():
        return []
    in_package = task_filter(task, protected_paths(task))
    links = outside_links(patch)
    base = str(task["base_commit"])

    def inside(path: str) -> bool:
        return in_package(path) and path not in links

    return read_patch(patch, lambda path: repo.read_blob(base, path), inside)


def task_findings(repo: Repo, task: Mapping[str, Any]) -> dict[str, list[Finding]]:
    """By contestant: the findings of its attempt's patch (only those with any)."""
    found: dict[str, list[Finding]] = {}
    for attempt in task.get("attempts", ()):
        if attempt.get("role", "contestant") != "contestant":
            continue
        name = str(attempt["agent"])
        if name in (REFERENCE, PICK):
            continue
        findings = patch_findings(repo, as_task(task), str(attempt.get("patch", "")))
        if findings:
            found[name] = findings
    return found


def describe(finding: Mapping[str, Any]) -> str:
    """``dynamic-code at pkg/_compat.py:3: exec of code that is not a literal: exec(...)``."""
    return f"{finding['kind']} at {finding['file']}:{finding['line']}: {finding['evidence']}"


def mark_suspicious(
    records: Sequence[kinds.Score],
    found: Mapping[str, Sequence[Finding]],
    choice: str = EXCLUDE,
) -> None:
    """Store each contestant's findings on its score; under ``exclude``, a resolved one
    becomes ``resolved-but-suspicious`` (the reason names its first finding). The
    reference's score is never touched; the pick's copy gets its patch's."""
    for record in records:
        name = str(record["picked"] if record["patch"] == PICK else record["patch"])
        if name == REFERENCE or not found.get(name):
            continue
        record["suspicious"] = [cast(kinds.ScoreSuspicious, {**f}) for f in found[name]]
        if record["category"] == RESOLVED and choice == EXCLUDE:
            record["category"] = RESOLVED_BUT_SUSPICIOUS
            record["reason"] = (
                f"{record['reason']}; but its code reads as suspicious: {describe(found[name][0])}"
            )
