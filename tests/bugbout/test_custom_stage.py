"""A stage installed as a package takes its place in a bout: the drop-labels recipe of
docs/recipes.md, found through its ``bugbout.stages`` entry point, its section of
bugbout.toml read and checked by its own settings, and run between mining and the oracle."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import expected
import pytest
from bb_core import stage_spec
from bb_core.config import load_config
from bb_core.errors import ConfigError
from bb_core.stage_spec import BUILT_IN, StageSpec, pipeline
from bugbout.results import Results
from bugbout.stages import BoutRun, bout_stages, run_bout_stage
from build_demo import DemoPaths

ROOT = Path(__file__).resolve().parents[2]
RECIPE = ROOT / "examples" / "recipes" / "drop-labels"
EXAMPLES = ROOT / "schemas" / "examples" / "task" / "valid"


def recipe() -> ModuleType:
    found = importlib.util.spec_from_file_location("drop_labels", RECIPE / "drop_labels.py")
    assert found is not None and found.loader is not None
    module = importlib.util.module_from_spec(found)
    sys.modules["drop_labels"] = module  # its dataclasses look their module up
    found.loader.exec_module(module)
    return module


@pytest.fixture
def registered() -> Iterator[StageSpec[Any]]:
    """The recipe's stage, registered in this process for the test."""
    spec: StageSpec[Any] = recipe().SPEC
    stage_spec.register(spec)
    try:
        yield spec
    finally:
        stage_spec.unregister(spec.name)


def installed_distribution(site: Path) -> Path:
    """The recipe as an installed distribution in *site*: its module and a ``.dist-info``
    holding its entry point, as installing its pyproject.toml would leave them."""
    site.mkdir(parents=True, exist_ok=True)
    shutil.copy(RECIPE / "drop_labels.py", site / "drop_labels.py")
    info = site / "bugbout_drop_labels-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: bugbout-drop-labels\nVersion: 0.1.0\n"
    )
    (info / "entry_points.txt").write_text(
        "[bugbout.stages]\ndrop-labels = drop_labels:SPEC\n\n[console_scripts]\n"
        "drop-labels = drop_labels:main\n"
    )
    return site


def python(code: str, site: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {"PYTHONPATH": str(site), "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"}
    import os

    env.update({k: v for k, v in os.environ.items() if k in ("BUGBOUT_HOME", "HOME", "TMPDIR")})
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_built_in_stages_run_in_their_order() -> None:
    assert [spec.name for spec in pipeline()] == list(BUILT_IN)
    assert [stage.reads for stage in bout_stages()] == [None, *BUILT_IN[:-1]]


def test_a_custom_stage_runs_after_the_stage_it_names(registered: StageSpec[Any]) -> None:
    order = [spec.name for spec in pipeline()]
    assert order == ["mine", "drop-labels", "oracle", "race", "xexam", "judge"]
    reads = {stage.name: stage.reads for stage in bout_stages()}
    assert (reads["drop-labels"], reads["oracle"]) == ("mine", "drop-labels")


def test_a_custom_stage_after_no_stage_is_refused(registered: StageSpec[Any]) -> None:
    from dataclasses import replace

    stray = replace(registered, name="stray", after="lint")
    with pytest.raises(ConfigError, match="stage 'stray' runs after 'lint', which is not a stage"):
        pipeline({**stage_spec.installed(), "stray": stray})


def test_its_section_is_its_own(registered: StageSpec[Any], tmp_path: Path) -> None:
    config = tmp_path / "bugbout.toml"
    config.write_text('[project]\nsource = "src/pkg"\n\n[drop-labels]\nlabels = ["wontfix"]\n')
    settings = registered.settings_of(load_config(config))
    assert settings.labels == ["wontfix"]
    config.write_text('[project]\nsource = "src/pkg"\n\n[drop-labels]\nlabels = "wontfix"\n')
    with pytest.raises(ConfigError) as wrong:
        load_config(config)
    assert str(wrong.value).startswith(f"{config}: drop-labels.labels: ")


def test_without_its_stage_its_section_is_unknown(tmp_path: Path) -> None:
    config = tmp_path / "bugbout.toml"
    config.write_text('[project]\nsource = "src/pkg"\n\n[drop-labels]\nlabels = ["wontfix"]\n')
    with pytest.raises(ConfigError, match="drop-labels"):
        load_config(config)


def test_a_bout_stage_reads_the_stream_before_it(
    registered: StageSpec[Any], tmp_path: Path
) -> None:
    (tmp_path / "bugbout.toml").write_text(
        '[project]\nsource = "src/pkg"\n\n[drop-labels]\nlabels = ["WontFix"]\n'
    )
    config = load_config(tmp_path / "bugbout.toml")
    stages = bout_stages()
    results = Results.of(tmp_path, tuple((s.name, s.spec.stream) for s in stages))
    results.ensure()

    example = json.loads((EXAMPLES / "examples.jsonl").read_text().splitlines()[0])

    def task(number: int, labels: list[str]) -> dict[str, Any]:
        return {**example, "id": f"pkg-{number}", "labels": labels}

    mined = [task(1, ["bug"]), task(2, ["bug", "wontfix"]), task(3, [])]
    results.stream("mine").write_text("".join(json.dumps(t) + "\n" for t in mined))
    [drop] = [stage for stage in stages if stage.name == "drop-labels"]
    said, found = run_bout_stage(drop, BoutRun(config, results))
    assert [t["id"] for t in found.tasks] == ["pkg-1", "pkg-3"]
    assert said == "2 tasks written (3 tasks read)"
    assert results.stream("drop-labels") == tmp_path / ".bugbout" / "dropped.jsonl"


def test_an_installed_stage_is_found_by_its_entry_point(tmp_path: Path) -> None:
    site = installed_distribution(tmp_path / "site")
    ran = python(
        """
        from bb_core.stage_spec import pipeline
        from bugbout.stages import streams
        print([spec.name for spec in pipeline()])
        print(dict(streams())["drop-labels"])
        """,
        site,
        tmp_path,
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines() == [
        "['mine', 'drop-labels', 'oracle', 'race', 'xexam', 'judge']",
        "dropped.jsonl",
    ]


@pytest.mark.slow
def test_a_bout_runs_the_installed_stage_after_mining(
    demo_project: DemoPaths, tmp_path: Path
) -> None:
    site = installed_distribution(tmp_path / "site")
    dropped = expected.CAMEL_FIRST_WORD
    issues = [json.loads(line) for line in demo_project.issues.read_text().splitlines()]
    for issue in issues:
        issue["labels"] = ["wontfix"] if issue["number"] == dropped.issue else ["bug"]
    demo_project.issues.write_text("".join(json.dumps(i) + "\n" for i in issues))
    with demo_project.config.open("a") as config:
        config.write('\n[drop-labels]\nlabels = ["wontfix"]\n')
    ran = python(
        f"""
        from bugbout import Bout
        Bout({str(demo_project.config)!r}).run(until="drop-labels")
        """,
        site,
        demo_project.root,
    )
    assert ran.returncode == 0, ran.stderr
    assert "[2/7] drop-labels: running drop-labels" in ran.stderr
    results = demo_project.root / ".bugbout"
    mined = [json.loads(line) for line in (results / "tasks.jsonl").read_text().splitlines()]
    kept = [json.loads(line) for line in (results / "dropped.jsonl").read_text().splitlines()]
    titles = {t["title"] for t in mined if t["kind"] == "task"}
    assert dropped.title in titles
    assert {t["title"] for t in kept if t["kind"] == "task"} == titles - {dropped.title}
    assert [line for line in kept if line["kind"] != "task"] == [
        line for line in mined if line["kind"] != "task"
    ]
    manifest = json.loads((results / "run.json").read_text())
    assert sorted(manifest["stages"]) == ["drop-labels", "mine"]
