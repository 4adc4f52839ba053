"""``bugbout run`` on a copy of the demo, narrowed to its camel_case task, with six unruly
agents beside the careful fixer:
a file name that is not UTF-8, a 1,500-level folder, a symlink that resolves out of the
checkout through another link, 4 GiB of memory, 200 processes and a file past the
file-size limit. The bout completes, each attempt is recorded with its reason and flag,
and the careful fixer is scored and picked as in the plain demo bout."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import expected
import pytest
from bb_core.records import read_lines
from bugbout.results import Results
from build_demo import DemoPaths, config_text
from e2e_runs import Ran, bugbout, copy_demo, only_tasks

pytestmark = pytest.mark.slow

UNRULY = Path(__file__).resolve().parent / "hostile" / "unruly.py"
MODES = ("odd-name", "deep", "escape", "alloc", "fork", "bigfile")
#: The one task: what each unruly agent does is the same on every task.
TASK = expected.CAMEL_FIRST_WORD
MIB = 1024**2


def unruly_config(root: Path) -> str:
    """The demo's configuration with the careful fixer, the examiner (whose tests are the
    evidence for a pick), the six unruly agents and low limits: 1 GiB of memory, 100
    processes, 64 MiB files."""
    text = config_text(root)
    head = text.split("[[contestants]]", 1)[0]
    head = head.replace(
        "[run]\ntimeout = 120\n",
        f"[run]\ntimeout = 120\nmemory = {1024 * MIB}\nprocesses = 100\nfile-size = {64 * MIB}\n",
    )
    kept = [
        block.rstrip("\n") + "\n"
        for block in text.split("\n\n")
        if block.startswith(
            ('[[contestants]]\nagent = "command"\nname = "careful"', "[[examiners]]")
        )
    ]
    blocks = [head.rstrip("\n") + "\n", *kept]
    for mode in MODES:
        command = json.dumps([sys.executable, str(UNRULY), mode])
        blocks.append(
            f'[[contestants]]\nagent = "command"\nname = "unruly-{mode}"\n'
            f'vendor = "unruly"\ncommand = {command}\n'
        )
    return "\n".join(blocks)


@pytest.fixture(scope="module")
def unruly_run(demo_build: DemoPaths, tmp_path_factory: pytest.TempPathFactory) -> Ran:
    root = copy_demo(demo_build, tmp_path_factory.mktemp("unruly") / "demo")
    config = only_tasks(unruly_config(root), root / "repo", TASK.title)
    (root / "bugbout.toml").write_text(config, encoding="utf-8")
    return bugbout("run", "--config", root / "bugbout.toml", "--color", "never", cwd=root)


def tasks_of(path: Path) -> list[dict[str, Any]]:
    return [line.record for line in read_lines([str(path)]) if line.record["kind"] == "task"]


def attempts(ran: Ran) -> dict[tuple[str, str], dict[str, Any]]:
    found = {}
    for task in tasks_of(ran.results / "attempts.jsonl"):
        for attempt in task["attempts"]:
            found[(task["title"], attempt["agent"])] = attempt
    return found


def test_the_bout_completes_without_a_traceback(unruly_run: Ran) -> None:
    assert unruly_run.returncode == 0, unruly_run.stderr
    assert "Traceback" not in unruly_run.stderr
    assert Results(unruly_run.results).report_json.exists()


def test_each_unruly_attempt_is_recorded_with_its_reason(unruly_run: Ran) -> None:
    found = attempts(unruly_run)
    titles = {title for title, _ in found}
    assert titles == {TASK.task_title}
    for title in titles:
        odd = found[(title, "unruly-odd-name")]
        assert odd["status"] == "finished"
        assert 'odd-file-name:"src/textkit/caf\\351.py"' in odd["flags"]
        assert '"src/textkit/caf\\351.py"' in odd["changed_files"]
        assert 'diff --git "a/src/textkit/caf\\351.py"' in odd["patch"]

        deep = found[(title, "unruly-deep")]
        assert deep["status"] == "finished", deep.get("error")
        (path,) = deep["changed_files"]
        assert path.count("/") == 1500 and path.endswith("/bottom.py")

        escape = found[(title, "unruly-escape")]
        assert escape["status"] == "finished", escape.get("error")
        assert (
            "symlink-outside:src/textkit/cases.py -> ../../z/a/b/L/../outside.py" in escape["flags"]
        )

        alloc = found[(title, "unruly-alloc")]
        assert alloc["status"] == "crashed"
        assert alloc["error"].startswith("memory limit 1 GiB reached")
        assert "limit:memory limit 1 GiB reached" in alloc["flags"]

        forked = found[(title, "unruly-fork")]
        assert forked["status"] == "crashed"
        assert forked["error"].startswith("process limit 100 reached")

        big = found[(title, "unruly-bigfile")]
        assert big["status"] == "crashed"
        assert big["error"].startswith("file-size limit 64 MiB reached")
        assert "File too large" in big["error"]


def test_scoring_never_applies_the_odd_name_nor_the_escaping_link(unruly_run: Ran) -> None:
    judged = tasks_of(Results(unruly_run.results).stream("judge"))
    for task in judged:
        scores = {s["patch"]: s for s in task["scores"]}
        odd = scores["unruly-odd-name"]
        assert 'odd-file-name:"src/textkit/caf\\351.py"' in odd["flags"]
        assert '"src/textkit/caf\\351.py"' not in odd.get("applied", [])
        escape = scores["unruly-escape"]
        assert (
            "symlink-outside:src/textkit/cases.py -> ../../z/a/b/L/../outside.py" in escape["flags"]
        )
        assert "src/textkit/cases.py" not in escape.get("applied", [])
        for mode in MODES:
            assert scores[f"unruly-{mode}"]["category"] != "resolved", mode


def test_the_careful_fixer_is_scored_and_picked_as_before(unruly_run: Ran) -> None:
    judged = tasks_of(Results(unruly_run.results).stream("judge"))
    by_title = {task.task_title: task for task in expected.GENUINE}
    for task in judged:
        key = by_title[task["title"]].key
        scores = {s["patch"]: s for s in task["scores"]}
        assert scores["careful"]["category"] == expected.CATEGORIES["careful"][key]
        assert not str(task["verdict"]["pick"]).startswith("unruly-")
        assert task["verdict"]["pick"] == expected.PICKS[key]
