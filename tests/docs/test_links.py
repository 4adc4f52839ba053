"""Every relative link in README.md and docs/ points at a file that exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _relative_links(page: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    return [t for t in LINK.findall(text) if not re.match(r"[a-z]+:", t) and not t.startswith("#")]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_relative_links_resolve(page: Path) -> None:
    broken = [
        target
        for target in _relative_links(page)
        if not (page.parent / target.split("#", 1)[0]).exists()
    ]
    assert broken == []


def test_every_tool_has_a_page() -> None:
    for tool in ("bb-mine", "bb-oracle", "bb-race", "bb-xexam", "bb-judge", "bb-report", "bugbout"):
        assert (ROOT / "docs" / f"{tool}.md").is_file(), tool
