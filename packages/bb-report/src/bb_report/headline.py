"""The report's headline: what was mined, who won and by how much, and what needs a look.

It is drawn from the sections already computed (agents, comparisons, attempts), so it
states nothing the sections below do not show in full. It also decides whether anything
could be scored at all: a task counts as scored when it is counted (see
:class:`bb_report.bout.Task`) and at least one contestant's attempt on it ran to an end
of its own (finished or no-change); when none did, :attr:`Headline.unscored_reason`
says why in one line, which ``bugbout run`` prints before exiting 1.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from bb_core.records.vocabulary import (
    CRASHED,
    FLAG_UNCONFINED,
    PICK,
    QUOTA,
    RESOLVED_BUT_BREAKS_SUITE,
    RESOLVED_BUT_SUSPICIOUS,
    SCORE_CRASHED,
    TIMED_OUT,
)

from bb_report.bout import Bout, category_of
from bb_report.comparisons import decisive_p
from bb_report.data import (
    AgentLine,
    AgentsSection,
    AttemptsSection,
    ComparisonsSection,
    FlagCount,
    Headline,
)
from bb_report.flag_words import note_sentence, noted
from bb_report.statuses import EMPTY_STATEMENT, RAN
from bb_report.words import plural, rate_text

#: Flags the headline names first, with how they read; any other flag is named as it is.
FLAG_WORDS = {
    EMPTY_STATEMENT: ("task with an empty statement", "tasks with an empty statement"),
    FLAG_UNCONFINED: ("unconfined run", "unconfined runs"),
    "tampered": ("tampered patch", "tampered patches"),
    "suspicious": ("suspicious patch", "suspicious patches"),
}

#: Overview notes so grave that the headline repeats them, right after what was mined.
HEADLINE_NOTES = ("Unconfined:",)

#: How a status that is not a result reads in the headline.
STATUS_WORDS = {CRASHED: "crashed", TIMED_OUT: "timed out", QUOTA: "ran out of quota",
                "not-run": "never ran"}  # fmt: skip


def _short(sha: str | None) -> str | None:
    return None if sha is None else sha[:7]


def _leader(
    agents: AgentsSection, comparisons: ComparisonsSection
) -> tuple[str | None, str | None, bool, str]:
    rows = [r for r in agents.rows if r.resolve_rate.total]
    if not rows:
        return None, None, False, "No agent has a result yet."
    first = rows[0]
    if len(rows) == 1:
        return first.name, None, False, f"{first.name} is the only contestant with a result."
    second = rows[1]
    if first.resolve_rate.value == second.resolve_rate.value:
        tied = [r.name for r in rows if r.resolve_rate.value == first.resolve_rate.value]
        return None, None, False, f"No leader: {' and '.join(tied)} resolved the same share."
    pair = next((c for c in comparisons.rows if {c.a, c.b} == {first.name, second.name}), None)
    if pair is not None and pair.finding in ("a-more", "b-more"):
        return (
            first.name,
            second.name,
            True,
            (
                f"{first.name} leads, and its lead over {second.name} is significant "
                f"(paired exact test, {decisive_p(pair.p_adjusted, comparisons.pairs)})."
            ),
        )
    shown = f" ({decisive_p(pair.p_adjusted, comparisons.pairs)})" if pair is not None else ""
    return (
        first.name,
        second.name,
        False,
        (
            f"{first.name} leads, but its lead over {second.name} is not significant{shown}: "
            "on these tasks the difference could be chance."
        ),
    )


def _rate_phrase(line: AgentLine) -> str:
    """``alpha 2/4 (50%)``, with ``and 1 more resolved-but-breaks-suite`` when it broke one."""
    text = f"{line.name} {rate_text(line.rate)}"
    if line.breaks_suite:
        text += f" and {line.breaks_suite} more {RESOLVED_BUT_BREAKS_SUITE}, not counted"
    if line.suspicious:
        text += f" and {line.suspicious} more resolved but suspicious, not counted"
    return text


def _listed(names: Sequence[str]) -> str:
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def _flag_phrase(flag: FlagCount) -> str:
    one, many = FLAG_WORDS.get(flag.flag, (f"{flag.flag} flag", f"{flag.flag} flags"))
    where = ", ".join(flag.tasks[:4]) + (", ..." if len(flag.tasks) > 4 else "")
    return f"{plural(flag.count, one, many)} ({where})"


def unscored_reason(bout: Bout, configured: Sequence[str]) -> str | None:
    """Why nothing could be scored, or None when at least one task was."""
    tasks = bout.ordered()
    counted = [t for t in tasks if t.counted]
    for task in counted:
        for name in task.contestant_scores():
            attempt = task.attempts.get(name)
            if attempt is not None and str(attempt.get("status")) in RAN:
                return None
    if not tasks:
        if not bout.summaries:
            return "nothing could be scored: the input held no task"
        examined = sum(int(s.get("examined", 0)) for s in bout.summaries)
        return (
            f"nothing could be scored: no task was mined from {plural(examined, 'commit')} "
            "examined (see the funnel for why fixes were left out)"
        )
    skipped = Counter(
        str(s.get("reason")) for s in bout.skips if s.get("stage") not in (None, "mine")
    )
    raced = [t for t in tasks if t.attempts]
    if not raced and skipped:
        reasons = ", ".join(f"{n} {r}" for r, n in skipped.most_common())
        return f"nothing could be scored: every task was set aside before the race ({reasons})"
    scored = [t for t in tasks if t.contestant_scores()]
    if not scored:
        if not raced:
            return (
                f"nothing could be scored: no task was raced ({plural(len(tasks), 'task')} "
                "stopped before the race)"
            )
        return "nothing could be scored: no task is scored yet"
    if not counted:
        return (
            "nothing could be scored: the reference fix fails in this environment on every "
            f"scored task ({plural(len(scored), 'task')})"
        )
    names = ", ".join(configured) if configured else "every contestant"
    return (
        "nothing could be scored: no contestant's attempt ran to an end on any counted task "
        f"({names}: crashed, timed out, out of quota or never ran; see the attempts table)"
    )


def headline(
    bout: Bout,
    agents: AgentsSection,
    comparisons: ComparisonsSection,
    attempts: AttemptsSection,
    flags: list[FlagCount],
    configured: Sequence[str],
    warnings: Sequence[str] = (),
) -> Headline:
    tasks = bout.ordered()
    repositories = list(
        dict.fromkeys(
            [str(s["repository"]) for s in bout.summaries if s.get("repository")]
            + [
                str(t.record["repository"])
                for t in tasks
                if t.record and t.record.get("repository")
            ]
        )
    )
    branches = list(dict.fromkeys(str(s["branch"]) for s in bout.summaries if s.get("branch")))
    dated = sorted(
        (str(t.record["date"]), str(t.record.get("fix_commit") or ""))
        for t in tasks
        if t.record and t.record.get("date")
    )
    first = dated[0] if dated else (None, None)
    last = dated[-1] if dated else (None, None)
    counted = sum(1 for t in tasks if t.counted)
    lines = [
        AgentLine(
            r.name,
            r.resolve_rate,
            r.categories.get(RESOLVED_BUT_BREAKS_SUITE, 0),
            r.categories.get(RESOLVED_BUT_SUSPICIOUS, 0),
        )
        for r in agents.rows
    ]
    leader, runner_up, significant, lead = _leader(agents, comparisons)

    sentences = []
    where = ", ".join(repositories) or "an unnamed repository"
    if branches:
        where += f" ({', '.join(branches)})"
    mined = f"{where}: {plural(len(tasks), 'task')}"
    if first[0] and last[0]:
        span = (
            first[0][:10] if first[0][:10] == last[0][:10] else f"{first[0][:10]} to {last[0][:10]}"
        )
        commits = (
            _short(first[1]) if first[1] == last[1] else f"{_short(first[1])}..{_short(last[1])}"
        )
        mined += f" from fixes landed {span} (commits {commits})"
    sentences.append(f"{mined}; {plural(counted, 'task')} counted.")
    sentences += warnings
    if lines:
        rates = "; ".join(_rate_phrase(a) for a in lines if a.rate.total)
        if rates:
            sentences.append(f"Resolved: {rates}.")
    elif configured:
        sentences.append(f"Configured contestants: {', '.join(configured)}; none has a result.")
    sentences.append(lead)

    attention = []
    failed: Counter[str] = Counter()
    for row in attempts.rows:
        if row.status in STATUS_WORDS:
            failed[row.status] += 1
    if failed:
        parts = [f"{plural(n, 'attempt')} {STATUS_WORDS[s]}" for s, n in failed.most_common()]
        attention.append("; ".join(parts) + " (reasons and logs in the attempts table)")
    crashed = sorted(
        f"{t.id} {name}"
        for t in tasks
        for name, score in t.scores.items()
        if name != PICK and category_of(score) == SCORE_CRASHED
    )
    if crashed:
        attention.append(
            f"{plural(len(crashed), 'score')} could not be computed, counted as not resolved "
            f"({SCORE_CRASHED}: {_listed(crashed)}; reasons and logs in the scores)"
        )
    ordered = sorted(
        flags,
        key=lambda f: (
            f.flag not in FLAG_WORDS,
            list(FLAG_WORDS).index(f.flag) if f.flag in FLAG_WORDS else 0,
        ),
    )
    notes = noted(bout)
    for f in ordered:
        alarms = f.count - len(notes.get(f.flag, []))
        if alarms > 0:
            attention.append(_flag_phrase(replace(f, count=alarms)))
    if attention:
        sentences.append("Needs attention: " + "; ".join(attention) + ".")
    sentences += [note_sentence(kind, where) for kind, where in notes.items()]
    reason = unscored_reason(bout, configured)
    return Headline(
        repositories=repositories,
        branches=branches,
        first_commit=first[1] or None,
        last_commit=last[1] or None,
        first_date=first[0],
        last_date=last[0],
        tasks=len(tasks),
        counted=counted,
        agents=lines,
        leader=leader,
        runner_up=runner_up,
        significant=significant,
        lead_sentence=lead,
        flags=flags,
        attention=attention,
        scored=reason is None,
        unscored_reason=reason,
        sentences=sentences,
    )


def with_sentence(head: Headline, sentence: str, after: str | None = None) -> Headline:
    """*head* with *sentence* said right after *after* (default: who leads), before what
    needs attention."""
    at = head.sentences.index(after or head.lead_sentence) + 1
    return replace(head, sentences=[*head.sentences[:at], sentence, *head.sentences[at:]])
