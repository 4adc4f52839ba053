"""Mutants of JavaScript and TypeScript changed lines: the operator set, only on changed
lines, every mutant still parsing, line numbers unchanged."""

from __future__ import annotations

import pytest
from bb_core.lang.js import has_errors, parse
from bb_oracle.mutants_js import mutants

TS = """\
export function clamp(value: number, low: number, high: number): number {
  if (value < low) {
    return low;
  }
  const items: Array<number> = [];
  if (value >= high && high !== 0) {
    log(value);
    return high;
  }
  return value + 0;
}
"""


def _changes(path: str, source: str, lines: list[int]) -> list[tuple[int, str, str]]:
    return [(m.line, m.operator, m.change) for m in mutants(path, source, lines)]


def test_each_operator_applies_on_changed_lines_only() -> None:
    found = _changes("src/clamp.ts", TS, [6, 7, 8])
    assert found == [
        (6, "boolean", "'&&' -> '||'"),
        (6, "boolean", "'if (value >= high && high !== 0)' negated"),
        (6, "comparison", "'!==' -> '==='"),
        (6, "comparison", "'>=' -> '>'"),
        (7, "removed statement", "'log(value);' removed"),
        (8, "removed statement", "'return high' -> 'return undefined'"),
    ]


def test_lines_not_changed_are_never_touched() -> None:
    assert _changes("src/clamp.ts", TS, [1, 4, 5, 9]) == []
    only_first = _changes("src/clamp.ts", TS, [2])
    assert only_first == [
        (2, "boolean", "'if (value < low)' negated"),
        (2, "comparison", "'<' -> '<='"),
    ]


def test_type_arguments_are_not_comparisons() -> None:
    """`Array<number>` holds angle brackets, not a `<` to mutate."""
    assert _changes("src/clamp.ts", TS, [5]) == []


@pytest.mark.parametrize("path", ["src/clamp.ts", "src/clamp.tsx"])
def test_every_mutant_parses_and_keeps_every_line(path: str) -> None:
    found = mutants(path, TS, range(1, 12))
    assert len(found) >= 10
    for mutant in found:
        assert not has_errors(parse(path, mutant.source.encode())), mutant.change
        assert mutant.source.count("\n") == TS.count("\n")
        assert mutant.source != TS


def test_javascript_constants_negations_and_await() -> None:
    source = (
        "const on = true;\n"
        "async function go(a, b) {\n"
        "  if (!a) await save(b);\n"
        "  return a * b - 1;\n"
        "}\n"
    )
    found = {(m.line, m.change): m.source for m in mutants("lib/go.mjs", source, [1, 3, 4])}
    assert found[(1, "'true' -> 'false'")].startswith("const on = false;\n")
    assert "if ((a)) await save(b);" in found[(3, "'!' removed")]
    assert "if (!(!a)) await save(b);" in found[(3, "'if (!a)' negated")]
    assert "if (!a) ;\n" in found[(3, "'await save(b);' removed")]
    assert "return a / b - 1;" in found[(4, "'*' -> '/'")]
    assert "return a * b + 1;" in found[(4, "'-' -> '+'")]
    assert "return undefined;" in found[(4, "'return a * b - 1' -> 'return undefined'")]


def test_a_multiline_condition_is_mutated_where_its_operator_sits() -> None:
    source = "if (\n  a ===\n  b\n) {\n  f();\n}\n"
    assert _changes("a.js", source, [2]) == [(2, "comparison", "'===' -> '!=='")]


def test_an_unparseable_file_still_gives_mutants_of_its_readable_parts() -> None:
    """tree-sitter recovers: an odd file is measured where it can be, never fatal."""
    source = "const a = 1 +;\nconst b = x === y;\n"
    found = _changes("odd.js", source, [1, 2])
    assert (2, "comparison", "'===' -> '!=='") in found
