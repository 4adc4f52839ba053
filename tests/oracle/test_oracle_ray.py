"""bb-oracle with ``--executor ray`` on a two-node cluster writes the local executor's lines.

It runs on the demo's camel_case task alone (every unit the oracle makes for a task: the
base, the fix, the twins) and is compared with that task's line in the local run.

The cluster's workers keep their own BUGBOUT_HOME and read the demo's repository from the
bundle the workbench is packed into, so the same lines (their log paths under the tests'
home, the logs themselves there too) show that nothing was read from the driver's disk
or left only on the workers'."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

import expected
import pytest
from bb_core.store import bugbout_home
from build_demo import write_config
from oracle_helpers import OracleDemo
from support.tools import lines, run_tool, tool_env

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray_cluster")]


def steady(value: Any) -> Any:
    """*value* without the seconds things took, which differ from run to run."""
    if isinstance(value, dict) and "twins" in value:
        # Which tests get a twin, its name and its changed value are drawn afresh for
        # every oracle run, so an agent cannot learn them in advance: only how many each
        # module has is the same.
        value = {**value, "twins": sorted(twin["module"] for twin in value["twins"])}
    if isinstance(value, dict):
        # A run's seconds, and its exit status: pytest's status for runs whose outcomes
        # agree has been seen to differ (1 and 0) between two local runs of the same task.
        return {k: steady(v) for k, v in value.items() if k not in ("duration", "exit_code")}
    if isinstance(value, list):
        return [steady(v) for v in value]
    return value


def about(record: dict[str, Any], default: str) -> str:
    """The task a line is about (*default* for a line about none)."""
    return str(record["id"] if record["kind"] == "task" else record.get("task_id", default))


def test_the_ray_executor_writes_the_local_executors_lines(
    oracle_demo: OracleDemo, ray_cluster: Any, tmp_path: Path
) -> None:
    root = tmp_path / "demo"
    shutil.copytree(
        oracle_demo.root, root, symlinks=True, ignore=shutil.ignore_patterns(".bugbout")
    )
    write_config(root)
    # The mined lines about the camel_case task (and those about no task in particular).
    [task_id] = [
        record["id"]
        for title, record in oracle_demo.by_title().items()
        if title == expected.CAMEL_FIRST_WORD.title
    ]
    mined = [
        line
        for line in oracle_demo.tasks_file.read_text().splitlines()
        if line.strip() and about(json.loads(line), task_id) == task_id
    ]
    (root / oracle_demo.tasks_file.name).write_text("".join(f"{line}\n" for line in mined))
    started = time.time()
    done = run_tool(
        "bb-oracle",
        "--jobs",
        "2",
        "--executor",
        "ray",
        "--ray-address",
        ray_cluster.address,
        "--config",
        "bugbout.toml",
        str(root / oracle_demo.tasks_file.name),
        cwd=root,
    )
    assert done.returncode == 0, done.stderr.decode()
    # The local run kept its logs under a BUGBOUT_HOME of its own; this one under the tests'.
    here = done.stdout.decode().replace(str(bugbout_home()), "<home>")
    there = oracle_demo.output.decode().replace(str(oracle_demo.home), "<home>")
    ours = [r for r in lines(here) if r["kind"] == "task"]
    assert [r["id"] for r in ours] == [task_id]
    theirs = [r for r in lines(there) if r["kind"] == "task" and r["id"] == task_id]
    assert steady(ours) == steady(theirs)
    assert all(about(r, task_id) == task_id for r in lines(here)), here
    logs = [
        Path(run["log"])
        for record in lines(done.stdout)
        if record["kind"] == "task"
        for run in record["oracle"]["runs"]
    ]
    # Written by this run (shipped from the workers' home), not left by the local one.
    assert logs and all(log.is_file() and log.stat().st_mtime >= started for log in logs)
    assert not any(str(ray_cluster.worker_home) in str(log) for log in logs)
    # The workers opened the bundle's clone, never the driver's repository folder.
    clones = list((ray_cluster.worker_home / "portable").glob("*/repos/*.git"))
    assert clones


def test_without_the_ray_package_the_ray_executor_says_how_to_install_it(
    oracle_demo: OracleDemo, tmp_path: Path
) -> None:
    blocked = tmp_path / "no-ray"
    (blocked / "ray").mkdir(parents=True)
    (blocked / "ray" / "__init__.py").write_text("raise ImportError('no ray here')\n")
    done = run_tool(
        "bb-oracle",
        "--executor",
        "ray",
        "--config",
        "bugbout.toml",
        str(oracle_demo.tasks_file),
        cwd=oracle_demo.root,
        env=tool_env({"PYTHONPATH": str(blocked)}),
    )
    assert done.returncode == 2
    assert done.stderr.decode().strip().splitlines() == [
        "bb-oracle: the ray executor needs the ray package: pip install 'bugbout[ray]'"
    ]
    assert done.stdout == b""
