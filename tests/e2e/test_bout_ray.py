"""A demo bout whose units run on a two-node Ray cluster writes what the local executor
writes.

The bout runs in this process (``Bout(..., executor="ray")``), as far as its stages run on
a cluster in this version (``bugbout.stages.ON_ANY_EXECUTOR``): as more stages do, the
bout goes further, up to the report, and the comparison follows. The local side is the
run's shared demo bout (the six tools piped); paths of the project folder and of
BUGBOUT_HOME (and the attempt folders named from them), and the seconds things took, are
the only differences allowed. The race runs on this machine in both: its agents are here."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from bb_core.store import bugbout_home
from bugbout import Bout
from bugbout.results import STAGES
from bugbout.stages import ON_ANY_EXECUTOR
from build_demo import DemoPaths, write_config
from support.bout import DemoBout

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray_cluster")]

#: The piped bout's tool for each stage of ``bugbout run``.
TOOLS = {"oracle": "bb-oracle", "race": "bb-race", "xexam": "bb-xexam", "judge": "bb-judge"}


def furthest() -> str:
    """The last stage a bout on the ray executor reaches in this version."""
    reached = "mine"
    for stage in STAGES:
        if stage not in ON_ANY_EXECUTOR and stage != "race":  # the race runs here
            break
        reached = stage
    return reached


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
    demo_build: DemoPaths, demo_bout: DemoBout, ray_cluster: Any, tmp_path: Path
) -> None:
    until = furthest()
    assert until != "mine", "bb-oracle runs on a cluster"
    root = tmp_path / "demo"
    shutil.copytree(demo_build.root, root, symlinks=True)
    write_config(root)
    bout = Bout.load(root, executor="ray", ray_address=ray_cluster.address, echo=None)
    bout.run(until=until)
    places = {
        str(root): "<project>",
        str(demo_bout.root): "<project>",
        str(bugbout_home()): "<home>",
        str(demo_bout.root.with_name(demo_bout.root.name + "-home")): "<home>",
    }
    if until == "report":
        written = bout.results.report_json.read_text()
        assert str(ray_cluster.worker_home) not in written
        assert normalised(written, places) == normalised(demo_bout.report_json, places)
        return
    assert str(ray_cluster.worker_home) not in bout.results.stream(until).read_text()
    ours_lines = normalised(bout.results.stream(until).read_text(), places)
    piped = normalised(demo_bout.output(TOOLS[until]).read_text(), places)
    assert ours_lines == piped
    assert any(record.get("oracle") for record in ours_lines)
