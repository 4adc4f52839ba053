"""Each attempt's cost as the race writes it: by [prices] and cost-per-attempt, now."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bb_core.config import load_config
from bb_race.cost import Pricing

QUICK = """
pathlib.Path("src/textkit/quick_fix.py").write_text("FIXED = True\\n")
"""


def test_a_command_agent_is_priced_by_its_cost_per_attempt(
    race_project: Any, demo_tasks: Any, race_lib: Any
) -> None:
    project = race_project(
        {"flat": QUICK, "free": QUICK}, options={"flat": {"cost-per-attempt": 0.25}}
    )
    tasks = project.write_tasks(demo_tasks.pick("User Name"))
    [record] = race_lib(project, tasks).records
    flat, free = record["attempts"]
    assert flat["cost"] == {"usd": 0.25, "basis": "per-attempt", "priced_as": None}
    assert "cost" not in free  # no tokens, no per-attempt cost: nothing to price
    # Repriced, never re-run: a new cost-per-attempt changes the line the next race writes.
    project = race_project(
        {"flat": QUICK, "free": QUICK}, options={"flat": {"cost-per-attempt": 0.5}}
    )
    [again] = race_lib(project, tasks).records
    assert again["attempts"][0]["cost"]["usd"] == 0.5
    assert again["attempts"][0]["started"] == flat["started"]


def test_tokens_are_priced_by_the_model_and_the_cost_follows_them(tmp_path: Path) -> None:
    (tmp_path / "bugbout.toml").write_text(
        '[project]\nsource = "pkg"\n[prices]\n"house" = { input = 2.0, output = 8.0 }\n'
    )
    pricing = Pricing(load_config(tmp_path))
    base = {"kind": "attempt", "agent": "a", "model": "house", "tokens": {"input": 10**6,
            "output": 10**5}, "logdir": "/x"}  # fmt: skip
    priced = pricing.priced(base)
    assert list(priced) == ["kind", "agent", "model", "tokens", "cost", "logdir"]
    assert priced["cost"] == {"usd": 2.8, "basis": "tokens", "priced_as": "house"}
    unknown = pricing.priced({**base, "model": "mystery"})
    assert unknown["cost"] == {"usd": None, "basis": "tokens", "priced_as": None}
    assert pricing.priced({**base, "model": None})["cost"]["usd"] is None  # the CLI's default
