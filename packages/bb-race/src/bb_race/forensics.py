"""Signs that an attempt reached for the answer: leak flags, recorded beside its score.

The flags never change a score by themselves; they tell a reader which resolved tasks
deserve a second look:

- ``leak:matches-reference``: the source hunks of the agent's patch are the reference
  fix's, byte for byte;
- ``leak:read-git``, ``leak:git-history``: its logs show it going into a ``.git`` folder
  or running ``git log``/``git show`` (and their kin);
- ``leak:bugbout-records``: its logs mention bugbout's own records (``.bugbout``,
  ``tasks.jsonl``, ``bugbout.toml``, ``BUGBOUT_HOME``);
- ``leak:other-attempt``: its logs name another attempt's folder;
- ``refused:write``, ``refused:network``: its logs show the sandbox refusing a write
  outside its folders or a connection (the egress proxy adds ``network-refused:<host>``);
- ``unconfined: <why>``: the attempt ran where the sandbox's guarantees do not hold.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bb_core.agents import Invocation
from bb_core.records.vocabulary import FLAG_LEAK, FLAG_REFUSED, FLAG_UNCONFINED
from bb_core.sandbox import Sandbox, read_untrusted
from bb_core.store.treewalk import walk

#: How much of each log is searched.
SCAN_LIMIT = 4 * 1024 * 1024
#: Files of the log folder bugbout wrote itself.
OWN_FILES = frozenset({"prompt.md"})

LOG_SIGNS = (
    (f"{FLAG_LEAK}:read-git", re.compile(rb"(?<![\w.-])\.git(?:/|(?![\w.-]))")),
    (
        f"{FLAG_LEAK}:git-history",
        re.compile(rb"\bgit\s+(?:-C\s+\S+\s+)?(?:log|show|reflog|rev-list|cat-file|blame)\b"),
    ),
    (
        f"{FLAG_LEAK}:bugbout-records",
        re.compile(rb"\.bugbout\b|tasks\.jsonl|oracles?\.jsonl|bugbout\.toml|BUGBOUT_HOME"),
    ),
    (f"{FLAG_REFUSED}:write", re.compile(rb"Read-only file system")),
    (
        f"{FLAG_REFUSED}:network",
        re.compile(rb"Network is unreachable|Temporary failure in name resolution"),
    ),
)


def hunks(patch: str) -> dict[str, list[str]]:
    """Each file's hunks (from its first ``@@`` line on) of a git-style patch."""
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in patch.splitlines(keepends=True):
        if line.startswith("diff --git "):
            path = line.rstrip("\n").split(" b/", 1)[-1]
            current = found.setdefault(path, [])
            current.append("")
        elif current is not None and (line.startswith("@@") or current[-1]):
            current[-1] += line
    return {path: [h for h in chunks if h] for path, chunks in found.items()}


def matches_reference(source_patch: str, reference: str) -> bool:
    """Whether the source hunks of *source_patch* are those of *reference*, byte for byte
    (index lines and file modes aside)."""
    mine = {path: chunks for path, chunks in hunks(source_patch).items() if chunks}
    theirs = {path: chunks for path, chunks in hunks(reference).items() if chunks}
    return bool(mine) and mine == theirs


def log_flags(logs: Path, *, work_root: Path, own_id: str) -> list[str]:
    """The flags the agent's own logs earn (bugbout's prompt file left out)."""
    others = re.compile(re.escape(str(work_root)).encode() + rb"/([0-9a-f]{16})\b")
    flags: dict[str, None] = {}
    for parent, _dirs, files in walk(logs):
        for name in files:
            path = Path(parent, name)
            if path.parent == logs and name in OWN_FILES:
                continue
            try:
                data = read_untrusted(path, SCAN_LIMIT)
            except OSError:
                continue
            for flag, sign in LOG_SIGNS:
                if flag not in flags and sign.search(data):
                    flags[flag] = None
            if any(m.group(1).decode() != own_id for m in others.finditer(data)):
                flags[f"{FLAG_LEAK}:other-attempt"] = None
    return list(flags)


def leak_flags(
    record: Mapping[str, Any], task: Mapping[str, Any], logs: Path, *, work_root: Path
) -> list[str]:
    """Every leak flag of an attempt: its patch against the reference, then its logs."""
    flags = []
    source = str(record.get("source_patch") or "")
    if matches_reference(source, str(task.get("reference_patch") or "")):
        flags.append(f"{FLAG_LEAK}:matches-reference")
    return flags + log_flags(logs, work_root=work_root, own_id=logs.parent.name)


def unconfined_flags(sandbox: Sandbox, invocation: Invocation) -> list[str]:
    """``unconfined: <why>`` when the guarantees of the sandbox cannot hold."""
    if not invocation.confine:
        return [f"{FLAG_UNCONFINED}: the agent runs outside bugbout's sandbox (sandboxed = false)"]
    if sandbox.weakness:
        return [f"{FLAG_UNCONFINED}: {sandbox.name}: {sandbox.weakness}"]
    return []
