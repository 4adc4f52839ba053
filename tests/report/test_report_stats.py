"""The statistics behind the report's wording, against published values.

Clopper-Pearson intervals are those of R's ``binom.test`` (and closed forms at the ends:
for 0 of n the upper end is 1 - 0.025^(1/n)); exact McNemar p-values are binomial tail
sums worked out by hand.
"""

from __future__ import annotations

import math

import pytest
from bb_report.stats import holm, paired_exact_test, proportion_interval


def binomial_cdf(k: int, n: int, p: float) -> float:
    """P(X <= k) for X ~ Binomial(n, p), summed term by term."""
    return math.fsum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k + 1))


@pytest.mark.parametrize(
    ("successes", "total", "low", "high"),
    [
        (5, 10, 0.187086, 0.812914),  # binom.test(5, 10)
        (1, 10, 0.002529, 0.445016),  # binom.test(1, 10)
        (2, 4, 0.067586, 0.932414),  # binom.test(2, 4)
        (0, 4, 0.0, 1 - 0.025 ** (1 / 4)),  # 0.602365
        (4, 4, 0.025 ** (1 / 4), 1.0),  # 0.397635
        (2, 3, 0.094299, 0.975 ** (1 / 3)),  # upper: 1 - p^3 = 0.025
        (1, 1, 0.025, 1.0),
    ],
)
def test_clopper_pearson_matches_published_values(
    successes: int, total: int, low: float, high: float
) -> None:
    got = proportion_interval(successes, total)
    assert got == pytest.approx((low, high), abs=1e-6)


def test_interval_ends_are_where_the_tails_hold_two_and_a_half_percent() -> None:
    low, high = proportion_interval(7, 20)
    assert 1 - binomial_cdf(6, 20, low) == pytest.approx(0.025, abs=1e-9)
    assert binomial_cdf(7, 20, high) == pytest.approx(0.025, abs=1e-9)


@pytest.mark.parametrize(("successes", "total"), [(0, 0), (3, 2), (-1, 4)])
def test_an_interval_needs_a_possible_proportion(successes: int, total: int) -> None:
    with pytest.raises(ValueError):
        proportion_interval(successes, total)


@pytest.mark.parametrize(
    ("only_a", "only_b", "p"),
    [
        (0, 0, 1.0),  # nothing to tell them apart
        (7, 0, 2 / 2**7),  # 0.015625
        (0, 7, 2 / 2**7),  # symmetric
        (5, 0, 2 / 2**5),  # 0.0625: five wins in a row are not enough
        (3, 1, 2 * (1 + 4) / 2**4),  # 0.625
        (10, 2, 2 * (1 + 12 + 66) / 2**12),  # 0.0385742...
        (2, 2, 1.0),  # capped at 1
    ],
)
def test_exact_mcnemar_p_values(only_a: int, only_b: int, p: float) -> None:
    assert paired_exact_test(only_a, only_b) == pytest.approx(p, rel=1e-12)


def test_holm_multiplies_the_smallest_by_the_number_of_comparisons_and_stays_monotone() -> None:
    # sorted: 0.01 x3 = 0.03, 0.03 x2 = 0.06, 0.04 x1 = 0.04 -> raised to 0.06
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])
    assert holm([]) == []
