"""The built-in agent adapters.

Each is registered in the ``bugbout.agents`` entry-point group (see bb-race's
pyproject.toml), so ``bb_core.agents.agent_class("codex")`` finds it without importing
this package by name. The classes are also importable from here, loaded on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

#: Class name -> module, for every built-in adapter.
BUILTINS = {
    "CommandAgent": "bb_race.adapters.command",
    "CodexAgent": "bb_race.adapters.codex",
    "ClaudeCodeAgent": "bb_race.adapters.claude_code",
    "GeminiCliAgent": "bb_race.adapters.gemini_cli",
    "MiniSweAgent": "bb_race.adapters.mini_swe_agent",
}

__all__ = sorted(BUILTINS)


def __getattr__(name: str) -> Any:
    module = BUILTINS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
