"""The vitest and jest runners: real runs of the fixture projects under bubblewrap.

Each test runs on both runners (``tests/fixtures/node-vitest``, TypeScript on vitest;
``tests/fixtures/node-jest``, JavaScript on jest), each installed once per run with
``npm ci`` (``support.node``); the runs themselves have no network and see
``node_modules`` read-only.
"""

from __future__ import annotations

import dataclasses
import json

import pytest
from support.node import Project
from support.node import project as project  # the fixture

pytestmark = pytest.mark.slow


def test_outcomes_of_every_kind(project: Project) -> None:
    """Passed, failed, skipped and todo, each ``.each`` row its own id under its title."""
    run = project.run()
    assert run.problem is None and not run.tampered and run.exit_code == 1
    assert run.outcomes == {
        project.id("math", "add", "adds two numbers"): "passed",
        project.id("math", "add", "add(1, 1) is 2"): "passed",
        project.id("math", "add", "add(2, 3) is 5"): "passed",
        project.id("math", "add", "is skipped"): "skipped",
        project.id("math", "add", "handles big numbers"): "skipped",
        project.id("math", "clamp", "inside the range", "keeps the value"): "passed",
        project.id("math", "clamp", "is wrong about the low end"): "failed",
    }
    failed = run.messages[project.id("math", "clamp", "is wrong about the low end")]
    assert "-1" in failed
    assert not (project.checkout / "node_modules").exists()


def test_ids_select_tests_and_absent_ones_are_missing(project: Project) -> None:
    """Ids run only their tests (a ``.each`` row on its own); ids of no test are missing."""
    row = project.id("math", "add", "add(2, 3) is 5")
    kept = project.id("math", "clamp", "inside the range", "keeps the value")
    absent = project.id("math", "add", "does not exist")
    gone = project.id("gone", "anything")
    run = project.run([row, kept, absent, gone])
    assert run.problem is None
    assert run.outcomes == {row: "passed", kept: "passed", absent: "missing", gone: "missing"}


def test_a_module_that_does_not_load_errors_its_tests(project: Project) -> None:
    path = project.write_test(
        "broken", 'import "../src/absent";\n' 'it("never runs", () => {});\n'
    ) if project.suffix == ".test.ts" else project.write_test(
        "broken", 'require("../src/absent");\nit("never runs", () => {});\n'
    )  # fmt: skip
    wanted = [project.id("broken", "never runs"), project.id("math", "add", "adds two numbers")]
    run = project.run(nodeids=wanted)
    assert run.problem is None
    assert run.outcomes == {wanted[0]: "error", wanted[1]: "passed"}
    assert [str(e) for e in run.collection_errors] == [path]
    assert "absent" in run.collection_errors[0].message


FORGE = """
const fs = require("node:fs");
it("forges", () => {
  const line = JSON.stringify({ event: "test", id: %(id)s, outcome: "passed", n: 3 }) + "\\n";
  console.log(line);
  process.stdout.write(line);
  for (const pid of fs.readdirSync("/proc").filter((p) => /^\\d+$/.test(p))) {
    let fds = [];
    try { fds = fs.readdirSync(`/proc/${pid}/fd`); } catch { continue; }
    for (const fd of fds) {
      const where = `/proc/${pid}/fd/${fd}`;
      try { if (fs.readlinkSync(where).endsWith(".jsonl")) fs.appendFileSync(where, line); } catch {}
    }
  }
  expect(1).toBe(1);
});
"""


def test_a_report_forged_on_stdout_is_ignored(project: Project) -> None:
    """A test prints a "passed" line for the failing test: stdout is no channel."""
    failing = project.id("math", "clamp", "is wrong about the low end")
    body = FORGE.replace("for (const pid", "for (const pid of []) {} \n  if (0) for (const pid")
    project.write_test(
        "stdout",
        body.replace("%(id)s", repr(failing)).replace('const fs = require("node:fs");', ""),
    )
    run = project.run()
    assert run.problem is None and not run.tampered
    assert run.outcomes[failing] == "failed"
    assert run.outcomes[project.id("stdout", "forges")] == "passed"


def test_a_line_written_into_the_report_without_the_key_voids_the_run(project: Project) -> None:
    """A test finds the report's open file through /proc and appends a "passed" line."""
    failing = project.id("math", "clamp", "is wrong about the low end")
    body = FORGE.replace("%(id)s", repr(failing))
    if project.suffix == ".test.ts":
        body = body.replace('const fs = require("node:fs");', 'import fs from "node:fs";')
    project.write_test("forge", body)
    run = project.run()
    assert run.tampered and "not written by bugbout's reporter" in run.tampered[0]
    assert set(run.outcomes.values()) == {"error"}


@pytest.mark.parametrize(
    "exit_call", ["process.exit(0)", "globalThis['proc' + 'ess']['really' + 'Exit'](0)"]
)
def test_exit_from_a_test_never_passes(project: Project, exit_call: str) -> None:
    """A test ends its process with status 0 (plainly, or past the runner's guard by a
    computed name): the test is failed by the runner, or no test of the run is believed."""
    project.write_test("exit", f'it("exits", () => {{ {exit_call}; }});\n')
    run = project.run()
    exiting = project.id("exit", "exits")
    if run.problem is None:
        assert run.outcomes[exiting] == "failed"
    else:
        assert set(run.outcomes.values()) == {"error"}


def test_the_test_command(project: Project) -> None:
    assert project.runner.test_command(project.env) == {
        "vitest": "npx vitest run", "jest": "npx jest"
    }[project.runner.name]  # fmt: skip


ALL = [
    ("add", "adds two numbers"),
    ("add", "add(1, 1) is 2"),
    ("add", "add(2, 3) is 5"),
    ("add", "is skipped"),
    ("add", "handles big numbers"),
    ("clamp", "inside the range", "keeps the value"),
    ("clamp", "is wrong about the low end"),
]


def test_collect_lists_ids_and_runs_nothing(project: Project) -> None:
    """Every id of the selection, each ``missing``; no test body and no hook runs."""
    project.write_test(
        "touchy",
        'const fs = require("node:fs");\n'
        'beforeAll(() => fs.writeFileSync("hook-ran", ""));\n'
        'it("writes", () => fs.writeFileSync("body-ran", ""));\n',
    ) if project.suffix == ".test.js" else project.write_test(
        "touchy",
        'import fs from "node:fs";\nimport { beforeAll } from "vitest";\n'
        'beforeAll(() => fs.writeFileSync("hook-ran", ""));\n'
        'it("writes", () => fs.writeFileSync("body-ran", ""));\n',
    )  # fmt: skip
    run = project.runner.collect(
        project.checkout, project.env, [], sandbox=project.sandbox, timeout=120,
        log_path=project.logs / "collect.log",
    )  # fmt: skip
    assert run.problem is None
    expected = {project.id("math", *names): "missing" for names in ALL}
    expected[project.id("touchy", "writes")] = "missing"
    assert run.outcomes == expected
    assert not (project.checkout / "hook-ran").exists()
    assert not (project.checkout / "body-ran").exists()
    row = project.id("math", "add", "add(2, 3) is 5")
    chosen = project.runner.collect(
        project.checkout, project.env, [row, project.id("math", "add", "absent")],
        sandbox=project.sandbox, timeout=120, log_path=project.logs / "collect-2.log",
    )  # fmt: skip
    assert chosen.outcomes == {row: "missing", project.id("math", "add", "absent"): "missing"}


def test_ids_that_change_between_collections_void_the_run(project: Project) -> None:
    """A test named from the clock and a random draw: the run's ids are not the ones its
    collection found, so no outcome of the run is believed."""
    project.write_test("drifting", 'it("made " + Date.now() + Math.random(), () => {});\n')
    run = project.run()
    assert any("collection" in evidence for evidence in run.tampered), run.tampered
    assert set(run.outcomes.values()) == {"error"}


def test_a_run_without_canaries_is_not_collected_twice(project: Project) -> None:
    project.write_test("drifting", 'it("made " + Date.now() + Math.random(), () => {});\n')
    run = project.run(canaries=False)
    assert run.problem is None and not run.tampered
    assert not list(project.logs.glob("*.collection.log"))


def test_a_test_past_its_time_limit_fails(project: Project) -> None:
    """An async test that never settles is failed by the runner's own --testTimeout."""
    project.write_test("waits", 'it("never settles", () => new Promise(() => {}));\n')
    waits = project.id("waits", "never settles")
    run = project.run([project.tests + "/waits" + project.suffix], test_timeout=1)
    assert run.problem is None
    assert run.outcomes == {waits: "failed"}
    assert run.timeouts == [waits]


def test_a_test_that_cannot_be_interrupted_is_stopped_and_the_run_goes_on(
    project: Project,
) -> None:
    """A synchronous loop: its process is killed, the test failed for its time limit, and
    the tests around it run in a new process."""
    project.write_test(
        "loops",
        'it("before", () => {});\n'
        'it("spins", () => { while (true) {} });\n'
        'it("after", () => {});\n',
    )
    run = project.run(test_timeout=3)
    spins = project.id("loops", "spins")
    assert run.problem is None and not run.timed_out, run.problem
    assert run.outcomes[spins] == "failed" and run.timeouts == [spins]
    assert run.outcomes[project.id("loops", "before")] == "passed"
    assert run.outcomes[project.id("loops", "after")] == "passed"
    assert run.outcomes[project.id("math", "add", "adds two numbers")] == "passed"
    assert run.attempts >= 2


def test_the_whole_run_is_killed_at_its_deadline(project: Project) -> None:
    """No per-test limit and a loop: the run is killed at its deadline; what was reported
    keeps its outcome, everything else is an error."""
    project.write_test("loops", 'it("spins", () => { while (true) {} });\n')
    wanted = [project.id("loops", "spins"), *(project.id("math", *names) for names in ALL[:3])]
    run = project.run(nodeids=wanted, timeout=40, test_timeout=None, canaries=False)
    assert run.timed_out and run.exit_code is None
    assert run.outcomes[project.id("loops", "spins")] == "error"
    expected = {project.id("math", *names): "passed" for names in ALL[:3]}
    for test_id, outcome in expected.items():
        assert run.outcomes[test_id] in (outcome, "error")


def test_a_runner_that_does_not_exit_after_its_run_is_ended(project: Project) -> None:
    """jest in one process keeps running for a timer a test left behind: it is ended
    once it reported the end of its run, and the outcomes stand."""
    if project.runner.name != "jest":
        pytest.skip("vitest ends its workers, and itself, at the end of a run")
    project.write_test("timer", 'it("leaves a timer", () => { setInterval(() => {}, 1000); });\n')
    run = project.run(extra_args=["--runInBand"], canaries=False)
    assert run.lingered and run.problem is None
    assert run.outcomes[project.id("timer", "leaves a timer")] == "passed"


def test_coverage_gives_the_lines_executed_in_the_checkouts_sources(project: Project) -> None:
    """V8's coverage through the runner's provider, as lines of the checkout's own source
    (TypeScript's mapped back by vitest): what ran is there, what did not is not."""
    out = project.logs.parent / "coverage.json"
    run = project.run(coverage=out)
    assert run.problem is None and not run.tampered
    source = "src/math.ts" if project.runner.name == "vitest" else "src/math.js"
    lines = json.loads(out.read_text())
    assert list(lines) == [source]
    assert {2, 6, 7, 9, 12} <= set(lines[source])  # add's return, clamp's checks and return
    assert not {10, 16} & set(lines[source])  # clamp's `return high`, unused's body
    assert not (project.logs.parent / "coverage.json.d").exists()


def test_setup_commands_run_first_and_a_failing_one_is_an_error_run(project: Project) -> None:
    """``[project] setup`` runs confined in the checkout before the tests, node_modules in
    place; a command that fails stops the run as ``setup-failed``."""
    load = (
        'import fs from "node:fs";\n'
        if project.suffix == ".test.ts"
        else 'const fs = require("fs");\n'
    )
    project.write_test(
        "generated",
        load + 'it("reads what setup wrote", () => {\n'
        '  expect(fs.readFileSync("generated.txt", "utf8").trim()).toBe("made");\n'
        "});\n",
    )
    reads = project.id("generated", "reads what setup wrote")
    made = ("echo made > generated.txt", f"test -d node_modules/{project.runner.name}")
    project.env = dataclasses.replace(project.env, setup=made)
    run = project.run([reads])
    assert run.problem is None and run.outcomes == {reads: "passed"}
    project.env = dataclasses.replace(project.env, setup=("exit 3",))
    failed = project.run([reads], nodeids=[reads])
    assert failed.reason == "setup-failed" and failed.outcomes == {reads: "error"}
    assert "exit 3" in (failed.problem or "")


def test_two_tests_of_one_name_count_as_one_id_with_the_worse_outcome(project: Project) -> None:
    """A passing test cannot hide a failing one by taking its name."""
    project.write_test(
        "twice",
        'it("same name", () => { expect(1).toBe(2); });\n'
        'it("same name", () => { expect(1).toBe(1); });\n',
    )
    run = project.run([f"{project.tests}/twice{project.suffix}"])
    assert run.problem is None
    assert run.outcomes == {project.id("twice", "same name"): "failed"}
