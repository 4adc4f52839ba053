"""The records a mining run writes for one commit: its task line, or its skip line.

A task line is built from the commit's facts (:mod:`bb_mine.facts`), the statement found
for it (:mod:`bb_mine.statements`) and the labels of its linked issues and pull requests,
which decide its category; a change whose category is not taken, or for which no text keeps
enough once redacted, becomes a skip line instead.
"""

from __future__ import annotations

from typing import Any

from bb_core.git import Repo
from bb_core.records import kinds
from bb_core.records.kinds import MineSkipReason
from bb_core.records.schemas import VERSION

from bb_mine.cache import MiningCache
from bb_mine.names import source_names
from bb_mine.options import MineSettings
from bb_mine.rules import BUG_LABELS, FEATURE_LABELS, ChangeText, IssueRef, category
from bb_mine.statements import StatementFinder, choose, labels_of
from bb_mine.verdicts import Reason, Rules


class TaskMaker:
    """Writes the task and skip lines of one mining run."""

    def __init__(
        self,
        repo: Repo,
        options: MineSettings,
        finder: StatementFinder,
        rules: Rules,
        cache: MiningCache,
        *,
        repository: str,
        source: str,
        tests: str,
    ) -> None:
        self.repo = repo
        self.options = options
        self.finder = finder
        self.rules = rules
        self.cache = cache
        self.repository = repository
        self.source = source
        self.tests = tests

    def task(
        self, sha: str, facts: dict[str, Any], *, by_label: str = ""
    ) -> tuple[kinds.Task | Reason, list[tuple[str, int]]]:
        """The task record, or why the change is skipped after all; and the issue keys it
        claims (for duplicates).

        *by_label* marks a change whose only possible fix signal is a bug label on a linked
        issue or pull request (see :class:`bb_mine.fanout.Examined`): without one, it is
        skipped as ``not-a-fix``.
        """
        refs = [IssueRef.from_fact(r) for r in facts["refs"]]
        change = ChangeText(facts["title"], facts.get("body", ""), facts.get("pr"))
        if "names" not in facts:  # parsed once, for tasks only, then kept in the cache
            facts["names"] = source_names(self.repo, facts, sha, facts["parent"])
            if self.options.use_cache:  # as the commit says, not as this run judged it
                self.cache.remember(sha, facts | {"fix": False} if by_label else facts)
        candidates = self.finder.find(refs, change)
        keys = sorted(candidates[0].keys)
        labels = labels_of(candidates)
        signals = list(facts.get("signals", []))
        if set(labels) & BUG_LABELS:
            signals.append("label")
        elif by_label:
            return (
                "not-a-fix",
                "nothing says the change is a fix: no fix word, closing keyword or "
                f"fix branch, and no bug label on its linked issues ({', '.join(labels) or 'no labels'})",
                {"labels": labels},
            ), keys
        kind = category(facts["title"], signals, labels, facts.get("branch"))
        included = self.rules.picked(sha, self.options.include)
        if kind not in self.options.categories and not included:
            said = (
                f"the linked issue or pull request is labelled a {kind} ({', '.join(labels)})"
                if set(labels) & (BUG_LABELS | FEATURE_LABELS)
                else f"the change reads like a {kind} and no label on its linked issues says "
                "otherwise" + (f" ({', '.join(labels)})" if labels else "")
            )
            return (
                "category",
                f"{said}, not one of tasks.categories ({', '.join(self.options.categories)})",
                {"category": kind, "labels": labels},
            ), keys
        dropped: list[dict[str, str]] = []
        chosen, fallbacks = choose(
            candidates,
            facts["names"],
            facts["reference_patch"],
            min_sentences=self.options.statement_min_sentences,
            tests=facts.get("test_files", ()),
            test_patch=facts.get("test_patch", ""),
            keep_thin=self.options.keep_thin_statements,
            dropped=dropped,
            node=self.options.language != "python",
        )
        if chosen is None:
            message = (
                "no issue, pull request, commit message or title keeps a symptom once what "
                "reveals the fix is removed"
            )
            detail = {"fallbacks": fallbacks, "redacted": dropped}
            return ("no-statement", message, detail), keys
        statement, redacted, fallbacks = chosen.statement, chosen.redacted, chosen.fallbacks
        added = self.rules.new_tests(facts)
        if included:
            signals.append("included")
        issue: kinds.TaskStatementIssue = {"number": 0}
        if statement.issue is not None:
            issue["number"] = statement.issue.number
            if statement.issue.repo:
                issue["repo"] = statement.issue.repo
            if statement.via_pull_request is not None:
                issue["via_pull_request"] = statement.via_pull_request
        # Every field in the order the line is written; the optional ones in the middle
        # that this task lacks are dropped again below.
        record: kinds.Task = {
            "kind": "task",
            "v": VERSION,
            "id": f"{self.repo.name}-{sha[:10]}",
            "repository": self.repository,
            "base_commit": facts["parent"],
            "fix_commit": sha,
            "date": facts["date"],
            "title": facts["title"],
            "issue_refs": [r.to_record() for r in refs],
            "statement": redacted.text,
            "statement_source": statement.source,
            "statement_kind": statement.kind,
            "statement_length": len(redacted.text),
            "statement_sentences": chosen.sentences,
            "statement_url": statement.url,
            "statement_issue": issue,
            "statement_notes": statement.notes,
            "statement_fallbacks": fallbacks,
            "redactions": redacted.counts,
            "redacted": redacted.removed,
            "source": facts.get("base_source", self.source),
            "tests": self.tests,
            "source_files": facts["source_files"],
            "test_files": facts["test_files"],
            "protected_paths": facts["protected_paths"],
            "new_tests": added,
            "fix_signals": signals,
            "category": kind,
            "reference_patch": facts["reference_patch"],
            "test_patch": facts["test_patch"],
        }
        if not statement.url:
            del record["statement_url"]
        if statement.issue is None:
            del record["statement_issue"]
        if not statement.notes:
            del record["statement_notes"]
        if not fallbacks:
            del record["statement_fallbacks"]
        if chosen.thin:
            record["statement_flag"] = "statement-thin"
        if labels:
            record["labels"] = labels
        if facts.get("other_files"):
            record["other_files"] = facts["other_files"]
        if facts.get("changed"):
            record["changed_tests"] = facts["changed"]
        if facts.get("branch"):
            record["branch"] = facts["branch"]
        if facts.get("test_names"):
            record["test_names"] = facts["test_names"]
        return record, keys

    def skip(
        self,
        sha: str,
        facts: dict[str, Any],
        code: MineSkipReason,
        message: str,
        detail: dict[str, Any],
    ) -> kinds.Skip:
        record: kinds.Skip = {
            "kind": "skip",
            "v": VERSION,
            "stage": "mine",
            "reason": code,
            "message": message,
            "commit": sha,
            "title": facts["title"],
        }
        if detail:
            record["detail"] = detail
        return record


def commit_only_warning(exported: bool, github: str | None) -> str:
    """The one warning for a run whose statements all came from commit messages."""
    if exported:
        why = "the issues export names none of the referenced issues"
    elif github:
        why = f"GitHub ({github}) gave no issue text"
    else:
        why = "there is no issues export and no GitHub repository is known"
    return (
        f"every statement came from a commit message ({why}); agents read words written "
        "with the fix in hand. Give issue texts with --issues FILE (tasks.issues, JSON lines "
        "of number, title, body) or name the GitHub repository with --github OWNER/NAME "
        "(project.github), with GITHUB_TOKEN set for private ones"
    )


def key_text(key: tuple[str, int]) -> str:
    repo, number = key
    return f"{repo}#{number}" if repo else f"#{number}"
