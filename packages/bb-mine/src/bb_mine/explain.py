"""Every rule's verdict for one commit: why it became a task, or which rule left it out.

``bugbout tasks --explain <sha>`` prints these. The rules are the ones :func:`bb_mine.mine`
applies, read from the same facts. A change that passes them is then written as a run
writes it, so the verdicts decided only then are this run's too: the category by the
linked issues' labels (with an issues export or GitHub) and ``no-statement`` (from the
issue's text); ``duplicate-issue``, which depends on the newer commits, is read from a
run with the same options (the mining cache makes it quick once mined).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from bb_core.errors import UsageError
from bb_core.git import open_repo

from bb_mine.facts import needs_trees
from bb_mine.mine import REASONS, Miner, MineSettings, mine
from bb_mine.statements import IssueExport

PASSED, FAILED, NOT_REACHED = "passes", "leaves it out", "not reached"

#: Rules decided only while the task is written or against the other tasks of a run.
LATER = {
    "no-statement": "decided when the statement is chosen",
    "duplicate-issue": "decided by a whole run",
}


def explain(location: str | Path, options: MineSettings, ref: str) -> list[tuple[str, str, str]]:
    """``(rule, verdict, why)`` for commit *ref* (a sha, short sha or branch), every rule in
    order; the first line says where the commit stands in the walked history.

    Raises :class:`~bb_core.errors.UsageError` for a commit that is not in the repository.
    """
    export = IssueExport.load(options.issues) if options.issues is not None else None
    with open_repo(location) as repo:
        miner = Miner(repo, options, export, lambda message: None, None)
        try:
            sha = repo.resolve(ref)
        except Exception as exc:
            raise UsageError(f"--explain: {ref!r} is not a commit of {repo.location}") from exc
        commit = repo.commit(sha)
        on_history = any(c.sha == sha for c in repo.first_parent(miner.head))
        rows: list[tuple[str, str, str]] = [
            (
                "first-parent history",
                PASSED if on_history else FAILED,
                f"{sha[:10]} is on {miner.branch}'s first-parent history"
                if on_history
                else f"{sha[:10]} is not on {miner.branch}'s first-parent history "
                "(it landed through a merge, or on another branch)",
            )
        ]
        if options.since is not None:
            landed = datetime.fromtimestamp(commit.timestamp, tz=options.since.tzinfo)
            old = landed < options.since
            rows.append(
                (
                    "since",
                    FAILED if old else PASSED,
                    f"landed {landed.date()}, {'before' if old else 'after'} tasks.since "
                    f"{options.since.date()}",
                )
            )
        force = miner.picked(sha, options.include)
        facts = miner.fact_finder.message_facts(commit, force=force)
        by_label = "" if facts["fix"] or force else miner.by_label(facts)
        if by_label:  # a bug label may make it a fix: judged as one, as a run judges it
            facts = facts | {"fix": True, "by_label": by_label}
        if needs_trees(facts):
            facts |= miner.fact_finder.tree_facts(sha, facts["parent"])
        verdicts: dict[str, Any] = dict(miner.verdicts(sha, facts))
        decided = ""
        dropped: list[dict[str, Any]] = []
        if verdicts and all(v is None for v in verdicts.values()):
            made, _ = miner.maker.task(sha, dict(facts), by_label=by_label)
            if isinstance(made, tuple):  # left out as the task was written
                verdicts[made[0]] = made
                dropped = made[2].get("redacted", []) if made[0] == "no-statement" else []
            else:
                decided = str(made["category"])
                verdicts["no-statement"] = None
                facts = facts | {
                    "statement_source": made["statement_source"],
                    "statement_flag": made.get("statement_flag", ""),
                }
                dropped = [dict(r) for r in made["redacted"]] if made.get("statement_flag") else []
    rows += _verdicts(verdicts, facts, decided)
    if dropped:  # what left it without a symptom, under its verdict
        at = next(i for i, row in enumerate(rows) if row[0] == "no-statement") + 1
        rows[at:at] = [
            ("", "dropped", f"{d.get('kind', 'statement')}, {d['rule']}: {d['text']}")
            for d in dropped
        ]
    if not any(verdict == FAILED for _, verdict, _ in rows):
        at = next(i for i, row in enumerate(rows) if row[0] == "duplicate-issue")
        rows[at] = ("duplicate-issue", *_in_a_run(location, options, sha))
    return rows


def _verdicts(
    verdicts: dict[str, Any], facts: dict[str, Any], decided: str
) -> list[tuple[str, str, str]]:
    """One row per rule of :data:`REASONS`, in order, from the verdicts found."""
    rows: list[tuple[str, str, str]] = []
    failed = False
    for rule in REASONS:
        if rule in LATER and rule not in verdicts:
            rows.append((rule, NOT_REACHED if failed else "-", LATER[rule]))
            continue
        if failed or rule not in verdicts:
            rows.append((rule, NOT_REACHED, ""))
            continue
        reason = verdicts[rule]
        if reason is None:
            rows.append((rule, PASSED, decided if rule == "category" else _passed(rule, facts)))
        else:
            failed = True
            rows.append((rule, FAILED, reason[1]))
    return rows


def _in_a_run(location: str | Path, options: MineSettings, sha: str) -> tuple[str, str]:
    """The ``duplicate-issue`` verdict on *sha* as a run with *options* gives it."""
    records = mine(location, options)
    try:
        for record in records:
            kind = record.get("kind")
            if kind == "task" and record.get("fix_commit") == sha:
                return PASSED, f"no newer task claims its issues; a run makes it {record.get('id')}"
            if kind == "skip" and record.get("commit") == sha:
                return FAILED, str(record.get("message", record.get("reason")))
            if kind == "summary":
                return NOT_REACHED, f"a run stops at tasks.{record.get('stopped')} before it"
    finally:
        records.close()
    return NOT_REACHED, ""


def _passed(rule: str, facts: dict[str, Any]) -> str:
    """What a passed rule saw, in a few words."""
    if rule == "not-a-fix":
        if facts.get("by_label") == "export":
            return "fix signals: label (a bug label in the issues export)"
        if facts.get("by_label"):
            return "fix signals: none but a linked issue's labels, read from GitHub when the task is written"
        signals = facts.get("signals") or []
        return "fix signals: " + ", ".join(map(str, signals)) if signals else "no signal needed"
    if rule == "no-issue-reference":
        refs = facts.get("refs") or []
        return " ".join(str(r["text"]) for r in refs if isinstance(r, dict)) or "included"
    if rule == "no-source-change" or rule == "too-many-source-files":
        return ", ".join(map(str, facts.get("source_files") or []))
    if rule == "no-test-added":
        tests = [*list(facts.get("added") or []), *list(facts.get("changed") or [])]
        return ", ".join(map(str, tests[:3])) + (" ..." if len(tests) > 3 else "")
    if rule == "no-statement":
        thin = " (statement-thin: kept by tasks.keep-thin-statements)"
        return f"from the {facts.get('statement_source', 'commit')}" + (
            thin if facts.get("statement_flag") else ""
        )
    return ""
