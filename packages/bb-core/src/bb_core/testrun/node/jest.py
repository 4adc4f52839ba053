"""jest behind bugbout's test-runner interface (``[project] runner = "jest"``).

jest with bugbout's reporter (``js/jest-reporter.cjs``) beside jest's default one, which
writes the log; the targets as anchored path patterns (jest reads its arguments as
regular expressions over absolute paths), a test-name pattern for the ids
(:mod:`bb_core.testrun.node.targets`), ``--testTimeout`` for the per-test limit. Tests
run in worker processes (``--maxWorkers=2``, unless the arguments say otherwise), never
in the process that holds the report channel, whenever the run has two test files or more.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from bb_core.testrun.node.base import NodeRunner, ms
from bb_core.testrun.node.launch import JS_DIR
from bb_core.testrun.node.targets import Plan, js_escape

REPORTER = JS_DIR / "jest-reporter.cjs"
#: Arguments that say how many processes run the tests (bugbout's default is left out).
IN_BAND = ("-i", "--runInBand", "-w", "--maxWorkers")


def path_patterns(checkout: Path, plan: Plan) -> list[str]:
    """jest's path patterns for exactly the files and folders of *plan*, without its
    ``skip_files``."""
    head = "^"
    if plan.skip_files:
        skipped = "|".join(js_escape(str(checkout / path)) for path in plan.skip_files)
        head = f"^(?!(?:{skipped})$)"
    patterns = []
    for path in plan.files:
        where = checkout / path
        patterns.append(head + js_escape(str(where)) + ("$" if where.is_file() else "/"))
    return patterns or ([head] if plan.skip_files else [])


class JestRunner(NodeRunner):
    name = "jest"
    command = "npx jest"

    def argv(
        self,
        node: Path,
        checkout: Path,
        plan: Plan,
        test_timeout: float | None,
        args: Sequence[str],
        versions: Mapping[str, str] | None = None,
    ) -> list[str]:
        line = [
            str(node), str(checkout / "node_modules" / "jest" / "bin" / "jest.js"), "--ci",
            "--reporters=default", f"--reporters={REPORTER}", "--passWithNoTests",
            "--no-watchman", "--watchAll=false",
        ]  # fmt: skip
        if not any(a.startswith(IN_BAND) for a in args):
            line.append("--maxWorkers=2")
        if test_timeout:
            line.append(f"--testTimeout={ms(test_timeout)}")
        if plan.pattern is not None:
            line.append(f"--testNamePattern={plan.pattern}")
        return [*line, *args, *path_patterns(checkout, plan)]
