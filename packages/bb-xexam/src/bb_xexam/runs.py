"""One author's tests on every column: a fresh tree and a fresh process per column.

Each author gets a fork server of its own (:class:`bb_core.testrun.served.ForkServer`): a
sandbox that imported pytest once and forks a new child for every column, so a column
costs a fork, not an interpreter and pytest starting up. The sandbox may write only in
the author's own folder, which holds one tree at a time: before each column the folder is
emptied and the unfixed tree (with only this author's tests) is copied into it and given
the column's source changes; after each run the server has killed every process the run
left and emptied the sandbox's scratch folders. So one column's code never sees
another's tree, and one author's tests never see another author's - each author's runs
happen in a sandbox no other author's code ever ran in.

A contestant's tests run once more on its own column's neutral twin - the same tree
with a change that cannot matter (:mod:`bb_xexam.neutral`) - so tests keyed to the
patch's bytes rather than its behaviour show.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from bb_core.envs import TestEnv
from bb_core.errors import BbError
from bb_core.patch import apply_patch
from bb_core.patch.check import outside_links
from bb_core.paths import DEFAULT_NAMES
from bb_core.records import kinds
from bb_core.records.kinds import Task
from bb_core.records.vocabulary import BASE
from bb_core.sandbox import Sandbox
from bb_core.store.treewalk import copy_tree
from bb_core.tamper.twins import Twin, cases_of
from bb_core.testrun import TestRun, run_environment, run_tests
from bb_core.testrun.served import OWN_NAMESPACES, ForkServer
from bb_core.testrun.touched import merged, touched_lines, whole_files

from bb_xexam.authors import AUTHORS_DIR, Column, kind_of, slug
from bb_xexam.blame import AuthorRun, author_run
from bb_xexam.install import Placed
from bb_xexam.neutral import make_neutral
from bb_xexam.node_tree import as_installed, in_place


def run_author(
    task: Task,
    columns: Sequence[Column],
    item: Placed,
    stage: Path,
    work: Path,
    *,
    env: TestEnv,
    sandbox: Sandbox,
    settings: Any,
    pythonpath: list[str],
    logs: Path,
    fork_server: bool = True,
    twins: Sequence[Twin] = (),
) -> tuple[dict[str, AuthorRun | str], AuthorRun | str | None]:
    """Every column's run of one author's tests, by column name (a string: why the
    column's patch does not apply), and the run on its own column's neutral twin (None
    when the author has no column of its own among *columns*). ``fork_server`` False - or a sandbox that gives no
    process namespace of its own, where a server could not clear up between runs - each
    run a new sandbox and interpreter instead (the same isolation, at the cost of a
    start-up per run).

    *twins* (negative twins of the base tree's test modules) run beside the author's
    tests, with the tests they copy, in every column: on the unfixed tree to see which
    of them fail there, then - only those - in every other column, where one that passes
    beside its passing original voids the run as tampered."""
    name = slug(item.author.name) or "suite"
    root = work / "authors" / name
    root.mkdir(parents=True)
    node = is_node_env(env)
    # A node runner starts its own workers: no pytest fork server.
    server: Any = (
        contextlib.nullcontext()
        if node
        else ForkServer(
            env.python, sandbox, writable=[root], files=work / "served" / name,
            env=run_environment(env.python, root, pythonpath, env.env),
        )
    )  # fmt: skip
    found: dict[str, AuthorRun | str] = {}
    on_neutral: AuthorRun | str | None = None
    served = not node and fork_server and sandbox.name in OWN_NAMESPACES
    checked: list[Twin] = []
    with server:
        for column in columns:
            on_base = column.name == BASE
            result = _run_column(
                task, column, item, stage, root, server, env=env, sandbox=sandbox,
                settings=settings, pythonpath=pythonpath, logs=logs / slug(column.name),
                served=served, twins=list(twins) if on_base else checked,
            )  # fmt: skip
            if isinstance(result, TestRun):
                if on_base and result.ok:
                    checked = [t for t in twins if _failed(t, result.twins)]
                found[column.name] = author_run(column.name, item, result)
            else:
                found[column.name] = result
        # Its first sample's column: a further sample's (``careful #2``) is not its own.
        own = next((c for c in columns if c.name == item.author.name), None)
        if own is not None and item.author.role == "contestant":
            ran = found[own.name]
            if not isinstance(ran, str) and ran.ok:
                ran_neutral = _run_column(
                    task, own, item, stage, root, server, env=env, sandbox=sandbox,
                    settings=settings, pythonpath=pythonpath, logs=logs / slug(own.name),
                    served=served, neutral=True, twins=checked,
                )  # fmt: skip
                on_neutral = (
                    ran_neutral
                    if isinstance(ran_neutral, str)
                    else author_run(own.name, item, ran_neutral)
                )
    shutil.rmtree(root, ignore_errors=True)
    return found, on_neutral


def _run_column(
    task: Task,
    column: Column,
    item: Placed,
    stage: Path,
    root: Path,
    server: ForkServer | None,
    *,
    env: TestEnv,
    sandbox: Sandbox,
    settings: Any,
    pythonpath: list[str],
    logs: Path,
    served: bool = True,
    neutral: bool = False,
    twins: Sequence[Twin] = (),
) -> TestRun | str:
    """One author's tests on one column, in a tree of their own (with *twins* and the
    tests they copy; on the unfixed tree they only say which of them fail); ``neutral``:
    on the column's neutral twin (:func:`bb_xexam.neutral.make_neutral`), logged apart."""
    if column.name != BASE and column.error is not None:
        return column.error
    # The project's own names play no part here: pytest's defaults, as for every column.
    source, source_kind = str(task["source"]), kind_of(task, DEFAULT_NAMES)
    _empty(root)
    tree = root / (slug(column.name) or "column")
    _author_tree(stage, tree, item)
    node = is_node_env(env)
    targets = list(item.targets)
    try:
        # The author's own files are all its code; the column's patch, the lines it wrote.
        if node:  # where the author wrote them (bb_xexam.node_tree)
            touched = merged(whole_files(in_place(tree, item)))
            targets = [item.original(t) for t in targets]
        else:
            touched = merged(whole_files(_installed(tree, item)))
        if column.name != BASE:
            try:
                links = outside_links(column.patch)  # as scoring: never applied
                applied, _ = apply_patch(
                    column.patch,
                    tree,
                    include=lambda p: source_kind(p) == "source" and p not in links,
                )
            except BbError as exc:
                return f"the patch's source changes do not apply: {exc}"
            touched = merged(touched, touched_lines(column.patch, include=applied))
        if neutral:
            make_neutral(tree, column.source_files, source)
        log_name = f"{slug(item.author.name)}{'.neutral' if neutral else ''}.log"
        originals = list(dict.fromkeys(t.original for t in twins))
        result = run_tests(
            tree, env, [*targets, *originals], sandbox=sandbox, timeout=settings.run_limit,
            test_timeout=settings.test_timeout, log_path=logs / log_name,
            pythonpath=pythonpath, server=server if served else None, touched=touched,
            twins=twins, twins_void=column.name != BASE,
        )  # fmt: skip
    finally:
        _empty(root)
    return as_installed(result, item) if node else result


def is_node_env(env: Any) -> bool:
    """Whether *env* runs a node project's tests (its runner is not pytest)."""
    return getattr(env, "runner", "pytest") != "pytest"


def _failed(twin: Twin, outcomes: Mapping[str, str]) -> bool:
    """Whether every case of *twin* failed (and there was one)."""
    cases = cases_of(twin, outcomes)
    return bool(cases) and all(o == "failed" for o in cases)


def _installed(tree: Path, item: Placed) -> list[str]:
    """The author's installed files in *tree*, by checkout path (none for the suite)."""
    folder = item.author.folder
    if not folder or not (tree / folder).is_dir():
        return []
    return sorted(p.relative_to(tree).as_posix() for p in (tree / folder).rglob("*") if p.is_file())


def _empty(root: Path) -> None:
    """Remove whatever the author's folder holds (links are removed, never followed)."""
    for entry in list(root.iterdir()):
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)


def column_record(
    column: Column, placed: list[Placed], results: Mapping[tuple[str, str], AuthorRun | str]
) -> tuple[kinds.MatrixColumn, dict[str, AuthorRun]]:
    """A column's record from its authors' runs (none when its patch did not apply)."""
    found = [results[column.name, i.author.name] for i in placed if i.targets]
    problem = column.error if column.name != BASE else None
    problem = next((r for r in found if isinstance(r, str)), problem)
    if problem is not None:
        lost: kinds.MatrixColumn = {
            "name": column.name, "patch_of": column.patch_of, "duration": 0.0,
            "exit_code": None, "timed_out": False, "error": problem,
        }  # fmt: skip
        return lost, {}
    runs = {r.summary["author"]: r for r in found if not isinstance(r, str)}
    record: kinds.MatrixColumn = {
        "name": column.name,
        "patch_of": column.patch_of,
        "duration": round(sum(r.summary["duration"] for r in runs.values()), 3),
        "runs": [r.summary for r in runs.values()],
    }
    broken = {m for run in runs.values() for ms in run.column.broken.values() for m in ms}
    record["collection_errors"] = sorted(broken)
    return record, runs


def _author_tree(stage: Path, tree: Path, item: Placed) -> None:
    """A copy of *stage* without any other author's installed tests."""
    mine = item.author.folder

    def ignore(folder: str, names: list[str]) -> list[str]:
        relative = Path(folder).relative_to(stage).as_posix()
        if relative == ".":
            return [AUTHORS_DIR] if not mine and AUTHORS_DIR in names else []
        if relative == AUTHORS_DIR:
            own = mine.split("/", 1)[1]
            return [n for n in names if n not in (own, "__init__.py")]
        return []

    copy_tree(stage, tree, ignore=ignore)
