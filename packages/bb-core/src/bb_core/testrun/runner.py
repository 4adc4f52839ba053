"""One interface for every test runner: pytest, vitest and jest behind the same call.

A stage never names a runner. It holds a test environment (:class:`bb_core.envs.TestEnv`
for a Python project, :class:`bb_core.envs.node.NodeEnv` for a JavaScript or TypeScript
one) and calls :func:`run_tests` with it; the environment's ``runner`` picks the
:class:`TestRunner` that runs the tests. Whatever runs them, what comes back is one
:class:`~bb_core.testrun.result.TestRun`: an outcome per test id (``passed``, ``failed``,
``error``, ``skipped``, ``missing``), the time limits and hang handling, the tamper
evidence that voids a run, read from one authenticated report channel that bugbout owns
(:mod:`bb_core.testrun.report`), never from the runner's terminal output.

Test ids are stable strings: pytest's node ids (``tests/test_a.py::test_b[1]``) for
pytest; ``<path> > <describe> > ... > <test name>`` for the node runners, each row of a
``.each`` table its own id.

A runner is found by name in :data:`RUNNERS` (the pytest runner is built in; the node
runners are imported when first asked for, so a Python project never loads them).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

from bb_core.errors import ConfigError
from bb_core.testrun.result import TestRun


@runtime_checkable
class TestRunner(Protocol):
    """What every test runner offers.

    ``name``: how ``[project] runner`` spells it. ``language``: the language of the
    projects it runs (``python`` or ``javascript``; TypeScript projects run on the
    javascript runners).
    """

    __test__: ClassVar[bool] = False

    name: str
    language: str

    def run(
        self,
        checkout: Path,
        env: Any,
        targets: Sequence[str],
        **options: Any,
    ) -> TestRun:
        """Run *targets* (files, folders or test ids relative to *checkout*) in *env*.

        The keywords are :func:`bb_core.testrun.run.run_pytest`'s: ``nodeids``,
        ``sandbox``, ``timeout``, ``test_timeout``, ``log_path``, ``extra_args``,
        ``writable``, ``readable``, ``canaries``, ``touched``, ``twins``, ``twins_void``,
        and ``coverage`` - a file to write the lines the run executed to, as
        ``{"<checkout path>": [line, ...]}`` JSON (the node runners, through V8's
        coverage; a pytest run is measured by bb-oracle's coverage.py probe plugin
        instead, given in ``extra_args``). ``pythonpath`` and ``server`` are the pytest
        runner's own; the others ignore them.
        """
        ...

    def collect(
        self,
        checkout: Path,
        env: Any,
        targets: Sequence[str],
        **options: Any,
    ) -> TestRun:
        """List the test ids under *targets* without running them (the collection).

        The keywords are :meth:`run`'s (time limits, sandbox, log). The ids are the run's
        ``outcomes`` keys, each ``missing`` (collected, not run); a file that does not
        load is one of ``collection_errors``.
        """
        ...

    def protected(self, checkout: Path) -> tuple[str, ...]:
        """The configuration the runner reads from *checkout* that a patch never changes.

        Repository paths (or ``fnmatch`` patterns) of the files that decide which tests run
        and how: the runner's configuration files, the setup files they name, and the
        manifest that holds the runner's settings. A scored patch that touches one is not
        applied; every stage reads the project's configuration from the commit, never
        from an agent's checkout.
        """
        ...

    def test_command(self, env: Any) -> str:
        """The command a person types in the checkout to run the project's tests."""
        ...


class PytestRunner:
    """pytest, with bugbout's plugin: :func:`bb_core.testrun.run.run_pytest`."""

    __test__: ClassVar[bool] = False

    name = "pytest"
    language = "python"

    def run(self, checkout: Path, env: Any, targets: Sequence[str], **options: Any) -> TestRun:
        from bb_core.testrun.run import run_pytest

        if options.get("coverage") is not None:
            raise TypeError("pytest runs measure coverage with bb-oracle's coverage.py probe")
        options.pop("coverage", None)
        return run_pytest(checkout, env, targets, **options)

    def collect(self, checkout: Path, env: Any, targets: Sequence[str], **options: Any) -> TestRun:
        extra = (*options.pop("extra_args", ()), "--collect-only")
        return self.run(checkout, env, targets, extra_args=extra, **options)

    def protected(self, checkout: Path) -> tuple[str, ...]:
        from bb_core.paths import CONFIG_NAMES

        return tuple(sorted(CONFIG_NAMES))

    def test_command(self, env: Any) -> str:
        args = " ".join(getattr(env, "pytest_args", ()))
        return f"python -m pytest {args}".rstrip()


#: Runners by name: an instance, or ``module:Class`` imported when first asked for.
RUNNERS: dict[str, TestRunner | str] = {
    "pytest": PytestRunner(),
    "vitest": "bb_core.testrun.node.vitest:VitestRunner",
    "jest": "bb_core.testrun.node.jest:JestRunner",
}


def runner_named(name: str) -> TestRunner:
    """The runner called *name*; a :class:`ConfigError` for a name bugbout does not know."""
    found = RUNNERS.get(name)
    if found is None:
        known = ", ".join(sorted(RUNNERS))
        raise ConfigError(f"unknown test runner {name!r} (bugbout runs: {known})")
    if isinstance(found, str):
        module, _, attribute = found.partition(":")
        found = RUNNERS[name] = getattr(importlib.import_module(module), attribute)()
    return found


def runner_for(env: Any) -> TestRunner:
    """The runner of test environment *env* (``env.runner``; pytest when it names none)."""
    return runner_named(getattr(env, "runner", "pytest"))


def run_tests(checkout: Path, env: Any, targets: Sequence[str], **options: Any) -> TestRun:
    """Run *targets* with *env*'s runner: what every stage calls (see :class:`TestRunner`)."""
    return runner_for(env).run(checkout, env, targets, **options)
