"""What one commit says about itself, independent of every other commit.

These facts are all the rules need, so they are what the mining cache keeps per commit:
the title, fix signals and references for every commit that carries a fix signal, and for
those naming an issue the changed source and test files, the tests added or changed, both
patches and the protected paths. The names a statement must not mention are read later, for
tasks only (:func:`source_names`).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from bb_core.git import DELETE, Change, Commit, Repo
from bb_core.paths import conftest_candidates, is_test_file
from bb_core.paths.discovery import CONFIG_FILES as PYTEST_CONFIG_FILES
from bb_core.paths.discovery import NEVER_TESTS, TestNames, holds_pytest_config, names_at

from bb_mine.folders import common as _common
from bb_mine.folders import in_folder as _in
from bb_mine.folders import places as _places
from bb_mine.names import source_names
from bb_mine.node_facts import NODE_RULES_VERSION, is_node, node_tree_facts
from bb_mine.rules import (
    change_text,
    fix_signals,
    issue_refs,
    might_name_issue,
    might_signal_fix,
)
from bb_mine.tests_added import Module, Unparseable, collect_module, compare

#: How many collected test modules to keep in memory, by blob sha and naming rules.
_MEMO_SIZE = 64


@dataclass(frozen=True)
class Layout:
    """Where a repository keeps its code and tests, as bugbout.toml and the flags say.

    ``sources`` are folders (``""`` for the whole tree) or single modules (``black.py``);
    at each commit a folder that is not there is looked for at its other usual place
    (``src/<name>`` for ``<name>`` and back), so fixes from before a layout move are found.
    """

    sources: tuple[str, ...]
    tests: str
    own_repo: str | None = None
    test_files: tuple[str, ...] | None = None  # [project] test-files: replaces python_files
    require_fix_signal: bool = True
    #: Whether the linked issues' labels can be read (an export or GitHub): then a change
    #: with no other fix signal that names an issue keeps its references and parent, for
    #: its labels may make it a fix (:meth:`bb_mine.statements.StatementFinder.bug_labelled`).
    labels: bool = False
    #: Read the names a statement must not mention for changes of at most this many source
    #: modules (``max_source_files``): the rest cannot be tasks. Not part of :meth:`key`:
    #: facts without names get them when they become a task.
    names_up_to: int = 2
    #: ``[project] language``: ``javascript`` and ``typescript`` are mined the node way
    #: (:mod:`bb_mine.node_facts`), with ``runner`` (``vitest``, ``jest``) titling rows.
    language: str = "python"
    runner: str | None = None

    def key(self) -> tuple[Any, ...]:
        key = (self.sources, self.tests, self.test_files, self.require_fix_signal, self.labels)
        if self.language == "python":
            return key
        return (*key, self.language, self.runner, NODE_RULES_VERSION)


class FactFinder:
    """Reads the facts of commits in one repository with a given :class:`Layout`."""

    def __init__(self, repo: Repo, layout: Layout) -> None:
        self.repo = repo
        self.layout = layout
        self.own_repo = layout.own_repo
        self._collected: OrderedDict[tuple[str, TestNames], Module] = OrderedDict()

    def facts(self, commit: Commit) -> dict[str, Any]:
        facts = self.message_facts(commit)
        if needs_trees(facts):
            facts |= self.tree_facts(commit.sha, facts["parent"])
        return facts

    def message_facts(self, commit: Commit, *, force: bool = False) -> dict[str, Any]:
        """What the commit's message says: the cheap rules, read before any tree.

        A commit that passes them (a fix signal and an issue reference, with a parent)
        records its parent; :func:`needs_trees` then says its :meth:`tree_facts` are still
        to be read. *force* (a commit ``[tasks] include`` names) records the parent of any
        commit that has one.
        """
        require, labels = self.layout.require_fix_signal, self.layout.labels
        if (
            require
            and not force
            and not commit.is_merge
            and not might_signal_fix(commit.title, commit.message)
            and not (labels and might_name_issue(commit.message))
        ):
            return {"title": commit.title, "fix": False}  # most commits end here
        text = change_text(commit.message, commit.is_merge)
        signals = fix_signals(commit.message, text, commit.is_merge, self.own_repo)
        # What the commit says, whatever include says (the facts are cached for every run).
        facts: dict[str, Any] = {"title": text.title, "fix": bool(signals) or not require}
        if signals:
            facts["signals"] = signals
        if not facts["fix"] and not force and not labels:
            return facts
        refs = issue_refs(text, self.own_repo)
        if not facts["fix"] and not force and not refs:
            return facts  # no signal, and no issue whose labels could give one
        facts |= {
            "date": commit.date.isoformat(),
            "body": text.body,
            "pr": text.pull_request,
            "refs": [r.to_fact() for r in refs],
        }
        if text.branch:
            facts["branch"] = text.branch
        if not refs and not force:
            return facts
        if not commit.parents:
            facts["root"] = True
            return facts
        facts["parent"] = commit.parents[0]
        return facts

    # -- the trees ------------------------------------------------------------------------

    def tree_facts(self, sha: str, parent: str) -> dict[str, Any]:
        """What commit *sha* changes against *parent*: source, test and other files, the
        tests added and changed, patches, protected paths and (when the change is small
        enough to be a task) the names it touches."""
        if is_node(self.layout.language):
            return node_tree_facts(self, sha, parent)
        repo, layout, tests = self.repo, self.layout, self.layout.tests
        facts: dict[str, Any] = {}
        names = names_at(repo, sha, layout.test_files)
        places = {s: _places(s) for s in layout.sources}
        roots = [tests, *names.testpaths, *(p for ps in places.values() for p in ps)]
        # Test modules by names the user gave may sit anywhere: then the whole tree
        # (subtrees that are the same on both sides are never opened either way).
        whole = "" in roots or "." in roots or layout.test_files is not None
        changes = repo.changes(sha, parent, None if whole else roots)
        test_changes = [c for c in changes if _is_test(c, tests, names)]
        others = [c for c in changes if c not in test_changes]
        folders = self._folders(sha, parent, places, others)
        source_changes = [c for c in others if any(_in(c, f) for f in folders)]
        python = sorted({c.path for c in source_changes if c.path.endswith(".py")})
        facts["source_files"] = python
        data = sorted({c.path for c in source_changes if not c.path.endswith(".py")})
        if data:
            facts["other_files"] = data
        if not python:
            return facts
        facts["base_source"] = _common(folders, python)
        facts["test_files"] = sorted({p for c in test_changes for p in (c.path, c.old_path) if p})
        functions: list[str] = []
        cases: list[str] = []
        changed: list[str] = []
        for change in test_changes:
            named = names.is_test_module(change.path)
            if change.type == DELETE or not (named or _maybe_tests(change.path)):
                continue
            try:
                before = self._collect(
                    change.old_sha, f"{change.old_path or change.path} (before)", names
                )
                after = self._collect(change.new_sha, change.path, names, before)
            except Unparseable as exc:
                if not named:
                    continue  # not the project's test module: data that need not parse
                facts["unreadable"] = str(exc)
                return facts
            if not after.tests and not named:
                continue  # a helper module: no tests of its own
            new_functions, new_cases, edited = compare(before.tests, after.tests, change.path)
            functions += new_functions
            cases += new_cases
            changed += edited
        facts["added"], facts["added_strict"] = functions + cases, functions
        if changed:
            facts["changed"] = changed
        if not functions and not cases and not changed:
            return facts
        facts["reference_patch"] = repo.diff_changes(source_changes)
        facts["test_patch"] = repo.diff_changes(test_changes)
        facts["protected_paths"] = protected_paths(repo, sha, test_changes)
        if names.origin:
            facts["test_names"] = names.to_record()
        if len(python) <= layout.names_up_to:  # a task if the other rules agree
            facts["names"] = source_names(repo, facts, sha, parent)
        return facts

    def _folders(
        self, sha: str, parent: str, places: dict[str, tuple[str, ...]], changes: list[Change]
    ) -> list[str]:
        """The package folders as they were at this change: each configured one, or its
        other usual place when only that holds changed files and the configured one is on
        neither side."""
        found: list[str] = []
        for source, (configured, *others) in places.items():
            found.append(configured)
            if any(_in(c, configured) for c in changes):
                continue
            for other in others:
                if any(_in(c, other) for c in changes) and not (
                    self.repo.exists(parent, source) or self.repo.exists(sha, source)
                ):
                    found.append(other)
                    break
        return found

    def _collect(
        self, blob: str | None, label: str, names: TestNames, previous: Module | None = None
    ) -> Module:
        if blob is None:
            return Module({})
        key = (blob, names)
        found = self._collected.get(key)
        if found is not None:
            self._collected.move_to_end(key)
            return found
        found = collect_module(self.repo.read_object(blob), label, previous, names)
        self._collected[key] = found
        if len(self._collected) > _MEMO_SIZE:
            self._collected.popitem(last=False)
        return found


def needs_trees(facts: dict[str, Any]) -> bool:
    """True for a commit that passed the cheap rules and whose tree facts are not read yet."""
    return "parent" in facts and "source_files" not in facts


def _maybe_tests(path: str) -> bool:
    """A Python file in a test folder that no setting names but that pytest runs when it is
    named on the command line: ``tests_*.py`` of the nose era, ``tests.py``, ``testing.py``
    (a name starting with ``test``). Data files of a test suite (``tests/data/*.py``) are
    not read."""
    name = path.rsplit("/", 1)[-1]
    return name.endswith(".py") and name.startswith("test") and name not in NEVER_TESTS


def _is_test(change: Change, tests: str, names: TestNames) -> bool:
    return is_test_file(change.path, tests, names) or (
        change.old_path is not None and is_test_file(change.old_path, tests, names)
    )


def protected_paths(repo: Repo, sha: str, test_changes: list[Change]) -> list[str]:
    """The fix's test files, every conftest.py above them, and pytest's config files."""
    files = {c.path for c in test_changes if c.type != DELETE}
    paths = set(files)
    paths.update(
        p for p in conftest_candidates(sorted(files)) if repo.read_blob(sha, p) is not None
    )
    blobs = repo.root_blob_ids(sha, PYTEST_CONFIG_FILES)
    for name, blob in zip(PYTEST_CONFIG_FILES, blobs, strict=True):
        if blob is not None and _holds_config(repo, name, blob):
            paths.add(name)
    return sorted(paths)


_HOLDS: dict[tuple[str, str], bool] = {}
_HOLDS_KEPT = 1024


def _holds_config(repo: Repo, name: str, blob: str) -> bool:
    """Whether config file *name* with object id *blob* holds pytest's settings: along a
    history each version is read and parsed once."""
    key = (name, blob)
    found = _HOLDS.get(key)
    if found is None:
        content = repo.read_object(blob)
        found = content is not None and holds_pytest_config(name, content)
        if len(_HOLDS) >= _HOLDS_KEPT:
            _HOLDS.clear()
        _HOLDS[key] = found
    return found
