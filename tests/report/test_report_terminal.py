"""The terminal report fitted to the terminal, its headline first, and every attempt's
status named in every format."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from bb_report import build_report, render, report_to_json
from bb_report.termtable import ELLIPSIS, fit

ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.mark.parametrize("width", [60, 100, 160])
def test_no_line_is_wider_than_the_terminal(bout_records: list[dict[str, Any]], width: int) -> None:
    text = render(build_report(bout_records), "terminal", width=width, color=True)
    lines = [ANSI.sub("", line) for line in text.splitlines()]
    assert max(len(line) for line in lines) <= width
    assert lines[0] == "bugbout report"
    # The headline comes first: before the first section's title.
    body = "\n".join(lines[: lines.index("Agents")])
    flat = " ".join(body.split())
    assert "/srv/textkit (main): 7 tasks; 4 tasks counted." in flat
    assert "Resolved: alpha 4 of 4 (100%, 95% interval 40-100%); beta 2 of 4" in flat
    assert "alpha leads, but its lead over beta is not significant" in flat
    assert "Needs attention: 1 attempt timed out" in flat


def test_at_160_columns_tables_keep_their_natural_layout(
    bout_records: list[dict[str, Any]],
) -> None:
    lines = render(build_report(bout_records), "terminal", width=160).splitlines()
    # The tasks are two tables: what each task is, then each patch's category.
    assert (
        "task        title                 statement                       stage                "
        "        judge's pick"
    ) in lines
    assert "task        alpha     beta             gamma" in lines
    assert not any(ELLIPSIS in line for line in lines)


def test_at_100_columns_wide_cells_are_cut_and_narrow_ones_wrap(
    bout_records: list[dict[str, Any]],
) -> None:
    lines = render(build_report(bout_records), "terminal", width=100).splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("agent  tasks  resolved"))
    # Headers wrap rather than widening the agents table.
    assert lines[header + 1].split() == [
        "but",
        "but",
        "but",
        "fix",
        "fix",
        "to",
        "run",
        "rate",
        "interval",
    ]
    assert lines[header + 2].split() == ["breaks", "suspicious", "broke"]
    assert lines[header + 3].split() == ["suite"]
    assert lines[header + 4].startswith("-----  -----")
    # Cells of the tasks table wrap at word boundaries, never cut.
    assert any(line.rstrip().endswith("broken)") for line in lines)
    assert any("fixed-but-broke" in line for line in lines)  # a status word is never split
    assert any(line.startswith("textkit-t1  Fix slugify") for line in lines)


def test_below_80_columns_a_table_that_does_not_fit_is_stacked(
    bout_records: list[dict[str, Any]],
) -> None:
    lines = render(build_report(bout_records), "terminal", width=60).splitlines()
    at = lines.index("textkit-t5")
    assert lines[at + 1 : at + 4] == [
        "  title: Fix title_case (#5)",
        "  statement: export (export), 28 characters",
        "  stage: scored (environment broken)",
    ]
    assert not any(ELLIPSIS in line for line in lines)  # nothing is cut when stacked


def test_fit_wraps_narrow_columns_and_cuts_wide_ones() -> None:
    wide = fit(["name", "wide"], [["a-name", "x " * 60]], [False] * 2, 80)
    assert [len(line) for line in wide] == [len(wide[0]), 80, 80]
    assert wide[2].endswith(ELLIPSIS)  # a wide column is cut
    narrow = [["a-name", *(f"words in column {i}" for i in range(4))]]
    lines = fit(["name", "a", "b", "c", "d"], narrow, [False] * 5, 80)
    assert max(len(line) for line in lines) <= 80
    assert not any(ELLIPSIS in line for line in lines)
    assert lines[2].startswith("a-name  words in column   words in column   ")  # they wrap
    assert lines[3].split() == ["0", "1"]
    whole = fit(["name", "wide"], [["a-name", "x " * 60]], [False] * 2, 80, whole=frozenset({1}))
    assert not any(ELLIPSIS in line for line in whole) and len(whole) == 4


def crashed_bout(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The fixture with gamma crashing on t2 (an agent that exits 3) and quota on t3."""
    changed = json.loads(json.dumps(records))
    for record in changed:
        if record.get("kind") != "task":
            continue
        for score in record.get("scores", ()):
            if score["patch"] == "gamma" and record["id"] in ("textkit-t2", "textkit-t3"):
                score.update(category="no-fix", reason="the patch is empty")
        for attempt in record.get("attempts", ()):
            if attempt["agent"] != "gamma":
                continue
            if record["id"] == "textkit-t2":
                attempt.update(status="crashed", exit_code=3, patch="", logdir="/logs/t2/gamma")
                attempt["error"] = (
                    "exited with status 3: bwrap: execvp gamma: No such file or directory"
                )
            if record["id"] == "textkit-t3":
                attempt.update(status="quota", exit_code=1, patch="", logdir="/logs/t3/gamma")
                attempt.pop("error", None)
                attempt["flags"] = ["network-refused:api.example.com:443"]
    return changed


def test_every_format_names_each_status_and_reason(bout_records: list[dict[str, Any]]) -> None:
    report = build_report(crashed_bout(bout_records))
    for fmt in ("terminal", "markdown", "html"):
        text = render(report, fmt, width=200)
        assert "crashed" in text and "quota" in text and "timed-out" in text, fmt
        assert "exited with status 3: bwrap: execvp gamma: No such file or directory" in text, fmt
        assert "stopped on a usage limit" in text and "/logs/t2/gamma" in text, fmt
        assert "network-refused:api.example.com:443" in text, fmt
    record = report_to_json(report)
    rows = {(r["task"], r["agent"]): r for r in record["sections"]["attempts"]["rows"]}
    assert rows["textkit-t2", "gamma"]["status"] == "crashed"
    assert rows["textkit-t2", "gamma"]["exit_code"] == 3
    assert rows["textkit-t3", "gamma"]["reason"] == "stopped on a usage limit"
    gamma = next(r for r in record["sections"]["agents"]["rows"] if r["name"] == "gamma")
    # t1 no-change is a no fix; t2 crashed, t3 quota and t4 timed out failed to run.
    assert gamma["failed_to_run"] == 3
    headline = record["sections"]["headline"]
    assert headline["attention"] == [
        "1 attempt crashed; 1 attempt ran out of quota; 1 attempt timed out "
        "(reasons and logs in the attempts table)",
        "1 network-refused flag (textkit-t3)",
    ]
    assert {f["flag"]: f["count"] for f in headline["flags"]} == {"network-refused": 1}
    terminal = render(report, "terminal", width=120)
    table = terminal[terminal.index("agent  tasks  resolved") :].splitlines()
    gamma_line = next(line for line in table if line.startswith("gamma"))
    assert gamma_line.split()[1:9] == ["4", "0", "0", "0", "0", "0", "1", "3"]  # no fix 1, failed 3


def test_abstention_reasons_are_in_the_picking_section(bout_records: list[dict[str, Any]]) -> None:
    report = build_report(bout_records)
    assert [(a.task, a.reason) for a in report.picking.abstentions] == [
        ("textkit-t3", "no patch is approved")
    ]
    for fmt in ("terminal", "markdown", "html"):
        text = render(report, fmt, width=120)
        picking = text[text.index("Picking one patch per bug") :]
        assert "no patch is approved" in picking[: picking.index("merge gate")], fmt


def test_nothing_mined_names_the_configured_contestants() -> None:
    summary = {"kind": "summary", "v": 1, "repository": "/srv/empty", "branch": "main",
               "examined": 40, "candidates": 3, "tasks": 0, "skipped": {"no-test-added": 3},
               "elapsed": 0.1, "stopped": "end"}  # fmt: skip
    report = build_report([summary], contestants=["codex", "claude"])
    assert report.overview.contestants == ["codex", "claude"]
    assert report.headline.scored is False
    assert report.headline.unscored_reason == (
        "nothing could be scored: no task was mined from 40 commits examined (see the funnel "
        "for why fixes were left out)"
    )
    text = render(report, "terminal", width=100)
    assert "Configured contestants: codex, claude; none has a result." in text
    assert "0 tasks (0 counted), 2 contestants, 0 examiners." in text


def test_plurals_read_right(bout_records: list[dict[str, Any]]) -> None:
    text = render(build_report(bout_records), "terminal", width=100)
    assert not re.search(r"\b1 (tasks|matrices|attempts|contestants|examiners|patches)\b", text)
