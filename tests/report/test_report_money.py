"""What resolving costs, against numbers worked out by hand.

Three contestants on two counted tasks:

    agent    t1 (cost, time, category)     t2
    priced   $0.30, 100 s, resolved        $0.10, 50 s, wrong-fix
    flat     $0.50, 10 s, resolved         $0.50, 30 s, resolved     (cost-per-attempt)
    mystery  no price, 20 s, resolved      no price, 20 s, no-fix

priced: per attempt (0.30 + 0.10) / 2 = $0.20, per resolved 0.40 / 1 = $0.40, time per
resolved 150 s. flat: $0.50, $0.50, 20 s. mystery: no price, no price, 40 s.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from bb_report import build_report
from bb_report.money import dollars
from bb_report.render import render

ROWS = {
    "priced": [(0.30, 100.0, "resolved"), (0.10, 50.0, "wrong-fix")],
    "flat": [(0.50, 10.0, "resolved"), (0.50, 30.0, "resolved")],
    "mystery": [(None, 20.0, "resolved"), (None, 20.0, "no-fix")],
}


def records() -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for index, task in enumerate(("t1", "t2")):
        found.append({"kind": "score", "v": 1, "task_id": task, "patch": "reference",
                      "category": "resolved"})  # fmt: skip
        for agent, rows in ROWS.items():
            usd, duration, category = rows[index]
            basis = "per-attempt" if agent == "flat" else "tokens"
            found.append({"kind": "attempt", "v": 1, "task_id": task, "agent": agent,
                          "role": "contestant", "status": "finished", "duration": duration,
                          "cost": {"usd": usd, "basis": basis, "priced_as": None}})  # fmt: skip
            found.append({"kind": "score", "v": 1, "task_id": task, "patch": agent,
                          "category": category})  # fmt: skip
    return found


def test_cost_and_time_per_attempt_and_per_resolved() -> None:
    report = build_report(records())
    assert report.money is not None
    rows = {r.name: r for r in report.money.rows}
    p, f, m = rows["priced"], rows["flat"], rows["mystery"]
    assert (p.attempts, p.resolved, p.priced, p.unpriced) == (2, 1, 2, 0)
    assert p.per_attempt == pytest.approx(0.20)
    assert p.per_resolved == pytest.approx(0.40)
    assert p.time_per_resolved == pytest.approx(150.0)
    assert (f.per_attempt, f.per_resolved, f.time_per_resolved) == (
        pytest.approx(0.5), pytest.approx(0.5), pytest.approx(20.0),
    )  # fmt: skip
    assert (m.priced, m.unpriced, m.total, m.per_attempt, m.per_resolved) == (
        0,
        2,
        None,
        None,
        None,
    )
    assert m.time_per_resolved == pytest.approx(40.0)
    assert report.money.notes == [
        "mystery: 2 attempts reported tokens for a model with no price; give it one in "
        "[prices] of bugbout.toml."
    ]


def test_every_format_shows_it_and_no_price_is_never_zero() -> None:
    report = build_report(records())
    for fmt in ("terminal", "markdown", "html"):
        text = render(report, fmt, width=160)
        assert "What resolving costs" in text, fmt
        assert "$0.40" in text, fmt
        assert "no price" in text, fmt
        assert "$0.00" not in text, fmt
    section = json.loads(render(report, "json"))["sections"]["money"]
    assert [r["per_resolved"] for r in section["rows"]] == [
        pytest.approx(0.5), pytest.approx(0.4), None,
    ]  # fmt: skip


def test_without_costs_there_is_no_section(report: Any) -> None:
    assert report.money is None
    assert "money" not in json.loads(render(report, "json"))["sections"]


def test_dollars() -> None:
    assert [dollars(v) for v in (None, 0.0, 0.00412, 0.048, 0.4, 0.996, 12.3)] == [
        "-", "$0.00", "$0.0041", "$0.048", "$0.40", "$1.00", "$12.30",
    ]  # fmt: skip
