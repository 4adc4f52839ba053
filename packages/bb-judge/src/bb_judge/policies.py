"""The judge's rules and policies, as pure functions over a :class:`~bb_judge.matrix.OutcomeTable`.

The four rules:

1. A test reproduces the bug only if it fails (``failed`` or ``error``) on the unfixed tree.
   Only contestants' and examiners' tests can reproduce; the repository's suite guards
   old behaviour. A contestant's test must also pass on that contestant's own patch when
   it has one that ran: a test its own author's fix fails is *unconfirmed* - nothing shows
   it can be passed at all, and since rule 2 spares its author, it would count against
   every other patch alone.
2. A patch is supported only by other authors' reproductions; its own author's tests never
   count for it (nor, under ``cross-vendor``, tests by any author of the same vendor).
3. A repository (``suite``) test that passes on the unfixed tree and not on the patch counts
   against the patch only when most other patches keep it passing (strictly more than half
   of the other eligible patches whose runs completed). When no other patch can vote, the
   unfixed tree is the only witness and the break counts.
4. A patch with no independent reproduction at all is never approved: no support, no pick.

Support is the share of an author's reproductions the patch passes, averaged across the
independent authors who wrote at least one reproduction, so an author with ten tests weighs
no more than an author with one. The policies then approve a patch when:

===============  ==================================================================
``majority``     support is at least one half
``unanimous``    every independent reproduction passes (support is exactly one)
``strict``       as unanimous, and none of the examiners' tests that pass on the
                 unfixed tree stops passing (behaviour the issue does not ask to change)
``cross-vendor`` as majority, with independence by vendor instead of by author
===============  ==================================================================

Under every policy a counted repository-test break (rule 3) rejects the patch.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from bb_core.records import kinds

from bb_judge.matrix import REPRODUCING_ROLES, OutcomeTable, Row


@dataclass(frozen=True, slots=True)
class Policy:
    name: kinds.Policy
    #: Least support (averaged share of independent reproductions passed) to approve.
    threshold: Fraction
    #: Independence by vendor: no author of the patch's vendor may support it.
    by_vendor: bool = False
    #: Examiners' tests passing on the unfixed tree must keep passing.
    keep_examiner_tests: bool = False


#: By name; the names are the schema's (``defs.json`` policy, a test holds them equal).
POLICIES: dict[str, Policy] = {
    "majority": Policy("majority", Fraction(1, 2)),
    "unanimous": Policy("unanimous", Fraction(1)),
    "strict": Policy("strict", Fraction(1), keep_examiner_tests=True),
    "cross-vendor": Policy("cross-vendor", Fraction(1, 2), by_vendor=True),
}


@dataclass(frozen=True, slots=True)
class Candidate:
    """A patch the judge may pick: what it knows of it besides the matrix."""

    #: Whose patch it is: the contestant's name (``patch_of`` of its column).
    patch: str
    column: str
    vendor: str | None = None
    #: Lines the patch adds or removes in the package; smaller ranks higher on a tie.
    size: int = 0
    #: Why it cannot be picked at all (empty patch, the attempt timed out...), or None.
    ineligible: str | None = None
    #: The agent a further sample (``careful #2``) belongs to; None when *patch* is the agent.
    agent: str | None = None

    @property
    def author(self) -> str:
        """The author whose tests never count for this patch (rule 2)."""
        return self.agent or self.patch


@dataclass(frozen=True, slots=True)
class AuthorSupport:
    author: str
    passed: int
    total: int


@dataclass(frozen=True)
class Assessment:
    """One patch under one policy: the decision, its reason and the cells behind it."""

    candidate: Candidate
    approved: bool
    reason: str
    support: Fraction = Fraction(0)
    authors: tuple[AuthorSupport, ...] = ()
    #: Repository tests it breaks that count against it (rule 3).
    suite_broken: tuple[Row, ...] = ()
    #: Repository tests it breaks that most other patches break too: not held against it.
    excused: tuple[Row, ...] = ()
    #: Examiners' tests passing on the unfixed tree that it breaks.
    examiner_broken: tuple[Row, ...] = ()
    #: Other contestants' tests passing on the unfixed tree that it breaks.
    contestant_broken: tuple[Row, ...] = ()
    cited: tuple[kinds.VerdictCell, ...] = field(default=())

    @property
    def patch(self) -> str:
        return self.candidate.patch

    @property
    def broken(self) -> tuple[Row, ...]:
        """Every break held against the patch, for ranking."""
        return self.suite_broken + self.examiner_broken + self.contestant_broken

    @property
    def reproductions(self) -> tuple[int, int]:
        """(passed, total) independent reproductions."""
        return (sum(a.passed for a in self.authors), sum(a.total for a in self.authors))


def get_policy(name: str) -> Policy:
    try:
        return POLICIES[name]
    except KeyError:
        known = ", ".join(POLICIES)
        raise ValueError(f"unknown policy {name!r} (known: {known})") from None


def own_columns(matrix: OutcomeTable) -> dict[str, str]:
    """Each contestant's patch column, when its run completed: its first sample's, never
    a further sample's (``careful #2``, ``[judge] samples = "all"``)."""
    own: dict[str, str] = {}
    for column in matrix.patch_columns():
        agent = str(column.patch_of)
        if not column.broken and not column.name.startswith(f"{agent} #"):
            own.setdefault(agent, column.name)
    return own


def reproductions(matrix: OutcomeTable) -> list[Row]:
    """Rule 1: tests failing on the unfixed tree (and passing on their author's own patch)."""
    return classify(matrix)[0]


def classify(matrix: OutcomeTable) -> tuple[list[Row], list[Row]]:
    """Rule 1 in full: ``(reproductions, unconfirmed)``.

    Unconfirmed: a contestant's tests that fail on the unfixed tree but also on the
    contestant's own patch.
    """
    if not matrix.has_base:
        return [], []
    own = own_columns(matrix)
    repro: list[Row] = []
    unconfirmed: list[Row] = []
    for test in matrix.tests(REPRODUCING_ROLES):
        if not matrix.fails_on_base(test):
            continue
        column = own.get(test.author) if matrix.authors[test.author].role == "contestant" else None
        if column is not None and not matrix.passes(test, column):
            unconfirmed.append(test)
        else:
            repro.append(test)
    return repro, unconfirmed


def vendor_key(name: str, vendor: str | None) -> str:
    """Who an author answers to: its vendor, or itself when the vendor is unknown."""
    return f"vendor:{vendor.lower()}" if vendor else f"author:{name}"


def independent(
    author: str,
    candidate: Candidate,
    policy: Policy,
    vendors: Mapping[str, str | None],
) -> bool:
    """Rule 2: may *author*'s tests support *candidate* under *policy*?"""
    if author == candidate.author:
        return False
    if policy.by_vendor:
        mine = vendor_key(candidate.author, candidate.vendor or vendors.get(candidate.author))
        return vendor_key(author, vendors.get(author)) != mine
    return True


def _support(
    matrix: OutcomeTable,
    candidate: Candidate,
    repro: Sequence[Row],
    policy: Policy,
    vendors: Mapping[str, str | None],
) -> tuple[Fraction, tuple[AuthorSupport, ...], list[Row]]:
    by_author: dict[str, list[Row]] = {}
    for test in repro:
        if independent(test.author, candidate, policy, vendors):
            by_author.setdefault(test.author, []).append(test)
    authors = tuple(
        AuthorSupport(name, sum(matrix.passes(t, candidate.column) for t in tests), len(tests))
        for name, tests in by_author.items()
    )
    if not authors:
        return Fraction(0), (), []
    share = sum((Fraction(a.passed, a.total) for a in authors), Fraction(0)) / len(authors)
    used = [t for tests in by_author.values() for t in tests]
    return share, authors, used


def _breaks(matrix: OutcomeTable, candidate: Candidate, role: str) -> list[Row]:
    """Tests of *role* by other authors that pass on the unfixed tree and not on the patch."""
    return [t for t in matrix.broken_by(candidate.column, role) if t.author != candidate.author]


def quorum_voters(
    matrix: OutcomeTable, candidate: Candidate, others: Sequence[Candidate]
) -> list[str]:
    """The columns whose behaviour decides rule 3: other eligible patches that ran whole."""
    return [
        o.column
        for o in others
        if o.column != candidate.column
        and o.ineligible is None
        and o.column in matrix.columns
        and not matrix.columns[o.column].broken
    ]


def counts_against(matrix: OutcomeTable, test: Row, voters: Sequence[str]) -> bool:
    """Rule 3: does a break of repository *test* count? Only if most voters keep it passing."""
    if not voters:
        return True
    keeping = sum(matrix.passes(test, column) for column in voters)
    return keeping * 2 > len(voters)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def assess(
    matrix: OutcomeTable,
    candidate: Candidate,
    policy: Policy,
    *,
    others: Sequence[Candidate] = (),
    vendors: Mapping[str, str | None] | None = None,
    quorum: bool = True,
    repro: Sequence[Row] | None = None,
) -> Assessment:
    """Judge one patch under *policy*.

    *others* are the other patches of the task (they vote on rule 3); with ``quorum=False``
    every repository-test break counts, as a merge gate that sees one patch would hold it.
    *vendors* maps author names to vendors (``cross-vendor``); *repro* saves recomputing
    rule 1 for every patch.
    """
    vendors = (
        vendors if vendors is not None else {a.name: a.vendor for a in matrix.authors.values()}
    )
    repro = reproductions(matrix) if repro is None else repro
    if candidate.ineligible:
        return Assessment(candidate, False, candidate.ineligible)
    if candidate.column not in matrix.columns:
        return Assessment(candidate, False, "it has no column in the matrix")
    if matrix.columns[candidate.column].broken:
        broken_reason = "its cross-examination run crashed or timed out"
    else:
        broken_reason = ""

    def cells_of(tests: Sequence[Row]) -> list[kinds.VerdictCell]:
        """Each test's cell on the unfixed tree, then on the patch."""
        return [
            cell
            for t in tests
            for cell in (matrix.cell(t, matrix.base), matrix.cell(t, candidate.column))
        ]

    support, authors, used = _support(matrix, candidate, repro, policy, vendors)
    suite = _breaks(matrix, candidate, "suite")
    voters = quorum_voters(matrix, candidate, others) if quorum else []
    suite_broken = [t for t in suite if counts_against(matrix, t, voters)]
    counted = set(suite_broken)
    excused = [t for t in suite if t not in counted]
    examiner_broken = _breaks(matrix, candidate, "examiner")
    contestant_broken = _breaks(matrix, candidate, "contestant")
    passed, total = sum(a.passed for a in authors), sum(a.total for a in authors)
    evidence = (
        f"passes {passed} of {_plural(total, 'independent reproduction')} "
        f"from {_plural(len(authors), 'author')} (support {float(support):.2f})"
    )

    reason = ""
    cited = cells_of(used)
    if broken_reason:
        reason = broken_reason
    elif not authors:
        other = "another vendor" if policy.by_vendor else "another author"
        reason = f"no test by {other} fails on the unfixed tree, so nothing independent supports it"
    elif support < policy.threshold:
        need = "every one" if policy.threshold == 1 else "at least half on average"
        reason = f"{evidence}; {policy.name} needs {need}"
    elif suite_broken:
        reason = (
            f"breaks {_plural(len(suite_broken), 'repository test')} that "
            + ("most other patches keep passing" if voters else "pass on the unfixed tree")
            + f", first {suite_broken[0].test}"
        )
        cited += cells_of(suite_broken)
    elif policy.keep_examiner_tests and examiner_broken:
        reason = (
            f"breaks {_plural(len(examiner_broken), 'examiner test')} that pass on the "
            f"unfixed tree, first {examiner_broken[0].author}: {examiner_broken[0].test}"
        )
        cited += cells_of(examiner_broken)
    approved = not reason
    if approved:
        reason = evidence
        cited += cells_of([*suite_broken, *examiner_broken, *contestant_broken])
    return Assessment(
        candidate=candidate,
        approved=approved,
        reason=reason,
        support=support,
        authors=authors,
        suite_broken=tuple(suite_broken),
        excused=tuple(excused),
        examiner_broken=tuple(examiner_broken),
        contestant_broken=tuple(contestant_broken),
        cited=tuple(unique_cells(cited)),
    )


def unique_cells(cells: Sequence[kinds.VerdictCell]) -> list[kinds.VerdictCell]:
    """*cells* without repeats of the same (author, test, column), first kept."""
    seen: set[tuple[str, str, str]] = set()
    out = []
    for cell in cells:
        key = (cell["author"], cell["test"], cell["column"])
        if key not in seen:
            seen.add(key)
            out.append(cell)
    return out
