"""Which coding agent fixes bugs in your codebase? The umbrella CLI and Python API.

::

    from bugbout import Bout, Project, render_markdown

    report = Bout.load("bugbout.toml").run()      # the whole bout, kept in .bugbout/
    print(render_markdown(report))

    report = Bout(Project.load("."), contestants=[MyAgent("my-model")]).run()

Adapters subclass :class:`CodingAgent` (``invocation(session) -> Invocation``); the
built-in ones (:class:`CodexAgent`, :class:`ClaudeCodeAgent`, :class:`GeminiCliAgent`,
:class:`MiniSweAgent`, :class:`CommandAgent`) are importable from here too.
"""

from __future__ import annotations

from typing import Any

from bb_core import package_version
from bb_core.agents import CodingAgent, Invocation, Session, adapter_classes, register
from bb_core.sandbox import Confinement
from bb_report import Report, render, render_html, render_markdown, render_terminal, report_to_json

from bugbout.bout import Bout, Project

__version__ = package_version("bugbout")


__all__ = [
    "ADAPTERS",
    "Bout",
    "ClaudeCodeAgent",
    "CodexAgent",
    "CodingAgent",
    "CommandAgent",
    "Confinement",
    "GeminiCliAgent",
    "Invocation",
    "MiniSweAgent",
    "Project",
    "Report",
    "Session",
    "adapters",
    "register",
    "render",
    "render_html",
    "render_markdown",
    "render_terminal",
    "report_to_json",
]


def adapters() -> dict[str, type[CodingAgent]]:
    """Every adapter this installation knows (built in, published through the
    ``bugbout.agents`` entry points, or registered), by agent type name."""
    return adapter_classes()


def __getattr__(name: str) -> Any:
    """An adapter class by its class name (``bugbout.CodexAgent``), loaded on first use;
    ``ADAPTERS``: the class names of every adapter known."""
    known = adapter_classes()
    if name == "ADAPTERS":
        return tuple(cls.__name__ for cls in known.values())
    for cls in known.values():
        if cls.__name__ == name:
            return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
