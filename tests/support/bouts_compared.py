"""Two bouts' records made by hand, for comparing a bout with its baseline: seven tasks
counted in both (t8 only in the baseline, t9 only now); see tests/report/test_report_baseline.py
for the numbers they give."""

from __future__ import annotations

from typing import Any

TESTS = {"f2p": {"passed": 1, "total": 1}, "p2p": {"passed": 1, "total": 1}}


def bout(outcomes: dict[str, dict[str, str]], extra: str, *, version: str = "1.0",
         model: str = "m1", command: str = "c1") -> list[dict[str, Any]]:  # fmt: skip
    records: list[dict[str, Any]] = []
    tasks = sorted({t for per in outcomes.values() for t in per} | {extra})
    for task in tasks:
        records.append({"kind": "score", "v": 1, "task_id": task, "patch": "reference",
                        "category": "resolved", **TESTS})  # fmt: skip
        for agent, per in outcomes.items():
            if task not in per and task != extra:
                continue
            letter = per.get(task, "R")
            given = {"key": "k", "prompt_sha256": "p", "base_commit": "b",
                     "invocation_sha256": command if agent == "slipping" else "c0",
                     "agent_version": version if agent == "slipping" else None}  # fmt: skip
            records.append({"kind": "attempt", "v": 1, "task_id": task, "agent": agent,
                            "role": "contestant", "model": model if agent == "slipping" else None,
                            "status": "finished", "duration": 1.0, "patch": "", "given": given,
                            "logdir": f"/logs/{version}/{task}/{agent}"})  # fmt: skip
            records.append({"kind": "score", "v": 1, "task_id": task, "patch": agent,
                            "category": "resolved" if letter == "R" else "wrong-fix",
                            **TESTS})  # fmt: skip
    return records


SIX = [f"t{i}" for i in range(1, 7)]
BEFORE = {"steady": {**dict.fromkeys(SIX, "R"), "t7": "N"},
          "slipping": {**dict.fromkeys(SIX, "R"), "t7": "N"}}  # fmt: skip
AFTER = {"steady": {**dict.fromkeys(SIX, "R"), "t7": "R"},
         "slipping": {**dict.fromkeys(SIX, "N"), "t7": "N"}}  # fmt: skip
