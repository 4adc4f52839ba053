"""``bugbout doctor --show-confinement``: what an attempt and a test run see, write, reach.

The views are computed by the very code the race and the test runs use, for a stand-in
attempt whose folders are made in a temporary folder and shown as
``BUGBOUT_HOME/work/<attempt id>/...``.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from bb_core.agents import Session, agent_from_config
from bb_core.bench.workbench import Workbench
from bb_core.config import Config
from bb_core.errors import BbError
from bb_core.sandbox import Confinement, Sandbox, describe_view, get_sandbox, view_of
from bb_core.testrun import PLUGIN_DIR
from bb_race.checkout import AttemptDirs
from bb_race.forensics import unconfined_flags
from bb_race.project_tests import ProjectTests
from bb_race.runner import RaceContext, _confinement

PLACEHOLDER = "BUGBOUT_HOME/work/<attempt id>"


def _indent(lines: list[str], stand_in: str) -> Iterator[str]:
    shown = PLACEHOLDER if stand_in.endswith("attempt") else "<the checkout under test>"
    for line in lines:
        yield "  " + line.replace(stand_in, shown)


def show_confinement(config: Config) -> Iterator[str]:
    """Lines describing the confinement of each agent's attempts and of a test run."""
    try:
        sandbox: Sandbox = get_sandbox(config.run.sandbox)
    except BbError as exc:
        yield f"sandbox {config.run.sandbox}: {exc.message}"
        return
    yield f"sandbox: {sandbox.describe()}"
    if sandbox.weakness:
        yield f"  unconfined: {sandbox.weakness}"
    bench = Workbench(config, sandbox=sandbox)
    tests = ProjectTests(bench)
    try:
        tests.env()
    except BbError as exc:
        yield f"  (no test environment: {exc.message})"
    readable = tests.readable()
    bench.close()
    with tempfile.TemporaryDirectory(prefix="bb-show-") as folder:
        dirs = AttemptDirs.under(Path(folder) / "attempt").fresh()
        dirs.work.mkdir()
        stand_in = str(dirs.root)
        ctx = RaceContext(
            sandbox=sandbox,
            timeout=config.run.timeout,
            checkouts=None,  # type: ignore[arg-type]
            repository=lambda task: "",
            test_command=lambda task: "",
            readable=readable,
        )
        for entry in config.agents:
            try:
                agent = agent_from_config(entry)
                session = Session(
                    task_id=dirs.root.name, prompt="", prompt_file=dirs.logs / "prompt.md",
                    workdir=dirs.work, logdir=dirs.logs, home=dirs.home, sandbox=sandbox,
                    timeout=config.run.timeout, test_command="",
                )  # fmt: skip
                invocation = agent.invocation(session)
            except (BbError, OSError) as exc:
                yield f"attempt of {entry.name}: cannot tell ({exc})"
                continue
            yield f"attempt of {agent.name}:"
            for flag in unconfined_flags(sandbox, invocation):
                yield f"  {flag}"
            if not invocation.confine:
                yield "  sees and writes what its own CLI allows; bugbout's sandbox is not around it"
                continue
            network = invocation.network
            _used, confinement = _confinement(ctx, dirs, invocation, network is True, [])
            view = view_of(list(invocation.argv), confinement, dirs.work)
            lines = describe_view(view)
            if isinstance(network, list):
                lines.append("  (through the egress proxy: only " + ", ".join(network) + ")")
            yield from _indent(lines, stand_in)
        yield "a test run (oracle, cross-examination, scoring):"
        python = readable or [Path(os.path.realpath(sys.executable)).parent.parent]
        run = Confinement(writable=[dirs.work], network=False, readable=[PLUGIN_DIR, *python])
        view = view_of([], run, dirs.work)
        yield from _indent(describe_view(view), str(dirs.work))
