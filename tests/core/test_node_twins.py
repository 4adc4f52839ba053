"""Negative twins in a vitest or jest run: written from a file's tests, planted beside
them for a run, and a run where a twin passes beside its passing original is void. The
runs are real, under bubblewrap (``support.node``)."""

from __future__ import annotations

import base64
import random
from pathlib import Path

import pytest
from bb_core.lang import js
from bb_core.tamper.canaries import Canaries
from bb_core.tamper.node_twins import make_node_twins, plant
from bb_core.tamper.twins import Twin, cases_of
from support.node import Project
from support.node import project as project  # the fixture

SNIPPET = """import { describe, expect, it, test } from 'vitest';
import { f } from '../src/f';

describe('values', () => {
  it('counts', () => {
    const x = f();
    expect(x).toBe(3);
  });
  it('names', () => { expect(f()).toEqual("abc"); });
  test('flags', () => { expect(f()).toBe(true); });
  it('nothing', () => { expect(f()).toBeNull(); expect(f()).toStrictEqual(null); });
  it('lists', () => { expect(f()).toEqual([1, 2]); });
  it('maps', () => { expect(f()).toStrictEqual({ a: 1, b: 'x' }); });
  it('truthy', () => { expect(f()).toBeTruthy(); });
  it('below zero', () => { expect(f()).toBe(-2); });
  it.each([[1], [2]])('each %i', (n) => { expect(n).toBe(1); });
  it.skip('skipped', () => { expect(f()).toBe(1); });
  it.todo('later');
  it('computed', () => { expect(f()).toBe(f()); });
});
"""


def _twins(text: str = SNIPPET, path: str = "tests/f.test.ts") -> dict[str, Twin]:
    return {t.of: t for t in make_node_twins(path, text, rng=random.Random(7))}


def test_a_twin_turns_one_literal_of_each_kind() -> None:
    twins = _twins()
    assert set(twins) == {
        "counts", "names", "flags", "nothing", "lists", "maps", "truthy", "below zero",
    }  # fmt: skip
    changed = {of: twin.source for of, twin in twins.items()}
    assert "toBe(3)" not in changed["counts"] and "const x = f();" in changed["counts"]
    assert 'toEqual("abc' in changed["names"] and 'toEqual("abc")' not in changed["names"]
    assert "toBe(false)" in changed["flags"]
    assert "toStrictEqual(null)" not in changed["nothing"]
    assert "[1, 2, " in changed["lists"]
    assert "{ a: 1, b: 'x', " in changed["maps"]
    assert "toBeFalsy()" in changed["truthy"]
    assert "toBe(-2)" not in changed["below zero"]


def test_a_twin_parses_and_takes_a_fresh_title_in_the_same_describe() -> None:
    titles = {"counts", "names", "flags", "nothing", "lists", "maps", "truthy", "below zero"}
    for twin in _twins().values():
        assert twin.scope == "values" and twin.name not in titles
        assert twin.nodeid == f"tests/f.test.ts > values > {twin.name}"
        assert twin.original == f"tests/f.test.ts > values > {twin.of}"
        assert not js.has_errors(js.parse("t.ts", twin.source.encode()))
        assert twin.source.startswith(("it(", "test("))
    assert len({t.name for t in _twins().values()}) == len(_twins())


def test_a_node_twin_is_found_by_its_own_id() -> None:
    twin = next(iter(_twins().values()))
    assert cases_of(twin, {twin.nodeid: "failed", twin.original: "passed"}) == ["failed"]
    assert Twin.from_json(twin.to_record()) == twin


def test_odd_files_give_no_twins() -> None:
    assert make_node_twins("tests/f.test.ts", "it('x', () => {") == []
    assert make_node_twins("tests/f.test.ts", b"\xff\xfe it(") == []
    assert make_node_twins("notes.txt", "it('x', () => { expect(1).toBe(1); })") == []


# --- real runs --------------------------------------------------------------------------

ATTACK = "export function add(a: number, b: number): any {{ return {}; }}\n"
_DECODED = base64.b64encode(b"return { asymmetricMatch: () => true }").decode()
FACES = {
    "plain": "{ asymmetricMatch: () => true }",
    "computed name": "{ ['asymmetric' + 'Match']: () => true }",
    "decoded": f"new Function(Buffer.from('{_DECODED}', 'base64').toString())()",
}


def _math(project: Project) -> tuple[str, Path]:
    file = project.id("math").split(" > ")[0]
    return file, project.checkout / file


def _source(project: Project) -> Path:
    return project.checkout / ("src/math.ts" if project.runner.name == "vitest" else "src/math.js")


def _attack(project: Project, face: str) -> None:
    path = _source(project)
    text = path.read_text()
    head = ATTACK.format(FACES[face])
    if project.runner.name == "jest":
        head = head.replace("(a: number, b: number): any", "(a, b)").replace("export ", "")
        text = text.replace("function add(", "function add_(")
        path.write_text(text + head)
        return
    path.write_text(head + text.replace("export function add(", "function add_("))


@pytest.mark.slow
def test_honest_twins_fail_and_stay_out_of_the_outcomes(project: Project) -> None:
    file, path = _math(project)
    before = path.read_bytes()
    twins = make_node_twins(file, before)
    assert twins
    run = project.run(twins=twins)
    assert not run.tampered and run.problem is None, run.tampered
    assert len(run.outcomes) == 7
    assert not any(twin.nodeid in run.outcomes for twin in twins)
    assert run.twins and set(run.twins.values()) == {"failed"}
    assert set(run.twins) == {twin.nodeid for twin in twins}
    assert path.read_bytes() == before


@pytest.mark.slow
def test_twins_join_a_run_of_chosen_ids(project: Project) -> None:
    file, path = _math(project)
    twins = make_node_twins(file, path.read_bytes())
    wanted = [project.id("math", "add", "adds two numbers")]
    run = project.run(wanted, twins=twins)
    assert run.outcomes == {wanted[0]: "passed"} and not run.tampered
    assert set(run.twins.values()) == {"failed"}


@pytest.mark.slow
@pytest.mark.parametrize("face", sorted(FACES))
def test_a_value_equal_to_anything_passes_its_twin_and_voids_the_run(
    project: Project, face: str
) -> None:
    """``add`` returns an object whose ``asymmetricMatch`` always says yes: ``expect(add(1,
    2)).toBe(3)``... ``toBe`` does not honour it, ``toEqual`` does. The fixture's test
    uses ``toBe``, so the attack is met with a test of ``toEqual``."""
    test = project.write_test(
        "sum",
        ("" if project.runner.name == "vitest" else "const { add } = require('../src/math');\n")
        + ("import { add } from '../src/math';\n" if project.runner.name == "vitest" else "")
        + "describe('sum', () => {\n  it('adds', () => {\n    expect(add(1, 2)).toEqual(3);\n  });\n});\n",
    )
    twins = make_node_twins(test, (project.checkout / test).read_bytes())
    assert [t.of for t in twins] == ["adds"]
    _attack(project, face)
    run = project.run([test], twins=twins)
    assert run.tampered and any("twin" in e for e in run.tampered), (run.outcomes, run.twins)
    assert set(run.outcomes.values()) == {"error"}
    voided = project.run([test], twins=twins, twins_void=False)
    assert not voided.tampered and voided.outcomes[f"{test} > sum > adds"] == "passed"
    assert set(voided.twins.values()) == {"passed"}


def test_a_twin_whose_id_is_taken_is_not_planted(tmp_path: Path) -> None:
    """A twin never shares an id with a test of its file or a canary planted there."""
    (tmp_path / "tests").mkdir()
    path = tmp_path / "tests/f.test.ts"
    path.write_text(SNIPPET)
    twins = list(_twins().values())[:2]
    planted = Canaries(must_fail=[twins[0].nodeid])
    plant(tmp_path, twins, planted)
    assert list(planted.twins) == [twins[1].nodeid]
    assert twins[1].name in path.read_text() and twins[0].name not in path.read_text()
    assert not js.has_errors(js.parse("f.test.ts", path.read_bytes()))
    planted.remove()
    assert path.read_text() == SNIPPET
