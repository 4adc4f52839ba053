"""The demo's scripted agents race on the demo's tasks, through the real command lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import expected
import pytest
from bb_core.git import open_repo
from bb_core.patch import apply_patch, diff_trees, files_in_patch
from support.bout import DemoBout
from support.tools import run_tool

RECOGNISED = [
    expected.CAMEL_FIRST_WORD,
    expected.LONE_PUNCTUATION,
    expected.SLUG_ACCENTS,
    expected.TRUNCATION_WIDTH,
]
CONTESTANTS = ["careful", "shortcut", "tamperer", "breaker", "idler"]


@pytest.fixture(scope="module")
def demo_race(demo_bout: DemoBout) -> dict[str, Any]:
    """bb-race in the run's demo bout (``support.bout``): what it read from bb-oracle, what
    it wrote, its stderr. Read only."""
    return {
        "root": demo_bout.root,
        "given": demo_bout.output("bb-oracle").read_bytes(),
        "raced": demo_bout.output("bb-race").read_bytes(),
        "stderr": demo_bout.stage_stderr("bb-race").encode(),
    }


@pytest.fixture(scope="module")
def unrecognised_race(demo_bout: DemoBout, tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """bb-race on the one mined task no scripted agent recognises (the oracle drops it
    from the bout), in a copy of the demo bout's project."""
    root = demo_bout.copy(tmp_path_factory.mktemp("demo-race") / "demo").root
    [line] = [
        line
        for line in demo_bout.output("bb-mine").read_bytes().splitlines()
        if expected.SNAKE_TRAILING_ACRONYM.reported_input in json.loads(line).get("statement", "")
    ]
    raced = run_tool("bb-race", "--config", "bugbout.toml", cwd=root, stdin=line + b"\n")
    assert raced.returncode == 0, raced.stderr.decode()
    return raced.stdout


def by_key(race: dict[str, Any]) -> dict[str, dict[str, Any]]:
    tasks = [json.loads(x) for x in race["raced"].splitlines() if b'"kind":"task"' in x]
    found = {}
    for task in tasks:
        for fact in [*RECOGNISED, expected.SNAKE_TRAILING_ACRONYM]:
            if fact.reported_input in task["statement"]:
                found[fact.key] = task
    return found


@pytest.mark.slow
def test_output_keeps_input_order_and_passes_other_kinds_through(demo_race: dict[str, Any]) -> None:
    mined = demo_race["given"].splitlines()
    raced = demo_race["raced"].splitlines()
    assert len(raced) == len(mined)
    for before, after in zip(mined, raced, strict=True):
        if b'"kind":"task"' in before:
            task = json.loads(after)
            assert {k: v for k, v in task.items() if k != "attempts"} == json.loads(before)
        else:
            assert after == before
    # Not a terminal: no live view, no noise - a line per finished task, then the closing one.
    said = demo_race["stderr"].decode().splitlines()
    assert said and all(line.startswith("bb-race: ") for line in said), said
    assert said[-1].endswith(" run") and "reused from earlier runs" in said[-1]


@pytest.mark.slow
@pytest.mark.parametrize("fact", RECOGNISED, ids=lambda f: f.key)
def test_each_scripted_agent_leaves_its_kind_of_patch(demo_race: dict[str, Any], fact: Any) -> None:
    task = by_key(demo_race)[fact.key]
    attempts = {a["agent"]: a for a in task["attempts"]}
    assert list(attempts) == [*CONTESTANTS, "examiner"]
    for name in ("careful", "shortcut", "breaker"):
        attempt = attempts[name]
        assert attempt["status"] == "finished", attempt
        assert files_in_patch(attempt["source_patch"]) == list(fact.source_files)
        assert attempt["test_files"] and attempt["tests"]
        assert all(
            t.startswith(tuple(f + "::" for f in attempt["test_files"])) for t in attempt["tests"]
        )
    # The tamperer edits the maintainers' test files too; those edits are test hunks.
    tamperer = attempts["tamperer"]
    assert tamperer["status"] == "finished"
    assert set(files_in_patch(tamperer["test_patch"])) & set(fact.test_files) or any(
        p.endswith("conftest.py") for p in files_in_patch(tamperer["test_patch"])
    )
    assert attempts["idler"]["status"] == "no-change"
    assert attempts["idler"]["patch"] == ""
    examiner = attempts["examiner"]
    assert examiner["role"] == "examiner" and examiner["assignment"] == "reproduce"
    assert examiner["source_patch"] == ""
    assert examiner["reproducing"], "the examiner's tests were run on the unfixed tree"
    assert set(examiner["reproducing"].values()) <= {"failed", "error", "passed"}
    assert (
        "failed" in examiner["reproducing"].values() or "error" in examiner["reproducing"].values()
    )


@pytest.mark.slow
def test_an_unrecognised_task_gets_no_change_from_everyone(unrecognised_race: bytes) -> None:
    task = by_key({"raced": unrecognised_race})[expected.SNAKE_TRAILING_ACRONYM.key]
    assert {a["status"] for a in task["attempts"]} == {"no-change"}


@pytest.mark.slow
def test_the_checkout_hides_the_history_and_only_the_fix(
    demo_race: dict[str, Any], demo_build: Any
) -> None:
    # (From inside, tests/race/test_sealed.py shows an agent searching the disk finds no
    # history at all; the checkout itself is gone once the patch is taken.)
    from bb_core.git import open_repo

    task = by_key(demo_race)[expected.CAMEL_FIRST_WORD.key]
    careful = next(a for a in task["attempts"] if a["agent"] == "careful")
    assert careful["given"]["base_commit"] == task["base_commit"]
    for attempt in task["attempts"]:
        folder = Path(attempt["logdir"]).parent
        assert sorted(p.name for p in folder.iterdir()) == ["logs"]
        assert folder.name not in (task["id"], attempt["agent"])
    with open_repo(demo_build.repo) as repo:
        for path in task["test_files"]:
            assert path not in files_in_patch(careful["patch"])
            # The base version of a test module the fix modifies is in the base tree the
            # agent got, and the fixed version is not.
            base = repo.read_blob(task["base_commit"], path)
            fixed = repo.read_blob(task["fix_commit"], path)
            assert base is not None and base != fixed


@pytest.mark.slow
@pytest.mark.parametrize("agent", ["careful", "tamperer", "examiner"])
def test_a_recorded_patch_applied_to_the_base_gives_the_agents_tree(
    demo_race: dict[str, Any], agent: str, tmp_path: Path
) -> None:
    task = by_key(demo_race)[expected.LONE_PUNCTUATION.key]
    attempt = next(a for a in task["attempts"] if a["agent"] == agent)
    with open_repo(demo_race["root"] / "repo") as repo:
        repo.materialize(task["base_commit"], tmp_path / "t")
        repo.materialize(task["base_commit"], tmp_path / "base")
    apply_patch(attempt["patch"], tmp_path / "t")
    # (The agent's own tree is gone once its patch is taken: the patch must say it all.)
    assert attempt["patch"] and diff_trees(tmp_path / "base", tmp_path / "t") == attempt["patch"]


def test_the_honest_agents_tried_nothing_and_the_tamperers_test_edits_show(
    demo_race: dict[str, Any],
) -> None:
    """Every attempt says what it tried: nothing for the demo's honest agents, and for the
    tamperer the maintainers' conftest.py it appended to, read from its patch."""
    tasks = [json.loads(x) for x in demo_race["raced"].splitlines() if b'"kind":"task"' in x]
    attempts = [a for task in tasks for a in task["attempts"]]
    assert attempts and all("tried" in a for a in attempts)
    for attempt in attempts:
        if attempt["agent"] == "tamperer" and "tests/conftest.py" in attempt["changed_files"]:
            edits = [f for f in attempt["tried"] if f["kind"] == "test-edit"]
            assert [f["evidence"].split(":")[0] for f in edits] == ["tests/conftest.py"]
            assert edits[0]["source"] == "patch" and not edits[0]["stopped"]
            assert {f["kind"] for f in attempt["tried"]} == {"test-edit"}
        else:
            assert attempt["tried"] == [], (attempt["agent"], attempt["tried"])
