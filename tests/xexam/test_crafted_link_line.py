"""An attempt line written by hand and fed straight to ``bb-judge``: its patch replaces the
module under test by a link that reads as inside the tree but resolves outside it through
another link of the same patch. Scoring flags it and never applies it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import expected
import pytest
from bb_core.git import open_repo
from bb_core.patch import diff_trees
from support.tools import run_tool
from xexam_helpers import Crossed, task_key

MODULE = "src/textkit/cases.py"
LINK = "z/a/b/L/../outside.py"  # inside by its text; through L, the tree's parent


@pytest.mark.slow
def test_a_crafted_line_with_a_link_through_a_link_is_flagged_and_never_applied(
    crossed_demo: Crossed, tmp_path: Path
) -> None:
    [task] = [
        r for r in crossed_demo.records if r["kind"] == "task" and task_key(r) == "camel-first-word"
    ]
    base, work = tmp_path / "base", tmp_path / "work"
    with open_repo(crossed_demo.raced.root / "repo") as repo:
        for dest in (base, work):
            repo.materialize(str(task["base_commit"]), dest, exclude=task["test_files"])
    package = work / "src" / "textkit"
    (package / "z" / "a" / "b").mkdir(parents=True)
    os.symlink("../../../../..", package / "z" / "a" / "b" / "L")  # the tree's root
    (work / MODULE).unlink()
    os.symlink(LINK, work / MODULE)
    (tmp_path / "outside.py").write_text("def camel_case(text):\n    return 'fixed'\n")
    patch = diff_trees(base, work)
    crafted = next(a for a in task["attempts"] if a["agent"] == "shortcut")
    crafted.update(patch=patch, source_patch=patch, test_patch="", flags=[])
    fact = expected.BY_KEY["camel-first-word"]
    task["oracle"] = {
        "kind": "oracle",
        "v": 1,
        "fail_to_pass": list(fact.fail_to_pass),
        "pass_to_pass": list(fact.pass_to_pass),
        "flaky": [],
        "broken_after": [],
        "test_modules": sorted({n.split("::")[0] for n in fact.fail_to_pass + fact.pass_to_pass}),
        "runs": [],
    }
    done = run_tool(
        "bb-judge", "-", cwd=crossed_demo.raced.root, stdin=json.dumps(task).encode() + b"\n"
    )
    assert done.returncode == 0, done.stderr.decode()
    [judged] = [json.loads(x) for x in done.stdout.splitlines() if b'"kind":"task"' in x]
    scores = {s["patch"]: s for s in judged["scores"]}
    score = scores["shortcut"]
    assert f"symlink-outside:{MODULE} -> {LINK}" in score["flags"]
    assert MODULE not in score["applied"] and MODULE in score["dropped"]
    assert "src/textkit/z/a/b/L" in score["applied"]  # the link to the root is harmless
    assert score["category"] != "resolved"
    assert scores["careful"]["category"] == "resolved"
