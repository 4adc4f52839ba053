"""resolved-but-suspicious in the report: its own count, never in the resolve rate, named in
the headline beside breaks-suite, and its evidence lines (family, file, line) in every format."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
from bb_core.records import check
from bb_report import build_report, render, report_to_json

ANSI = re.compile(r"\x1b\[[0-9;]*m")

FINDINGS = [
    {
        "kind": "test-detection",
        "file": "src/textkit/_compat.py",
        "line": 7,
        "evidence": "reads the environment variable PYTEST_CURRENT_TEST: if e.get(K):",
    },
    {
        "kind": "dynamic-code",
        "file": "src/textkit/_compat.py",
        "line": 12,
        "evidence": "exec of code that is not a literal, decoded by base64.b64decode: exec(blob)",
    },
]


@pytest.fixture(scope="module")
def suspicious_records(bout_records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The fixture bout, alpha's patch on textkit-t1 resolved-but-suspicious."""
    records = copy.deepcopy(bout_records)
    for record in records:
        if record["kind"] == "task" and record["id"] == "textkit-t1":
            for score in record["scores"]:
                if score["patch"] == "alpha":
                    score["category"] = "resolved-but-suspicious"
                    score["suspicious"] = copy.deepcopy(FINDINGS)
            assert check(record, "task") is None, check(record, "task")
    return records


def test_counted_apart_and_never_in_the_rate(suspicious_records: list[dict[str, Any]]) -> None:
    report = build_report(suspicious_records)
    alpha = next(r for r in report.agents.rows if r.name == "alpha")
    assert alpha.categories["resolved"] == 3
    assert alpha.categories["resolved-but-suspicious"] == 1
    assert (alpha.resolve_rate.count, alpha.resolve_rate.total) == (3, 4)
    line = next(a for a in report.headline.agents if a.name == "alpha")
    assert (line.suspicious, line.breaks_suite, line.rate.count) == (1, 0, 3)
    worth = next(r for r in report.worth.rows if r.name == "alpha")
    assert (worth.resolved, worth.suspicious, worth.breaks_suite) == (3, 1, 0)
    record = report_to_json(report)
    assert check(record, "report") is None
    said = next(a for a in record["sections"]["headline"]["agents"] if a["name"] == "alpha")
    assert said["suspicious"] == 1
    assert any(
        "alpha 3 of 4 (75%" in s and "and 1 more resolved but suspicious, not counted" in s
        for s in record["sections"]["headline"]["sentences"]
    )


@pytest.mark.parametrize("fmt", ["terminal", "markdown", "html", "json"])
def test_every_format_shows_the_category_and_the_evidence_lines(
    suspicious_records: list[dict[str, Any]], fmt: str
) -> None:
    wide = {"width": 240} if fmt == "terminal" else {}
    text = ANSI.sub("", render(build_report(suspicious_records), fmt, **wide))
    text = " ".join(text.replace("\\_", "_").split())  # markdown escapes underscores
    for shown in (
        "1 more resolved but suspicious, not counted",
        "resolved-but-suspicious",
        "alpha is suspicious: test-detection at src/textkit/_compat.py:7: reads the "
        "environment variable PYTEST_CURRENT_TEST",
        "dynamic-code at src/textkit/_compat.py:12",
    ):
        assert shown in text, (fmt, shown)
    if fmt != "json":
        assert "resolved but suspicious" in text  # the agents table's column


def test_a_score_written_before_the_findings_had_fields_still_reads(
    suspicious_records: list[dict[str, Any]],
) -> None:
    """Scores kept a line of text per finding before: the report still shows them."""
    records = copy.deepcopy(suspicious_records)
    for record in records:
        if record["kind"] == "task" and record["id"] == "textkit-t1":
            for score in record["scores"]:
                if score["patch"] == "alpha":
                    score["category"] = "resolved"
                    score["suspicious"] = ["src/textkit/__init__.py:3: pytest's internals"]
    text = render(build_report(records), "markdown").replace("\\_", "_")
    assert "alpha is suspicious: src/textkit/__init__.py:3: pytest's internals" in text
