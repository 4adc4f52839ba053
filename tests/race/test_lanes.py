"""Quota lanes: runs sharing a quota take turns, different quotas run at the same time."""

from __future__ import annotations

import io
import threading
import time
from itertools import combinations
from typing import Any

import pytest
from bb_core.executors.lanes import Lanes
from bb_race.live import LiveView, render

# Notes when it starts and ends; sleeps long enough for overlaps to be unmistakable.
NAPPER = """
note("start")
time.sleep(0.6)
pathlib.Path("src/textkit/nap.py").write_text("NAP = True\\n")
note("end")
"""


def spans(notes: list[dict[str, Any]]) -> dict[tuple[str, str], tuple[float, float]]:
    found: dict[tuple[str, str], dict[str, float]] = {}
    for n in notes:
        found.setdefault((n["agent"], n["task"]), {})[n["event"]] = n["time"]
    return {key: (t["start"], t["end"]) for key, t in found.items()}


def overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


@pytest.mark.slow
def test_one_lane_stays_serial_while_another_runs_beside_it(
    race_project: Any, demo_tasks: Any, race_lib: Any
) -> None:
    project = race_project(
        {"a1": NAPPER, "a2": NAPPER, "b1": NAPPER},
        options={"a1": {"quota": "plan-a"}, "a2": {"quota": "plan-a"}, "b1": {"quota": "plan-b"}},
    )
    tasks = project.write_tasks(demo_tasks.pick("User Name", "abcdefghij"))
    raced = race_lib(project, tasks)
    assert {a["status"] for a in raced.attempts().values()} == {"finished"}
    runs = spans(project.read_notes())
    assert len(runs) == 6
    lane_a = [span for (agent, _), span in runs.items() if agent.startswith("a")]
    lane_b = [span for (agent, _), span in runs.items() if agent.startswith("b")]
    assert not any(overlap(x, y) for x, y in combinations(lane_a, 2)), "plan-a ran two at once"
    assert not any(overlap(x, y) for x, y in combinations(lane_b, 2))
    assert any(overlap(x, y) for x in lane_a for y in lane_b), "the lanes never ran together"
    # Within a lane, runs start in input order: task by task, agent by agent.
    order = sorted(
        (span[0], agent, task) for (agent, task), span in runs.items() if agent[0] == "a"
    )
    assert [(agent, task) for _, agent, task in order] == [
        ("a1", "User Name"), ("a2", "User Name"), ("a1", "abcdefghij"), ("a2", "abcdefghij"),
    ]  # fmt: skip


@pytest.mark.slow
def test_run_quotas_lets_runs_of_one_lane_share_it(
    race_project: Any, demo_tasks: Any, race_lib: Any
) -> None:
    project = race_project(
        {"a1": NAPPER, "a2": NAPPER},
        options={"a1": {"quota": "plan-a"}, "a2": {"quota": "plan-a"}},
        run={"timeout": 60, "quotas": {"plan-a": 2}},
    )
    tasks = project.write_tasks(demo_tasks.pick("User Name"))
    race_lib(project, tasks)
    runs = list(spans(project.read_notes()).values())
    assert len(runs) == 2 and overlap(runs[0], runs[1])


def test_jobs_caps_runs_across_lanes() -> None:
    lanes = Lanes({}, total=1)
    active, peak = 0, 0
    lock = threading.Lock()

    def work() -> None:
        nonlocal active, peak
        with lock:
            active += 1
            peak = max(peak, active)
        time.sleep(0.05)
        with lock:
            active -= 1

    futures = [lanes.submit(lane, lane, work) for lane in ("x", "y", "z", "x")]
    for future in futures:
        future.result()
    lanes.shutdown()
    assert peak == 1


def test_lanes_report_done_running_and_queued() -> None:
    lanes = Lanes({"x": 1})
    release = threading.Event()
    first = lanes.submit("x", "task-1 agent", release.wait)
    second = lanes.submit("x", "task-2 agent", lambda: None)
    deadline = time.monotonic() + 5
    while not lanes.snapshot()["x"].running and time.monotonic() < deadline:
        time.sleep(0.01)
    state = lanes.snapshot()["x"]
    assert (state.done, state.queued, [label for label, _ in state.running.values()]) == (
        0, 1, ["task-1 agent"],
    )  # fmt: skip
    lines = render(lanes.snapshot(), reused=3, started=time.monotonic() - 65, now=time.monotonic())
    assert lines[0].startswith("bb-race  0/2 runs (3 kept from earlier runs)  1:0")
    assert "x" in lines[1] and "queued 1" in lines[1] and "task-1 agent 0:0" in lines[1]
    release.set()
    first.result()
    second.result()
    lanes.shutdown()
    assert lanes.snapshot()["x"].done == 2


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_live_view_redraws_in_place_on_a_terminal_only() -> None:
    lanes = Lanes({})
    lanes.submit("codex", "task-1 codex/gpt-5", lambda: None).result()
    lanes.shutdown()
    screen = Terminal()
    view = LiveView(lanes.snapshot, stream=screen)
    view.draw()
    view.draw()
    first, second = screen.getvalue().split("\x1b[J")[:2]
    assert "bb-race  1/1 runs" in first and "codex" in first and "done 1" in first
    assert second.startswith("\x1b[1F")  # back to the top of the two lines drawn
    view.close()
    assert screen.getvalue().endswith("\x1b[1F\x1b[J")  # and wiped at the end
    quiet = io.StringIO()
    LiveView(lanes.snapshot, stream=quiet).draw()
    assert quiet.getvalue() == ""
