"""The task's negative twins: written from the fix's test modules, kept when they fail.

Candidates (:func:`bb_core.tamper.twins.make_twins`, at most ``CANDIDATES`` a module, of the
tests the score rests on - FAIL_TO_PASS and PASS_TO_PASS - those the fix added or changed
first) run with the tests they copy in runs of their own, in fresh checkouts (a twin runs
its test's code, so it could change the state a stateful test leaves for the next run:
the oracle's own runs never hold twins). A candidate is kept when each of its cases failed
in both runs on the fix (the contradiction holds there: its original passes, it fails)
and failed or errored in the run before it (never passed, never skipped). At most ``KEPT`` a module are kept, twins of
FAIL_TO_PASS tests first: those are the tests a patch that fakes passes must fake.

A node project's test files (any module not ending in ``.py``) get theirs from
:func:`bb_core.tamper.node_twins.make_node_twins`, of the tests its ids
(``path > describe > title``) name; the runs and the choice are the same.
"""

from __future__ import annotations

import ast
import random
from collections.abc import Mapping, Sequence

from bb_core.git import Repo
from bb_core.records.kinds import Oracle
from bb_core.tamper.node_twins import make_node_twins
from bb_core.tamper.twins import CANDIDATES, KEPT, Twin, cases_of, make_twins
from bb_core.testrun import TestRun

from bb_oracle.sides import AFTER, BEFORE, Sides


def candidates(repo: Repo, sides: Sides, seed: str, scored: Sequence[str]) -> list[Twin]:
    """Up to ``CANDIDATES`` twins per test module of *sides*, from the fix's versions, of
    the tests *scored* names (node ids)."""
    found: list[Twin] = []
    for module in sides.modules:
        if not module.endswith(".py"):
            found += _node_candidates(sides, seed, scored, module)
            continue
        tests = {
            n.split("[", 1)[0].split("::", 1)[1] for n in scored if n.startswith(module + "::")
        }
        if not tests:
            continue
        data = sides.overlay[module]
        before = repo.read_blob(sides.base, module)
        rng = random.Random(f"{seed}:{module}")
        prefer = _changed_tests(data, before)
        found += make_twins(data, module, rng=rng, tests=tests, prefer=prefer, limit=CANDIDATES)
    return found


def _node_candidates(sides: Sides, seed: str, scored: Sequence[str], module: str) -> list[Twin]:
    """Candidates of the tests *scored* names in the node test file *module*."""
    tests = {n.split(" > ", 1)[1] for n in scored if n.startswith(module + " > ")}
    if not tests:
        return []
    rng = random.Random(f"{seed}:{module}")
    return make_node_twins(module, sides.overlay[module], rng=rng, tests=tests, limit=CANDIDATES)


def _changed_tests(after: bytes, before: bytes | None) -> set[str]:
    """The tests (``Class::name`` or ``name``) the fix added or changed in a module."""
    mine, theirs = _functions(after), _functions(before or b"")
    return {name for name, dump in mine.items() if theirs.get(name) != dump}


def _functions(data: bytes) -> dict[str, str]:
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return {}
    found: dict[str, str] = {}

    def walk(body: Sequence[ast.stmt], scope: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found[f"{scope}::{node.name}" if scope else node.name] = ast.dump(node)
            elif isinstance(node, ast.ClassDef):
                walk(node.body, f"{scope}::{node.name}" if scope else node.name)

    walk(tree.body, "")
    return found


def kept(
    twins: Sequence[Twin], runs: Mapping[str, Sequence[TestRun]], oracle: Oracle
) -> list[Twin]:
    """The candidates the runs validate, at most ``KEPT`` a module (see the docstring)."""
    # a node test's id is whole (a "[" is part of its title); a pytest case's is cut at "["
    f2p = {*oracle["fail_to_pass"], *(n.split("[", 1)[0] for n in oracle["fail_to_pass"])}
    p2p = {*oracle["pass_to_pass"], *(n.split("[", 1)[0] for n in oracle["pass_to_pass"])}
    good: list[Twin] = []
    for twin in twins:
        if twin.original not in f2p | p2p:
            continue
        if not _always(runs[AFTER], twin, ("failed",)):
            continue
        if not _always(runs[BEFORE], twin, ("failed", "error")):
            continue
        good.append(twin)
    good.sort(key=lambda t: t.original not in f2p)  # stable: the candidates' order stays
    per_module: dict[str, int] = {}
    chosen = []
    for twin in good:
        if per_module.get(twin.module, 0) < KEPT:
            per_module[twin.module] = per_module.get(twin.module, 0) + 1
            chosen.append(twin)
    return chosen


def _always(runs: Sequence[TestRun], twin: Twin, allowed: tuple[str, ...]) -> bool:
    """Whether every case of *twin* had an allowed outcome in every one of *runs*."""
    for run in runs:
        cases = cases_of(twin, run.twins)
        if not cases or any(o not in allowed for o in cases):
            return False
    return bool(runs)
