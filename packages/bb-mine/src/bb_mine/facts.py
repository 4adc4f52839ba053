"""What one commit says about itself, independent of every other commit.

These facts are all the rules need, so they are what the mining cache keeps per commit:
the title and references for every fix-titled commit, and for those naming an issue the
changed source and test files, the tests added, both patches, the protected paths and the
names a statement must not mention.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from bb_core.git import DELETE, Change, Commit, Repo

from bb_mine.rules import (
    PYTEST_CONFIG_FILES,
    change_text,
    conftest_candidates,
    holds_pytest_config,
    is_test_module,
    issue_refs,
    reads_like_fix,
    under,
)
from bb_mine.symbols import modified_names
from bb_mine.tests_added import Module, Unparseable, collect_module, compare

#: How many collected test modules to keep in memory, by blob sha.
_MEMO_SIZE = 64


class FactFinder:
    """Reads the facts of commits in one repository with a given package and test folder."""

    def __init__(self, repo: Repo, source: str, tests: str, own_repo: str | None) -> None:
        self.repo = repo
        self.source = source
        self.tests = tests
        self.own_repo = own_repo
        self._collected: OrderedDict[str, Module] = OrderedDict()

    def facts(self, commit: Commit) -> dict[str, Any]:
        facts = self.message_facts(commit)
        if needs_trees(facts):
            facts |= self.tree_facts(commit.sha, facts["parent"])
        return facts

    def message_facts(self, commit: Commit) -> dict[str, Any]:
        """What the commit's message says: the cheap rules, read before any tree.

        A commit that passes them (a fix naming an issue, with a parent) records its
        parent; :func:`needs_trees` then says its :meth:`tree_facts` are still to be read.
        """
        if not commit.is_merge and not reads_like_fix(commit.title):
            return {"title": commit.title, "fix": False}  # most commits end here
        text = change_text(commit.message, commit.is_merge)
        facts: dict[str, Any] = {"title": text.title, "fix": reads_like_fix(text.title)}
        if not facts["fix"]:
            return facts
        refs = issue_refs(text, self.own_repo)
        facts |= {
            "date": commit.date.isoformat(),
            "body": text.body,
            "pr": text.pull_request,
            "refs": [r.to_record() | ({"closing": True} if r.closing else {}) for r in refs],
        }
        if not refs:
            return facts
        if not commit.parents:
            facts["root"] = True
            return facts
        facts["parent"] = commit.parents[0]
        return facts

    def tree_facts(self, sha: str, parent: str) -> dict[str, Any]:
        """What commit *sha* changes under the package and test folders against *parent*:
        files, added tests, patches, protected paths and the names it touches."""
        repo, source, tests = self.repo, self.source, self.tests
        facts: dict[str, Any] = {}
        changes = repo.changes(sha, parent, [source, tests])
        source_changes = [c for c in changes if _in(c, source) and not _in(c, tests)]
        test_changes = [c for c in changes if _in(c, tests)]
        facts["source_files"] = sorted({c.path for c in source_changes if c.path.endswith(".py")})
        if not facts["source_files"]:
            return facts
        facts["test_files"] = sorted({p for c in test_changes for p in (c.path, c.old_path) if p})
        functions: list[str] = []
        cases: list[str] = []
        for change in test_changes:
            if change.type == DELETE or not is_test_module(change.path):
                continue
            try:
                before = self._collect(change.old_sha, f"{change.old_path or change.path} (before)")
                after = self._collect(change.new_sha, change.path, before)
            except Unparseable as exc:
                facts["unreadable"] = str(exc)
                return facts
            new_functions, new_cases = compare(before.tests, after.tests, change.path)
            functions += new_functions
            cases += new_cases
        facts["added"], facts["added_strict"] = functions + cases, functions
        if not functions and not cases:
            return facts
        facts["reference_patch"] = repo.diff_changes(source_changes)
        facts["test_patch"] = repo.diff_changes(test_changes)
        facts["protected_paths"] = protected_paths(repo, sha, test_changes)
        facts["names"] = modified_names(
            (
                (c.path, repo.read_object(c.old_sha), repo.read_object(c.new_sha))
                for c in source_changes
                if c.path.endswith(".py")
            ),
            source,
        )
        return facts

    def _collect(self, blob: str | None, name: str, previous: Module | None = None) -> Module:
        if blob is None:
            return Module({})
        found = self._collected.get(blob)
        if found is not None:
            self._collected.move_to_end(blob)
            return found
        found = collect_module(self.repo.read_object(blob), name, previous)
        self._collected[blob] = found
        if len(self._collected) > _MEMO_SIZE:
            self._collected.popitem(last=False)
        return found


def needs_trees(facts: dict[str, Any]) -> bool:
    """True for a commit that passed the cheap rules and whose tree facts are not read yet."""
    return "parent" in facts and "source_files" not in facts


def _in(change: Change, folder: str) -> bool:
    return under(change.path, folder) or (
        change.old_path is not None and under(change.old_path, folder)
    )


def protected_paths(repo: Repo, sha: str, test_changes: list[Change]) -> list[str]:
    """The fix's test files, every conftest.py above them, and pytest's config files."""
    files = {c.path for c in test_changes if c.type != DELETE}
    paths = set(files)
    paths.update(
        p for p in conftest_candidates(sorted(files)) if repo.read_blob(sha, p) is not None
    )
    for name in PYTEST_CONFIG_FILES:
        content = repo.read_blob(sha, name)
        if content is not None and holds_pytest_config(name, content):
            paths.add(name)
    return sorted(paths)
