"""Strength of a node project's oracle: V8's changed-line coverage counted on code lines
only, node's mutants run and killed or not, hunks reverted, with a scripted runner."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bb_core.envs.node import NodeEnv
from bb_core.testrun import TestRun
from bb_oracle.strength import StrengthRun, Thresholds
from bb_oracle.strength_node import code_lines, same_code

FIXED = """\
export function clamp(v: number, lo: number, hi: number): number {
  // keep inside
  if (v < lo) {
    return lo;
  }
  return v > hi ? hi : v;
}
"""

PATCH = """\
diff --git a/src/clamp.ts b/src/clamp.ts
--- a/src/clamp.ts
+++ b/src/clamp.ts
@@ -1,3 +1,7 @@
 export function clamp(v: number, lo: number, hi: number): number {
+  // keep inside
+  if (v < lo) {
+    return lo;
+  }
   return v > hi ? hi : v;
 }
"""

F2P = "src/clamp.test.ts > clamp > below"
P2P = "src/clamp.test.ts > clamp > above"


class ScriptedVitest:
    """Stands for the runner: F2P passes while the fix's lines hold (the `<=` mutant is
    an equivalent one here, as `clamp(lo, lo, hi)` is `lo` either way)."""

    def __init__(self, executed: list[int]) -> None:
        self.executed = executed
        self.calls: list[dict[str, Any]] = []

    def __call__(self, checkout: Path, env: Any, targets: list[str], **options: Any) -> TestRun:
        self.calls.append({"targets": targets, **options})
        log = Path(options["log_path"])
        if options.get("coverage"):
            Path(options["coverage"]).write_text(json.dumps({"src/clamp.ts": self.executed}))
        text = (checkout / "src/clamp.ts").read_text()
        fixed = text.replace("v <= lo", "v < lo") == FIXED
        outcomes: dict[str, Any] = {F2P: "passed" if fixed else "failed", P2P: "passed"}
        return TestRun(outcomes=outcomes, duration=0.1, exit_code=0, timed_out=False, log=log)


def measure(tmp_path: Path, executed: list[int]) -> tuple[dict[str, Any], ScriptedVitest]:
    folder = tmp_path / "after"
    (folder / "src").mkdir(parents=True)
    (folder / "src/clamp.ts").write_text(FIXED)
    env = NodeEnv(node=Path("/usr/bin/node"), root=tmp_path / "install", key="k", runner="vitest")
    runner = ScriptedVitest(executed)
    run = StrengthRun(
        folder=folder,
        env=env,  # type: ignore[arg-type]
        modules=["src/clamp.test.ts"],
        fail_to_pass=[F2P],
        pass_to_pass=[P2P],
        run=runner,
        logs=tmp_path / "logs",
        thresholds=Thresholds(),
    )
    strength = run.measure(PATCH)
    assert (folder / "src/clamp.ts").read_text() == FIXED  # every edit put back
    return dict(strength), runner


def test_node_strength_from_v8_coverage_and_node_mutants(tmp_path: Path) -> None:
    strength, runner = measure(tmp_path, [1, 3, 4, 6])
    # Lines 2 (a comment) and 5 (a brace) hold no code: two changed lines, both run.
    assert strength["coverage"] == {
        "changed_lines": 2, "covered": 2, "share": 1.0, "uncovered": [],
    }  # fmt: skip
    mutation = strength["mutation"]
    assert mutation["candidates"] == 3
    assert [s["change"] for s in mutation["survivors"]] == ["'<' -> '<='"]
    assert (mutation["killed"], mutation["mutants"]) == (3, 4)  # 3 mutants, 1 hunk
    assert strength["hunks"] == {"total": 1, "untested": []}
    assert not strength["weak"]
    coverage_run, *others = runner.calls
    assert coverage_run["coverage"] and coverage_run["nodeids"] == [F2P]
    assert all(call["extra_args"] == () and "coverage" not in call for call in others)


def test_uncovered_changed_lines_make_a_weak_oracle(tmp_path: Path) -> None:
    strength, _ = measure(tmp_path, [1, 6])
    assert strength["coverage"]["uncovered"] == ["src/clamp.ts:3", "src/clamp.ts:4"]
    assert strength["weak"] and "FAIL_TO_PASS covers 0%" in strength["reasons"][0]


def test_no_coverage_file_is_recorded_not_fatal(tmp_path: Path) -> None:
    class Silent(ScriptedVitest):
        def __call__(self, checkout: Path, env: Any, targets: list[str], **options: Any) -> TestRun:
            options.pop("coverage", None)
            return super().__call__(checkout, env, targets, **options)

    folder = tmp_path / "after"
    (folder / "src").mkdir(parents=True)
    (folder / "src/clamp.ts").write_text(FIXED)
    env = NodeEnv(node=Path("/usr/bin/node"), root=tmp_path, key="k", runner="jest")
    run = StrengthRun(folder, env, ["src/clamp.test.ts"], [F2P], [P2P], Silent([]),  # type: ignore[arg-type]
                      tmp_path / "logs", Thresholds())  # fmt: skip
    assert "coverage wrote no result" in run.measure(PATCH)["coverage"]["error"]


def test_code_lines_leave_out_comments_braces_and_types() -> None:
    source = (
        "interface Box {\n"  # 1
        "  size: number;\n"  # 2
        "}\n"  # 3
        "type N = number;\n"  # 4
        "/* note */\n"  # 5
        "export function f(b: Box): number {\n"  # 6
        "  return b.size;\n"  # 7
        "}\n"  # 8
    )
    assert code_lines("a.ts", source) == {6, 7}


@pytest.mark.parametrize(
    ("one", "two", "same"),
    [
        ("const a = 1; // x\n", "const a = 1;\n", True),
        ("const a = 1;\n", "const  a =\n  1;\n", True),
        ("const a = 1;\n", "const a = 2;\n", False),
        ("const a = 1;\n", "const a = ;\n", False),
    ],
)
def test_same_code_ignores_comments_and_layout_only(one: str, two: str, same: bool) -> None:
    assert same_code("a.ts", one, two) is same
