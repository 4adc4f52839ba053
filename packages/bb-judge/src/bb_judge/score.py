"""A task's score records: every patch, and the judge's pick, against the hidden tests.

The reference patch is scored the same way as every contestant's, in the same
environment, as a control: when it does not resolve, every score of the task is marked
``environment_broken`` and the task counts against no agent. Pure: the outcomes come from
:mod:`bb_judge.work` (run) or ``.bugbout/cache/score/`` (:mod:`bb_judge.cache`); this module
turns them into records (:func:`score_records`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bb_core.errors import UsageError
from bb_core.executors.units import Failed
from bb_core.records import kinds
from bb_core.records.kinds import Task, as_task
from bb_core.records.schemas import VERSION
from bb_core.records.vocabulary import FINISHED, PICK, REFERENCE, RESOLVED, SCORE_CRASHED
from bb_core.store import cache_key

from bb_judge.grading import NO_FIX_STATUS, grade
from bb_judge.tree import Outcome, hidden_modules, protected_paths

#: Bumped when the way a patch is scored changes, so old cache entries stop matching.
FORMAT = 3  # 3: the oracle's negative twins are planted


@dataclass(frozen=True)
class Entry:
    """One patch to score: its name in the scores, its diff, and how the attempt ended."""

    name: str
    patch: str
    status: str = FINISHED

    @property
    def may_resolve(self) -> bool:
        """Whether its score can come out resolved (an unfinished or empty attempt cannot)."""
        return self.name == REFERENCE or (
            self.status not in NO_FIX_STATUS and bool(self.patch.strip())
        )


def entries(task: Mapping[str, Any]) -> list[Entry]:
    """The reference, then every contestant's attempt in input order."""
    found = [Entry(REFERENCE, str(task.get("reference_patch", "")))]
    for attempt in task.get("attempts", ()):
        if attempt.get("role", "contestant") == "contestant":
            if attempt["agent"] in (REFERENCE, PICK):
                raise UsageError(
                    f"{task['id']}: a contestant cannot be called {attempt['agent']!r}",
                    hint="the name is kept for the scores; rename it in bugbout.toml",
                )
            found.append(
                Entry(
                    str(attempt["agent"]),
                    str(attempt.get("patch", "")),
                    str(attempt.get("status", FINISHED)),
                )
            )
    return found


def sample_name(agent: str, sample: int) -> str:
    """How a further sample's patch is named while its task is scored: ``careful #2``."""
    return f"{agent} #{sample}"


def sample_entries(task: Mapping[str, Any]) -> list[Entry]:
    """Each further sample of a contestant (the task's ``samples``), named by
    :func:`sample_name`, in input order."""
    found = []
    for attempt in task.get("samples", ()):
        if attempt.get("role", "contestant") == "contestant" and int(attempt.get("sample", 1)) > 1:
            found.append(
                Entry(
                    sample_name(str(attempt["agent"]), int(attempt["sample"])),
                    str(attempt.get("patch", "")),
                    str(attempt.get("status", FINISHED)),
                )
            )
    return found


def split_samples(
    records: Sequence[kinds.Score], samples: Sequence[Entry]
) -> tuple[list[kinds.Score], list[kinds.Score]]:
    """*records* as (the task's ``scores``, its ``sample_scores``): each further sample's
    record named for its contestant again, with its ``sample`` number after ``patch``."""
    named = {e.name for e in samples}
    scores: list[kinds.Score] = []
    further: list[kinds.Score] = []
    for record in records:
        if record["patch"] not in named:
            scores.append(record)
            continue
        agent, _, number = record["patch"].rpartition(" #")
        out: dict[str, Any] = {}
        for key, value in record.items():
            out[key] = agent if key == "patch" else value
            if key == "patch":
                out["sample"] = int(number)
        further.append(out)  # type: ignore[arg-type]
    return scores, further


def score_key(task: Mapping[str, Any], patch: str, env_key: str, limits: Sequence[Any]) -> str:
    """Everything one patch's outcome depends on (*limits*: ``JudgeSettings.score_limits``)."""
    oracle = task["oracle"]
    return cache_key(
        "score",
        FORMAT,
        task["base_commit"],
        task["fix_commit"],
        task["source"],
        task["tests"],
        protected_paths(as_task(task)),
        sorted(oracle["fail_to_pass"]),
        sorted(oracle["pass_to_pass"]),
        hidden_modules(as_task(task)),
        oracle.get("twins", []),
        patch,
        env_key,
        *limits,
    )


def resolves(task: Mapping[str, Any], outcome: Outcome) -> bool:
    """Whether *outcome* meets the maintainers' tests (an attempt's status aside)."""
    if outcome.crash is not None:
        return False
    oracle = task["oracle"]
    no_fix = outcome.error or (outcome.tampered[0] if outcome.tampered else None)
    result = grade(outcome.outcomes, oracle["fail_to_pass"], oracle["pass_to_pass"], no_fix=no_fix)
    return result.category == RESOLVED


def crashed(failed: Failed, what: str = "its score") -> Outcome:
    """The outcome of a patch whose unit no worker could finish."""
    return Outcome(crash=crash_entry(failed, what))


def crash_entry(failed: Failed, what: str) -> kinds.ScoreCrash:
    message = f"{what} could not be computed ({failed.reason}): {failed.message}"
    return {"reason": failed.reason, "message": message, "log": failed.log}


def score_records(
    task: Mapping[str, Any],
    todo: Sequence[Entry],
    outcomes: Mapping[str, Outcome],
    pick: str | None,
) -> list[kinds.Score]:
    """The reference's record, each contestant's and, when *pick* is given, the pick's."""
    oracle = task["oracle"]
    f2p, p2p = list(oracle["fail_to_pass"]), list(oracle["pass_to_pass"])
    records = [_record(as_task(task), e, outcomes[e.patch], f2p, p2p) for e in todo]
    broken = records[0]["category"] != RESOLVED
    for record in records:
        record["environment_broken"] = broken
    if pick is not None:
        picked = next((r for r in records if r["patch"] == pick), None)
        if picked is not None:
            records.append({**picked, "patch": PICK, "picked": pick})
    return records


def _record(
    task: Task,
    entry: Entry,
    outcome: Outcome,
    f2p: Sequence[str],
    p2p: Sequence[str],
) -> kinds.Score:
    no_fix = None
    if entry.name != REFERENCE:
        no_fix = NO_FIX_STATUS.get(entry.status)
        if no_fix is None and not entry.patch.strip():
            no_fix = "the patch is empty"
    if outcome.error:
        no_fix = outcome.error
    if outcome.tampered:
        no_fix = f"its code tampered with the test run: {outcome.tampered[0]}"
    result = grade(outcome.outcomes, f2p, p2p, no_fix=no_fix)
    category, reason = result.category, result.reason
    if outcome.crash is not None:
        category, reason = SCORE_CRASHED, outcome.crash["message"]
    record: kinds.Score = {
        "kind": "score",
        "v": VERSION,
        "task_id": task["id"],
        "patch": entry.name,
        "category": category,
        "reason": reason,
        "f2p": {"passed": result.f2p_passed, "total": result.f2p_total},
        "p2p": {"passed": result.p2p_passed, "total": result.p2p_total},
        "outcomes": {t: outcome.outcomes.get(t, "missing") for t in [*f2p, *p2p]},
        "applied": outcome.applied,
        "dropped": outcome.dropped,
    }
    if outcome.run is not None:
        record["run"] = outcome.run
    if outcome.error:
        record["error"] = outcome.error
    for name in ("flags", "tampered"):
        if getattr(outcome, name):
            record[name] = list(getattr(outcome, name))
    if outcome.crash is not None:
        record["crash"] = outcome.crash.copy()
    return record
