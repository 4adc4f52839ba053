"""The report's numbers worked out by hand from a demo's expected facts: shared by the
whole-bout tests of textkit (test_run.py) and of the TypeScript demo (test_run_ts.py)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from bb_core.records import read_lines
from bb_report.bout import ROW_CATEGORIES
from bugbout.results import Results


def records(path: Path) -> list[dict[str, Any]]:
    """Every line of a stream, validated against the schemas."""
    return [line.record for line in read_lines([str(path)])]


def assert_report_numbers(results: Path, expected: ModuleType) -> None:
    """Each section of the report kept in *results* (a ``.bugbout`` folder) against what
    *expected* (``expected.py``, or the TypeScript demo's) says the personas do."""
    genuine_titles = {task.task_title: task for task in expected.GENUINE}
    got = json.loads((results / "report.json").read_text())["sections"]
    categories = ROW_CATEGORIES
    resolved = {name: 0 for name in expected.CONTESTANTS}
    for name in expected.CONTESTANTS:
        resolved[name] = list(expected.CATEGORIES[name].values()).count("resolved")
    tasks = len(expected.GENUINE)

    # Agents: each persona's category on each task.
    rows = {row["name"]: row for row in got["agents"]["rows"]}
    assert list(rows) == list(expected.CONTESTANTS)
    for name in expected.CONTESTANTS:
        wanted = Counter(expected.CATEGORIES[name].values())
        assert rows[name]["categories"] == {c: wanted.get(c, 0) for c in categories}
        assert rows[name]["resolve_rate"]["count"] == resolved[name]
        assert rows[name]["resolve_rate"]["total"] == tasks
        assert rows[name]["vendor"] == expected.VENDORS[name]

    # Picking: the best agent, the random agent's expectation, the best possible.
    picking = {row["kind"]: row for row in got["picking"]["rows"]}
    best = max(expected.CONTESTANTS, key=lambda n: resolved[n])
    assert picking["best-agent"]["agents"] == [best]
    assert picking["best-agent"]["resolved"] == resolved[best]
    assert picking["random"]["resolved"] == pytest.approx(
        sum(resolved.values()) / len(expected.CONTESTANTS)
    )
    assert picking["oracle"]["resolved"] == tasks
    judged = [r for r in records(Results(results).stream("judge")) if r["kind"] == "task"]
    picks = {t["id"]: t["verdict"]["pick"] for t in judged}
    by_title = {t["id"]: genuine_titles[t["title"]].key for t in judged}
    right = sum(
        1
        for task_id, pick in picks.items()
        if pick is not None and expected.CATEGORIES[pick][by_title[task_id]] == "resolved"
    )
    assert picking["judge"]["resolved"] == right
    assert got["picking"]["picks"] + got["picking"]["abstained"] == tasks

    # The merge gate: every patch is approved or stopped; no patch, nothing to gate (the
    # idler's, and the tamperer's and breaker's on the weak-oracle task).
    keys = [t.key for t in expected.GENUINE]

    def acted(name: str, key: str) -> bool:
        return name == "suite" or bool(expected.PATCH_FILES[name][key])

    gate = {row["name"]: row for row in got["gate"]["rows"]}
    for name in expected.CONTESTANTS:
        row = gate[name]
        patches = sum(1 for key in keys if acted(name, key))
        assert row["patches"] == patches
        assert row["no_patch"] == tasks - patches
        assert row["approved_right"] + row["wrongly_rejected"] == resolved[name]
        assert row["approved_wrong"] + row["stopped"] == row["patches"] - resolved[name]

    # Which tests tell right from wrong: each author judges the others' patches only, on
    # the tasks it wrote tests for.
    evidence = {row["author"]: row for row in got["tests"]["rows"]}
    for author in [*expected.CONTESTANTS, *expected.EXAMINERS, "suite"]:
        if author == "idler":
            continue  # writes no tests
        judged_patches = [
            expected.CATEGORIES[n][key] == "resolved"
            for key in keys
            if acted(author, key)
            for n in expected.CONTESTANTS
            if n != author and acted(n, key)
        ]
        assert evidence[author]["passed_on_resolved"]["total"] == judged_patches.count(True)
        assert evidence[author]["failed_on_wrong"]["total"] == judged_patches.count(False)

    # The funnel: every commit examined and every reason a fix was left out.
    steps = {step["key"]: step["count"] for step in got["funnel"]["steps"]}
    assert steps["examined"] == expected.SUMMARY["commits"]
    assert steps["tasks"] == expected.SUMMARY["tasks"]
    assert steps["oracle-skipped"] == len(expected.ORACLE_SKIPS)
    assert steps["grounded"] == steps["counted"] == tasks
    skips = {(s["stage"], s["reason"]): s["count"] for s in got["funnel"]["skips"]}
    assert skips == {
        **{("mine", r): n for r, n in expected.SUMMARY["skips"].items()},
        ("mine", "not-a-fix"): expected.SUMMARY["not_a_fix"],
        **{("oracle", r): 1 for r in expected.ORACLE_SKIPS.values()},
    }

    # Paired exact tests: p = 2 * 0.5**k over the k tasks only one of the two resolved.
    pairs = {(row["a"], row["b"]): row for row in got["comparisons"]["rows"]}
    n = len(expected.CONTESTANTS)
    assert len(pairs) == n * (n - 1) // 2
    for (a, b), row in pairs.items():
        assert (row["a_only"], row["b_only"]) == (
            resolved[a] - min(resolved[a], resolved[b]),
            resolved[b] - min(resolved[a], resolved[b]),
        )
        only = row["a_only"] + row["b_only"]
        assert row["p"] == pytest.approx(min(1.0, 2 * 0.5**only) if only else 1.0)
        assert row["finding"] == "not-distinguishable"
