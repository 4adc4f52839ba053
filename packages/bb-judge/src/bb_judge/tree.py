"""The tree a patch is scored on, and what running the hidden tests on it produced.

The base tree is written out of git (no ``.git``), the patch's changes to the package
alone are applied (:func:`bb_judge.grading.source_filter`; the rest is dropped and
listed), the fix's test files are installed and every protected path is restored from
the fix unconditionally (a file the patch added at one is removed).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from bb_core.errors import UsageError
from bb_core.git import Repo
from bb_core.patch import apply_patch, files_in_patch
from bb_core.patch.check import binary_files, outside_links
from bb_core.patch.names import odd_name, odd_name_flags
from bb_core.paths.node_protected import is_node_task
from bb_core.records import kinds
from bb_core.records.kinds import Task
from bb_core.records.vocabulary import FLAG_BINARY_SOURCE, FLAG_SYMLINK_OUTSIDE
from bb_core.store.scratch import remove_tree

from bb_judge.grading import task_filter
from bb_judge.manifest import MANIFEST, allowed_manifests


@dataclass
class Outcome:
    """What running one patch produced: enough to rebuild its score record (and cache it)."""

    applied: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    outcomes: dict[str, kinds.Outcome] = field(default_factory=dict)
    run: kinds.Testrun | None = None
    error: str | None = None
    #: What the patch's text gives away (links out of the tree, binary files) and, when
    #: the run was void, the evidence of tampering.
    flags: list[str] = field(default_factory=list)
    tampered: list[str] = field(default_factory=list)
    #: When no worker could finish the score: ``reason``, ``message`` and ``log``.
    crash: kinds.ScoreCrash | None = None

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None and v != []}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Outcome:
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})


def hidden_modules(task: Task) -> list[str]:
    """The files to hand pytest: the oracle's modules, else those of its test ids."""
    oracle = task["oracle"]
    modules = oracle.get("test_modules")
    if modules:
        return list(modules)
    ids = [*oracle["fail_to_pass"], *oracle["pass_to_pass"]]
    # A node test id is ``path > describe > name``; pytest's, ``path::name``.
    sep = " > " if is_node_task(task) else "::"
    return sorted({nodeid.split(sep, 1)[0] for nodeid in ids})


def protected_paths(task: Task) -> list[str]:
    """Paths restored from the fix before the hidden tests run: protected paths and test files."""
    return sorted({*task.get("protected_paths", ()), *task.get("test_files", ())})


def prepare(
    repo: Repo,
    task: Task,
    patch: str,
    dest: Path,
    runner_protected: Callable[[Path], Sequence[str]] | None = None,
) -> Outcome:
    """Write the tree a patch is scored on into *dest*; PatchError when it does not apply.

    *runner_protected*: for a node task, the runner's
    :meth:`~bb_core.testrun.runner.TestRunner.protected`, read from the base tree - its
    configuration files and the setup files they name (paths or ``fnmatch`` patterns) are
    never applied either. The ``package.json`` it names is left to the manifest's own
    rule (:mod:`bb_judge.manifest`): an edit of other keys than the tests' is applied."""
    protected = protected_paths(task)
    repo.materialize(task["base_commit"], dest)
    kept_out = protected
    if runner_protected is not None and is_node_task(task):
        named = [p for p in runner_protected(dest) if PurePosixPath(p).name != MANIFEST]
        kept_out = sorted({*protected, *named})
    in_package = task_filter(task, kept_out)
    links = outside_links(patch, dest)
    manifests = (
        allowed_manifests(patch, dest, task["source"], kept_out)
        if patch.strip() and is_node_task(task)
        else set()
    )

    def keep(path: str) -> bool:
        # A name that is not UTF-8 is never applied (apply_patch drops it too).
        return (in_package(path) or path in manifests) and path not in links and not odd_name(path)

    applied, dropped = apply_patch(patch, dest, include=keep) if patch.strip() else ([], [])
    restore(repo, task["fix_commit"], dest, protected)
    flags = [f"{FLAG_SYMLINK_OUTSIDE}:{path} -> {target}" for path, target in links.items()]
    flags += odd_name_flags(files_in_patch(patch)) if patch.strip() else []
    flags += [f"{FLAG_BINARY_SOURCE}:{path}" for path in binary_files(patch, keep)]
    return Outcome(applied=applied, dropped=dropped, flags=flags)


def restore(repo: Repo, fix_commit: str, dest: Path, paths: Sequence[str]) -> None:
    """Make every path in *paths* exactly what it is in the fix: rewritten, or removed."""
    for path in paths:
        parts = PurePosixPath(path).parts
        if not parts or PurePosixPath(path).is_absolute() or ".." in parts or ".git" in parts:
            raise UsageError(f"refusing to restore {path!r}: not a path inside the repository")
        target = dest / path
        if target.is_symlink() or target.is_file():
            target.unlink()
        elif target.is_dir():
            remove_tree(target)
        for name in repo.list_files(fix_commit, path):
            data = repo.read_blob(fix_commit, name)
            if data is None:
                continue
            out = dest / name
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(data)
