"""The built-in agent adapters.

Each is registered in the ``bugbout.agents`` entry-point group (see bb-race's
pyproject.toml), so ``bb_core.agents.agent_class("codex")`` finds it without importing
this package by name. The classes are also importable from here by their class names,
found through that registry and loaded on first use.
"""

from __future__ import annotations

from typing import Any

from bb_core.agents import adapter_classes

#: The class names of the built-in adapters.
BUILTINS = ("CommandAgent", "CodexAgent", "ClaudeCodeAgent", "GeminiCliAgent", "MiniSweAgent")

__all__ = sorted(BUILTINS)


def __getattr__(name: str) -> Any:
    for cls in adapter_classes().values():
        if cls.__name__ == name and cls.__module__.startswith(f"{__name__}."):
            return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
