"""Checking an agent's CLI for real before a bout spends any quota on it.

Two checks, both without a model call:

- **version**: the CLI's version against the one its adapter was tested with
  (``CodingAgent.tested_version``); a newer release may have changed its flags or
  output, so it is a warning that names the tested version.
- **dry run**: the adapter's exact command line, run in a throwaway attempt folder the
  way :meth:`CodingAgent.dry_run` says (``--help`` after every flag for CLIs whose
  parser checks every flag first; for the others no credentials and the model's API
  pointed at a closed port on 127.0.0.1, so nothing leaves the machine). A flag the
  release rejects shows here, not after the first attempt.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bb_core.agents import BASE_ENV, CodingAgent, Session
from bb_core.sandbox import NoSandbox

#: What CLIs print for a flag they do not know or a value they refuse.
FLAG_ERRORS = re.compile(
    r"(unexpected argument [^\n]*|Unknown arguments?: [^\n]*|unknown option [^\n]*|"
    r"No such option: [^\n]*|unrecognized (option|argument)s?[^\n]*|"
    r"invalid value [^\n]* for [^\n]*|Invalid values?:[^\n]*)",
    re.IGNORECASE,
)
DRY_RUN_TIMEOUT = 60


@dataclass(frozen=True)
class Finding:
    """One result: ``ok``, ``warning`` or ``problem``, and what it is about."""

    status: str
    detail: str


def version_numbers(text: str | None) -> tuple[int, ...] | None:
    """The first dotted version number in *text* (``2.1.197 (Claude Code)`` -> (2, 1, 197))."""
    found = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", text or "")
    if not found:
        return None
    return tuple(int(part) for part in found.groups() if part is not None)


def check_version(agent: CodingAgent, version: str | None) -> Finding | None:
    """A warning when the installed CLI is newer than the version bugbout tested."""
    tested = agent.tested_version
    have, want = version_numbers(version), version_numbers(tested)
    if tested is None or have is None or want is None:
        return None
    if have > want:
        return Finding(
            "warning",
            f"{version} is newer than {tested}, the version bugbout's {agent.harness} "
            "adapter was tested with: its flags or output may have changed",
        )
    return None


@contextmanager
def closed_port() -> Iterator[str]:
    """A loopback URL nothing answers at (the port stays bound, never listened on)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        sock.close()


def dry_run(agent: CodingAgent) -> Finding | None:
    """Run the adapter's exact command line without a model call; None when the
    adapter has no dry run."""
    with tempfile.TemporaryDirectory(prefix="bb-dry-") as folder, closed_port() as url:
        root = Path(folder)
        for name in ("work", "logs", "home", "tmp"):
            (root / name).mkdir()
        prompt = "Reply with the word OK and do nothing else."
        (root / "logs" / "prompt.md").write_text(prompt, encoding="utf-8")
        session = Session(
            task_id="dry-run",
            prompt=prompt,
            prompt_file=root / "logs" / "prompt.md",
            workdir=root / "work",
            logdir=root / "logs",
            home=root / "home",
            sandbox=NoSandbox(),
            timeout=DRY_RUN_TIMEOUT,
            test_command="true",
            tmpdir=root / "tmp",
        )
        invocation = agent.dry_run(session, url)
        if invocation is None:
            return None
        env = {name: os.environ[name] for name in BASE_ENV if name in os.environ}
        env.setdefault("PATH", os.defpath)
        env.update({"HOME": str(session.home), "TMPDIR": str(session.temp)})
        env.update(invocation.env)
        try:
            done = subprocess.run(
                invocation.argv,
                input=invocation.stdin or "",
                capture_output=True,
                text=True,
                timeout=DRY_RUN_TIMEOUT,
                cwd=session.workdir,
                env=env,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return Finding("warning", f"its dry run did not end within {DRY_RUN_TIMEOUT} s")
        except OSError as exc:
            return Finding("problem", f"its dry run cannot start: {exc}")
        said = f"{done.stdout}\n{done.stderr}"
        rejected = FLAG_ERRORS.search(said)
        if rejected:
            return Finding(
                "problem", f"it rejects bugbout's command line: {rejected.group(0).strip()}"
            )
        return Finding("ok", "its dry run accepts bugbout's command line")
