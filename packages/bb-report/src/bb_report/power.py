"""How many tasks a paired test would need to tell two agents apart.

The report's paired test (:func:`bb_report.stats.paired_exact_test`) looks only at the
*discordant* tasks, those one agent resolved and the other did not. Taking the observed
shares as the truth - on each task, A alone resolves with probability ``p10 = a_only / n``
and B alone with ``p01 = b_only / n`` - a bout of N tasks has D ~ Binomial(N, p10 + p01)
discordant tasks, and of those A wins X ~ Binomial(D, q) with ``q = p10 / (p10 + p01)``.
The test claims a difference when ``min(X, D - X) <= k(D)``, where k(D) is the largest
count whose two-sided exact p-value, ``2 * P(Binomial(D, 1/2) <= k)``, is below alpha.
So the exact power at N tasks is::

    power(N) = sum over d of P(D = d) * [P(X <= k(d)) + P(X >= d - k(d))]

and the tasks needed are the smallest N with power(N) >= 0.8 (found by bisection: the
exact test's power grows with N apart from small saw-teeth). Nothing is assumed beyond
the observed rates; when the two agents won the same number of discordant tasks (or
none) no number of tasks tells them apart at those rates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bb_report.stats import ALPHA, beta_cdf

#: The power asked of the test: the chance of telling the agents apart, were they as
#: different as observed.
POWER = 0.8
#: Beyond this many tasks the report says "more than" rather than computing on.
CAP = 10_000


@dataclass(frozen=True)
class TasksNeeded:
    """The tasks a paired test needs to tell *a* from *b* at the rates observed on *tasks*.

    *needed* is None when no number would do (equal discordant counts) or when more than
    :data:`CAP` would; *more_than_cap* says which.
    """

    a: str
    b: str
    tasks: int
    a_only: int
    b_only: int
    needed: int | None
    more_than_cap: bool
    power_at_tasks: float  # the power of the bout as it is


def _binom_cdf(k: int, n: int, p: float) -> float:
    """P(Binomial(n, p) <= k)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    if p <= 0.0:
        return 1.0
    if p >= 1.0:
        return 0.0
    # P(X <= k) = 1 - I_p(k + 1, n - k)
    return 1.0 - beta_cdf(p, k + 1, n - k)


def critical(d: int, alpha: float = ALPHA) -> int:
    """The largest k with ``2 * P(Binomial(d, 1/2) <= k) < alpha``, or -1 when none."""
    if d <= 0:
        return -1
    k = max(int(d / 2 - 1.96 * math.sqrt(d) / 2) - 2, -1)
    while k >= 0 and 2 * _binom_cdf(k, d, 0.5) >= alpha:
        k -= 1
    while 2 * _binom_cdf(k + 1, d, 0.5) < alpha:
        k += 1
    return k


def _log_pmf(d: int, n: int, p: float) -> float:
    return (
        math.lgamma(n + 1)
        - math.lgamma(d + 1)
        - math.lgamma(n - d + 1)
        + d * math.log(p)
        + (n - d) * math.log1p(-p)
    )


class _Power:
    def __init__(self, p10: float, p01: float, alpha: float) -> None:
        self.discordant = p10 + p01
        self.q = p10 / self.discordant
        self.alpha = alpha
        self.reject: dict[int, float] = {}

    def rejects(self, d: int) -> float:
        """P(the test claims a difference | d discordant tasks)."""
        if d not in self.reject:
            k = critical(d, self.alpha)
            self.reject[d] = (
                0.0
                if k < 0
                else _binom_cdf(k, d, self.q) + (1.0 - _binom_cdf(d - k - 1, d, self.q))
            )
        return self.reject[d]

    def __call__(self, n: int) -> float:
        p = self.discordant
        if p >= 1.0:
            return self.rejects(n)
        mean, sd = n * p, math.sqrt(n * p * (1 - p))
        low, high = max(0, int(mean - 9 * sd) - 1), min(n, int(mean + 9 * sd) + 2)
        return sum(math.exp(_log_pmf(d, n, p)) * self.rejects(d) for d in range(low, high + 1))


def paired_power(tasks: int, a_only: int, b_only: int, n: int, alpha: float = ALPHA) -> float:
    """The exact power at *n* tasks, at the discordant shares seen on *tasks*."""
    if tasks <= 0 or a_only == b_only:
        return 0.0
    return _Power(a_only / tasks, b_only / tasks, alpha)(n)


def tasks_needed(
    a: str, b: str, tasks: int, a_only: int, b_only: int, *, alpha: float = ALPHA
) -> TasksNeeded:
    """The smallest N whose exact power reaches :data:`POWER` at the observed shares."""
    if tasks <= 0 or a_only == b_only:
        return TasksNeeded(a, b, tasks, a_only, b_only, None, False, 0.0)
    power = _Power(a_only / tasks, b_only / tasks, alpha)
    now = power(tasks)
    if power(CAP) < POWER:
        return TasksNeeded(a, b, tasks, a_only, b_only, None, True, now)
    low, high = 1, CAP  # power(high) >= POWER
    while low < high:
        middle = (low + high) // 2
        if power(middle) >= POWER:
            high = middle
        else:
            low = middle + 1
    return TasksNeeded(a, b, tasks, a_only, b_only, high, False, now)
