"""Every patch judged alone, as a merge gate would see it when one agent says it is done.

A gate knows nothing of the other patches, so rule 3's quorum cannot excuse anything: any
repository test that passes on the unfixed tree and not on the patch rejects it. The other
authors' tests still vouch for it, under the same policy as the pick, and its own author's
tests still do not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bb_core.records import kinds

from bb_judge.matrix import Matrix, Row
from bb_judge.policies import Assessment, Candidate, Policy, assess

APPROVE: kinds.VerdictRankingGate = "approve"
REJECT: kinds.VerdictRankingGate = "reject"


def gate(
    matrix: Matrix,
    candidate: Candidate,
    policy: Policy,
    *,
    vendors: Mapping[str, str | None] | None = None,
    repro: Sequence[Row] | None = None,
) -> Assessment:
    """The gate's assessment of *candidate*; ``approved`` is the gate's decision."""
    return assess(matrix, candidate, policy, vendors=vendors, quorum=False, repro=repro)


def decision(assessment: Assessment) -> kinds.VerdictRankingGate:
    return APPROVE if assessment.approved else REJECT
