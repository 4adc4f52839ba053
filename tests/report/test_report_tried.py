"""The "What each agent tried" section: counted per agent from the attempts' ``tried``
fields, shown in every format, compact at 80 columns, absent for records without it."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from bb_report import build_report
from bb_report.html import render_html
from bb_report.jsonout import render_json
from bb_report.markdown import render_markdown
from bb_report.terminal import render_terminal

LONG = "python3 -c \"import subprocess; subprocess.run(['git', 'log', '-p', '--all'])\" " * 3


def finding(kind: str, evidence: str, stopped: bool = True) -> dict[str, Any]:
    source = "patch" if kind == "test-edit" else "trajectory"
    return {"kind": kind, "evidence": evidence[:200], "stopped": stopped, "source": source}


@pytest.fixture(scope="module")
def tried_records(bout_records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The fixture bout with what its attempts tried: gamma reaches on two tasks (git
    history on both, its network refused on one, a test edit on the other), alpha on
    none, every other attempt nothing."""
    records = copy.deepcopy(bout_records)
    for record in records:
        for attempt in record.get("attempts", ()) if record.get("kind") == "task" else ():
            attempt["tried"] = []
            if attempt["agent"] != "gamma":
                continue
            if record["id"] == "textkit-t1":
                attempt["tried"] = [
                    finding("git-history", LONG),
                    finding("network", "curl -sS https://github.com/acme/textkit"),
                ]
            elif record["id"] == "textkit-t2":
                attempt["tried"] = [
                    finding("git-history", "git log -p"),
                    finding("test-edit", "tests/test_x.py: 1 line(s) changed or removed: -  assert f() == 1", False),
                ]  # fmt: skip
    return records


def test_each_agent_is_counted_with_the_lines_that_show_it(
    tried_records: list[dict[str, Any]],
) -> None:
    section = build_report(tried_records).tried
    assert section is not None
    rows = {row.name: row for row in section.rows}
    gamma = rows["gamma"]
    assert (gamma.tried, gamma.attempts) == (2, 5)
    assert gamma.kinds == {"git-history": 2, "own-package": 0, "network": 1,
                           "outside-read": 0, "test-edit": 1}  # fmt: skip
    assert (gamma.reaches, gamma.stopped) == (4, 3)  # the test edit went through
    assert gamma.sentence == (
        "gamma tried to reach the fix in 2 of 5 attempts "
        "(git-history 2, network 1, test-edit 1; 3 of 4 reaches stopped by the sandbox)."
    )
    # the first reach of each kind; the second attempt's git log is left for "more"
    assert [line.split(": ")[1] for line in gamma.lines] == ["git-history", "network", "test-edit"]
    assert gamma.lines[2].startswith("Fix truncate (#2)") and gamma.more == 1
    assert gamma.lines[0].startswith("Fix slugify (#1): git-history: python3 -c")
    assert gamma.lines[0].endswith("... (stopped)") and len(gamma.lines[0]) <= 110
    assert rows["alpha"].sentence == "alpha tried to reach the fix in 0 of 6 attempts."
    assert rows["echo"].tried == 0 and rows["echo"].lines == []
    assert section.headline == "2 of 22 attempts tried to reach the fix, by 1 agent: gamma."


def test_every_format_shows_it_and_the_terminal_stays_within_80_columns(
    tried_records: list[dict[str, Any]],
) -> None:
    report = build_report(tried_records)
    sentence = "gamma tried to reach the fix in 2 of 5 attempts"
    text = render_terminal(report, width=80)
    start = text.index("What each agent tried\n")
    shown = text[start : text.index("\n\n", text.index("note:", start))]
    assert sentence in " ".join(shown.split()) and "subprocess.run" in shown
    assert max(len(line) for line in shown.splitlines()) <= 80, shown
    for rendered in (render_markdown(report), render_html(report)):
        assert "What each agent tried" in rendered and sentence in rendered
    record = json.loads(render_json(report))  # checked against schemas/report.json
    assert record["sections"]["tried"]["rows"][2]["sentence"].startswith(sentence)


def test_records_without_the_field_show_no_section(bout_records: list[dict[str, Any]]) -> None:
    report = build_report(bout_records)
    assert report.tried is None
    assert "What each agent tried" not in render_terminal(report, width=80)
    assert "tried" not in json.loads(render_json(report))["sections"]


def test_no_reach_at_all_is_said_in_one_sentence(bout_records: list[dict[str, Any]]) -> None:
    records = copy.deepcopy(bout_records)
    for record in records:
        for attempt in record.get("attempts", ()) if record.get("kind") == "task" else ():
            attempt["tried"] = []
    text = render_terminal(build_report(records), width=80)
    start = text.index("What each agent tried\n")
    assert "No attempt tried to reach the fix" in text[start:]
    assert "| agent" not in text[start : text.index("note:", start)]
