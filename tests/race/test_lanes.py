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

#: What waits for another run (``wait_for``): a note test over the notes so far, polled until
#: it holds or 30 s pass (far inside the runs' time limit; past it the run ends and the
#: test's assertion on the notes fails).
WAITER = """
def notes():
    path = pathlib.Path(os.environ["NOTES"])
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
def running(prefix):
    seen = {}
    for n in notes():
        seen.setdefault((n["agent"], n["task"]), set()).add(n["event"])
    return any(a.startswith(prefix) and e == {"start"} for (a, _), e in seen.items())
def wait_for(holds):
    deadline = time.monotonic() + 30
    while not holds() and time.monotonic() < deadline:
        time.sleep(0.02)
"""

# Lane a's runs each wait until the lanes have met (a run of lane b saw one of lane a's
# running): a lane that kept the other waiting leaves them unmet, and the test fails on
# its notes rather than on how fast the machine is.
LANE_A = (
    WAITER
    + """
note("start")
wait_for(lambda: pathlib.Path(os.environ["NOTES"]).with_name("met").exists())
time.sleep(0.6)
pathlib.Path("src/textkit/nap.py").write_text("NAP = True\\n")
note("end")
"""
)

LANE_B = (
    WAITER
    + """
note("start")
met = pathlib.Path(os.environ["NOTES"]).with_name("met")
if not met.exists():
    wait_for(lambda: running("a"))
    if running("a"):
        met.write_text("")
pathlib.Path("src/textkit/nap.py").write_text("NAP = True\\n")
note("end")
"""
)

# Two runs of one lane that may run at once: each waits until the other has started.
SHARER = (
    WAITER
    + """
note("start")
wait_for(lambda: len({n["agent"] for n in notes() if n["event"] == "start"}) == 2)
pathlib.Path("src/textkit/nap.py").write_text("NAP = True\\n")
note("end")
"""
)


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
        {"a1": LANE_A, "a2": LANE_A, "b1": LANE_B},
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
        {"a1": SHARER, "a2": SHARER},
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
    started, release = threading.Event(), threading.Event()

    def hold() -> None:
        started.set()
        release.wait()

    first = lanes.submit("x", "task-1 agent", hold)
    second = lanes.submit("x", "task-2 agent", lambda: None)
    started.wait()
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
