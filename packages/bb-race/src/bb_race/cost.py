"""Each attempt's ``cost`` as the race writes its line: by bugbout.toml's prices now.

The cost is worked out when the task line is written, for fresh and stored attempts
alike, so a stored attempt is priced by the table of the race that writes it (a price
changed in ``[prices]`` reprices every attempt on the next race; nothing runs again).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bb_core.config import Config
from bb_core.config.prices import attempt_cost


class Pricing:
    """The prices and per-attempt costs of one configuration."""

    def __init__(self, config: Config) -> None:
        self.table = config.price_table()
        self.per_attempt = {
            a.name: a.cost_per_attempt for a in config.agents if a.cost_per_attempt is not None
        }

    def priced(self, attempt: Mapping[str, Any]) -> dict[str, Any]:
        """*attempt* with its ``cost`` (right after ``tokens``, else last), or without one
        when there is nothing to price it by."""
        cost = attempt_cost(
            attempt.get("tokens"),
            attempt.get("model"),
            self.table,
            self.per_attempt.get(str(attempt.get("agent"))),
        )
        out: dict[str, Any] = {}
        for key, value in attempt.items():
            if key == "cost":
                continue
            out[key] = value
            if key == "tokens" and cost is not None:
                out["cost"] = cost
        if cost is not None and "cost" not in out:
            out["cost"] = cost
        return out
