"""How the judge orders the patches its policy approved, and so which one it picks.

Among approved patches, the first by:

1. more independent support (the averaged share of other authors' reproductions passed);
2. fewer broken tests held against it (other authors' tests, and repository tests past
   the quorum, that pass on the unfixed tree and not on the patch);
3. the smaller patch (lines added plus lines removed in the package);
4. the patch's name, alphabetically, so the order never depends on input order.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

from bb_judge.policies import Assessment


def ranking_key(assessment: Assessment) -> tuple[Fraction, int, int, str]:
    return (
        -assessment.support,
        len(assessment.broken),
        assessment.candidate.size,
        assessment.patch,
    )


def rank(assessments: Iterable[Assessment]) -> list[Assessment]:
    """The approved assessments, best first."""
    return sorted((a for a in assessments if a.approved), key=ranking_key)
