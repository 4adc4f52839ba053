"""What every agent is told: the issue, the job, and how to run the project's tests.

Contestants are asked to fix the issue and add a regression test. Examiners are asked to
fix nothing and write tests only: for ``reproduce``, tests of exactly what the issue
reports; for ``specify``, also the rule behind it and the nearby behaviour a fix must
keep. Everyone gets the same exact command that runs the project's tests.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath

from bb_core.paths.node_protected import is_node_task
from bb_core.records.kinds import Task

COMMON_RULES = """\
Work only inside this directory; it is a copy of the project without its git history.
{network} What you leave on disk is what counts: your changes are collected
from the files, not from your answer. Finish with a short summary of what you did."""

NETWORK_NONE = """\
Your shell commands have no network access, so do not try to install packages or look
anything up online."""
NETWORK_HOSTS = """\
The network is closed except for {hosts}; do not try to install packages or look
anything up online."""
NETWORK_OPEN = """\
The project's dependencies are installed already; do not try to install packages."""


def network_rule(network: bool | Sequence[str]) -> str:
    """What the prompt says about the network, true to what the agent gets."""
    if network is False or (not isinstance(network, bool) and not network):
        return NETWORK_NONE
    if isinstance(network, bool):
        return NETWORK_OPEN
    return NETWORK_HOSTS.format(hosts=", ".join(network))


CONTESTANT_JOB = """\
Fix the problem described in the issue above by changing the project's code under
`{source}/`. Then add a regression test under `{tests}/` that fails without your fix and
passes with it. Keep the project's existing tests passing."""

EXAMINER_JOBS = {
    "reproduce": """\
Do not fix anything, and do not change any file under `{source}/`. Your only job is to
write pytest tests, in a new test module under `{tests}/`, that reproduce exactly the
problem the issue reports. They must fail on the code as it is now, for the reason the
issue describes, and pass once the problem is fixed correctly. Do not test anything the
issue does not ask for.""",
    "specify": """\
Do not fix anything, and do not change any file under `{source}/`. Your only job is to
write pytest tests, in a new test module under `{tests}/`, that specify the behaviour the
issue asks for: the failure it reports, the general rule behind that failure, and the
nearby behaviour a correct fix must keep. Tests of the reported problem must fail on the
code as it is now and pass once it is fixed; tests of behaviour that must be kept pass
now and must keep passing.""",
}


#: The examiners' jobs in a node project: tests for its own runner, in test files.
NODE_EXAMINER_JOBS = {
    name: job.replace(
        "write pytest tests, in a new test module under", "write tests, in a new test file under"
    ).replace(
        "`{tests}/`", "`{tests}/` (named like `*.test.ts` or `*.test.js`, as the project's are)"
    )
    for name, job in EXAMINER_JOBS.items()
}

#: How a node project's prompt says to run part of the suite.
NODE_PART = "To run part of the suite, put a test file's path after the command."


def import_root(source: str) -> str:
    """The folder to put on PYTHONPATH so the package under *source* imports.

    ``src/demo`` -> ``src``; a package at the top of the repository -> ``.``.
    """
    parent = str(PurePosixPath(source).parent)
    return parent if parent not in ("", ".") else "."


def pytest_command(
    python: str,
    source: str,
    tests: str,
    *,
    pytest_args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    pythonpath: Sequence[str] | None = None,
) -> str:
    """The shell command, run from the checkout, that runs the project's tests.

    The checkout goes on PYTHONPATH (*pythonpath*: checkout-relative folders; by default
    the folder that holds the package), so the code under test is the checkout's own.
    """
    path = ":".join(pythonpath) if pythonpath else import_root(source)
    assignments = {"PYTHONPATH": path, **(env or {})}
    words = [f"{name}={shlex.quote(value)}" for name, value in assignments.items()]
    words += [shlex.quote(python), "-m", "pytest", *map(shlex.quote, pytest_args)]
    words.append(shlex.quote(tests))
    return " ".join(words)


def build_prompt(
    task: Task,
    *,
    role: str,
    assignment: str | None,
    command: str,
    network: bool | Sequence[str] = False,
) -> str:
    """The whole prompt for one agent on one task; *network* is what it may reach (see
    :func:`network_rule`)."""
    fields = {"source": task["source"], "tests": task["tests"]}
    node = is_node_task(task)
    if role == "examiner":
        jobs = NODE_EXAMINER_JOBS if node else EXAMINER_JOBS
        job = jobs[assignment or "reproduce"].format(**fields)
    else:
        job = CONTESTANT_JOB.format(**fields)
    # Never the fix commit's title: it was written with the fix in hand.
    statement = str(task.get("statement") or "").strip()
    parts = [
        "A user reported this issue in the project in your current directory.",
        "",
        "<issue>",
        statement,
        "</issue>",
        "",
        job,
        "",
        "Run the project's tests from this directory with:",
        "",
        f"    {command}",
        "",
        NODE_PART
        if node
        else f"To run part of the suite, put a test file or node id in place of `{task['tests']}`.",
        "",
        COMMON_RULES.format(network=network_rule(network)),
    ]
    return "\n".join(parts) + "\n"
