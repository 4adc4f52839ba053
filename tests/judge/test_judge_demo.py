"""bb-judge at the end of a real demo bout: mined tasks, the scripted agents' race, the
cross-examination, then the judge's verdicts and the hidden tests' scores.

The bout is the run's shared demo bout (``support.bout``); its oracles are checked against
the hand-derived facts of ``examples/demo/expected.py`` first, so these tests check the
judge and the scorer, not the oracle stage.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import expected
import pytest
from bb_core.git import open_repo
from bb_core.records import check
from bb_judge.divergence import describe
from bb_judge.tree import prepare, restore
from support.bout import DemoBout
from support.tools import lines, run_tool

BY_TITLE = {task.pr_title or task.title: task for task in expected.GENUINE}


def every_persona(judged: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The judged tasks on which every persona has a scripted answer (not the weak oracle)."""
    keys = {t.key for t in expected.EVERY_PERSONA}
    return [task for task in judged if BY_TITLE[task["title"]].key in keys]


def stage(tool: str, source: Path, root: Path, *args: str) -> list[dict[str, Any]]:
    """Run one bb-* stage as a command on *source*: the task lines it writes."""
    done = run_tool(tool, source, "--config", root / "bugbout.toml", *args, cwd=root)
    assert done.returncode == 0, f"{tool}: {done.stderr.decode()}"
    return [r for r in lines(done.stdout) if r["kind"] == "task"]


@pytest.fixture(scope="module")
def bout(demo_bout: DemoBout, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The demo's four genuine tasks, raced, cross-examined and judged: the run's demo bout,
    in a copy of its own (these tests judge again and score in it). Its oracles are first
    checked against the hand-derived facts, so what follows tests the judge and the scorer."""
    root = demo_bout.copy(tmp_path_factory.mktemp("judge-demo") / "demo").root
    judged = [r for r in demo_bout.records("bb-judge") if r["kind"] == "task"]
    assert sorted(r["title"] for r in judged) == sorted(BY_TITLE)
    for task in judged:
        fact, oracle = BY_TITLE[task["title"]], task["oracle"]
        assert sorted(oracle["fail_to_pass"]) == sorted(fact.fail_to_pass), task["title"]
        assert sorted(oracle["pass_to_pass"]) == sorted(fact.pass_to_pass), task["title"]
        assert sorted(oracle["flaky"]) == sorted(fact.flaky), task["title"]
    return {"root": root, "examined": root / "examined.jsonl", "judged": judged}


def scores_of(task: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {score["patch"]: score for score in task["scores"]}


def failing(score: dict[str, Any], partition: str, oracle: dict[str, Any]) -> tuple[str, ...]:
    ids = oracle["fail_to_pass" if partition == "f2p" else "pass_to_pass"]
    return tuple(sorted(t for t in ids if score["outcomes"][t] != "passed"))


@pytest.mark.slow
def test_every_persona_gets_its_category(bout: dict[str, Any]) -> None:
    for task in bout["judged"]:
        assert check(task, "task") is None, check(task, "task")
        key = BY_TITLE[task["title"]].key
        scores = scores_of(task)
        assert scores["reference"]["category"] == "resolved", scores["reference"]
        for persona in expected.CONTESTANTS:
            score = scores[persona]
            assert score["environment_broken"] is False
            assert score["category"] == expected.CATEGORIES[persona][key], (key, persona, score)


@pytest.mark.slow
def test_the_tamperer_edits_are_dropped_and_it_never_resolves(bout: dict[str, Any]) -> None:
    for task in every_persona(bout["judged"]):
        key = BY_TITLE[task["title"]].key
        tamperer = scores_of(task)["tamperer"]
        touched = set(expected.PATCH_FILES["tamperer"][key])
        source = {path for path in touched if path.startswith(expected.SOURCE + "/")}
        assert set(tamperer["applied"]) == source
        assert set(tamperer["dropped"]) == touched - source
        assert {"tests/conftest.py", "pyproject.toml"} <= set(tamperer["dropped"])
        assert tamperer["f2p"]["passed"] < tamperer["f2p"]["total"]


@pytest.mark.slow
def test_the_breaker_and_the_shortcut_are_told_apart(bout: dict[str, Any]) -> None:
    for task in every_persona(bout["judged"]):
        key = BY_TITLE[task["title"]].key
        scores = scores_of(task)
        breaker, shortcut = scores["breaker"], scores["shortcut"]
        assert breaker["f2p"]["passed"] == breaker["f2p"]["total"]
        assert failing(breaker, "p2p", task["oracle"]) == tuple(
            sorted(expected.BREAKER_BREAKS[key])
        )
        assert failing(shortcut, "f2p", task["oracle"]) == tuple(
            sorted(expected.SHORTCUT_MISSES[key])
        )
        assert failing(shortcut, "p2p", task["oracle"]) == ()
        idler = scores["idler"]
        assert idler["applied"] == [] and idler["reason"] == "the agent changed nothing"


@pytest.mark.slow
def test_the_pick_is_scored_as_the_patch_it_names(bout: dict[str, Any]) -> None:
    for task in bout["judged"]:
        verdict = task["verdict"]
        scores = scores_of(task)
        assert verdict["pick"] == expected.PICKS[BY_TITLE[task["title"]].key], verdict["reason"]
        pick = scores["pick"]
        assert pick["picked"] == verdict["pick"]
        assert {k: v for k, v in pick.items() if k not in ("patch", "picked")} == {
            k: v for k, v in scores[verdict["pick"]].items() if k != "patch"
        }
        # Every author's tests reproduce on the whole base tree: none is left unconfirmed.
        assert verdict["unconfirmed"] == []


@pytest.mark.slow
@pytest.mark.parametrize("policy", ["unanimous", "strict"])
def test_other_authors_tests_catch_the_shortcut(bout: dict[str, Any], policy: str) -> None:
    """The shortcut passes the reported input only; others' tests exercise other inputs."""
    judged = stage("bb-judge", bout["examined"], bout["root"], "--no-score", "--policy", policy)
    for task in judged:
        verdict = task["verdict"]
        shortcut = next(e for e in verdict["ranking"] if e["patch"] == "shortcut")
        assert not shortcut["approved"]
        assert verdict["gate"]["shortcut"] == "reject"
        caught = [
            c for c in shortcut["cited"] if c["column"] == "shortcut" and c["outcome"] != "passed"
        ]
        assert caught and all(c["author"] != "shortcut" for c in caught)
        assert verdict["pick"] == expected.PICKS[BY_TITLE[task["title"]].key]
        assert "scores" not in task


@pytest.mark.slow
def test_protected_paths_are_restored_from_the_fix(bout: dict[str, Any]) -> None:
    """Scoring the tamperer's patch: every protected file is the fix's, byte for byte."""
    task = every_persona(bout["judged"])[0]
    tamperer = next(a for a in task["attempts"] if a["agent"] == "tamperer")
    dest = bout["root"] / "scored-tamperer"
    fix = task["fix_commit"]
    with open_repo(bout["root"] / "repo") as repo:
        outcome = prepare(repo, task, tamperer["patch"], dest)
        for path in task["protected_paths"]:
            assert (dest / path).read_bytes() == repo.read_blob(fix, path), path
        # Whatever reached a protected path (here planted by hand) is undone the same way.
        planted = "tests/support/fixtures.py"
        (dest / planted).parent.mkdir(parents=True)
        (dest / planted).write_text("ANSWER = 42\n")
        (dest / "tests/conftest.py").write_text("import pytest\n")
        restore(repo, fix, dest, [*task["protected_paths"], planted, "tests/support"])
        assert (dest / "tests/conftest.py").read_bytes() == repo.read_blob(fix, "tests/conftest.py")
    assert not (dest / "tests/support").exists()
    assert {"tests/conftest.py", "pyproject.toml"} <= set(outcome.dropped)


@pytest.mark.slow
def test_breaking_a_test_in_a_module_the_fix_modifies_is_seen_and_never_picked(
    bout: dict[str, Any],
) -> None:
    """The base versions of the fix's test modules are in the suite, so the breaker's
    break of an existing test there is a cell against it, not only a hidden-test failure."""
    examined = {r["id"]: r for r in lines(bout["examined"].read_bytes()) if r["kind"] == "task"}
    for task in every_persona(bout["judged"]):
        key = BY_TITLE[task["title"]].key
        fact = BY_TITLE[task["title"]]
        matrix = examined[task["id"]]["matrix"]
        outcome = {
            (c["test"], c["column"]): c["outcome"]
            for c in matrix["cells"]
            if c["author"] == "suite"
        }
        in_modules = [t for t in expected.BREAKER_BREAKS[key] if (t, "breaker") in outcome]
        assert in_modules, f"{key}: the suite runs the base versions of {fact.test_files}"
        for test in in_modules:
            assert test.split("::")[0] in fact.test_files
            assert outcome[(test, "base")] == "passed" and outcome[(test, "careful")] == "passed"
            assert outcome[(test, "breaker")] == "failed"
        assert task["verdict"]["pick"] != "breaker"
        assert scores_of(task)["breaker"]["category"] in ("fixed-but-broke", "wrong-fix")


@pytest.mark.slow
def test_the_shortcut_resolves_the_weak_oracle_and_diverges_from_the_fix(
    bout: dict[str, Any],
) -> None:
    """On the weak-oracle task the shortcut's half fix passes the maintainers' one new test
    - resolved - while the bout's longest_word tests, run on the reference patch as the
    hidden column, tell it from the maintainers' fix: resolved, diverges on 2 tests."""
    weak = expected.HYPHENATED_WORDS
    task = next(t for t in bout["judged"] if t["title"] == weak.title)
    scores = scores_of(task)
    shortcut, careful = scores["shortcut"], scores["careful"]
    assert shortcut["category"] == careful["category"] == "resolved"
    parted = expected.DIVERGES["shortcut", weak.key]
    found = shortcut["divergence"]
    assert found["agrees"] is False
    assert [(d["author"], d["test"]) for d in found["diverges"]] == list(parted)
    for entry in found["diverges"]:
        assert (entry["patch"], entry["reference"]) == ("failed", "passed")
        mine, theirs = entry["cells"]
        assert (mine["column"], theirs["column"]) == ("shortcut", "reference")
        assert mine["test"] == theirs["test"] == entry["test"]
    assert careful["divergence"]["agrees"] is True and careful["divergence"]["diverges"] == []
    assert describe(shortcut) == "resolved, diverges on 2 tests"
    # No evidence about the reference reached the judge: careful is picked from the matrix.
    assert task["verdict"]["pick"] == expected.PICKS[weak.key] == "careful"
    for persona in ("tamperer", "breaker", "idler"):
        assert scores[persona]["category"] == "no-fix", persona
