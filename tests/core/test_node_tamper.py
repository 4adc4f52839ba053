"""Canaries in a vitest or jest run: planted in the run's own test files, and a run whose
canaries come out wrong is void. Real runs under bubblewrap (``support.node``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from bb_core.tamper import node as node_canaries
from support.node import Project
from support.node import project as project  # the fixture

pytestmark = pytest.mark.slow

FAILING = ("math", "clamp", "is wrong about the low end")

#: Source files that make every equality say yes (or no), plainly and by computed names.
PATCHES = {
    "vitest": {
        "yes": "Object.is = () => true;\n",
        "yes, disguised": "(globalThis as any)['Obj' + 'ect']['i' + 's'] = () => true;\n",
        "no, disguised": "(globalThis as any)['Obj' + 'ect']['i' + 's'] = () => false;\n",
    },
    "jest": {
        "yes": "Object.is = () => true;\n",
        "yes, disguised": "globalThis['Obj' + 'ect']['i' + 's'] = () => true;\n",
        "no, disguised": "globalThis['Obj' + 'ect']['i' + 's'] = () => false;\n",
    },
}


def source(project: Project) -> Path:
    return project.checkout / ("src/math.ts" if project.runner.name == "vitest" else "src/math.js")


def test_canaries_leave_no_trace_in_the_outcomes_or_the_files(project: Project) -> None:
    test_file = project.checkout / project.id("math").split(" > ")[0]
    before = test_file.read_bytes()
    os.utime(test_file, ns=(1_600_000_000_000_000_000, 1_600_000_000_000_000_000))
    run = project.run()
    assert run.problem is None and not run.tampered
    assert len(run.outcomes) == 7 and run.outcomes[project.id(*FAILING)] == "failed"
    assert test_file.read_bytes() == before
    assert test_file.stat().st_mtime_ns == 1_600_000_000_000_000_000
    planted = (project.logs / "run-0.log.report.jsonl").read_text()
    assert planted.count('"event":"test"') > 7  # the canaries ran, and were reported


def test_canaries_join_a_run_of_chosen_ids(project: Project) -> None:
    """A run of a few ids runs its canaries too (their names join the name pattern)."""
    wanted = [project.id(*FAILING)]
    file = project.id("math").split(" > ")[0]
    planted = node_canaries.place(project.checkout, [file], project.runner.name)
    try:
        assert len(planted.must_fail) == 2 and len(planted.must_pass) == 1
        assert all(test_id.startswith(file + " > ") for test_id in planted.ids)
    finally:
        planted.remove()
    run = project.run(wanted)
    assert run.outcomes == {wanted[0]: "failed"} and not run.tampered
    report = (project.logs / "run-0.log.report.jsonl").read_text()
    ran = report.count('"outcome":"passed"') + report.count('"outcome":"failed"')
    assert ran == 4  # the chosen test and three canaries; the others were left out


@pytest.mark.parametrize("patch", ["yes", "yes, disguised", "no, disguised"])
def test_an_equality_that_always_says_the_same_voids_the_run(project: Project, patch: str) -> None:
    """The code under test replaces ``Object.is``, which ``toBe`` and ``toEqual`` use: the
    failing test passes (or every test fails), and so does a must-fail canary (or a
    must-pass one fails)."""
    path = source(project)
    path.write_text(PATCHES[project.runner.name][patch] + path.read_text())
    run = project.run()
    assert run.tampered, run.outcomes
    assert any("canary" in evidence for evidence in run.tampered)
    assert set(run.outcomes.values()) == {"error"}
