"""Writes the usage line and the option table of each tool's page from its click command.

Each ``docs/bb-*.md`` page holds two generated regions, between ``<!-- usage -->`` and
``<!-- /usage -->`` and between ``<!-- options -->`` and ``<!-- /options -->``: the synopsis
and one table row per argument and option, each option's meaning being its ``--help``
text. So the page and ``--help`` cannot disagree. Run with ``--check`` to fail when a page
is out of date.
"""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

import click

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

#: Each tool, and where its click command is.
TOOLS = {
    "bb-mine": "bb_mine.cli:main",
    "bb-oracle": "bb_oracle.cli:main",
    "bb-race": "bb_race.cli:main",
    "bb-xexam": "bb_xexam.cli:main",
    "bb-judge": "bb_judge.cli:main",
    "bb-report": "bb_report.cli:main",
}

WIDTH = 92


def command(tool: str) -> click.Command:
    module, _, name = TOOLS[tool].partition(":")
    found = getattr(importlib.import_module(module), name)
    assert isinstance(found, click.Command)
    return found


def _shown(params: list[click.Parameter]) -> list[click.Parameter]:
    return [p for p in params if not getattr(p, "hidden", False) and p.name != "help"]


def _value(option: click.Option, ctx: click.Context) -> str:
    if isinstance(option.type, click.Choice):
        return "|".join(str(c) for c in option.type.choices)
    if option.metavar:
        return option.metavar
    if isinstance(option.type, click.types._NumberParamTypeBase):
        return "N"
    return option.type.get_metavar(option, ctx) or option.type.name.upper()


def synopsis_item(param: click.Parameter, ctx: click.Context) -> str:
    if isinstance(param, click.Argument):
        return param.make_metavar(ctx)
    assert isinstance(param, click.Option)
    if param.is_flag and param.secondary_opts:
        return f"[{param.opts[0]}/{param.secondary_opts[0]}]"
    name = max(param.opts, key=len)
    if param.is_flag or param.count:
        return f"[{name}]"
    item = f"[{name} {_value(param, ctx)}]"
    return item + "..." if param.multiple else item


def usage(tool: str) -> str:
    cmd = command(tool)
    ctx = click.Context(cmd, info_name=tool)
    lines = [tool]
    for item in (synopsis_item(p, ctx) for p in _shown(cmd.params)):
        if len(lines[-1]) + 1 + len(item) > WIDTH:
            lines.append(" " * len(tool))
        lines[-1] += " " + item
    return "\n".join(lines)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def rows(tool: str) -> list[str]:
    cmd = command(tool)
    ctx = click.Context(cmd, info_name=tool)
    out = []
    for param in _shown(cmd.params):
        if isinstance(param, click.Argument):
            names = f"`{param.make_metavar(ctx)}`"
            meaning = getattr(param, "help", None) or ""
        else:
            assert isinstance(param, click.Option)
            opts = sorted(param.opts, key=lambda o: not o.startswith("--"))
            opts += param.secondary_opts
            names = ", ".join(f"`{o}`" for o in opts)
            meaning = param.help or ""
            if isinstance(param.type, click.Choice):
                choices = [str(c) for c in param.type.choices]
                if not all(c in meaning for c in choices):
                    meaning += " One of " + ", ".join(choices) + "."
        if not meaning:
            raise SystemExit(f"{tool}: {names} has no help text")
        out.append(f"| {names} | {_cell(meaning)} |")
    return out


def table(tool: str) -> str:
    return "\n".join(["| Option | Meaning |", "|---|---|", *rows(tool)])


def _replace(page: str, region: str, body: str, tool: str) -> str:
    pattern = re.compile(rf"(<!-- {region} -->\n)(.*?)(<!-- /{region} -->)", re.DOTALL)
    if not pattern.search(page):
        raise SystemExit(f"docs/{tool}.md has no <!-- {region} --> region")
    return pattern.sub(lambda m: m.group(1) + body + "\n" + m.group(3), page, count=1)


def render(tool: str, page: str) -> str:
    page = _replace(page, "usage", f"```\n{usage(tool)}\n```", tool)
    return _replace(page, "options", table(tool), tool)


def main(argv: list[str]) -> int:
    stale = []
    for tool in TOOLS:
        path = DOCS / f"{tool}.md"
        current = path.read_text(encoding="utf-8")
        wanted = render(tool, current)
        if wanted == current:
            continue
        if "--check" in argv:
            stale.append(str(path.relative_to(ROOT)))
        else:
            path.write_text(wanted, encoding="utf-8")
    if stale:
        print(f"out of date: {', '.join(stale)}: run python scripts/cli_doc.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
