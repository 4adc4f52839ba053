"""The report as GitHub-flavoured Markdown: headings, pipe tables, notes as quotes.

Text from the records (titles, agent names, test ids) is escaped so that it can neither
break a table (``|``) nor turn into markup (``*``, ``_``, ``<``...).
"""

from __future__ import annotations

import re

from bb_core.cli.tables import markdown

from bb_report.blocks import Block, Cell, Document, Notes, Table, Text
from bb_report.data import Report
from bb_report.layout import document

_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&])")
_LEADING_MARK = re.compile(r"^([#+\-=])")
_LEADING_NUMBER = re.compile(r"^(\d+)([.)])")


def escape(text: str) -> str:
    """*text* as literal Markdown, on one line: emphasis, code, links, HTML, table pipes
    and a leading heading or list marker are all escaped."""
    flat = _SPECIAL.sub(r"\\\1", " ".join(text.split()))
    flat = _LEADING_MARK.sub(r"\\\1", flat)
    return _LEADING_NUMBER.sub(r"\1\\\2", flat)


def _cell(cell: Cell) -> str:
    return escape(cell.text)


def _table(table: Table) -> str:
    rows = [[_cell(c) for c in row] for row in table.rows]
    if table.total is not None:
        rows.append([f"**{_cell(c)}**" if c.text else "" for c in table.total])
    sample = table.rows[0] if table.rows else table.total or []
    return markdown([escape(h) for h in table.headers], rows, [c.numeric for c in sample])


def _block(block: Block) -> str:
    if isinstance(block, Table):
        return _table(block)
    if isinstance(block, Text):
        if block.bullets:
            return "\n".join(f"- {escape(line)}" for line in block.lines)
        return "\n\n".join(escape(line) for line in block.lines)
    if isinstance(block, Notes):
        return "\n>\n".join(f"> {escape(line)}" for line in block.lines)
    raise TypeError(block)


def render_document(doc: Document) -> str:
    parts = [f"# {escape(doc.title)}"]
    if doc.headline:
        parts.append("\n".join(f"**{escape(line)}**  " for line in doc.headline).rstrip())
    parts.append(escape(doc.summary))
    if doc.notes:
        parts.append("\n>\n".join(f"> {escape(n)}" for n in doc.notes))
    for section in doc.sections:
        parts.append(f"## {escape(section.title)}")
        parts.append(f"*{escape(section.lead)}*")
        if not section.blocks:
            parts.append("Nothing to show yet.")
        parts.extend(_block(block) for block in section.blocks)
    return "\n\n".join(parts) + "\n"


def render_markdown(report: Report) -> str:
    """The report as GitHub-flavoured Markdown."""
    return render_document(document(report))
