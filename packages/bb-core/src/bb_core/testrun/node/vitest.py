"""vitest behind bugbout's test-runner interface (``[project] runner = "vitest"``).

``vitest run`` with bugbout's reporter (``js/vitest-reporter.mjs``) beside vitest's
default one, which writes the log; the test files of the targets as filters, a test-name
pattern for the ids (:mod:`bb_core.testrun.node.targets`), ``--testTimeout`` for the
per-test limit.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from bb_core.testrun.node.base import NodeRunner, ms
from bb_core.testrun.node.launch import JS_DIR
from bb_core.testrun.node.targets import Plan

REPORTER = JS_DIR / "vitest-reporter.mjs"


class VitestRunner(NodeRunner):
    name = "vitest"
    command = "npx vitest run"

    def argv(
        self,
        node: Path,
        checkout: Path,
        plan: Plan,
        test_timeout: float | None,
        args: Sequence[str],
    ) -> list[str]:
        line = [
            str(node), str(checkout / "node_modules" / "vitest" / "vitest.mjs"), "run",
            "--reporter=default", f"--reporter={REPORTER}", "--passWithNoTests",
            "--no-color", "--watch=false", "--configLoader=runner",
        ]  # fmt: skip
        if test_timeout:
            line.append(f"--testTimeout={ms(test_timeout)}")
        if plan.pattern is not None:
            line.append(f"--testNamePattern={plan.pattern}")
        line += [f"--exclude={path}" for path in plan.skip_files]
        return [*line, *args, *plan.files]
