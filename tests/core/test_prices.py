"""Token prices, the cost of an attempt, and [prices] / cost-per-attempt in bugbout.toml."""

from __future__ import annotations

from pathlib import Path

import pytest
from bb_core.config import load_config
from bb_core.config.prices import (
    DEFAULT_PRICES,
    Price,
    attempt_cost,
    lookup,
    price_table,
    tokens_cost,
)
from bb_core.errors import ConfigError

TABLE = price_table({"house-model": Price(2.0, 8.0)})


def test_a_model_is_found_as_written_by_its_last_part_or_without_its_date() -> None:
    assert lookup(TABLE, "gpt-5") == ("gpt-5", DEFAULT_PRICES["gpt-5"])
    assert lookup(TABLE, "anthropic/claude-sonnet-4-5-20250929") == (
        "claude-sonnet-4-5",
        Price(3.0, 15.0, 0.30),
    )
    assert lookup(TABLE, "openai/house-model") == ("house-model", Price(2.0, 8.0))
    assert lookup(TABLE, "llama-3-local") is None
    assert lookup(TABLE, None) is None


def test_tokens_are_priced_fresh_cached_and_output_apart() -> None:
    # 1,000,000 input of which 400,000 cached, 100,000 output at gpt-5's 1.25 / 0.125 / 10:
    # 0.6 x 1.25 + 0.4 x 0.125 + 0.1 x 10 = 0.75 + 0.05 + 1.0 = 1.80 dollars.
    tokens = {"input": 1_000_000, "cached_input": 400_000, "output": 100_000, "total": 1_100_000}
    assert tokens_cost(tokens, DEFAULT_PRICES["gpt-5"]) == pytest.approx(1.80)
    # No cached price: cached input at the input price.
    assert tokens_cost(tokens, Price(2.0, 8.0)) == pytest.approx(2.0 + 0.8)


def test_an_attempts_cost_no_price_is_never_zero() -> None:
    tokens = {"input": 1000, "output": 500}
    assert attempt_cost(tokens, "gpt-5", TABLE) == {
        "usd": pytest.approx(0.00625),
        "basis": "tokens",
        "priced_as": "gpt-5",
    }
    assert attempt_cost(tokens, "mystery-1", TABLE) == {
        "usd": None,
        "basis": "tokens",
        "priced_as": None,
    }
    assert attempt_cost(None, "gpt-5", TABLE) is None  # nothing to price
    assert attempt_cost({}, None, TABLE, per_attempt=0.25) == {
        "usd": 0.25,
        "basis": "per-attempt",
        "priced_as": None,
    }


def test_prices_and_cost_per_attempt_in_bugbout_toml(tmp_path: Path) -> None:
    (tmp_path / "bugbout.toml").write_text(
        '[project]\nsource = "pkg"\n\n'
        '[prices]\n"gpt-5" = { input = 1.0, output = 9.0 }\n"house" = { input = 2, output = 8, cached = 0.5 }\n\n'
        '[[contestants]]\nagent = "command"\nname = "aider"\ncommand = ["aider"]\n'
        "cost-per-attempt = 0.4\n"
    )
    config = load_config(tmp_path)
    assert config.prices == {"gpt-5": Price(1.0, 9.0), "house": Price(2.0, 8.0, 0.5)}
    table = config.price_table()
    assert table["gpt-5"] == Price(1.0, 9.0)  # the file wins over the shipped table
    assert table["gemini-2.5-pro"] == DEFAULT_PRICES["gemini-2.5-pro"]
    [aider] = config.contestants
    assert aider.cost_per_attempt == 0.4 and "cost-per-attempt" not in aider.options
    assert config.with_overrides({}) == config  # and it round-trips


def test_a_price_missing_its_output_names_the_key(tmp_path: Path) -> None:
    (tmp_path / "bugbout.toml").write_text(
        '[project]\nsource = "pkg"\n[prices]\n"gpt-5" = { input = 1.0 }\n'
    )
    with pytest.raises(ConfigError, match=r"prices\.gpt-5"):
        load_config(tmp_path)
