"""Run a project's tests on a checkout, confined, and return one outcome per test id.

Stages call :func:`run_tests`, which hands the run to the environment's runner
(:mod:`bb_core.testrun.runner`: pytest, vitest or jest); what follows is how the pytest
runner works, and the report, watch, cross-check and assembly steps serve every runner.

:func:`run_pytest` runs ``python -m pytest`` of the project's test environment inside
the sandbox - no network, writes only in the checkout, the temporary folder and any
extra ``writable`` folders - with bugbout's pytest plugin loaded. The plugin writes a
JSON line per collection problem and per test phase to a file descriptor bugbout
opened; outcomes are read from that report only, never from pytest's terminal output,
which the code under test can forge.

Outcomes: ``passed``, ``failed``, ``error`` (setup or teardown failed, or the test's
module could not be collected), ``skipped`` (also xfailed tests: an expected failure
proves nothing either way; an unexpected pass counts as ``passed``, a strict one as
``failed``) and ``missing`` (requested but never reported).

Two time limits. ``test_timeout`` per test, enforced inside pytest by an alarm that
fails just that test; a test the alarm cannot interrupt is noticed from the report,
the run is killed and the tests it had not reached are run again without the stuck
one, which is recorded as ``failed`` (timed out). ``timeout`` for the whole call:
at that point the process tree is killed, tests already reported keep their outcomes,
the rest are ``error`` and ``timed_out`` is set.

A run that ended on its own but whose report is missing, garbled, unfinished or at
odds with pytest's exit status is an error run: every requested test is ``error``.

A run that reported the end of its session but does not exit (a server a test started,
a thread that never returns) is given ``LINGER_GRACE`` seconds, then its process tree is
ended: the outcomes it reported stand, its exit status is the one it reported, and the
run is flagged ``lingered``. Nothing it did not report counts as passing.

The steps live in modules of their own: :mod:`~bb_core.testrun.command` assembles the
command line and environment, :mod:`~bb_core.testrun.run` starts and re-starts the
confined processes, :mod:`~bb_core.testrun.watch` watches one, :mod:`~bb_core.testrun.report`
reads the plugin's report, :mod:`~bb_core.testrun.crosscheck` compares it with the
collection pass and :mod:`~bb_core.testrun.assemble` makes the outcomes.
"""

from bb_core.testrun.command import (
    KEPT_VARIABLES,
    PLUGIN,
    PLUGIN_DIR,
    plan_targets,
    pytest_argv,
    run_environment,
)
from bb_core.testrun.result import OUTCOMES, CollectionError, TestRun
from bb_core.testrun.run import LOG_LIMIT, run_pytest
from bb_core.testrun.runner import TestRunner, run_tests, runner_for, runner_named
from bb_core.testrun.watch import LINGER_GRACE

__all__ = [
    "KEPT_VARIABLES",
    "LINGER_GRACE",
    "LOG_LIMIT",
    "OUTCOMES",
    "PLUGIN",
    "PLUGIN_DIR",
    "CollectionError",
    "TestRun",
    "TestRunner",
    "plan_targets",
    "pytest_argv",
    "run_environment",
    "run_pytest",
    "run_tests",
    "runner_for",
    "runner_named",
]
