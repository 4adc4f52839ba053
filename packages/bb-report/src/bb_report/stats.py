"""The statistics behind the report's wording, with the standard library only.

- :func:`proportion_interval`: the Clopper-Pearson ("exact") interval of a proportion. It
  never claims less uncertainty than there is (its coverage is at least the level asked
  for), which matters on the handful of tasks a bout usually has.
- :func:`paired_exact_test`: the exact two-sided McNemar test (a sign test on the tasks
  where two agents differ). Tasks both resolved or both missed say nothing about which
  agent is better; only the discordant ones count, and under "no difference" each falls
  either way with probability one half.
- :func:`holm`: Holm's step-down adjustment, for when many pairs are compared at once.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction

#: The confidence level of every interval, and the significance level of every test.
LEVEL = 0.95
ALPHA = 1 - LEVEL


def _solve(f: Callable[[float], float], target: float) -> float:
    """The p in [0, 1] where the decreasing function *f* equals *target*, by bisection."""
    low, high = 0.0, 1.0
    while high - low > 1e-12:
        middle = (low + high) / 2
        if f(middle) > target:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def _continued_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz's method)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 100_000):
        m2 = 2 * m
        for numerator in (
            m * (b - m) * x / ((a + m2 - 1) * (a + m2)),
            -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1)),
        ):
            d = 1 + numerator * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return result


def beta_cdf(x: float, a: float, b: float) -> float:
    """The regularized incomplete beta function I_x(a, b), for a, b > 0."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1) / (a + b + 2):
        return math.exp(log_front) * _continued_fraction(a, b, x) / a
    return 1 - math.exp(log_front) * _continued_fraction(b, a, 1 - x) / b


def proportion_interval(successes: int, total: int, level: float = LEVEL) -> tuple[float, float]:
    """The Clopper-Pearson interval of *successes* out of *total* (``total`` > 0).

    The lower end is the p at which seeing *successes* or more has probability
    (1 - level) / 2, the upper end the p at which seeing *successes* or fewer has it.
    Binomial tails are incomplete beta functions, P(X >= k | p) = I_p(k, n - k + 1), so
    each end is found by bisection on :func:`beta_cdf`, whatever the number of trials.
    """
    if total <= 0:
        raise ValueError("an interval needs at least one trial")
    if not 0 <= successes <= total:
        raise ValueError(f"{successes} successes out of {total} trials")
    k, n = successes, total
    tail = (1 - level) / 2
    # P(X >= k | p) grows with p: find where it reaches the tail.
    low = 0.0 if k == 0 else _solve(lambda p: -beta_cdf(p, k, n - k + 1), -tail)
    # P(X <= k | p) = 1 - I_p(k + 1, n - k) shrinks as p grows.
    high = 1.0 if k == n else _solve(lambda p: 1 - beta_cdf(p, k + 1, n - k), tail)
    return low, high


def paired_exact_test(only_a: int, only_b: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts.

    *only_a* tasks were resolved by A and not B, *only_b* by B and not A. The p-value is
    the probability, were A and B equally good, of a split at least as lopsided:
    ``min(1, 2 * P(X <= min(only_a, only_b)))`` with X ~ Binomial(only_a + only_b, 1/2).
    No discordant task gives 1.
    """
    if only_a < 0 or only_b < 0:
        raise ValueError("counts cannot be negative")
    n = only_a + only_b
    if n == 0:
        return 1.0
    smaller = min(only_a, only_b)
    tail = Fraction(sum(math.comb(n, i) for i in range(smaller + 1)), 2**n)
    return float(min(Fraction(1), 2 * tail))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's adjusted p-values, in the order given.

    The smallest p is multiplied by the number of comparisons, the next by one fewer, and
    so on, each kept at least as large as the one before and at most 1. Reading an
    adjusted p below 0.05 as a difference keeps the chance of any false claim among all
    the pairs at 5%.
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted
