"""How the tasks were found: from commits examined to tasks counted, with every reason a
candidate was left out.

Mining's totals come from its closing ``summary`` line (several are added up: one per
shard or repository). Its ``skipped`` counts include commits whose title does not read
like a fix, which get ``skip`` lines only on request, so for each mining reason the larger
of the summary's count and the number of skip lines is shown. Later stages' reasons come
from their skip lines alone; how far each task grew comes from the task lines.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from bb_report.bout import BoutRecords
from bb_report.data import FunnelSection, FunnelStep, SkipCount
from bb_report.words import plural

SKIP_STAGES = ("mine", "oracle", "race", "xexam", "judge")


def _sum(summaries: list[Mapping[str, Any]], key: str) -> int | None:
    if not summaries:
        return None
    return sum(int(s.get(key, 0)) for s in summaries)


def funnel_section(bout: BoutRecords) -> FunnelSection:
    tasks = bout.ordered()
    skips_by: Counter[tuple[str, str]] = Counter()
    example: dict[tuple[str, str], str] = {}
    for skip in bout.skips:
        key = (str(skip["stage"]), str(skip["reason"]))
        skips_by[key] += 1
        example.setdefault(key, str(skip.get("message", "")) or "")
    mined: Counter[str] = Counter()
    for summary in bout.summaries:
        mined.update({str(k): int(v) for k, v in summary.get("skipped", {}).items()})
    for reason, count in mined.items():
        key = ("mine", reason)
        skips_by[key] = max(skips_by[key], count)

    def reached(stage: str) -> int:
        return sum(1 for t in tasks if t.reached(stage))

    steps = [
        FunnelStep("examined", "commits examined", _sum(bout.summaries, "examined")),
        FunnelStep("candidates", "titles that read like a fix", _sum(bout.summaries, "candidates")),
        FunnelStep("tasks", "became tasks", _sum(bout.summaries, "tasks")),
        FunnelStep(
            "oracle-skipped",
            "set aside by bb-oracle",
            sum(n for (stage, _), n in skips_by.items() if stage == "oracle"),
        ),
        FunnelStep("grounded", "with ground truth", reached("grounded")),
        FunnelStep("raced", "raced", reached("raced")),
        FunnelStep("cross-examined", "cross-examined", reached("cross-examined")),
        FunnelStep("judged", "judged", reached("judged")),
        FunnelStep("scored", "scored", reached("scored")),
        FunnelStep("counted", "scored with a working environment", sum(t.counted for t in tasks)),
    ]
    stage_rank = {s: i for i, s in enumerate(SKIP_STAGES)}
    skips = [
        SkipCount(stage, reason, count, example.get((stage, reason)) or None)
        for (stage, reason), count in sorted(
            skips_by.items(),
            key=lambda item: (stage_rank.get(item[0][0], len(SKIP_STAGES)), -item[1], item[0][1]),
        )
        if count
    ]
    notes = []
    if not bout.summaries:
        notes.append("No summary line from bb-mine: how much history was examined is unknown.")
    for summary in bout.summaries:
        where = str(summary.get("repository", ""))
        stopped = summary.get("stopped")
        if stopped == "limit":
            notes.append(
                f"Mining {where} stopped at its limit of {plural(int(summary.get('limit', 0)), 'task')}: "
                "older fixes were not examined."
            )
        elif stopped == "since":
            notes.append(f"Mining {where} stopped at {summary.get('since', 'its since date')}.")
    repositories = list(dict.fromkeys(str(s.get("repository", "")) for s in bout.summaries))
    return FunnelSection(steps, skips, repositories, notes)
