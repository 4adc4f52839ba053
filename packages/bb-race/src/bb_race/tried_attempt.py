"""An attempt's ``tried`` field, read once the agent has stopped and before its folders go.

The adapter reads its CLI's trajectory (:meth:`bb_core.agents.CodingAgent.actions`); an
adapter that reads none - the ``command`` adapter, an installed one without the hook -
gets every line of its logs instead. The egress proxy's refusals and the patch's edits
to the maintainers' tests are added whatever the adapter. A trajectory that cannot be
read, or is larger than what is read, is recorded as a ``tried-unread`` flag; it never
ends the attempt.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from bb_core.agents import Action, CodingAgent
from bb_core.paths.node_protected import is_node_task
from bb_core.records.kinds import Attempt, AttemptTried, Task
from bb_core.records.vocabulary import FLAG_TRIED_UNREAD

from bb_race.adapters._actions import READ_LIMIT, log_actions
from bb_race.checkout import AttemptDirs
from bb_race.tried import (
    MAX_ACTIONS,
    Scope,
    edits_to_tests,
    project_names,
    read_actions,
    refused_hosts,
    summarise,
)

#: Absolute paths of a test command (its interpreter, in the test environment).
_COMMAND_PATHS = re.compile(r"(?<![\w.-])/[^\s:'\"]+")


def environment_roots(test_command: str) -> list[str]:
    """The environments the test command runs in: ``<env>`` of each ``<env>/bin/...``."""
    roots = []
    for path in _COMMAND_PATHS.findall(test_command):
        parts = path.split("/bin/", 1)
        if len(parts) == 2 and parts[0]:
            roots.append(parts[0])
    return roots


def own_actions(agent: CodingAgent, dirs: AttemptDirs) -> tuple[list[Action], str, list[str]]:
    """(the agent's actions, where they were read, flags about reading them)."""
    flags = []
    for parent, _dirs, files in os.walk(dirs.logs, followlinks=False):
        for name in files:
            try:
                size = os.lstat(os.path.join(parent, name)).st_size
            except OSError:
                continue
            if size > READ_LIMIT:
                shown = os.path.relpath(os.path.join(parent, name), dirs.logs)
                flags.append(
                    f"{FLAG_TRIED_UNREAD}: logs/{shown} holds {size:,} bytes; "
                    f"the first {READ_LIMIT:,} were read"
                )
    if type(agent).actions is CodingAgent.actions:
        return log_actions(dirs.logs), "log", flags
    try:
        actions = list(agent.actions(dirs.logs, dirs.home))
        plain = bool(actions) and all(a.tool == "log" for a in actions)
        return actions, "log" if plain else "trajectory", flags
    except Exception as exc:  # a log no reader foresaw: recorded, never fatal
        flags.append(f"{FLAG_TRIED_UNREAD}: {type(exc).__name__}: {str(exc)[:200]}")
        return log_actions(dirs.logs), "log", flags


def attempt_tried(
    agent: CodingAgent,
    dirs: AttemptDirs,
    task: Task,
    record: Attempt,
    *,
    refused: Sequence[str] = (),
    readable: Iterable[Path] = (),
    test_command: str = "",
) -> tuple[list[AttemptTried], list[str]]:
    """The attempt's findings and the flags reading them earned."""
    home = os.path.expanduser("~")
    bugbout_home = str(dirs.root.parent.parent)
    scope = Scope(
        checkout=dirs.work,
        temp=dirs.tmp,
        own=(
            str(dirs.root),
            *(str(p) for p in readable),
            *environment_roots(test_command),
        ),
        guarded=(bugbout_home, home),
        work_root=str(dirs.root.parent),
        own_id=dirs.root.name,
        packages=project_names(dirs.base, str(task.get("source") or "")),
        tests=str(task.get("tests") or "tests"),
    )
    actions, source, flags = own_actions(agent, dirs)
    if len(actions) > MAX_ACTIONS:
        flags.append(
            f"{FLAG_TRIED_UNREAD}: {len(actions):,} actions; the first {MAX_ACTIONS:,} were read"
        )
    try:
        found = read_actions(actions, scope, source)
    except Exception as exc:  # an action no rule foresaw: recorded, never fatal
        flags.append(f"{FLAG_TRIED_UNREAD}: {type(exc).__name__}: {str(exc)[:200]}")
        found = []
    found += refused_hosts(refused)
    found += edits_to_tests(str(record.get("patch") or ""), scope.tests, node=is_node_task(task))
    return summarise(found), flags
