"""How many tasks it takes: whether the bout could tell its leader from the runner-up.

When the leader's lead over the runner-up is not significant, the section says how many
counted tasks the paired exact test would need at the rates observed
(:mod:`bb_report.power`), whether the repository's history has that many (from mining's
``summary`` lines: did the walk stop at the ``[tasks] limit``, at ``since``, or at the
first commit) and the ``[tasks] limit`` to set. Tasks mined are not all counted (some
are set aside by bb-oracle, or their reference fix fails in the test environment), so
the limit is the counted tasks needed scaled by this bout's share of mined tasks that
were counted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bb_report.blocks import Cell, Section, Table, Text, num
from bb_report.bout import Bout
from bb_report.data import ComparisonsSection, Headline
from bb_report.power import CAP, POWER, tasks_needed
from bb_report.stats import ALPHA
from bb_report.words import percent, plural


@dataclass(frozen=True)
class SampleSize:
    """The tasks needed to tell *leader* from *runner_up*, and whether the history has them."""

    leader: str
    runner_up: str
    tasks: int  # counted tasks both were scored on
    leader_only: int
    runner_up_only: int
    alpha: float
    power: float  # the power asked for
    power_now: float  # the power of the test on the bout as it is
    needed: int | None  # counted tasks; None when no number would do (or beyond cap)
    beyond: int | None  # set when more than this many would be needed
    mined: int | None  # tasks mining wrote (summary lines), None without a summary
    counted: int  # tasks counted in this bout
    stopped: str | None  # why mining's walk ended: end, since, limit; None when unknown
    limit: int | None  # the [tasks] limit to set; None when raising it would not help
    history_has: bool | None  # whether the history can give that many; None when unknown
    sentences: list[str]


def _mined(bout: Bout) -> tuple[int | None, str | None]:
    if not bout.summaries:
        return None, None
    mined = sum(int(s.get("tasks", 0)) for s in bout.summaries)
    stops = [str(s.get("stopped")) for s in bout.summaries if s.get("stopped")]
    stopped = (
        "limit" if "limit" in stops else "since" if "since" in stops else "end" if stops else None
    )
    return mined, stopped


def sample_size_section(
    bout: Bout, headline: Headline, comparisons: ComparisonsSection
) -> SampleSize | None:
    """The section, or None when there is no leader, or its lead is already significant."""
    a, b = headline.leader, headline.runner_up
    if a is None or b is None or headline.significant:
        return None
    pair = next((c for c in comparisons.rows if {c.a, c.b} == {a, b}), None)
    if pair is None or pair.tasks == 0:
        return None
    a_only, b_only = (pair.a_only, pair.b_only) if pair.a == a else (pair.b_only, pair.a_only)
    found = tasks_needed(a, b, pair.tasks, a_only, b_only)
    mined, stopped = _mined(bout)
    counted = sum(1 for t in bout.ordered() if t.counted)
    level = f"paired exact test at the {percent(ALPHA)} level with {percent(POWER)} power"
    sentences: list[str] = []
    limit: int | None = None
    history: bool | None = None
    if found.needed is None and not found.more_than_cap:
        sentences.append(
            f"No number of tasks would tell {a} from {b} at the rates seen: where they differ "
            f"each resolved {plural(a_only, 'task')} the other did not."
        )
    elif found.needed is None:
        sentences.append(
            f"Telling {a} from {b} apart at the rates seen would take more than "
            f"{plural(CAP, 'counted task')} ({level}; {a} alone resolved {a_only} and {b} "
            f"alone {b_only} of {pair.tasks}): the difference, if any, is too small to measure "
            "on one repository."
        )
    else:
        needed = found.needed
        sentences.append(
            f"Telling {a} from {b} apart at the rates seen would take about "
            f"{plural(needed, 'counted task')} ({level}; {a} alone resolved {a_only} and {b} "
            f"alone {b_only} of {pair.tasks}, which gives this bout "
            f"{percent(found.power_at_tasks)} power)."
        )
        per_mined = (mined / counted) if (mined and counted) else 1.0
        limit = math.ceil(needed * per_mined)
        if mined is None:
            sentences.append(
                "How much history there is is unknown (no summary line from bb-mine); "
                f"`[tasks] limit = {limit}` would ask for that many."
            )
        elif stopped == "limit":
            history = None
            sentences.append(
                f"Mining stopped at its limit after {plural(mined, 'task')}, so the history "
                f"has more: set `[tasks] limit = {limit}` ({plural(needed, 'counted task')} at "
                f"this bout's {counted} counted of {mined} mined)."
            )
        elif limit <= mined:
            history = True
            limit = None
        elif stopped is None:
            sentences.append(
                f"Mining found {plural(mined, 'task')} and did not say why it stopped; "
                f"`[tasks] limit = {limit}` would ask for {needed} counted ones at this bout's "
                f"{counted} counted of {mined} mined."
            )
        else:
            history = False
            where = "since the `since` date" if stopped == "since" else "in the whole history"
            sentences.append(
                f"Mining found {plural(mined, 'task')} {where} ({counted} counted), and "
                f"{needed} counted would take about {limit} at that rate: raising "
                "`[tasks] limit` will not get there"
                + (", an earlier `since` might." if stopped == "since" else ".")
            )
            limit = None
    return SampleSize(
        leader=a,
        runner_up=b,
        tasks=pair.tasks,
        leader_only=a_only,
        runner_up_only=b_only,
        alpha=ALPHA,
        power=POWER,
        power_now=found.power_at_tasks,
        needed=found.needed,
        beyond=CAP if found.more_than_cap else None,
        mined=mined,
        counted=counted,
        stopped=stopped,
        limit=limit,
        history_has=history,
        sentences=sentences,
    )


def layout_section(section: SampleSize | None) -> list[Section]:
    """The section as the document shows it; none when the lead is significant or absent."""
    if section is None:
        return []
    lead = (
        f"Whether this bout has enough tasks to tell {section.leader} from {section.runner_up}: "
        "only tasks one resolved and the other did not tell them apart, and with few of "
        "them any lead could be chance. The tasks needed assume the rates seen here hold."
    )
    rows = [
        ["counted tasks both were scored on", str(section.tasks)],
        [f"{section.leader} alone resolved", str(section.leader_only)],
        [f"{section.runner_up} alone resolved", str(section.runner_up_only)],
        ["power of this bout", percent(section.power_now)],
        [
            "counted tasks needed",
            str(section.needed)
            if section.needed is not None
            else (f"more than {section.beyond}" if section.beyond else "none would do"),
        ],
        ["tasks mined", "-" if section.mined is None else str(section.mined)],
        ["[tasks] limit to set", "-" if section.limit is None else str(section.limit)],
    ]
    table = Table(["", "count"], [[Cell(k), num(v)] for k, v in rows])
    return [
        Section("sample-size", "How many tasks it takes", lead, [Text(section.sentences), table])
    ]
