"""A bout compared with an earlier one (its *baseline*): what each agent gained and lost.

The mined tasks are a regression suite to re-run after every change to an agent, so that
a fall in the score points at what the change broke. Both bouts are read from their
records alone. Per contestant, on the tasks counted in both:

- its **flips**: the tasks where its mean success over samples fell (resolved -> not, with
  one sample) or rose (not -> resolved), each with the logs of both attempts;
- the **exact paired test** on them (two-sided sign test, the exact McNemar test with one
  sample): p = min(1, 2 P(X <= min(worse, better))), X ~ Binomial(worse + better, 1/2),
  Holm-adjusted over the contestants compared; an agent **got significantly worse** when
  it lost more than it gained and the adjusted p is below 0.05;
- what changed between the two, read from the attempts' keys (``given``): the agent CLI's
  version, the model, the invocation (adapter options, command line, environment) and the
  prompt.

Agents and tasks present in only one of the two are listed apart.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bb_report.blocks import Block, Cell, Notes, Section, Table, Text, num
from bb_report.bout import BoutRecords, TaskRecords
from bb_report.samples import mean_success
from bb_report.stats import ALPHA, holm, paired_exact_test
from bb_report.words import p_clause, p_value, percent, plural


@dataclass(frozen=True)
class Flip:
    """One task whose outcome changed for one agent."""

    task: str
    before: str | None  # the first sample's category in the baseline
    after: str | None  # and now
    mean_before: float
    mean_after: float
    logs_before: str | None
    logs_after: str | None


@dataclass(frozen=True)
class AgentDrift:
    name: str
    shared: int  # tasks counted in both bouts that it was scored on in both
    rate_before: float | None  # mean over those tasks of its mean success
    rate_after: float | None
    worse: list[Flip]
    better: list[Flip]
    p: float
    p_adjusted: float
    regressed: bool  # significantly worse
    changes: list[str]


@dataclass(frozen=True)
class BaselineSection:
    baseline: str  # how the earlier bout is named (a run or a file)
    current: str
    agents: list[AgentDrift]
    agents_only_before: list[str]
    agents_only_after: list[str]
    tasks_only_before: list[str]
    tasks_only_after: list[str]
    regressed: list[str]
    notes: list[str]


def _given(task: TaskRecords, agent: str) -> Mapping[str, Any]:
    attempt = task.attempts.get(agent)
    given = attempt.get("given") if attempt is not None else None
    return given if isinstance(given, Mapping) else {}


def _values(tasks: Sequence[TaskRecords], agent: str, read: Any) -> list[str]:
    return list(dict.fromkeys(str(v) for t in tasks if (v := read(t, agent)) is not None))


def changes(before: Sequence[TaskRecords], after: Sequence[TaskRecords], agent: str) -> list[str]:
    """What changed for *agent* between the paired tasks *before* and *after*, in words."""
    said = []

    def model(t: TaskRecords, a: str) -> Any:
        return t.attempts[a].get("model") if a in t.attempts else None

    def version(t: TaskRecords, a: str) -> Any:
        return _given(t, a).get("agent_version")

    for label, read in (("version", version), ("model", model)):
        old, new = _values(before, agent, read), _values(after, agent, read)
        if old != new:
            said.append(f"{label} {', '.join(old) or 'unknown'} -> {', '.join(new) or 'unknown'}")
    for field, label in (
        ("invocation_sha256", "invocation (options, command line or environment)"),
        ("prompt_sha256", "prompt"),
        ("base_commit", "base tree"),
    ):
        differ = sum(
            1
            for b, a in zip(before, after, strict=True)
            if _given(b, agent).get(field) and _given(a, agent).get(field)
            and _given(b, agent).get(field) != _given(a, agent).get(field)
        )  # fmt: skip
        if differ:
            said.append(f"{label} changed on {plural(differ, 'task')}")
    return said


def _logs(task: TaskRecords, agent: str) -> str | None:
    attempt = task.attempts.get(agent)
    logdir = attempt.get("logdir") if attempt is not None else None
    return str(logdir) if logdir else None


def drift(name: str, pairs: Sequence[tuple[TaskRecords, TaskRecords]]) -> AgentDrift:
    """*name*'s flips over *pairs* of (baseline task, current task); p unadjusted."""
    scored = []
    for old, new in pairs:
        before, after = mean_success(old, name), mean_success(new, name)
        if before is not None and after is not None:
            scored.append((old, new, before, after))
    flips = [
        Flip(
            new.id,
            old.category(name),
            new.category(name),
            before,
            after,
            _logs(old, name),
            _logs(new, name),
        )
        for old, new, before, after in scored
        if before != after
    ]
    worse = [f for f in flips if f.mean_after < f.mean_before]
    better = [f for f in flips if f.mean_after > f.mean_before]
    p = paired_exact_test(len(worse), len(better))
    n = len(scored)
    return AgentDrift(
        name=name,
        shared=n,
        rate_before=sum(s[2] for s in scored) / n if n else None,
        rate_after=sum(s[3] for s in scored) / n if n else None,
        worse=worse,
        better=better,
        p=p,
        p_adjusted=p,
        regressed=False,
        changes=changes([s[0] for s in scored], [s[1] for s in scored], name),
    )


def baseline_section(
    before: BoutRecords,
    after: BoutRecords,
    *,
    baseline: str = "baseline",
    current: str = "this bout",
) -> BaselineSection:
    """*after* (this bout) compared with *before* (its baseline)."""
    old = {t.id: t for t in before.ordered() if t.counted}
    new = {t.id: t for t in after.ordered() if t.counted}
    shared = [task_id for task_id in new if task_id in old]
    names_before, names_after = before.contestants(), after.contestants()
    both = [n for n in names_after if n in names_before]
    rows = [drift(n, [(old[t], new[t]) for t in shared]) for n in both]
    adjusted = holm([r.p for r in rows])
    rows = [
        AgentDrift(
            **{
                **r.__dict__,
                "p_adjusted": adj,
                "regressed": len(r.worse) > len(r.better) and adj < ALPHA,
            }
        )
        for r, adj in zip(rows, adjusted, strict=True)
    ]
    notes = [
        "Each agent is compared on the tasks counted in both bouts, by its mean success over "
        "samples (resolved or not, with one sample each); only tasks whose outcome changed "
        "tell a change apart (exact paired sign test"
        + (f", Holm-adjusted for {len(rows)} agents" if len(rows) > 1 else "")
        + ")."
    ]
    return BaselineSection(
        baseline=baseline,
        current=current,
        agents=rows,
        agents_only_before=[n for n in names_before if n not in names_after],
        agents_only_after=[n for n in names_after if n not in names_before],
        tasks_only_before=[t for t in old if t not in new],
        tasks_only_after=[t for t in new if t not in old],
        regressed=[r.name for r in rows if r.regressed],
        notes=notes,
    )


# -- layout -----------------------------------------------------------------------------


def _sentence(r: AgentDrift) -> str:
    if not r.shared:
        return f"{r.name}: no task counted in both."
    moved = (
        f"{r.name}: {percent(r.rate_before)} -> {percent(r.rate_after)} on "
        f"{plural(r.shared, 'shared task')}; {len(r.worse)} worse, {len(r.better)} better"
    )
    if r.regressed:
        return f"{moved}: significantly worse ({p_clause(r.p_adjusted)})."
    if r.worse or r.better:
        return f"{moved}: within what chance gives ({p_clause(r.p_adjusted)})."
    return f"{moved}: no task changed."


def _flip_rows(section: BaselineSection) -> list[list[Cell]]:
    rows = []
    for r in section.agents:
        for word, flips, tone in (("worse", r.worse, "bad"), ("better", r.better, "good")):
            for f in flips:
                rows.append(
                    [
                        Cell(r.name),
                        Cell(f.task),
                        Cell(word, tone),
                        Cell(f"{f.before or '-'} -> {f.after or '-'}"),
                        Cell(f.logs_after or "-"),
                        Cell(f.logs_before or "-"),
                    ]
                )
    return rows


def layout_section(section: BaselineSection | None) -> list[Section]:
    """The section for the terminal, Markdown and HTML formats (none without a baseline)."""
    if section is None:
        return []
    named = section.current[:1].upper() + section.current[1:]
    lead = (
        f"{named} against {section.baseline}: per agent, the tasks "
        "whose outcome changed, the exact paired test on them, and what changed in how the "
        "agent was run (from the attempts' keys)."
    )
    blocks: list[Block] = [Text([_sentence(r) for r in section.agents], bullets=True)]
    if section.agents:
        blocks.append(
            Table(
                ["agent", "shared", "before", "after", "worse", "better", "p (adjusted)"],
                [
                    [
                        Cell(r.name),
                        num(str(r.shared)),
                        num(percent(r.rate_before)),
                        num(percent(r.rate_after)),
                        num(str(len(r.worse)), "bad" if r.worse else "muted"),
                        num(str(len(r.better)), "good" if r.better else "muted"),
                        num(p_value(r.p_adjusted), "bad" if r.regressed else ""),
                    ]
                    for r in section.agents
                ],
            )
        )
    flips = _flip_rows(section)
    if flips:
        headers = ["agent", "task", "flip", "categories", "logs now", "logs before"]
        blocks.append(Table(headers, flips, whole=frozenset({4, 5})))
    said = [f"{r.name}: {'; '.join(r.changes)}." for r in section.agents if r.changes]
    for label, names in (
        ("Agents only in the baseline", section.agents_only_before),
        ("Agents only in this bout", section.agents_only_after),
        ("Tasks only in the baseline", section.tasks_only_before),
        ("Tasks only in this bout", section.tasks_only_after),
    ):
        if names:
            said.append(f"{label}: {', '.join(names)}.")
    if said:
        blocks.append(Text(said, bullets=True))
    blocks.append(Notes(section.notes))
    return [Section("baseline", "Compared with the baseline", lead, blocks)]
