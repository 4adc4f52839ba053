"""Starting an agent's program inside the race's sandbox, for ``bugbout doctor``.

A program that is on PATH may still not start where the race runs it: confined, seeing
only the allow-list (:mod:`bb_core.sandbox.allow`), with the agent's own environment.
:func:`start_check` starts it exactly so - the same sandbox, folders, HOME and variables
as an attempt, no network - with a harmless invocation and a time limit:

- an interpreter (``python3``, ``node``, ``bash``, ``ruby``, ``perl``...) runs an empty
  program (``python3 -c pass``, ``node -e 0``, ``bash -c true``);
- any other program is asked ``--version``.

A version manager's shim (pyenv, rbenv, nodenv, asdf, volta) is followed to the real
executable first, as the race does (:mod:`bb_core.sandbox.shims`); a shim that cannot be
followed is a problem that names the manager's folder.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bb_core.agents import CodingAgent, Session
from bb_core.agents.env import agent_environment
from bb_core.sandbox import Confinement, NoSandbox, Sandbox, command_words, run_confined
from bb_core.sandbox.shims import ShimError, follow, follow_argv

#: Seconds the harmless invocation may take.
START_TIMEOUT = 30
#: What an interpreter runs to show it starts: an empty program.
EMPTY_PROGRAMS = {
    "python": ("-c", "pass"),
    "node": ("-e", "0"),
    "bun": ("-e", "0"),
    "bash": ("-c", "true"),
    "sh": ("-c", "true"),
    "dash": ("-c", "true"),
    "zsh": ("-c", "true"),
    "ruby": ("-e", "0"),
    "perl": ("-e", "0"),
}
#: Exit statuses of a program that could not be started at all.
CANNOT_START = (126, 127)
#: What a loader or a shell says when a program's files are missing.
MISSING = ("No such file or directory", "not found", "error while loading shared libraries")


@dataclass(frozen=True)
class Started:
    """What starting the program said: ``ok``, ``warning`` or ``problem``, what happened,
    and for a problem the fix."""

    status: str
    detail: str
    fix: str | None = None


def harmless_argv(program: str) -> list[str]:
    """The harmless invocation of *program*: an empty program for an interpreter, else
    ``--version``."""
    base = os.path.basename(program).rstrip("0123456789.")
    base = base.removesuffix("w") if base.startswith("python") else base
    return [program, *EMPTY_PROGRAMS.get(base, ("--version",))]


def start_check(agent: CodingAgent, sandbox: Sandbox, *, entry: str) -> Started:
    """Start *agent*'s program in *sandbox* as an attempt would; *entry* names its
    bugbout.toml entry in what is said (``bugbout.toml: contestants[2]``)."""
    with tempfile.TemporaryDirectory(prefix="bb-start-") as folder:
        root = Path(folder)
        for name in ("work", "logs", "home", "tmp"):
            (root / name).mkdir()
        prompt_file = root / "logs" / "prompt.md"
        prompt_file.write_text("Reply with the word OK.", encoding="utf-8")
        session = Session(
            task_id="doctor",
            prompt="Reply with the word OK.",
            prompt_file=prompt_file,
            workdir=root / "work",
            logdir=root / "logs",
            home=root / "home",
            sandbox=sandbox,
            timeout=START_TIMEOUT,
            test_command="true",
            tmpdir=root / "tmp",
        )
        invocation = agent.invocation(session)
        words = command_words(invocation.argv)
        if not words:
            return Started("problem", f"{entry}: its command line is empty", "give it one")
        program = words[0] if "/" in words[0] else shutil.which(words[0])
        if program is None:
            return Started("problem", f"{entry}: `{words[0]}` is not on PATH", "install it")
        try:
            real = follow(program, cwd=session.workdir)
        except ShimError as exc:
            return Started(
                "problem",
                f"{entry}: {exc.message}",
                f"name the real executable in its command, or install the version the shim "
                f"picks; bugbout runs a shim's real executable because the shim itself needs "
                f"{exc.root}, which the sandbox does not show",
            )
        argv = follow_argv(harmless_argv(real), cwd=session.workdir)
        confined = invocation.confine
        state = [Path(d) for d in invocation.state_dirs if Path(d).is_dir()]
        confinement = Confinement(
            writable=[session.workdir, session.logdir, root / "tmp", *state],
            network=False,
            temp=root / "tmp",
            home=session.home,
        )
        env = agent_environment(agent, session, invocation, tmpdir=root / "tmp")
        log = root / "logs" / "start.log"
        try:
            done = run_confined(
                argv,
                sandbox=sandbox if confined else NoSandbox(),
                confinement=confinement,
                cwd=session.workdir,
                env=env,
                timeout=START_TIMEOUT,
                stdout_path=log,
                stderr_path=log,
            )
        except OSError as exc:
            return Started("problem", f"{entry}: `{' '.join(argv)}` cannot start: {exc}")
        said = " ".join(log.read_text(encoding="utf-8", errors="replace").split())[:300]
    shown = " ".join([os.path.basename(argv[0]), *argv[1:]])
    where = "in the sandbox" if confined and sandbox.name != "none" else "unconfined"
    via = f" (its shim starts {real})" if real != program else ""
    if done.timed_out:
        return Started("warning", f"`{shown}` did not end within {START_TIMEOUT} s {where}{via}")
    if done.exit_code in CANNOT_START or (
        done.exit_code != 0 and any(word in said for word in MISSING)
    ):
        return Started(
            "problem",
            f"{entry}: `{shown}` cannot start {where}: exit {done.exit_code}"
            + (f": {said}" if said else ""),
            _fix(real),
        )
    note = "" if done.exit_code == 0 else f", exit {done.exit_code}"
    return Started("ok", f"starts {where} (`{shown}`{note}){via}")


def _fix(real: str) -> str:
    """What would make the program at *real* start in the sandbox."""
    folder = os.path.dirname(os.path.realpath(real))
    return (
        f"the sandbox shows the system folders and the program's install folder ({folder}) "
        "only: install it where it keeps all it needs (a virtualenv, a prefix), or add the "
        "folder it reads to the entry's state-dirs (`bugbout doctor --show-confinement` "
        "lists what an attempt sees)"
    )
