"""What the vitest and jest runners share: the :class:`~bb_core.testrun.runner.TestRunner`
calls over :func:`~bb_core.testrun.node.run.run_node`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from bb_core.testrun.node import config
from bb_core.testrun.node.run import NodeCommand, run_node
from bb_core.testrun.result import TestRun


def ms(seconds: float) -> str:
    """*seconds* as the whole milliseconds the runners' options take."""
    return str(max(1, round(seconds * 1000)))


class NodeRunner(NodeCommand):
    """A node test runner behind bugbout's test-runner interface."""

    __test__: ClassVar[bool] = False

    language = "javascript"
    #: What ``npm test`` would run, as a person types it in the checkout.
    command: ClassVar[str] = ""

    def run(self, checkout: Path, env: Any, targets: Sequence[str], **options: Any) -> TestRun:
        return run_node(self, checkout, env, targets, **options)

    def collect(self, checkout: Path, env: Any, targets: Sequence[str], **options: Any) -> TestRun:
        """The ids under *targets*, each ``missing``: the runner loads every test file and
        lists its tests under a name pattern no test matches, so no hook and no test body
        runs (neither vitest nor jest lists the tests of a file without loading it)."""
        options.pop("canaries", None)
        return run_node(self, checkout, env, targets, canaries=False, collect=True, **options)

    def protected(self, checkout: Path) -> tuple[str, ...]:
        """The runner's config files, the setup files they name, package.json, tsconfig,
        babel's configuration and .nvmrc (:mod:`bb_core.testrun.node.config`)."""
        return config.protected(Path(checkout))

    def test_command(self, env: Any) -> str:
        args = " ".join(getattr(env, "runner_args", ()))
        return f"{self.command} {args}".rstrip()
