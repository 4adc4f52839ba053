"""Helpers of the cross-examination tests: run the tools, read their output, make attempts.

``make_attempt`` builds an attempt record whose patch is a real diff between a task's
unfixed tree and a copy edited by the test - for cases the scripted demo agents do not
produce (crashes, hangs, shadowing).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import expected
from bb_core.config import load_config
from bb_core.git import open_repo
from bb_core.patch import diff_trees, files_in_patch, split_patch
from bb_core.stage import run_one
from bb_core.store import Store
from bb_core.testrun import TestRun
from bb_race.authored import authored_tests
from bb_xexam.settings import XexamSettings
from bb_xexam.stage import XexamStage

#: The demo tasks raced: camelCase's first word, and lone punctuation (whose careful fix
#: adds a function that its own regression test imports).
RACED = (expected.CAMEL_FIRST_WORD, expected.LONE_PUNCTUATION)


@dataclass
class Raced:
    root: Path  # the demo project: bugbout.toml, repo/, .bugbout/
    lines: list[bytes]  # bb-race's output, as written
    tasks: dict[str, dict[str, Any]]  # by expected Task.key

    @property
    def config(self) -> Path:
        return self.root / "bugbout.toml"


def task_key(record: Mapping[str, Any]) -> str | None:
    for fact in expected.MINED:
        if fact.reported_input in record.get("statement", ""):
            return fact.key
    return None


@dataclass
class Crossed:
    raced: Raced
    stdin: bytes
    done: subprocess.CompletedProcess[bytes]

    @property
    def records(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.done.stdout.splitlines()]

    def matrix(self, key: str) -> dict[str, Any]:
        [task] = [r for r in self.records if r["kind"] == "task" and task_key(r) == key]
        return dict(task["matrix"])


NOTE = json.dumps({"kind": "note", "v": 1, "text": "passes through"}).encode()


def make_attempt(
    repository: Path,
    task: Mapping[str, Any],
    agent: str,
    files: Mapping[str, str | None],
    *,
    role: str = "contestant",
    vendor: str | None = None,
    work: Path,
) -> dict[str, Any]:
    """An attempt whose patch turns the task's unfixed tree into one with *files* written
    (None deletes), diffed by :func:`bb_core.patch.diff_trees`."""
    base, edited = work / f"{agent}-base", work / f"{agent}-work"
    with open_repo(repository) as repo:
        for dest in (base, edited):
            repo.materialize(str(task["base_commit"]), dest, exclude=task["test_files"])
    for path, text in files.items():
        target = edited / path
        if text is None:
            target.unlink()
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
    patch = diff_trees(base, edited)
    source_patch, test_patch = split_patch(patch, task["source"], task["tests"])
    test_files, tests = authored_tests(files_in_patch(test_patch), edited, base)
    return {
        "kind": "attempt", "v": 1, "task_id": task["id"], "agent": agent, "role": role,
        "vendor": vendor, "status": "finished", "duration": 1.0, "patch": patch,
        "source_patch": source_patch, "test_patch": test_patch,
        "test_files": test_files, "tests": tests, "changed_files": files_in_patch(patch),
    }  # fmt: skip


class Counter:
    """Wraps run_pytest: how many runs were started, and how many pytest processes ran."""

    def __init__(self, real: Callable[..., TestRun]) -> None:
        self.real = real
        self.calls = 0
        self.processes = 0

    def __call__(self, *args: Any, **kwargs: Any) -> TestRun:
        self.calls += 1
        run = self.real(*args, **kwargs)
        self.processes += run.attempts
        return run


def cross(raced: Raced, task: dict[str, Any], store: Path, **settings: Any) -> dict[str, Any]:
    config = load_config(raced.config)
    stage = XexamStage(config, XexamSettings.from_config(config, **settings), Store(store))
    try:
        [out] = run_one(stage, task)
    finally:
        stage.close()
    return dict(out["matrix"])


def outcomes(matrix: dict[str, Any]) -> dict[tuple[str, str, str], str]:
    return {(c["author"], c["test"], c["column"]): c["outcome"] for c in matrix["cells"]}
