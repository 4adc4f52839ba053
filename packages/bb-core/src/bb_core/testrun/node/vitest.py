"""vitest behind bugbout's test-runner interface (``[project] runner = "vitest"``).

``vitest run`` with bugbout's reporter (``js/vitest-reporter.mjs``) beside vitest's
default one, which writes the log; the test files of the targets as filters, a test-name
pattern for the ids (:mod:`bb_core.testrun.node.targets`), ``--testTimeout`` for the
per-test limit. ``--no-cache``: vitest before 4 ends a run by writing its results cache
into ``node_modules/.vite``, which is read-only here, and fails the whole run when it cannot.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from bb_core.testrun.node.base import NodeRunner, ms
from bb_core.testrun.node.launch import JS_DIR
from bb_core.testrun.node.targets import Plan

REPORTER = JS_DIR / "vitest-reporter.mjs"


def config_loader(version: str) -> bool:
    """Whether vitest *version* takes ``--configLoader`` (3.1 and later; an unknown version
    is taken as recent). Older ones stop at an unknown option, so a project on vitest 2 or
    3.0 (remeda, up to 2025) would never run."""
    parts = version.split(".")
    try:
        major, minor = int(parts[0]), int(parts[1]) if len(parts) > 1 else 0
    except ValueError:
        return True
    return (major, minor) >= (3, 1)


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
        versions: Mapping[str, str] | None = None,
    ) -> list[str]:
        line = [
            str(node), str(checkout / "node_modules" / "vitest" / "vitest.mjs"), "run",
            "--reporter=default", f"--reporter={REPORTER}", "--passWithNoTests",
            "--no-color", "--watch=false", "--no-cache",
        ]  # fmt: skip
        if config_loader((versions or {}).get("vitest", "")):
            line.append("--configLoader=runner")
        if test_timeout:
            line.append(f"--testTimeout={ms(test_timeout)}")
        if plan.pattern is not None:
            line.append(f"--testNamePattern={plan.pattern}")
        line += [f"--exclude={path}" for path in plan.skip_files]
        return [*line, *args, *plan.files]
