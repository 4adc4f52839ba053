"""How long the judge takes to decide one task from its matrix, as the matrix grows.

``--scoring PROJECT [ROUNDS]`` measures scoring instead: every task of
``PROJECT/oracled.jsonl`` (bb-oracle's output for the project whose ``bugbout.toml`` is in
PROJECT) has its reference patch scored on the hidden tests, alternately with the
oracle's negative twins planted and without them, ROUNDS times each (default 3); prints
each round, the median and best of both, and their ratio.

The judge's own work (every patch assessed under the policy, ranked, and gated alone)
must stay negligible next to the test runs that fill the matrix. Prints, per matrix size,
the cells, the milliseconds per verdict and the cells judged per second, under
``majority`` and ``strict``.
"""

from __future__ import annotations

import random
import time
from typing import Any

from bb_judge.judge import judge_task

SIZES = (  # (contestants, examiners, suite tests)
    (5, 1, 100),
    (10, 3, 1_000),
    (20, 5, 5_000),
)


def matrix(contestants: int, examiners: int, suite: int, seed: int = 7) -> dict[str, Any]:
    rng = random.Random(seed)
    names = [f"agent{i}" for i in range(contestants)]
    columns = ["base", *names]
    authors: list[dict[str, Any]] = []
    cells = []

    def row(author: str, test: str, base: str, pass_rate: float) -> None:
        cells.append({"author": author, "test": test, "column": "base", "outcome": base})
        for column in names:
            outcome = "passed" if rng.random() < pass_rate else "failed"
            cells.append({"author": author, "test": test, "column": column, "outcome": outcome})

    for name in names:
        tests = [f"tests/test_{name}.py::test_{k}" for k in range(3)]
        authors.append({"name": name, "role": "contestant", "vendor": None, "tests": tests})
        for test in tests:
            row(name, test, "failed", 0.7)
    for e in range(examiners):
        tests = [f"tests/test_repro_{e}.py::test_{k}" for k in range(6)]
        authors.append({"name": f"examiner{e}", "role": "examiner", "vendor": None, "tests": tests})
        for k, test in enumerate(tests):
            row(f"examiner{e}", test, "failed" if k < 4 else "passed", 0.8)
    suite_tests = [f"tests/test_suite.py::test_{k}" for k in range(suite)]
    authors.append({"name": "suite", "role": "suite", "vendor": None, "tests": suite_tests})
    for test in suite_tests:
        row("suite", test, "passed", 0.995)
    return {
        "kind": "matrix",
        "v": 1,
        "task_id": "bench-0000000001",
        "authors": authors,
        "columns": [
            {"name": c, "patch_of": None if c == "base" else c, "duration": 1.0} for c in columns
        ],
        "cells": cells,
    }


def main() -> None:
    print(
        f"{'contestants':>11} {'examiners':>9} {'suite':>6} {'cells':>8}  policy     ms/verdict   cells/s"
    )
    for contestants, examiners, suite in SIZES:
        record = matrix(contestants, examiners, suite)
        task = {"id": "bench-0000000001", "matrix": record, "attempts": []}
        for policy in ("majority", "strict"):
            rounds = 0
            started = time.perf_counter()
            while True:
                judge_task(task, policy)
                rounds += 1
                elapsed = time.perf_counter() - started
                if elapsed > 1.0 and rounds >= 3:
                    break
            per = elapsed / rounds
            cells = len(record["cells"])
            print(
                f"{contestants:>11} {examiners:>9} {suite:>6} {cells:>8}  {policy:<9} "
                f"{per * 1000:10.1f} {cells / per:11,.0f}"
            )


def scoring(project: str, rounds: int) -> None:
    import copy
    import dataclasses
    import json
    import statistics

    from bb_core.config import load_config
    from bb_judge.settings import JudgeSettings
    from bb_judge.stage import Scorer

    config = load_config(f"{project}/bugbout.toml")
    settings = dataclasses.replace(
        JudgeSettings.from_config(config), run_suite=False, use_cache=False
    )
    with open(f"{project}/oracled.jsonl", encoding="utf-8") as lines:
        tasks = [t for t in map(json.loads, lines) if t["kind"] == "task"]
    times: dict[str, list[float]] = {"twins": [], "none": []}
    for n in range(rounds):
        for mode in ("twins", "none") if n % 2 == 0 else ("none", "twins"):
            started = time.perf_counter()
            for task in tasks:
                scored = copy.deepcopy(task)
                if mode == "none":
                    scored["oracle"].pop("twins", None)
                records = Scorer(config, settings).score_task(scored)
                assert records[0]["category"] == "resolved", (task["id"], records[0])
            times[mode].append(time.perf_counter() - started)
            print(f"round {n + 1} {mode:<5} {times[mode][-1]:7.2f}s", flush=True)
    kept = sum(len(t["oracle"].get("twins", ())) for t in tasks)
    print(f"{len(tasks)} tasks, {kept} twins")
    for mode, taken in times.items():
        print(f"{mode:<5} median {statistics.median(taken):7.2f}s  best {min(taken):7.2f}s")
    median = statistics.median(times["twins"]) / statistics.median(times["none"])
    print(f"twins/none: median {median:.3f}x  best {min(times['twins']) / min(times['none']):.3f}x")


if __name__ == "__main__":
    import sys

    if sys.argv[1:2] == ["--scoring"]:
        scoring(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 3)
    else:
        main()
