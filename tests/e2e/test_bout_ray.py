"""A demo bout whose units run on a two-node Ray cluster writes what the local executor
writes.

The bout runs in this process (``Bout(..., executor="ray")``), every stage's units on the
cluster - the ground truth, the agents' attempts, the cross-examination, the scores -
up to the report, on the demo's camel_case task alone (every persona's attempt, every
stage's units: what the executor could change is all there on one task). The local side
is that task's records in the run's shared demo bout (the six tools piped); paths of the
project folder and of BUGBOUT_HOME (and the attempt folders named from them), the
seconds things took, and the twins the oracle draws afresh for every run (only how many
each module has is the same) are the only differences allowed."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import expected
import pytest
from bb_core.store import bugbout_home
from bugbout import Bout
from build_demo import DemoPaths, write_config
from e2e_runs import only_tasks
from support.bout import DemoBout

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray_cluster")]

TASK = expected.CAMEL_FIRST_WORD.title


def steady(value: Any) -> Any:
    if isinstance(value, dict) and "twins" in value:
        # Which tests get a twin, its name and its changed value are drawn afresh for
        # every oracle run: only how many each module has is the same.
        value = {**value, "twins": sorted(twin["module"] for twin in value["twins"])}
    if isinstance(value, dict) and "prompt_sha256" in value:
        # Digests of what an agent was given: its prompt names the test environment's
        # python under the BUGBOUT_HOME it ran with (on the cluster, the worker's).
        value = {
            k: v for k, v in value.items() if k not in ("key", "invocation_sha256", "prompt_sha256")
        }
    if isinstance(value, dict):
        # The seconds things took, in records and in the report's time columns, and when.
        dropped = ("duration", "elapsed", "time", "started")
        return {k: steady(v) for k, v in value.items() if k not in dropped}
    if isinstance(value, list):
        return [steady(v) for v in value]
    return value


def normalised(text: str, places: dict[str, str]) -> list[Any]:
    for path, name in sorted(places.items(), key=lambda item: -len(item[0])):
        text = text.replace(path, name)
    # An attempt's folder is named from its project's path, which differs between the two.
    text = re.sub(r"<home>/work/[0-9a-f]{16}/", "<home>/work/<attempt>/", text)
    # So is a score's log, named from the run's own paths.
    text = re.sub(r"(<home>/logs/[^\"]*/)[0-9a-f]{16}\.log", r"\1<log>.log", text)
    return [steady(json.loads(line)) for line in text.splitlines() if line.strip()]


def test_a_bout_on_the_ray_executor_writes_the_local_executors_records(
    demo_build: DemoPaths, ray_cluster: Any, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    root = tmp_path / "demo"
    shutil.copytree(demo_build.root, root, symlinks=True)
    write_config(root)
    config = root / "bugbout.toml"
    config.write_text(only_tasks(config.read_text(), root / "repo", TASK))
    # Two units at once, spread over the two nodes, as the piped bout runs two at once.
    bout = Bout.load(root, executor="ray", ray_address=ray_cluster.address, jobs=2, echo=None)
    bout.run()
    # Asked for only now: the shared local bout runs in the background meanwhile.
    demo_bout: DemoBout = request.getfixturevalue("demo_bout")
    places = {
        str(root): "<project>",
        str(demo_bout.root): "<project>",
        str(bugbout_home()): "<home>",
        str(demo_bout.root.with_name(demo_bout.root.name + "-home")): "<home>",
    }
    for stage in ("race", "judge"):
        assert str(ray_cluster.worker_home) not in bout.results.stream(stage).read_text()
    assert str(ray_cluster.worker_home) not in bout.results.report_json.read_text()
    # Every stage's line for the task, as the local executor wrote it in the whole bout.
    judged = [
        task
        for task in normalised(bout.results.stream("judge").read_text(), places)
        if task["kind"] == "task"
    ]
    assert [task["title"] for task in judged] == [TASK]
    local = [
        task
        for task in normalised(demo_bout.output("bb-judge").read_text(), places)
        if task["kind"] == "task" and task["title"] == TASK
    ]
    assert judged == local
    assert len(judged[0]["attempts"]) == len(expected.CONTESTANTS) + len(expected.EXAMINERS)
