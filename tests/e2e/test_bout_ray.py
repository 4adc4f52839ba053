"""A demo bout whose units run on a two-node Ray cluster writes what the local executor
writes.

The bout runs in this process (``Bout(..., executor="ray")``), every stage's units on the
cluster - the ground truth, the agents' attempts, the cross-examination, the scores -
up to the report. The local side is the run's shared demo bout (the six tools piped);
paths of the project folder and of BUGBOUT_HOME (and the attempt folders named from
them), and the seconds things took, are the only differences allowed."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from bb_core.store import bugbout_home
from bugbout import Bout
from build_demo import DemoPaths, write_config
from support.bout import DemoBout

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray_cluster")]


def steady(value: Any) -> Any:
    if isinstance(value, dict):
        # The seconds things took, in records and in the report's time columns.
        return {k: steady(v) for k, v in value.items() if k not in ("duration", "elapsed", "time")}
    if isinstance(value, list):
        return [steady(v) for v in value]
    return value


def normalised(text: str, places: dict[str, str]) -> list[Any]:
    for path, name in sorted(places.items(), key=lambda item: -len(item[0])):
        text = text.replace(path, name)
    # An attempt's folder is named from its project's path, which differs between the two.
    text = re.sub(r"<home>/work/[0-9a-f]{16}/", "<home>/work/<attempt>/", text)
    return [steady(json.loads(line)) for line in text.splitlines() if line.strip()]


def test_a_bout_on_the_ray_executor_writes_the_local_executors_records(
    demo_build: DemoPaths, ray_cluster: Any, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    root = tmp_path / "demo"
    shutil.copytree(demo_build.root, root, symlinks=True)
    write_config(root)
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
    written = bout.results.report_json.read_text()
    assert str(ray_cluster.worker_home) not in written
    assert normalised(written, places) == normalised(demo_bout.report_json, places)
    raced = normalised(bout.results.stream("race").read_text(), places)
    assert sum(len(task["attempts"]) for task in raced if task["kind"] == "task") > 0
