"""Repeated attempts: each sample is an attempt of its own (its key, folder, stored file),
and raising the number of samples later runs only the new ones."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

QUICK = """
note("start", sample=os.environ.get("BUGBOUT_SAMPLE"))
pathlib.Path("src/textkit/quick_fix.py").write_text("FIXED = True\\n")
"""


def started(project: Any) -> Counter[tuple[str, str, str]]:
    return Counter(
        (n["task"], n["agent"], n["sample"]) for n in project.read_notes() if n["event"] == "start"
    )


def test_each_sample_is_an_attempt_of_its_own_and_more_samples_run_only_the_new_ones(
    race_project: Any, demo_tasks: Any, race_lib: Any
) -> None:
    project = race_project({"twice": QUICK, "once": QUICK}, options={"twice": {"samples": 2}})
    tasks = project.write_tasks(demo_tasks.pick("User Name", "abcdefghij"))
    raced = race_lib(project, tasks)
    assert started(project) == {
        (task, agent, sample): 1
        for task in ("User Name", "abcdefghij")
        for agent, sample in (("twice", "1"), ("twice", "2"), ("once", "1"))
    }
    for record in raced.records:
        # attempts: every agent's first sample, as with one sample; samples: the rest.
        assert [a["agent"] for a in record["attempts"]] == ["twice", "once"]
        assert all("sample" not in a for a in record["attempts"])
        [second] = record["samples"]
        assert (second["agent"], second["sample"]) == ("twice", 2)
        assert list(second)[:5] == ["kind", "v", "task_id", "agent", "sample"]
        first = record["attempts"][0]
        assert second["given"]["sample"] == 2 and "sample" not in first["given"]
        assert second["given"]["key"] != first["given"]["key"]
        assert second["logdir"] != first["logdir"]
        folder = project.attempts / record["id"]
        stored = json.loads((folder / "twice@2.json").read_text())
        assert stored == second
        assert (folder / "twice@2.id").read_text() != (folder / "twice.id").read_text()
        assert sorted(p.name for p in folder.glob("*.json")) == [
            "once.json",
            "twice.json",
            "twice@2.json",
        ]

    again = race_lib(project, tasks, samples=3)  # every contestant three times now
    runs = started(project)
    assert runs == {
        (task, agent, sample): 1
        for task in ("User Name", "abcdefghij")
        for agent in ("twice", "once")
        for sample in ("1", "2", "3")
    }
    for before, record in zip(raced.records, again.records, strict=True):
        assert record["attempts"] == before["attempts"]
        assert [(a["agent"], a["sample"]) for a in record["samples"]] == [
            ("twice", 2),
            ("twice", 3),
            ("once", 2),
            ("once", 3),
        ]
        assert record["samples"][0] == before["samples"][0]  # kept, not run again

    race_lib(project, tasks, samples=3)
    assert started(project) == runs  # everything stored: nothing runs


def test_one_sample_writes_no_samples(race_project: Any, demo_tasks: Any, race_lib: Any) -> None:
    project = race_project({"once": QUICK})
    tasks = project.write_tasks(demo_tasks.pick("User Name"))
    [record] = race_lib(project, tasks).records
    assert "samples" not in record
    assert "sample" not in record["attempts"][0]["given"]
    assert started(project) == {("User Name", "once", "1"): 1}


def test_the_samples_option_of_bb_race(race_project: Any, demo_tasks: Any, race_cli: Any) -> None:
    project = race_project({"once": QUICK})
    tasks = project.write_tasks(demo_tasks.pick("User Name"))
    raced = race_cli(project, tasks, "--samples", "2")
    assert raced.returncode == 0, raced.stderr
    [record] = raced.records
    assert [(a["agent"], a["sample"]) for a in record["samples"]] == [("once", 2)]
    assert started(project) == {("User Name", "once", "1"): 1, ("User Name", "once", "2"): 1}
    refused = race_cli(project, tasks, "--samples", "0")
    assert refused.returncode == 2 and "--samples" in refused.stderr
