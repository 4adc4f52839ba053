"""bb-xexam's work units: one author's tests on every column, and the reference column.

A unit no worker could finish comes back as :class:`bb_core.executors.units.Failed`; its author
stands in the matrix with the reason and a log, every one of its cells an error, charged
with nothing, and the matrix is not kept - while every finished author's runs are, so
the next run submits the lost unit alone.
"""

from __future__ import annotations

import json
import pickle
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
from bb_core.config import load_config
from bb_core.executors.units import Failed, LocalExecutor, Unit, Work
from bb_core.records import Writer, check
from bb_core.stage import run_stage
from bb_core.store import Store
from bb_xexam.settings import XexamSettings
from bb_xexam.stage import XexamStage
from xexam_helpers import Raced


class Losing(LocalExecutor):
    """Runs units on local threads, but loses those whose label ends with one of *lose*."""

    def __init__(self, lose: tuple[str, ...] = ()) -> None:
        super().__init__(2)
        self.lose = lose
        self.labels: list[str] = []

    def submit(self, work: Work, unit: Unit) -> Future[Any]:
        self.labels.append(unit.label)
        if unit.label.endswith(self.lose):
            lost: Future[Any] = Future()
            lost.set_result(Failed(unit.key, "worker-lost", "its worker died twice", "killed"))
            return lost
        # What a remote executor ships: the result must survive pickling as plain data.
        return super().submit(lambda u: json.loads(json.dumps(work(u))), unit)


def examine(raced: Raced, task: dict[str, Any], store: Path, executor: Losing) -> dict[str, Any]:
    inputs = store / "in.jsonl"
    inputs.write_text(json.dumps(task) + "\n")
    out = store / "out.jsonl"
    config = load_config(raced.config)
    stage = XexamStage(config, XexamSettings.from_config(config), Store(store))
    with open(out, "wb") as handle:
        run_stage([str(inputs)], stage, executor, None, Writer(handle))
    [line] = out.read_text().splitlines()
    return dict(json.loads(line))


@pytest.mark.slow
def test_a_lost_unit_is_its_authors_error_cells_and_only_it_runs_again(
    raced_demo: Raced, tmp_path: Path
) -> None:
    task = {**raced_demo.tasks["camel-first-word"]}
    task["attempts"] = [a for a in task["attempts"] if a["agent"] in ("careful", "examiner")]
    losing = Losing(lose=(" suite", " reference"))
    first = examine(raced_demo, task, tmp_path, losing)
    # One unit per author (the suite too) and one for the hidden reference column.
    assert sorted(label.split(" ", 1)[1] for label in losing.labels) == [
        "careful", "examiner", "reference", "suite"
    ]  # fmt: skip
    matrix = first["matrix"]
    assert check(matrix, "matrix") is None
    suite = next(a for a in matrix["authors"] if a["name"] == "suite")
    assert suite["crashed"] == "worker-lost" and "its worker died twice" in suite["error"]
    assert "killed" in Path(suite["log"]).read_text()
    assert suite["tests"] == ["tests"]  # no test of it was listed: its folder stands for them
    cells = [c for c in matrix["cells"] if c["author"] == "suite"]
    assert {c["column"] for c in cells} == {c["name"] for c in matrix["columns"]}
    assert {c["outcome"] for c in cells} == {"error"}
    assert not any(a.get("charged") for a in matrix["authors"])
    assert not any("error" in c for c in matrix["columns"])
    # The other authors ran: their cells are evidence.
    careful = {c["outcome"] for c in matrix["cells"] if c["author"] == "careful"}
    assert "passed" in careful
    hidden = first["reference_column"]["column"]
    assert hidden["crashed"] == "worker-lost" and hidden["exit_code"] is None
    assert "killed" in Path(hidden["log"]).read_text()
    assert {c["outcome"] for c in first["reference_column"]["cells"]} == {"error"}
    # Nothing lost is kept: the matrix is not; the finished authors' runs are.
    assert not (tmp_path / ".bugbout" / "matrices" / f"{task['id']}.json").exists()
    assert len(list((tmp_path / ".bugbout" / "xexam-runs" / task["id"]).iterdir())) == 2

    again = Losing()
    second = examine(raced_demo, task, tmp_path, again)
    assert sorted(label.split(" ", 1)[1] for label in again.labels) == ["reference", "suite"]
    suite = next(a for a in second["matrix"]["authors"] if a["name"] == "suite")
    assert "crashed" not in suite and suite["tests"] != ["tests"]
    assert "crashed" not in second["reference_column"]["column"]
    for author in ("careful", "examiner"):  # the kept runs, as they were
        rows = [c for c in second["matrix"]["cells"] if c["author"] == author]
        assert rows == [c for c in matrix["cells"] if c["author"] == author]
    # Now whole, the matrix is kept and the runs waiting for it are gone.
    assert (tmp_path / ".bugbout" / "matrices" / f"{task['id']}.json").exists()
    assert not (tmp_path / ".bugbout" / "xexam-runs" / task["id"]).exists()
    third = Losing()
    assert examine(raced_demo, task, tmp_path, third) == second
    assert third.labels == []


@pytest.mark.slow
def test_the_work_goes_to_another_process_only_with_a_portable_workbench(
    raced_demo: Raced,
) -> None:
    stage = XexamStage(load_config(raced_demo.config))
    work = stage.start(LocalExecutor())
    with pytest.raises(TypeError, match="portable"):
        pickle.dumps(work)
    stage.close()
