"""``bugbout tasks``: the mined tasks and the funnel that found them, as tables.

The tables are laid out by the report's renderer (:func:`bb_core.cli.tables.fit`): on a
terminal (or with ``COLUMNS`` set) they fit its width; piped, each row stays on one line
so that ``grep`` finds it whole.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from bb_core.cli.tables import fit, terminal_width
from bb_core.records.kinds import JSONObject

from bugbout.stages import Tally

TITLE_WIDTH = 56
#: The width when standard output is not a terminal and ``COLUMNS`` is unset: any.
UNBOUNDED = 1 << 30


def _table(
    headers: list[str], rows: list[list[Any]], numeric: frozenset[int], whole: frozenset[int]
) -> str:
    """The table fitted to the terminal; columns in *whole* wrap rather than being cut."""
    cells = [[str(cell) for cell in row] for row in rows]
    numbers = [i in numeric for i in range(len(headers))]
    width = terminal_width(default=UNBOUNDED)
    return "\n".join(fit(headers, cells, numbers, width, whole=whole))


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


def statement_cell(task: Mapping[str, Any]) -> str:
    """``issue #11 (export), 312 ch``: where the statement came from and its length, and
    ``, thin`` when it was kept though no symptom was left in it (``statement-thin``)."""
    kind = str(task.get("statement_kind") or "")
    issue = task.get("statement_issue") or {}
    if kind in ("issue", "pull-request") and issue:
        number = issue.get("via_pull_request") if kind == "pull-request" else issue.get("number")
        what = f"{'PR' if kind == 'pull-request' else 'issue'} #{number or issue.get('number')}"
    else:
        what = {"commit-message": "commit message", "title": "title only"}.get(kind, kind or "?")
    source = task.get("statement_source")
    origin = f" ({source})" if source in ("export", "github") else ""
    length = task.get("statement_length", len(str(task.get("statement", ""))))
    thin = ", thin" if task.get("statement_flag") == "statement-thin" else ""
    return f"{what}{origin}, {length} ch{thin}"


def redactions_text(mined: Tally) -> str:
    """Each task's statement as agents read it, then every removal and fallback."""
    parts = []
    for task in mined.tasks:
        lines = [f"== {task['id']}: {statement_cell(task)}", ""]
        lines += ["    " + line for line in str(task.get("statement", "")).splitlines()]
        for fallback in task.get("statement_fallbacks", ()):
            lines += ["", f"  passed over: {fallback['reason']}"]
        removed = task.get("redacted", ())
        if not removed:
            lines += ["", "  nothing was removed"]
        for item in removed:
            lines += ["", f"  removed ({item['rule'].replace('_', ' ')}):"]
            lines += ["    | " + line for line in str(item["text"]).splitlines()]
        parts.append("\n".join(lines) + "\n")
    for skip in mined.skip_lines:
        if skip.get("reason") == "no-statement":
            lines = [f"== skipped {str(skip.get('commit', ''))[:10]}: no-statement"]
            for fallback in (skip.get("detail") or {}).get("fallbacks", ()):
                lines.append(f"  passed over: {fallback['reason']}")
            parts.append("\n".join(lines) + "\n")
    return "\n".join(parts) if parts else "No task was mined.\n"


def tasks_table(mined: Tally, oracles: Tally | None = None) -> str:
    """The tasks, one row each, then the funnel: what was examined and why fixes were left out."""
    grounded = grounded_by_id(oracles, mined)
    rows: list[list[Any]] = []
    for task in mined.tasks:
        refs = " ".join(f"#{ref['number']}" for ref in task.get("issue_refs", ()))
        rows.append(
            [
                task["id"],
                str(task.get("date", ""))[:10],
                _clip(str(task.get("title", "")), TITLE_WIDTH),
                refs,
                str(task.get("category", "unknown")),
                statement_cell(task),
                len(task.get("source_files", ())),
                len(task.get("new_tests", ())),
                _truth(str(task["id"]), grounded),
            ]
        )
    headers = [
        "task", "landed", "title", "refs", "kind", "statement", "source files", "new tests",
        "ground truth",
    ]  # fmt: skip
    parts = []
    if rows:
        parts.append(_table(headers, rows, numeric=frozenset({6, 7}), whole=frozenset({5, 8})))
    else:
        parts.append("No task was mined.")
    parts.append(funnel_table(mined, oracles if grounded is not None else None))
    return "\n\n".join(parts) + "\n"


def tasks_json(mined: Tally, oracles: Tally | None = None) -> Iterator[JSONObject]:
    """``bugbout tasks --json``: one object per task (the table's row) and per skip line
    the mining wrote, in the mining's order of tasks then skips."""
    grounded = grounded_by_id(oracles, mined)
    for task in mined.tasks:
        task_id = str(task["id"])
        truth: JSONObject | None = None
        entry = (grounded or {}).get(task_id)
        if entry is not None and entry.get("kind") == "skip":
            truth = {"set_aside": entry.get("reason"), "message": entry.get("message")}
        elif entry is not None:
            oracle = entry.get("oracle") or {}
            truth = {
                "fail_to_pass": len(oracle.get("fail_to_pass", ())),
                "pass_to_pass": len(oracle.get("pass_to_pass", ())),
            }
        yield {
            "kind": "task",
            "id": task_id,
            "landed": str(task.get("date", ""))[:10] or None,
            "title": task.get("title"),
            "refs": [ref["number"] for ref in task.get("issue_refs", ())],
            "category": task.get("category", "unknown"),
            "statement": {
                "kind": task.get("statement_kind"),
                "source": task.get("statement_source"),
                "length": task.get("statement_length", len(str(task.get("statement", "")))),
                "flag": task.get("statement_flag"),
            },
            "source_files": len(task.get("source_files", ())),
            "new_tests": len(task.get("new_tests", ())),
            "ground_truth": truth,
        }
    for skip in mined.skip_lines:
        yield {
            "kind": "skip",
            "commit": skip.get("commit"),
            "title": skip.get("title"),
            "reason": skip.get("reason"),
            "message": skip.get("message"),
        }


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
    return _table(["funnel", "count", "for example"], steps, frozenset({1}), frozenset({2})) + note


def explain_table(verdicts: list[tuple[str, str, str]]) -> str:
    """``bugbout tasks --explain``: every rule, in order, with its verdict for one commit."""
    rows: list[list[Any]] = [list(verdict) for verdict in verdicts]
    return _table(["rule", "verdict", "why"], rows, frozenset(), frozenset({2})) + "\n"
