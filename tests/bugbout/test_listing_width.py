"""`bugbout tasks`'s tables are laid out by the report's renderer: fitted to the
terminal's width (COLUMNS), each row on one line when piped, counts right-aligned."""

from __future__ import annotations

from collections import Counter

import pytest
from bugbout.listing import explain_table, tasks_table
from bugbout.stages import Tally

TITLE = "Keep the cache's entries when a key is looked up while another thread writes"
TASKS = [
    {"id": f"textkit-t{n}", "date": f"2026-01-0{n}", "title": TITLE, "category": "bug",
     "statement_kind": "issue", "statement_issue": {"number": 10 + n}, "statement_length": 312,
     "issue_refs": [{"number": 10 + n}], "source_files": ["src/a.py"] * n,
     "new_tests": ["tests/test_a.py::test_b"] * (n * 6)}
    for n in (1, 2)
]  # fmt: skip
SUMMARY = {"examined": 120, "candidates": 9, "skipped": {"no-test-added": 7}}
MINED = Tally(Counter(task=2), TASKS, Counter(), SUMMARY, [], "")
WHY = (
    "leaves it out | the change reads like a feature and no label on its linked issues says "
    "otherwise, not one of tasks.categories (bug, unknown)"
)


def test_piped_each_row_stays_on_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    lines = tasks_table(MINED).splitlines()
    rows = [line for line in lines if line.startswith("textkit-t")]
    assert len(rows) == 2 and all(TITLE[:40] in row for row in rows)
    assert lines[0].split() == [
        "task", "landed", "title", "refs", "kind", "statement", "source", "files", "new",
        "tests", "ground", "truth",
    ]  # fmt: skip
    # Counts are right-aligned under their header: "source files" ends where 1 and 2 do.
    header = lines[0]
    for row, count in zip(rows, ("1", "2"), strict=True):
        end = header.index("source files") + len("source files")
        assert row[end - 1] == count and row[end - 2] == " "
    funnel = tasks_table(MINED).split("\n\n")[1].splitlines()
    assert funnel[1].startswith("----") and not any(line != line.rstrip() for line in funnel)
    assert funnel[2].startswith("commits examined") and funnel[2].endswith(" 120")


@pytest.mark.parametrize("columns", [80, 100, 120])
def test_on_a_terminal_the_tables_fit_its_width(
    monkeypatch: pytest.MonkeyPatch, columns: int
) -> None:
    monkeypatch.setenv("COLUMNS", str(columns))
    text = tasks_table(MINED)
    assert max(len(line) for line in text.splitlines()) <= columns
    assert "textkit-t1" in text and "commits examined" in text
    explained = explain_table([("category", *WHY.split(" | "))])
    assert max(len(line) for line in explained.splitlines()) <= columns
    # The reason wraps rather than being cut: every word of it is still there.
    lines = explained.splitlines()
    column = lines[0].index("why")
    reason = " ".join(line[column:].strip() for line in lines[2:])
    assert reason == WHY.split(" | ")[1] and len(lines) > 3


def test_a_reason_of_several_lines_keeps_its_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    why = "no symptom is left\ndropped: Fix by summing x\ndropped: tests were added"
    lines = explain_table([("no-statement", "leaves it out", why)]).splitlines()
    assert [line.split("  ")[-1].strip() for line in lines[2:]] == why.split("\n")
    assert lines[2].startswith("no-statement  leaves it out  no symptom")
