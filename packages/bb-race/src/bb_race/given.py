"""What an attempt was given, so that a stored attempt is reused only for the same ask.

An attempt is keyed by four things: the prompt (its SHA-256), the base commit whose tree
the agent worked in, the adapter's invocation and options (the command line, stdin and
environment it builds, with the attempt's own folders and the prompt written as
placeholders, and credentials left out), and the agent CLI's version where it can be
read. When any of them changes - a new issues export changes a statement, the test
command moves, a model or option changes in bugbout.toml, the CLI is upgraded - the
stored attempt no longer answers what would be asked, and the race runs it again.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import orjson
from bb_core.agents import SECRET_NAME, CodingAgent, Session
from bb_core.records.kinds import Task, as_task
from bb_core.sandbox import Sandbox

from bb_race.prompt import build_prompt

#: Stands for the attempt's folder in what is hashed.
ATTEMPT = "<attempt>"
PROMPT = "<prompt>"


def digest(value: Any) -> str:
    data = value if isinstance(value, bytes) else orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(data).hexdigest()


def prompt_of(task: Task, agent: CodingAgent, command: str) -> str:
    return build_prompt(task, role=agent.role, assignment=agent.assignment, command=command)


def invocation_digest(
    agent: CodingAgent, task: Task, prompt: str, command: str, sandbox: Sandbox
) -> str:
    """The hash of how the adapter would start the agent, independent of where.

    The adapter builds its invocation for a throw-away folder laid out like an attempt's;
    that folder's path and the prompt are replaced by placeholders, and the values of
    variables whose names look like credentials are left out (a rotated key asks the
    same thing)."""
    with tempfile.TemporaryDirectory(prefix="bb-given-") as folder:
        root = Path(folder)
        for name in ("work", "logs", "home", "tmp"):
            (root / name).mkdir()
        session = Session(
            task_id=str(task["id"]),
            prompt=prompt,
            prompt_file=root / "logs" / "prompt.md",
            workdir=root / "work",
            logdir=root / "logs",
            home=root / "home",
            sandbox=sandbox,
            timeout=0,
            test_command=command,
        )
        invocation = agent.invocation(session)

        def plain(text: str) -> str:
            return text.replace(prompt, PROMPT).replace(str(root), ATTEMPT)

        described = {
            "adapter": f"{type(agent).__module__}.{type(agent).__qualname__}",
            "harness": agent.harness,
            "model": agent.model,
            "role": agent.role,
            "assignment": agent.assignment,
            "options": agent.options,
            "argv": [plain(str(word)) for word in invocation.argv],
            "stdin": plain(invocation.stdin) if invocation.stdin is not None else None,
            "env": {
                name: None if SECRET_NAME.search(name) else plain(str(value))
                for name, value in invocation.env.items()
            },
            "confine": invocation.confine,
            "state_dirs": [plain(str(d)) for d in invocation.state_dirs],
            "network": invocation.network,
        }
    return digest(described)


def given(
    task: Mapping[str, Any],
    agent: CodingAgent,
    *,
    command: str,
    sandbox: Sandbox,
    version: Callable[[CodingAgent], str | None],
    sample: int = 1,
) -> dict[str, Any]:
    """The attempt's ``given`` field: what it was asked, and the key that sums it up; a
    second or later *sample* has its number in it, so each sample has a key of its own."""
    prompt = prompt_of(as_task(task), agent, command)
    try:
        invocation = invocation_digest(agent, as_task(task), prompt, command, sandbox)
    except Exception as exc:  # the attempt will crash the same way: key it by the error
        invocation = digest({"adapter-error": f"{type(exc).__name__}: {exc}"})
    found: dict[str, Any] = {
        "prompt_sha256": digest(prompt.encode("utf-8")),
        "base_commit": str(task["base_commit"]),
        "invocation_sha256": invocation,
        "agent_version": version(agent),
    }
    if sample > 1:
        found["sample"] = sample
    found["key"] = digest(found)
    return found


def same_ask(stored: Mapping[str, Any], wanted: Mapping[str, Any]) -> bool:
    """Whether a stored attempt was given what would be given now (an attempt that does
    not record what it was given cannot be told apart, so it is not)."""
    before = stored.get("given")
    return isinstance(before, Mapping) and before.get("key") == wanted.get("key")


def changes(stored: Mapping[str, Any], wanted: Mapping[str, Any]) -> list[str]:
    """What differs, in words: ``prompt``, ``base tree``, ``invocation``, ``agent version``."""
    before = stored.get("given")
    if not isinstance(before, Mapping):
        return ["not recorded"]
    names = {
        "prompt_sha256": "prompt",
        "base_commit": "base tree",
        "invocation_sha256": "invocation",
        "agent_version": "agent version",
    }
    return [label for field, label in names.items() if before.get(field) != wanted.get(field)]
