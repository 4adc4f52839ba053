"""Helpers for bb-oracle's tests: the demo after the oracle, and small projects."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from bb_core.git import open_repo
from build_demo import GitRepo
from support.tools import lines

PYTHON_VERSION = f"{sys.version_info.major}.{sys.version_info.minor}"


@dataclass(frozen=True)
class OracleDemo:
    """The demo after bb-mine and one run of bb-oracle."""

    root: Path
    tasks_file: Path
    tasks: list[dict[str, Any]]  # bb-mine's output, every kind
    output: bytes  # bb-oracle's stdout
    stderr: bytes
    home: Path  # the BUGBOUT_HOME bb-oracle ran with

    @property
    def records(self) -> list[dict[str, Any]]:
        return lines(self.output)

    def by_title(self) -> dict[str, dict[str, Any]]:
        """Each mined task's fate - the task line with its oracle, or its skip line - by the
        first line of its fix commit's message (as ``expected`` names them)."""
        with open_repo(self.root / "repo") as repo:
            titles = {
                t["id"]: repo.commit(t["fix_commit"]).title
                for t in self.tasks
                if t["kind"] == "task"
            }
        found: dict[str, dict[str, Any]] = {}
        for record in self.records:
            if record["kind"] == "task":
                found[titles[record["id"]]] = record
            elif record["kind"] == "skip" and record["stage"] == "oracle":
                found[titles[record["task_id"]]] = record
        return found


@dataclass
class SmallProject:
    """A tiny repository with a bugbout.toml; :meth:`task` cuts a fix commit into a task line."""

    root: Path
    repo: GitRepo

    @property
    def config(self) -> Path:
        return self.root / "bugbout.toml"

    def configure(self, extra: str = "") -> None:
        self.config.write_text(
            "[project]\n"
            'source = "src/pkg"\n'
            'repository = "repo"\n'
            f'python = "{PYTHON_VERSION}"\n' + extra,
            encoding="utf-8",
        )

    def task(self, fix: str, test_files: list[str], **fields: Any) -> dict[str, Any]:
        base = self.repo.sha(f"{fix}^")
        record: dict[str, Any] = {
            "kind": "task", "v": 1, "id": f"small-{fix[:10]}",
            "repository": str(self.repo.path), "base_commit": base, "fix_commit": fix,
            "title": f"Fix {fix[:7]}", "statement": "It is broken.",
            "statement_source": "commit", "source": "src/pkg", "tests": "tests",
            "source_files": ["src/pkg/__init__.py"], "test_files": test_files,
            "protected_paths": test_files, "reference_patch": "", "test_patch": "",
        }  # fmt: skip
        record.update(fields)
        return record

    def write_tasks(self, *tasks: Mapping[str, Any], name: str = "tasks.jsonl") -> Path:
        path = self.root / name
        path.write_bytes(b"".join(orjson.dumps(t) + b"\n" for t in tasks))
        return path
