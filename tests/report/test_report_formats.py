"""The four formats say the same thing: the same figures and sentences, each well formed."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from bb_core.errors import StageFailed, UsageError
from bb_core.records.schemas import validator
from bb_report import (
    Report,
    build_report,
    render,
    render_html,
    render_markdown,
    render_terminal,
    report_to_json,
)
from bb_report.data import Rate

ANSI = re.compile(r"\x1b\[[0-9;]*m")

#: Figures and sentences every human-readable format must show, from the hand-built bout.
SHOWN = [
    "40-100%",  # alpha's 95% interval, 4 of 4
    "7-93%",  # beta's, 2 of 4
    "0-60%",  # gamma's, 0 of 4
    "2.00/4",  # the random agent's expectation
    "25.0 s",  # alpha's time per attempt and per resolved task
    "1,500",  # alpha's tokens per attempt
    "2 min 32 s",  # gamma's time per attempt, 151.5 s
    "None of the 3 pairs is distinguishable on the tasks each pair shares",
    "p = 0.38",  # alpha against gamma, Holm-adjusted (0.125 x 3)
    "5 of 6 (83%, 95% interval 36-100%) were right",
    "it stopped 3 of 4 (75%, 95% interval 19-99%)",
    "It abstained on 1 task where some patch did resolve.",
    "not-a-fix",
    "no-fail-to-pass",
    "textkit-t5",
    "separation 0.75",
]


@pytest.mark.parametrize("fmt", ["terminal", "markdown", "html"])
def test_every_readable_format_shows_the_figures(report: Report, fmt: str) -> None:
    text = render(report, fmt)
    if fmt == "markdown":
        text = text.replace("\\", "")  # escapes aside, the words are the same
    missing = [figure for figure in SHOWN if figure not in text]
    assert missing == []


def test_json_is_a_valid_report_record_with_the_numbers(report: Report) -> None:
    record = report_to_json(report)
    assert list(validator("report").iter_errors(record)) == []
    sections = record["sections"]
    assert set(sections) == {
        "headline", "attempts", "overview", "agents", "picking", "gate", "tests", "funnel",
        "comparisons", "tasks", "worth", "sample_size",
    }  # fmt: skip
    alpha = sections["agents"]["rows"][0]
    assert (alpha["name"], alpha["resolve_rate"]["count"], alpha["resolve_rate"]["total"]) == (
        "alpha", 4, 4,
    )  # fmt: skip
    assert alpha["resolve_rate"]["low"] == pytest.approx(0.025**0.25)
    assert sections["picking"]["rows"][2]["resolved"] == pytest.approx(2.0)
    assert sections["gate"]["total"]["stopped"] == 3
    line = render(report, "json")
    assert line.endswith("\n") and line.count("\n") == 1


def test_json_refuses_to_leave_when_it_breaks_the_schema(report: Report) -> None:
    broken = replace(report, gate=replace(report.gate, precision=Rate(7, 6, 7 / 6, 0.5, 1.0)))
    with pytest.raises(StageFailed, match=r"sections\.gate\.precision\.value"):
        report_to_json(broken)


def test_terminal_colour_is_only_added_escapes(report: Report) -> None:
    plain = render_terminal(report, color=False)
    coloured = render_terminal(report, color=True)
    assert "\x1b[" not in plain
    assert "\x1b[32m" in coloured and "\x1b[31m" in coloured
    # Same text once the escapes are gone, column alignment included.
    assert ANSI.sub("", coloured) == plain


def _unescaped_pipes(line: str) -> int:
    return len(re.findall(r"(?<!\\)\|", line))


def test_markdown_tables_survive_titles_with_markup(bout_records: list[dict]) -> None:
    """Regression: a title with | or * must not add a column or turn into emphasis."""
    records = [dict(r) for r in bout_records]
    for record in records:
        if record["kind"] == "task" and record["id"] == "textkit-t1":
            record["title"] = "Fix a|b when *bold* <b>x</b> [link](y) 1. `code`"
    text = render_markdown(build_report(records))
    tables: list[list[str]] = [[]]
    for line in text.splitlines():
        if line.startswith("|"):
            tables[-1].append(line)
        elif tables[-1]:
            tables.append([])
    tables = [t for t in tables if t]
    assert len(tables) >= 8
    for table in tables:
        assert len({_unescaped_pipes(line) for line in table}) == 1, table[0]
    assert r"Fix a\|b when \*bold\* \<b\>x\</b\> \[link\](y) 1. \`code\`" in text


@pytest.mark.parametrize("fmt", ["terminal", "markdown", "html", "json"])
def test_empty_input_is_a_short_valid_report(fmt: str) -> None:
    report = build_report([])
    assert report.empty
    text = render(report, fmt)
    if fmt == "json":
        record = report_to_json(report)
        assert record["sections"]["overview"]["empty"] is True
        assert record["sections"]["tasks"] == []
    else:
        assert "Nothing to report" in text
        assert len(text.splitlines()) < 20 or fmt == "html"
        assert "<table" not in text


def test_html_is_one_offline_file(report: Report) -> None:
    page = render_html(report)
    assert page.startswith("<!DOCTYPE html>")
    assert re.search(r"https?:", page) is None
    assert re.search(r"<(script|link|img|iframe|object|embed)\b", page) is None
    assert re.search(r"\b(src|href)\s*=", page) is None
    assert "url(" not in page and "@import" not in page


def test_unknown_format_is_a_usage_error(report: Report) -> None:
    with pytest.raises(UsageError, match="unknown format 'pdf'"):
        render(report, "pdf")


@pytest.mark.parametrize("fmt", ["terminal", "markdown", "html", "json"])
def test_tampered_and_suspicious_patches_show_in_every_format(
    bout_records: list[dict], fmt: str
) -> None:
    """A patch whose run was void is marked ``tampered`` with its evidence; one that
    reads as suspicious is ``suspicious`` with its evidence; a charged author is named."""
    records = [dict(r) for r in bout_records]
    for record in records:
        if record["kind"] == "task" and record["id"] == "textkit-t1":
            scores = [dict(s) for s in record["scores"]]
            for score in scores:
                if score["patch"] == "gamma":
                    score["tampered"] = ["canary tests/test_x.py::test_y must fail but passed"]
                if score["patch"] == "beta":
                    score["suspicious"] = [
                        {
                            "kind": "computed-names",
                            "file": "src/textkit/__init__.py",
                            "line": 3,
                            "evidence": "imports _pytest: import _pytest",
                        }
                    ]
            record["scores"] = scores
            matrix = dict(record["matrix"])
            matrix["authors"] = [
                {**a, "charged": "its tests crashed or hung the run on the unfixed tree: boom"}
                if a["name"] == "alpha" else a
                for a in matrix["authors"]
            ]  # fmt: skip
            record["matrix"] = matrix
    text = ANSI.sub("", render(build_report(records), fmt))
    # The terminal wraps long notes to its width: compare the words, not the line breaks.
    text = " ".join(text.replace("\\_", "_").split())  # markdown escapes underscores
    for shown in (
        "tampered",
        "must fail but passed",
        "suspicious",
        "beta is suspicious: computed-names at src/textkit/__init__.py:3",
        "alpha is charged in the matrix",
    ):
        assert shown in text, shown
