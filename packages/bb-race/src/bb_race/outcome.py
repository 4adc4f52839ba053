"""The record of one attempt: how it ended, what it changed, and what bugbout says of it.

:func:`collect` reads the patch from the disk (the agent's working copy against an
untouched copy of the same tree) and the agent's logs; :func:`crashed_record` is the
record of an attempt bugbout itself could not carry out; :func:`finish` scrubs secrets
and checks the record before it is kept.
"""

from __future__ import annotations

import datetime as dt
import signal
import traceback
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

from bb_core.agents import CodingAgent, read_tail, scrub
from bb_core.patch import compare_trees, files_in_patch, split_patch
from bb_core.patch.check import patch_credentials, redact, redact_patch
from bb_core.patch.names import odd_name
from bb_core.paths import in_test_part
from bb_core.paths.node_protected import in_node_test_part, is_node_task
from bb_core.records import check
from bb_core.records.kinds import Attempt, Task
from bb_core.records.schemas import VERSION
from bb_core.records.vocabulary import (
    CRASHED,
    FINISHED,
    FLAG_LIMIT,
    FLAG_LOG_CHECK_FAILED,
    FLAG_PARSE_FAILED,
    FLAG_QUOTA_CHECK_FAILED,
    FLAG_SECRET_IN_PATCH,
    NO_CHANGE,
    QUOTA,
    TIMED_OUT,
    AttemptStatus,
)
from bb_core.sandbox import Completed

from bb_race.authored import authored_node_tests, authored_tests
from bb_race.checkout import AttemptDirs


def now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def base_record(task: Mapping[str, Any], agent: CodingAgent) -> Attempt:
    """The fields every attempt record of *agent* on *task* starts with (not yet a whole
    record: how it ended is added to them)."""
    return cast(
        Attempt, {"kind": "attempt", "v": VERSION, "task_id": task["id"], **agent.describe()}
    )


def crashed_record(
    task: Task, agent: CodingAgent, error: BaseException, started: str, took: float
) -> Attempt:
    """The record of an attempt that bugbout itself could not carry out."""
    summary = "".join(traceback.format_exception_only(type(error), error)).strip()
    return {
        **base_record(task, agent),
        "status": CRASHED,
        "exit_code": None,
        "started": started,
        "duration": round(max(took, 0.0), 3),
        "patch": "",
        "error": f"bugbout could not run the attempt: {summary}",
    }


def decide_status(completed: Completed, changed: bool, quota: bool) -> AttemptStatus:
    """finished, no-change, timed-out, crashed or quota, from how the run ended."""
    if quota and not changed:
        return QUOTA
    if completed.timed_out:
        return TIMED_OUT
    if completed.exit_code != 0:
        return CRASHED
    return FINISHED if changed else NO_CHANGE


def collect(
    task: Task,
    agent: CodingAgent,
    dirs: AttemptDirs,
    completed: Completed,
    stopped: str | None = None,
    left_out: Callable[[str], bool] | None = None,
) -> Attempt:
    """The attempt record from what the agent left on disk and in its logs; new files for
    which *left_out* says True (ignored, or made by the test command) are no part of it."""
    found = compare_trees(dirs.base, dirs.work, leave_out=left_out)
    flags = list(found.flags)
    node = is_node_task(task)
    source_patch, test_patch = split_patch(
        found.patch, str(task["source"]), str(task["tests"]), node=node
    )
    tests_dir = str(task["tests"])
    in_tests = in_node_test_part if node else in_test_part
    # A test file whose name is not UTF-8 stays in the patch (flagged) but no later stage
    # runs it: pytest could not import it, and no stage applies it.
    test_paths = [
        p for p in files_in_patch(test_patch) if in_tests(p, tests_dir) and not odd_name(p)
    ]
    if node:
        test_files, tests = authored_node_tests(test_paths, dirs.work, dirs.base)
    else:
        test_files, tests = authored_tests(test_paths, dirs.work, dirs.base)
    try:
        summary, tokens = agent.parse(dirs.logs)
    except Exception as exc:
        summary, tokens = "", {}
        flags.append(f"{FLAG_PARSE_FAILED}: {type(exc).__name__}: {exc}")
    try:
        quota = bool(agent.quota_exhausted(dirs.logs))
    except Exception as exc:
        quota = False
        flags.append(f"{FLAG_QUOTA_CHECK_FAILED}: {type(exc).__name__}: {exc}")
    said = None
    try:
        flags += [str(flag) for flag in agent.flags(dirs.logs)]
        if quota:
            said = agent.quota_message(dirs.logs)
    except Exception as exc:
        flags.append(f"{FLAG_LOG_CHECK_FAILED}: {type(exc).__name__}: {exc}")
    changed = bool(found.patch)
    status = decide_status(completed, changed, quota)
    if completed.limit:
        flags.append(f"{FLAG_LIMIT}:{completed.limit}")
    record: Attempt = {
        **base_record(task, agent),
        "status": status,
        "exit_code": completed.exit_code,
        "duration": round(completed.duration, 3),
        "patch": found.patch,
        "source_patch": source_patch,
        "test_patch": test_patch,
        "test_files": test_files,
        "tests": tests,
        "changed_files": found.changed,
        "flags": flags,
        "summary": summary,
        "tokens": {k: int(v) for k, v in tokens.items() if isinstance(v, int) and v >= 0},
        "logdir": str(dirs.logs),
    }
    if stopped:
        record["error"] = stopped
    elif status == QUOTA:
        record["error"] = f"usage limit: {said}" if said else "usage limit reached"
    elif status == TIMED_OUT:
        record["error"] = f"stopped at the time limit after {completed.duration:.0f} s"
    elif status == CRASHED and completed.limit:
        why = crash_reason(completed.exit_code, dirs.logs / "stderr.log")
        record["error"] = f"{completed.limit} ({why})"
    elif status == CRASHED:
        record["error"] = crash_reason(completed.exit_code, dirs.logs / "stderr.log")
    return record


def crash_reason(exit_code: int | None, stderr: Path) -> str:
    """Why a run that ended nonzero crashed: its exit status (or signal) and the last line
    it wrote to stderr (``bwrap: execvp nosuch: No such file or directory``)."""
    if exit_code is not None and exit_code < 0:
        try:
            what = f"killed by {signal.Signals(-exit_code).name}"
        except ValueError:
            what = f"killed by signal {-exit_code}"
    else:
        what = f"exited with status {exit_code}"
    tail = read_tail(stderr, 4096)
    lines = [line.strip() for line in tail.splitlines() if line.strip()]
    if not lines:
        return f"{what}, with nothing on stderr"
    last = lines[-1]
    return f"{what}: {last[:300]}"


def finish(record: dict[str, Any], secrets: Sequence[str]) -> dict[str, Any]:
    """Scrub secrets from the text fields, flag and redact a patch that holds one, check it."""
    for key in ("summary", "error"):
        if key in record:
            record[key] = redact(scrub(str(record[key]), secrets))
    patch = str(record.get("patch", ""))
    if patch_credentials(patch, secrets):
        # The agent's credentials, or credential-shaped text (a key file's content, a
        # token) in what it added: flagged, and kept out of every record made from this.
        record.setdefault("flags", []).append(FLAG_SECRET_IN_PATCH)
        for key in ("patch", "source_patch", "test_patch"):
            if key in record:
                record[key] = redact_patch(str(record[key]), secrets)
    record = json_safe(record)
    problem = check(record, "attempt")
    if problem is not None:
        raise ValueError(f"attempt record is invalid at {problem[0]}: {problem[1]}")
    return record


def json_safe(value: Any) -> Any:
    """*value* with every string that holds bytes that are not UTF-8 (surrogate-escaped
    names an agent made, read from its logs or tree) spelled with ``\\x..`` escapes, so
    the record can always be written. Paths are already in git's quoted form where they
    are recorded; this is the net under everything else."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        return value
    if isinstance(value, dict):
        return {json_safe(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_safe(v) for v in value]
    return value
