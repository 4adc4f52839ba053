"""A race on a two-node Ray cluster survives a worker killed mid-attempt, and spends no
agent's run twice.

The demo's agents are wrapped by tests/e2e/counting_agent.py, which notes every start.
While the race runs (``Bout(..., executor="ray").run(until="race")``), the Ray worker
process running one agent is killed with SIGKILL, once that agent's start is on record
(its command line says ``--counted``: killed any sooner, the attempt's first start would
go uncounted). The executor queues that attempt again;
every attempt ends up saved, the killed one is the only one started twice, and a second
race starts nothing.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from bugbout import Bout
from build_demo import DemoPaths
from e2e_runs import copy_demo

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray_cluster")]

COUNTING = Path(__file__).resolve().with_name("counting_agent.py")
PAUSE = "1.5"  # seconds each agent waits before it works: the window for the kill


def agent_block(root: Path, counter: Path, table: str, name: str, extra: str = "") -> str:
    argv = [sys.executable, str(COUNTING), str(counter), name]
    argv += [str(root / "agents" / f"{name}.py"), PAUSE]
    return (
        f'\n[[{table}]]\nagent = "command"\nname = "{name}"\n'
        f"command = {json.dumps(argv)}\nstate-dirs = [{json.dumps(str(counter.parent))}]\n"
        f"{extra}"
    )


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def parent(pid: int) -> int:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    return int(stat.rsplit(")", 1)[1].split()[1])


def ray_worker_of(counter: Path) -> int | None:
    """The pid of the Ray worker whose unit runs a counting agent of *counter* that has
    noted its start."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        line = cmdline(int(entry.name))
        if f"{COUNTING} --counted {counter} " not in line:
            continue
        pid = int(entry.name)
        while pid > 1:
            pid = parent(pid)
            if cmdline(pid).startswith("ray::"):
                return pid
    return None


def starts(root: Path, counter: Path) -> Counter[tuple[str, str]]:
    """How often each (agent, task id) was started so far."""
    if not counter.exists():
        return Counter()
    tasks = {
        p.read_text().strip(): p.parent.name
        for p in (root / ".bugbout" / "attempts").glob("*/*.id")
    }
    pairs = (line.split() for line in counter.read_text().splitlines())
    return Counter((agent, tasks.get(work, work)) for agent, work in pairs)


def test_a_worker_killed_mid_race_loses_nothing_and_repeats_no_finished_attempt(
    demo_build: DemoPaths, ray_cluster: Any, tmp_path: Path
) -> None:
    root = copy_demo(demo_build, tmp_path / "demo")
    state = root / "agent-state"
    state.mkdir()
    counter = state / "starts.log"
    config = (
        "[project]\n"
        'source = "src/textkit"\ntests = "tests"\nrepository = "repo"\npython = "3.11"\n'
        '[tasks]\nissues = "issues.jsonl"\nlimit = 3\n'
        "[run]\ntimeout = 120\nquotas = { command = 2 }\n"
    )
    config += agent_block(root, counter, "contestants", "careful")
    config += agent_block(root, counter, "contestants", "shortcut")
    config += agent_block(root, counter, "examiners", "examiner", 'assignment = "reproduce"\n')
    (root / "bugbout.toml").write_text(config, encoding="utf-8")

    killed: list[int] = []
    stop = threading.Event()

    def kill_one() -> None:
        while not stop.is_set() and not killed:
            pid = ray_worker_of(counter)
            if pid is not None:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
                return
            time.sleep(0.05)

    killer = threading.Thread(target=kill_one, daemon=True)
    killer.start()
    bout = Bout.load(root, executor="ray", ray_address=ray_cluster.address, echo=None)
    try:
        bout.run(until="race")
    finally:
        stop.set()
        killer.join(5)
    assert killed, "no agent was seen running on a Ray worker"

    records = [
        json.loads(line)
        for line in bout.results.stream("race").read_text().splitlines()
        if line.strip()
    ]
    attempts = {
        (a["agent"], task["id"]): a["status"]
        for task in records
        if task["kind"] == "task"
        for a in task["attempts"]
    }
    assert len(attempts) == 3 * 2  # three agents on the two tasks with ground truth
    assert "crashed" not in attempts.values(), attempts
    saved = {
        (json.loads(p.read_text())["agent"], p.parent.name)
        for p in bout.results.attempts.glob("*/*.json")
    }
    assert saved == set(attempts)
    started = starts(root, counter)
    assert set(started) == set(attempts)
    assert sorted(started.values()) == [1] * 5 + [2]  # only the killed attempt ran again

    Bout.load(root, executor="ray", ray_address=ray_cluster.address, echo=None).run(until="race")
    assert starts(root, counter) == started  # nothing ran again
