"""A score no worker could finish is shown, with its reason, and never counts as resolved."""

from __future__ import annotations

import copy
from typing import Any

from bb_core.records import check
from bb_core.records.schemas import validator
from bb_report import build_report, render, report_to_json

MESSAGE = "its score could not be computed (worker-lost): the worker running it died, twice"


def crashed_score(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The bout with beta's resolved score on textkit-t1 lost with its worker."""
    changed = copy.deepcopy(records)
    for record in changed:
        if record.get("kind") != "task" or record["id"] != "textkit-t1":
            continue
        for score in record["scores"]:
            if score["patch"] == "beta":
                assert score["category"] == "resolved"
                score.update(category="score-crashed", reason=MESSAGE)
                score["crash"] = {"reason": "worker-lost", "message": MESSAGE, "log": "gone"}
                assert check(score, "score") is None, check(score, "score")
    return changed


def test_a_crashed_score_is_named_and_not_resolved(bout_records: list[dict[str, Any]]) -> None:
    before = report_to_json(build_report(bout_records))
    report = build_report(crashed_score(bout_records))
    record = report_to_json(report)
    assert list(validator("report").iter_errors(record)) == []
    attention = record["sections"]["headline"]["attention"]
    assert (
        "1 score could not be computed, counted as not resolved (score-crashed: textkit-t1 "
        "beta; reasons and logs in the scores)"
    ) in attention

    def beta(report: dict[str, Any]) -> dict[str, Any]:
        rows = report["sections"]["agents"]["rows"]
        return next(r for r in rows if r["name"] == "beta")

    assert beta(record)["tasks"] == beta(before)["tasks"]
    assert beta(record)["resolve_rate"]["count"] == beta(before)["resolve_rate"]["count"] - 1
    tasks = {t["id"]: t for t in record["sections"]["tasks"]}
    assert tasks["textkit-t1"]["categories"]["beta"] == "score-crashed"
    for fmt in ("terminal", "markdown", "html"):
        text = render(report, fmt, width=200)
        assert "score-crashed" in text, fmt
        assert "1 score could not be computed" in " ".join(text.split()), fmt
