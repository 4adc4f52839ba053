"""Helpers of the cross-examination tests: run the tools, read their output, make attempts.

``make_attempt`` builds an attempt record whose patch is a real diff between a task's
unfixed tree and a copy edited by the test - for cases the scripted demo agents do not
produce (crashes, hangs, shadowing).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import expected
from bb_core.git import open_repo
from bb_core.patches import diff_trees, files_in_patch, split_patch
from bb_race.authored import authored_tests

BIN = Path(sys.executable).parent
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


def run_tool(tool: str, root: Path, *args: str, stdin: bytes | None = None,
             timeout: float = 300) -> subprocess.CompletedProcess[bytes]:  # fmt: skip
    return subprocess.run(
        [str(BIN / tool), *args], cwd=root, input=stdin, capture_output=True,
        timeout=timeout, check=False,
    )  # fmt: skip


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
    (None deletes), diffed by :func:`bb_core.patches.diff_trees`."""
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
