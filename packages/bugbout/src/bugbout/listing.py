"""``bugbout tasks``: the mined tasks and the funnel that found them, as tables."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabulate import tabulate

from bugbout.stages import Tally

TITLE_WIDTH = 56


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _truth(task_id: str, grounded: Mapping[str, Mapping[str, Any]] | None) -> str:
    """How the oracle saw a task: its test counts, why it was set aside, or not yet run."""
    if grounded is None or task_id not in grounded:
        return "-"
    entry = grounded[task_id]
    if entry.get("kind") == "skip":
        return f"set aside: {entry.get('reason')}"
    oracle = entry.get("oracle") or {}
    f2p, p2p = len(oracle.get("fail_to_pass", ())), len(oracle.get("pass_to_pass", ()))
    return f"{f2p} fail-to-pass, {p2p} pass-to-pass"


def grounded_by_id(oracles: Tally | None, mined: Tally) -> dict[str, Mapping[str, Any]] | None:
    """The oracle's answer per task id, for the tasks mined from the same fix commits."""
    if oracles is None:
        return None
    fixes = {str(t["id"]): t.get("fix_commit") for t in mined.tasks}
    found: dict[str, Mapping[str, Any]] = {}
    for task in oracles.tasks:
        if fixes.get(str(task["id"])) == task.get("fix_commit"):
            found[str(task["id"])] = task
    for skip in oracles.skip_lines:
        task_id = str(skip.get("task_id"))
        if skip.get("stage") == "oracle" and fixes.get(task_id) == skip.get("commit"):
            found[task_id] = skip
    return found


def tasks_table(mined: Tally, oracles: Tally | None = None) -> str:
    """The tasks, one row each, then the funnel: what was examined and why fixes were left out."""
    grounded = grounded_by_id(oracles, mined)
    rows = []
    for task in mined.tasks:
        refs = " ".join(f"#{ref['number']}" for ref in task.get("issue_refs", ()))
        rows.append(
            [
                task["id"],
                str(task.get("date", ""))[:10],
                _clip(str(task.get("title", "")), TITLE_WIDTH),
                refs,
                str(task.get("category", "unknown")),
                len(task.get("source_files", ())),
                len(task.get("new_tests", ())),
                _truth(str(task["id"]), grounded),
            ]
        )
    headers = [
        "task", "landed", "title", "refs", "kind", "source files", "new tests", "ground truth",
    ]  # fmt: skip
    parts = []
    if rows:
        parts.append(tabulate(rows, headers=headers, disable_numparse=True))
    else:
        parts.append("No task was mined.")
    parts.append(funnel_table(mined, oracles if grounded is not None else None))
    return "\n\n".join(parts) + "\n"


def funnel_table(mined: Tally, oracles: Tally | None) -> str:
    summary = mined.summary or {}
    skipped: dict[str, int] = dict(summary.get("skipped") or {})
    examples: dict[str, str] = {}
    for skip in mined.skip_lines:
        examples.setdefault(str(skip.get("reason")), str(skip.get("title", "")))
    steps: list[list[Any]] = [
        ["commits examined", summary.get("examined", 0), ""],
        ["changes that say they fix something", summary.get("candidates", 0), ""],
    ]
    for reason, count in sorted(skipped.items(), key=lambda item: (-item[1], item[0])):
        if reason == "not-a-fix":
            continue
        steps.append([f"  left out: {reason}", count, _clip(examples.get(reason, ""), 50)])
    steps.append(["tasks", len(mined.tasks), ""])
    if oracles is not None:
        set_aside: dict[str, int] = {}
        for skip in oracles.skip_lines:
            if skip.get("stage") == "oracle":
                reason = str(skip.get("reason"))
                set_aside[reason] = set_aside.get(reason, 0) + 1
        for reason, count in sorted(set_aside.items()):
            steps.append([f"  set aside by the oracle: {reason}", count, ""])
        grounded = sum(1 for task in oracles.tasks if task.get("oracle") is not None)
        steps.append(["tasks with ground truth", grounded, ""])
    stopped = {"since": "at [tasks] since", "limit": "at [tasks] limit"}.get(
        str(summary.get("stopped")), ""
    )
    note = f"\nMining stopped {stopped}; older history was not examined." if stopped else ""
    return tabulate(steps, headers=["funnel", "count", "for example"], disable_numparse=True) + note


def explain_table(verdicts: list[tuple[str, str, str]]) -> str:
    """``bugbout tasks --explain``: every rule, in order, with its verdict for one commit."""
    return tabulate(verdicts, headers=["rule", "verdict", "why"], disable_numparse=True) + "\n"
