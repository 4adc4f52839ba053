"""How many tasks it takes: the exact power of the paired test, against sums written out
by hand, and the section on the hand-built bout (alpha 2 alone against beta's 0 on 4
counted tasks; mining walked the whole history and wrote 8 tasks)."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from bb_report import Report, build_report
from bb_report.power import critical, paired_power, tasks_needed


def binom_pmf(k: int, n: int, p: float) -> float:
    return math.comb(n, k) * p**k * (1 - p) ** (n - k)


def brute_power(tasks: int, a_only: int, b_only: int, n: int) -> float:
    """The power written out: every (discordant, A's wins) pair, each p-value by its sum."""
    p10, p01 = a_only / tasks, b_only / tasks
    total = 0.0
    for d in range(n + 1):
        for x in range(d + 1):
            low = min(x, d - x)
            p = min(1.0, 2 * sum(math.comb(d, i) for i in range(low + 1)) / 2**d)
            if p < 0.05:
                total += (
                    math.comb(n, d) * math.comb(d, x) * p10**x * p01 ** (d - x)
                    * (1 - p10 - p01) ** (n - d)
                )  # fmt: skip
    return total


@pytest.mark.parametrize(("d", "k"), [(1, -1), (5, -1), (6, 0), (8, 0), (9, 1), (10, 1), (20, 5)])
def test_critical_counts_are_the_exact_test_s(d: int, k: int) -> None:
    # 2 * P(Bin(d, 1/2) <= k) < 0.05 and not for k + 1: 2/2^6 = 0.031, 2 * 10/2^9 = 0.039,
    # 2 * 1/2^5 = 0.0625; for 20, 2 * 0.0207 = 0.041 and 2 * 0.0577 = 0.115.
    assert critical(d) == k


@pytest.mark.parametrize(
    ("tasks", "a_only", "b_only", "n"), [(10, 3, 1, 30), (5, 2, 0, 12), (12, 5, 2, 40)]
)
def test_power_is_the_sum_written_out(tasks: int, a_only: int, b_only: int, n: int) -> None:
    assert paired_power(tasks, a_only, b_only, n) == pytest.approx(
        brute_power(tasks, a_only, b_only, n), abs=1e-9
    )


def test_one_sided_discordance_needs_six_discordant_tasks() -> None:
    # A alone on 2 of 4 tasks, B alone on none: the test rejects exactly when 6 or more
    # tasks are discordant, so power(N) = P(Binomial(N, 1/2) >= 6): 0.788 at 14, 0.849 at 15.
    assert paired_power(4, 2, 0, 14) == pytest.approx(1 - 3473 / 2**14)
    assert paired_power(4, 2, 0, 15) == pytest.approx(1 - 4944 / 2**15)
    found = tasks_needed("alpha", "beta", 4, 2, 0)
    assert (found.needed, found.more_than_cap, found.power_at_tasks) == (15, False, 0.0)


def test_needed_is_near_the_normal_approximation() -> None:
    # Connor's approximation for p10 = 0.2, p01 = 0.1 gives 233 tasks; the exact test,
    # being conservative, needs a few more, and 248 do not reach 80% power.
    found = tasks_needed("a", "b", 100, 20, 10)
    assert found.needed == 249
    assert paired_power(100, 20, 10, 249) >= 0.8 > paired_power(100, 20, 10, 248)


def test_no_number_tells_apart_equal_splits_and_tiny_ones_are_beyond_the_cap() -> None:
    assert tasks_needed("a", "b", 6, 1, 1).needed is None
    tiny = tasks_needed("a", "b", 100, 11, 10)
    assert (tiny.needed, tiny.more_than_cap) == (None, True)


def test_the_section_and_the_headline_say_how_many(report: Report) -> None:
    section = report.sample_size
    assert section is not None
    assert (section.leader, section.runner_up, section.tasks) == ("alpha", "beta", 4)
    assert (section.leader_only, section.runner_up_only, section.needed) == (2, 0, 15)
    # 8 tasks mined, 4 counted: 15 counted take 30 mined, more than the whole history has.
    assert (section.mined, section.counted, section.stopped) == (8, 4, "end")
    assert (section.limit, section.history_has) == (None, False)
    first = (
        "Telling alpha from beta apart at the rates seen would take about 15 counted tasks "
        "(paired exact test at the 5% level with 80% power; alpha alone resolved 2 and beta "
        "alone 0 of 4, which gives this bout 0% power)."
    )
    assert section.sentences == [
        first,
        "Mining found 8 tasks in the whole history (4 counted), and 15 counted would take "
        "about 30 at that rate: raising `[tasks] limit` will not get there.",
    ]
    lead = report.headline.sentences.index(report.headline.lead_sentence)
    assert report.headline.sentences[lead + 1] == first
    # The headline's one p-value is the adjusted one, and says so.
    assert "(p = 1.00, adjusted for 3 comparisons)" in report.headline.lead_sentence


def test_a_limit_to_set_when_mining_stopped_at_its_limit(
    bout_records: list[dict[str, Any]],
) -> None:
    records = json.loads(json.dumps(bout_records))
    for record in records:
        if record["kind"] == "summary":
            record.update(stopped="limit", limit=8)
    section = build_report(records).sample_size
    assert section is not None
    assert (section.limit, section.history_has) == (30, None)
    assert section.sentences[1] == (
        "Mining stopped at its limit after 8 tasks, so the history has more: set "
        "`[tasks] limit = 30` (15 counted tasks at this bout's 4 counted of 8 mined)."
    )
