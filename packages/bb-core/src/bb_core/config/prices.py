"""What an attempt costs in money: token prices per model, and the cost of one attempt.

:data:`DEFAULT_PRICES` is a dated table (:data:`PRICES_DATE`) of the public list prices of
the built-in agents' common models, in US dollars per million tokens, standard tier (no
batch or priority discount, prompts under any long-context threshold); bugbout.toml's
``[prices]`` adds to it and wins over it. A model found in neither has no price, and its
attempts cost ``None`` - shown as "no price", never as zero.

An attempt's cost is its tokens at its model's price - input not read from a cache at the
input price, cached input at the cached price, output (reasoning included) at the output
price - or, when its agent has ``cost-per-attempt``, that.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: The date the default table's list prices hold for (check them: prices change).
PRICES_DATE = "2025-11-24"
#: Where the vendors publish them.
PRICES_SOURCE = (
    "openai.com/api/pricing, claude.com/pricing#api and ai.google.dev/gemini-api/docs/pricing"
)


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens."""

    input: float
    output: float
    #: Input read from a cache; None: the input price.
    cached: float | None = None


_GPT5 = Price(1.25, 10.0, 0.125)
_SONNET = Price(3.0, 15.0, 0.30)
_OPUS_45 = Price(5.0, 25.0, 0.50)
_OPUS_4 = Price(15.0, 75.0, 1.50)
_HAIKU = Price(1.0, 5.0, 0.10)

#: The shipped table: the models docs/agents.md names for codex, claude-code, gemini-cli
#: and mini-swe-agent (LiteLLM names match by their last part), and Claude Code's aliases.
DEFAULT_PRICES: dict[str, Price] = {
    "gpt-5": _GPT5,
    "gpt-5-codex": _GPT5,
    "gpt-5.1": _GPT5,
    "gpt-5.1-codex": _GPT5,
    "gpt-5-mini": Price(0.25, 2.0, 0.025),
    "gpt-5.1-codex-mini": Price(0.25, 2.0, 0.025),
    "gpt-5-nano": Price(0.05, 0.40, 0.005),
    "claude-sonnet-4-5": _SONNET,
    "claude-sonnet-4": _SONNET,
    "sonnet": _SONNET,
    "claude-opus-4-5": _OPUS_45,
    "opus": _OPUS_45,
    "claude-opus-4-1": _OPUS_4,
    "claude-haiku-4-5": _HAIKU,
    "haiku": _HAIKU,
    "gemini-2.5-pro": Price(1.25, 10.0, 0.125),
    "gemini-2.5-flash": Price(0.30, 2.50, 0.03),
    "gemini-2.5-flash-lite": Price(0.10, 0.40, 0.01),
}

_DATED = re.compile(r"-(?:\d{8}|\d{4}-\d{2}-\d{2})$")


def price_table(prices: Mapping[str, Price]) -> dict[str, Price]:
    """The default table with *prices* (bugbout.toml's ``[prices]``) on top."""
    return {**DEFAULT_PRICES, **prices}


def read_price(entry: Mapping[str, Any]) -> Price:
    """A ``[prices]`` entry (checked by the schema) as a :class:`Price`."""
    cached = entry.get("cached")
    return Price(
        float(entry["input"]), float(entry["output"]), None if cached is None else float(cached)
    )


def lookup(table: Mapping[str, Price], model: str | None) -> tuple[str, Price] | None:
    """The entry of *table* for *model*: its name as written, else its last part after a
    slash (``anthropic/claude-sonnet-4-5``), else that without a date at its end
    (``claude-sonnet-4-5-20250929``); None when none is there, or there is no model."""
    if not model:
        return None
    short = model.rsplit("/", 1)[-1]
    for name in (model, short, _DATED.sub("", short)):
        if name in table:
            return name, table[name]
    return None


def tokens_cost(tokens: Mapping[str, Any], price: Price) -> float:
    """Dollars for *tokens* (bugbout's token fields: ``input`` includes ``cached_input``)."""
    cached = int(tokens.get("cached_input", 0))
    fresh = max(int(tokens.get("input", 0)) - cached, 0)
    output = int(tokens.get("output", 0))
    cached_price = price.input if price.cached is None else price.cached
    return (fresh * price.input + cached * cached_price + output * price.output) / 1_000_000


def attempt_cost(
    tokens: Mapping[str, Any] | None,
    model: str | None,
    table: Mapping[str, Price],
    per_attempt: float | None = None,
) -> dict[str, Any] | None:
    """The attempt's ``cost`` field: by *per_attempt* when given, else its *tokens* at
    *model*'s price (``usd`` None when the model has no price); None when there is neither
    a per-attempt cost nor a token count to price."""
    if per_attempt is not None:
        return {"usd": float(per_attempt), "basis": "per-attempt", "priced_as": None}
    if not tokens or not ({"input", "output"} & set(tokens)):
        return None
    found = lookup(table, model)
    if found is None:
        return {"usd": None, "basis": "tokens", "priced_as": None}
    name, price = found
    return {"usd": round(tokens_cost(tokens, price), 6), "basis": "tokens", "priced_as": name}
