"""bb_core.lang.jstests: the tests a JavaScript or TypeScript file defines, by parsing it."""

from __future__ import annotations

import pytest
from bb_core.lang.js import parse
from bb_core.lang.jseach import literal, row_title, unescape
from bb_core.lang.jstests import Unparseable, collect_tests, compare, template_pattern

SUITE = b"""import { describe, it, expect, test } from "vitest";
// a comment
describe("sum", () => {
  it("adds", () => { expect(1 + 1).toBe(2); });
  it.skip("skips", () => {});
  it.todo("later");
  test.concurrent.only("fast", async () => {});
  it.each([[1, 2, 3], [2, 2, 4]])("add(%i, %i) -> %i", (a, b, c) => {});
  it.each(["a", "b"])("word %s #%#", (w) => {});
  test.each`
    a    | b      | expected
    ${1} | ${"x"} | ${"1x"}
  `("join $a and $b", ({ a, b, expected }) => {});
  it.each(table)("row %s", (x) => {});
  describe.each([{ n: 1 }, { n: 2 }])("block $n", ({ n }) => {
    it(`inner`, () => {});
  });
  xit("old", () => {});
  it.skipIf(process.env.CI)("local", () => {});
  it(`with ${name}`, () => {});
  it.fails("known bug", () => {});
});
describe.skip("off", () => { fit("x", () => {}) });
const rows = it.each([1]);
expect(test).toBeDefined();
"""


def test_ids_marks_and_rows() -> None:
    found = collect_tests("src/sum.test.ts", SUITE)
    p = "src/sum.test.ts > "
    assert {k.removeprefix(p): sorted(t.marks) for k, t in found.items()} == {
        "sum > adds": [],
        "sum > skips": ["skip"],
        "sum > later": ["todo"],
        "sum > fast": ["concurrent", "only"],
        "sum > add(1, 2) -> 3": [],
        "sum > add(2, 2) -> 4": [],
        "sum > word a #0": [],
        "sum > word b #1": [],
        "sum > join 1 and 'x'": [],
        "sum > row %s": [],
        "sum > block 1 > inner": [],
        "sum > block 2 > inner": [],
        "sum > old": ["skip"],
        "sum > local": ["skipIf"],
        "sum > with ${name}": [],
        "sum > known bug": ["fails"],
        "off > x": ["only", "skip"],
    }
    assert found[p + "sum > row %s"].template
    assert found[p + "sum > with ${name}"].template
    assert not found[p + "sum > word a #0"].template
    assert found[p + "sum > word a #0"].group == p + "sum > word %s #%#"
    assert found[p + "sum > adds"].line == 4
    assert not found[p + "sum > skips"].runs and found[p + "sum > adds"].runs


def test_jest_quotes_row_values_with_double_quotes() -> None:
    found = collect_tests("sum.test.js", SUITE, runner="jest")
    assert 'sum.test.js > sum > join 1 and "x"' in found


@pytest.mark.parametrize(
    ("template", "row", "title"),
    [
        ("%s + %s", ["a", 1], "a + 1"),
        ("%d%%", [50], "50%"),
        ("%i", [2.7], "2"),
        ("%f", [0.5], "0.5"),
        ("%j", [{"a": [1, "x"]}], '{"a":[1,"x"]}'),
        ("%o", ["s"], "'s'"),
        ("row %# of %$", [1], "row 3 of 4"),
        ("%s and %s", ["only"], "only and %s"),
        (
            "$a.b is $c",
            [{"a": {"b": 1}}],
            "$a.b is $c".replace("$a.b", "1").replace("$c", "undefined"),
        ),
        ("%s", [[1, 2]], None),
        ("%p", ["x"], None),
    ],
)
def test_row_titles(template: str, row: list[object], title: str | None) -> None:
    assert row_title(template, row, 3) == title


def test_literals() -> None:
    tree = parse("a.ts", b'x = [-1, 0x10, 1.5, "a\\tb", `t`, null, undefined, true, {k: [1]}, y];')
    array = tree.root_node.named_children[0].named_children[0].child_by_field_name("right")
    values = [literal(n) for n in array.named_children]
    assert values[:5] == [-1, 16, 1.5, "a\tb", "t"]
    assert values[5] is None and repr(values[6]) == "undefined" and values[7] is True
    assert values[8] == {"k": [1]}
    assert repr(values[9]) == "UNKNOWN"
    assert unescape(r"\u00e9\x41\u{1F600}\'") == "\u00e9A\U0001f600'"


def test_changes_between_versions() -> None:
    before = collect_tests(
        "t.test.ts",
        b'it("a", () => { f(1) });\nit("b", () => { f(2) });\nit.skip("c", () => { f(3) });\n'
        b'it.each([1])("row %s", (x) => {});\nit("old name", () => { g() });\n',
    )
    after = collect_tests(
        "t.test.ts",
        b'it("a", () => {\n  // reformatted\n  f( 1 )\n});\nit("b", () => { f(2); f(5) });\n'
        b'it("c", () => { f(3) });\nit.each([1, 2])("row %s", (x) => {});\n'
        b'it("new name", () => { g() });\nit("d", () => {});\n',
    )
    tests, rows, changed = compare(before, after)
    assert tests == ["t.test.ts > d"]
    assert rows == ["t.test.ts > row 2"]
    assert changed == ["t.test.ts > b", "t.test.ts > c"]


def test_a_template_of_a_table_only_the_run_reads() -> None:
    before = collect_tests("t.test.ts", b'it.each(rows)("row %s", (x) => {});\n')
    after = collect_tests("t.test.ts", b'it.each([...rows, 9])("row %s", (x) => {});\n')
    assert compare(before, after) == ([], [], ["t.test.ts > row %s"])
    pattern = template_pattern("t.test.ts > row %s > $a")
    assert pattern.fullmatch("t.test.ts > row 9 > 'x'")
    assert not pattern.fullmatch("t.test.ts > col 9 > 'x'")


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b'it("a", () => {\n  if (\n});\n', "t.test.ts:"),
        (b"\x00\x01binary", "not a text file"),
        (b'it("\xff", () => {});', "not UTF-8"),
    ],
)
def test_a_file_that_does_not_parse(data: bytes, said: str) -> None:
    with pytest.raises(Unparseable, match=said):
        collect_tests("t.test.ts", data)


def test_tsx_and_javascript_grammars() -> None:
    tsx = b'it("renders", () => { render(<App title="x" />); });\n'
    assert list(collect_tests("a.test.tsx", tsx)) == ["a.test.tsx > renders"]
    assert list(collect_tests("a.test.jsx", tsx)) == ["a.test.jsx > renders"]
    with pytest.raises(Unparseable):
        collect_tests("a.test.ts", b"const x = <T,>(a: T) => a; it('x', () => { <div/> })\n")
