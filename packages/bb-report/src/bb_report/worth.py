"""The section "How much each resolved is worth": what stands behind each resolved count.

A resolved patch met the maintainers' tests. This section says how much that is worth:

- per contestant, of its resolved tasks, how many **agree with the maintainers' fix** on
  every test written in the bout (``divergence`` of its score) and how many rest on a
  **weak oracle** (``oracle.strength`` flagged ``weak-oracle``); beside them, how many met
  the maintainers' tests but **break the repository's suite**
  (``resolved-but-breaks-suite``, counted apart: not among its resolved), and how many
  met them with code that reads as suspicious (``resolved-but-suspicious``, counted apart
  too);
- per task, its oracle's strength: mutation score, changed-line coverage, hunks no test
  needs and the mutants that survived;
- the headline: how many counted tasks rest on weak oracles.

Computed from the records alone, over counted tasks only (scored, reference resolving).
:func:`worth_section` makes the data (the JSON carries it field for field);
:func:`layout_section` the section every other format draws.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bb_core.records.vocabulary import RESOLVED, RESOLVED_BUT_BREAKS_SUITE, RESOLVED_BUT_SUSPICIOUS

from bb_report.blocks import Cell, Notes, Section, Table, Text, num
from bb_report.bout import Bout, Task, category_of
from bb_report.words import percent, plural

WEAK = "weak-oracle"


@dataclass(frozen=True)
class WorthRow:
    """One contestant's resolved tasks, by what stands behind them."""

    name: str
    #: Resolved, as the resolve rate counts it (resolved-but-breaks-suite is not).
    resolved: int
    #: Resolved, and no bout-written test tells the patch from the maintainers' fix.
    agrees: int
    #: Resolved, with at least one bout-written test differing from the reference.
    diverges: int
    #: Resolved, with no divergence measured (no reference column, or no column).
    unmeasured: int
    #: Resolved on a task whose oracle is flagged weak-oracle.
    weak_oracle: int
    #: resolved-but-breaks-suite: the maintainers' tests met, a repository test that passed
    #: at base broken. Not among ``resolved``.
    breaks_suite: int
    #: Resolved, agreeing, on a strong oracle (and so keeping the suite): the sturdiest count.
    sound: int
    #: Per task it resolved or resolved-but-breaks-suite: ``resolved, diverges on 2 tests``.
    cells: dict[str, str] = field(default_factory=dict)
    #: resolved-but-suspicious: the maintainers' tests met by code that reads as
    #: suspicious. Not among ``resolved``.
    suspicious: int = 0


@dataclass(frozen=True)
class TaskStrength:
    """One counted task's oracle strength (None where it was not measured)."""

    id: str
    title: str
    measured: bool
    weak: bool = False
    mutation_score: float | None = None
    killed: int = 0
    mutants: int = 0
    coverage: float | None = None
    covered: int = 0
    changed_lines: int = 0
    untested_hunks: list[str] = field(default_factory=list)
    survivors: list[str] = field(default_factory=list)
    uncovered: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class WorthSection:
    headline: str
    counted_tasks: int
    measured_tasks: int
    weak_tasks: int
    rows: list[WorthRow] = field(default_factory=list)
    tasks: list[TaskStrength] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _strength(task: Task) -> Mapping[str, Any] | None:
    found = task.oracle.get("strength") if task.oracle is not None else None
    return found if isinstance(found, Mapping) else None


def _weak(task: Task) -> bool:
    strength = _strength(task)
    return bool(strength and strength.get("weak"))


def cell(score: Mapping[str, Any]) -> str:
    """``resolved, diverges on 2 tests``; ``resolved-but-breaks-suite, agrees``..."""
    name = category_of(score)
    if name not in (RESOLVED, RESOLVED_BUT_BREAKS_SUITE, RESOLVED_BUT_SUSPICIOUS):
        return name
    found = score.get("divergence")
    if isinstance(found, Mapping):
        count = len(found.get("diverges", ()))
        name += f", diverges on {plural(count, 'test')}" if count else ", agrees"
    return name


def _task_strength(task: Task) -> TaskStrength:
    strength = _strength(task)
    if strength is None:
        return TaskStrength(task.id, task.title, measured=False)
    mutation, cover = strength["mutation"], strength["coverage"]
    return TaskStrength(
        task.id,
        task.title,
        measured=True,
        weak=bool(strength.get("weak")),
        mutation_score=mutation.get("score"),
        killed=int(mutation.get("killed", 0)),
        mutants=int(mutation.get("mutants", 0)),
        coverage=cover.get("share"),
        covered=int(cover.get("covered", 0)),
        changed_lines=int(cover.get("changed_lines", 0)),
        untested_hunks=[
            f"{h['file']}:{h['lines'][0]}-{h['lines'][1]}"
            for h in strength["hunks"].get("untested", ())
        ],
        survivors=[str(s["description"]) for s in mutation.get("survivors", ())],
        uncovered=list(cover.get("uncovered", ())),
        reasons=list(strength.get("reasons", ())),
    )


def worth_section(bout: Bout) -> WorthSection:
    counted = [t for t in bout.ordered() if t.counted]
    measured = [t for t in counted if _strength(t) is not None]
    weak = [t for t in measured if _weak(t)]
    rows: list[WorthRow] = []
    for name in bout.contestants():
        met = [
            (t, s)
            for t in counted
            if (s := t.contestant_scores().get(name)) is not None
            and category_of(s) in (RESOLVED, RESOLVED_BUT_BREAKS_SUITE, RESOLVED_BUT_SUSPICIOUS)
        ]
        suspicious = sum(1 for _, s in met if category_of(s) == RESOLVED_BUT_SUSPICIOUS)
        resolved = [(t, s) for t, s in met if category_of(s) == RESOLVED]
        divergences = [s.get("divergence") for _, s in resolved]
        agrees = sum(1 for d in divergences if isinstance(d, Mapping) and not d.get("diverges"))
        diverges = sum(1 for d in divergences if isinstance(d, Mapping) and d.get("diverges"))
        on_weak = sum(1 for t, _ in resolved if _weak(t))
        sound = sum(
            1
            for t, s in resolved
            if not _weak(t)
            and isinstance(s.get("divergence"), Mapping)
            and not s["divergence"].get("diverges")
        )
        rows.append(
            WorthRow(
                name, len(resolved), agrees, diverges, len(resolved) - agrees - diverges,
                on_weak, len(met) - len(resolved) - suspicious, sound,
                {t.id: cell(s) for t, s in met}, suspicious,
            )
        )  # fmt: skip
    if not counted:
        headline = "No task is counted yet, so no resolved count to weigh."
    elif not measured:
        headline = (
            f"No oracle strength was measured for the {plural(len(counted), 'counted task')} "
            "(bb-oracle ran with --strength off)."
        )
    else:
        headline = (
            f"{len(weak)} of {plural(len(measured), 'scored task')} "
            f"{'rests' if len(weak) == 1 else 'rest'} on a weak oracle."
        )
    notes: list[str] = []
    if len(measured) < len(counted):
        notes.append(
            f"{plural(len(counted) - len(measured), 'counted task')} had no strength measured."
        )
    if any(r.unmeasured for r in rows):
        notes.append(
            "Divergence needs the reference column bb-xexam runs and a patch column; "
            "resolved tasks without one are neither agreeing nor diverging."
        )
    return WorthSection(
        headline, len(counted), len(measured), len(weak), rows,
        [_task_strength(t) for t in counted], notes,
    )  # fmt: skip


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _agent_cells(r: WorthRow) -> list[Cell]:
    return [
        Cell(r.name),
        num(str(r.resolved)),
        num(str(r.agrees)),
        num(str(r.diverges), "warn" if r.diverges else "muted"),
        num(str(r.weak_oracle), "warn" if r.weak_oracle else "muted"),
        num(str(r.breaks_suite), "bad" if r.breaks_suite else "muted"),
        num(str(r.suspicious), "bad" if r.suspicious else "muted"),
        num(str(r.sound), "good" if r.sound else "muted"),
    ]


def _task_cells(t: TaskStrength) -> list[Cell]:
    covered = f"{t.covered}/{t.changed_lines} ({percent(t.coverage)})"
    survivors = "; ".join(t.survivors[:2]) + (" ..." if len(t.survivors) > 2 else "")
    return [
        Cell(t.title or t.id),
        Cell(WEAK if t.weak else "strong", "warn" if t.weak else "good"),
        num(_score(t.mutation_score)),
        num(f"{t.killed}/{t.mutants}"),
        num(covered if t.coverage is not None else "-"),
        Cell(", ".join(t.untested_hunks) or "-"),
        Cell(survivors or "-"),
    ]


AGENT_HEADERS = [
    "contestant",
    RESOLVED,
    "agrees with maintainers' fix",
    "diverges",
    "on a weak oracle",
    "resolved but breaks the suite",
    "resolved but suspicious",
    "all hold",
]
TASK_HEADERS = [
    "task",
    "oracle",
    "mutation score",
    "killed",
    "changed lines covered",
    "untested hunks",
    "surviving mutants",
]


def layout_section(worth: WorthSection | None) -> list[Section]:
    """The section for the terminal, Markdown and HTML formats (none without data)."""
    if worth is None:
        return []
    lead = (
        "A resolved patch met the maintainers' tests; these say how much that is worth: "
        "whether it agrees with the maintainers' fix on every test written in the bout, "
        "whether the task's own tests are strong enough to tell a wrong fix (weak-oracle), "
        "and whether the patch keeps the repository's whole suite passing."
    )
    blocks: list[Any] = [Text([worth.headline])]
    if worth.rows:
        blocks.append(Table(AGENT_HEADERS, [_agent_cells(r) for r in worth.rows]))
    measured = [t for t in worth.tasks if t.measured]
    if measured:
        blocks.append(
            Table(
                TASK_HEADERS,
                [_task_cells(t) for t in measured],
                whole=frozenset({0, 5, 6}),  # titles, hunks and mutants wrap, read whole
                short=["task", "oracle", "score", "killed", "covered", "untested", "survivors"],
                key=(
                    "score: mutation score; covered: changed lines covered; untested: "
                    "untested hunks; survivors: surviving mutants."
                ),
            )
        )
    cells = [
        f"{r.name} on {task}: {text}"
        for r in worth.rows
        for task, text in r.cells.items()
        if text != RESOLVED
    ]
    if cells:
        blocks.append(Text(cells, bullets=True))
    if worth.notes:
        blocks.append(Notes(worth.notes))
    return [Section("worth", "How much each resolved is worth", lead, blocks)]
