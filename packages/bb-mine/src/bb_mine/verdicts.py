"""The rules each commit faces, in order, and the verdict of each: what :mod:`bb_mine.mine`
skips a commit for, and what ``bugbout tasks --explain`` prints.

The rules read a commit's facts (:mod:`bb_mine.facts`) and the options; only
``duplicate-issue`` depends on other commits, and :mod:`bb_mine.mine` decides it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from bb_core.records.kinds import MineSkipReason

from bb_mine.options import MineSettings
from bb_mine.rules import category, matches_pick

#: A rule's verdict: None when the commit passes it, else (code, sentence, detail).
Reason = tuple[MineSkipReason, str, dict[str, Any]]
#: Why a commit is not a task (its skip line's reason, message and detail), or None.
Verdict = Reason | None


class Rules:
    """The rules for one mining run: its options, the package folders' name for messages,
    and the repository's name (task ids start with it)."""

    def __init__(self, options: MineSettings, source: str, repo_name: str) -> None:
        self.options = options
        self.source = source
        self.repo_name = repo_name
        #: Whether the linked issues' labels can be read (an export or GitHub): then a
        #: change whose wording is not among the categories waits for its labels.
        self.labels = False

    def picked(self, sha: str, picks: tuple[str, ...]) -> bool:
        return bool(picks) and matches_pick(sha, f"{self.repo_name}-{sha[:10]}", picks)

    def first_failure(self, sha: str, facts: dict[str, Any]) -> Verdict:
        """The first rule *facts* fail: (code, sentence, detail), or None for a task."""
        if not facts["fix"] and not self.options.exclude and not self.options.include:
            return _not_a_fix()  # most commits of a history: the same verdict, sooner
        for _rule, verdict in self.verdicts(sha, facts):
            if verdict is not None:
                return verdict
        return None

    def verdicts(self, sha: str, facts: dict[str, Any]) -> Iterator[tuple[str, Verdict]]:
        """Each rule in order, with the reason it skips the commit (None: it passes).

        Rules that cannot be judged once an earlier one failed (no tree was read) are not
        given.
        """
        opts = self.options
        if self.picked(sha, opts.exclude):
            yield "excluded", ("excluded", "tasks.exclude names this commit", {})
            return
        yield "excluded", None
        included = self.picked(sha, opts.include)
        signals = facts.get("signals", [])
        if not facts["fix"] and not included:
            yield "not-a-fix", _not_a_fix()
            return
        yield "not-a-fix", None
        if not facts.get("refs") and not included:
            yield (
                "no-issue-reference",
                ("no-issue-reference", "the change names no issue or pull request", {}),
            )
            return
        yield "no-issue-reference", None
        if facts.get("root"):
            yield (
                "no-parent",
                ("no-parent", "the first commit has no earlier tree to start from", {}),
            )
            return
        yield "no-parent", None
        if "source_files" not in facts:
            return
        sources = facts["source_files"]
        modules = "Python modules"
        if opts.language != "python":
            modules = "JavaScript or TypeScript modules"
        if not sources:
            yield (
                "no-source-change",
                (
                    "no-source-change",
                    f"the change touches no {modules[:-1]} under {self.source}",
                    {},
                ),
            )
            return
        yield "no-source-change", None
        limit = opts.max_source_files
        if len(sources) > limit and not included:
            yield (
                "too-many-source-files",
                (
                    "too-many-source-files",
                    f"the change touches {len(sources)} {modules} under {self.source}; "
                    f"at most {limit} make one bug",
                    {"source_files": sources},
                ),
            )
            return
        yield "too-many-source-files", None
        if facts.get("unreadable"):
            yield (
                "unreadable",
                ("unreadable", f"a test module cannot be parsed: {facts['unreadable']}", {}),
            )
            return
        yield "unreadable", None
        if not self.new_tests(facts):
            what = {
                "functions": "new test function",
                "cases": "test",
                "changed": "test and changes no existing test",
            }[opts.tests_rule]
            yield (
                "no-test-added",
                ("no-test-added", f"the change adds no {what} in a test module", {}),
            )
            return
        yield "no-test-added", None
        kind = category(facts["title"], signals, branch=facts.get("branch"))
        waits = self.labels and bool(facts.get("refs"))  # decided once labels are read
        if kind not in opts.categories and not included and not waits:
            yield (
                "category",
                (
                    "category",
                    f"the change reads like a {kind} fix, not one of tasks.categories "
                    f"({', '.join(opts.categories)})"
                    if kind != "feature"
                    else f"the change reads like a feature, not one of tasks.categories "
                    f"({', '.join(opts.categories)})",
                    {"category": kind},
                ),
            )
            return
        yield "category", None

    def new_tests(self, facts: dict[str, Any]) -> list[str]:
        rule = self.options.tests_rule
        if rule == "functions":
            return list(facts.get("added_strict", []))
        if rule == "cases":
            return list(facts.get("added", []))
        return [*facts.get("added", []), *facts.get("changed", [])]


def _not_a_fix() -> Verdict:
    return ("not-a-fix", "nothing says the change is a fix", {})
