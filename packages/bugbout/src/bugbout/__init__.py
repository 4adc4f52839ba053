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
from bb_core.agents import CodingAgent, Invocation, Session, register
from bb_core.sandbox import Confinement
from bb_report import Report, render, render_html, render_markdown, render_terminal, report_to_json

from bugbout.bout import Bout, Project

__version__ = package_version("bugbout")

#: The built-in adapters, loaded from bb-race on first use.
ADAPTERS = ("CommandAgent", "CodexAgent", "ClaudeCodeAgent", "GeminiCliAgent", "MiniSweAgent")

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
    "register",
    "render",
    "render_html",
    "render_markdown",
    "render_terminal",
    "report_to_json",
]


def __getattr__(name: str) -> Any:
    if name in ADAPTERS:
        from bb_race import adapters

        return getattr(adapters, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
