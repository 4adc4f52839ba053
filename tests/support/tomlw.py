"""Writing the few TOML values the tests put into a bugbout.toml."""

from __future__ import annotations

import json
from typing import Any


def toml_value(value: Any) -> str:
    """*value* as TOML: a boolean, an integer, a string, or an inline table of those
    (its keys quoted, so any key is valid)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, dict):
        items = (f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items())
        return "{ " + ", ".join(items) + " }"
    raise TypeError(value)
