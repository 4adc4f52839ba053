"""Find the text an agent will read for a task: the issue, as it was reported.

Sources, in order: an offline export of issues (JSON lines), the GitHub REST API, and
last the change's own message. When a pull request closes an issue, the issue's text is
used, because it was written before anyone knew the answer. An export makes mining
offline: GitHub is not asked when one is given.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from bb_core.errors import BadRecord, UsageError
from bb_core.records import json_type

from bb_mine.github import GitHub, GitHubUnavailable, NotFound
from bb_mine.rules import ChangeText, IssueRef, closing_refs

_TRAILER = re.compile(
    r"^(?:Signed-off-by|Co-authored-by|Reviewed-by|Acked-by|Change-Id|Tested-by):", re.IGNORECASE
)


@dataclass(frozen=True, slots=True)
class Issue:
    """An issue or pull request from any source."""

    number: int
    title: str
    body: str
    is_pull_request: bool = False
    closes: tuple[int, ...] = ()
    url: str = ""
    repo: str | None = None


@dataclass(slots=True)
class Statement:
    """What was found: the text before redaction, where it came from and what it names."""

    title: str
    body: str
    source: str  # "export", "github" or "commit"
    url: str = ""
    issue: Issue | None = None
    via_pull_request: int | None = None
    notes: list[str] = field(default_factory=list)
    keys: set[tuple[str, int]] = field(default_factory=set)

    @property
    def text(self) -> str:
        return f"{self.title}\n\n{self.body}".strip()


class IssueExport:
    """An offline export: one JSON object a line with number, title, body, is_pull_request, closes."""

    def __init__(self, items: dict[int, Issue], path: Path, fingerprint: str = "") -> None:
        self.items = items
        self.path = path
        self.fingerprint = fingerprint

    @classmethod
    def load(cls, path: str | Path) -> IssueExport:
        file = Path(path)
        try:
            raw_lines = file.read_bytes().splitlines()
        except OSError as exc:
            raise UsageError(f"cannot read issues file {file}: {exc.strerror or exc}") from exc
        items: dict[int, Issue] = {}
        for lineno, raw in enumerate(raw_lines, 1):
            if not raw.strip():
                continue
            issue = _parse_export_line(raw, str(file), lineno)
            items[issue.number] = issue
        return cls(items, file, hashlib.sha256(b"\n".join(raw_lines)).hexdigest())

    def get(self, ref: IssueRef) -> Issue | None:
        if ref.repo:
            return None
        return self.items.get(ref.number)


def _parse_export_line(raw: bytes, source: str, lineno: int) -> Issue:
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise BadRecord(source, lineno, "$", f"not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise BadRecord(source, lineno, "$", f"expected a JSON object, got {json_type(data)}")

    def need(key: str, kinds: tuple[type, ...], label: str, *, required: bool = False) -> Any:
        if key not in data or data[key] is None:
            if required:
                raise BadRecord(source, lineno, key, "required field missing")
            return None
        value = data[key]
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            raise BadRecord(source, lineno, key, f"expected {label}, got {json_type(value)}")
        return value

    number = need("number", (int,), "an integer", required=True)
    if number < 0:
        raise BadRecord(source, lineno, "number", "expected a positive integer")
    title = need("title", (str,), "a string") or ""
    body = need("body", (str,), "a string") or ""
    is_pr = bool(need("is_pull_request", (bool,), "true or false"))
    closes = need("closes", (list,), "an array") or []
    for index, item in enumerate(closes):
        if not isinstance(item, int) or isinstance(item, bool):
            raise BadRecord(
                source, lineno, f"closes[{index}]", f"expected an integer, got {json_type(item)}"
            )
    url = need("url", (str,), "a string") or need("html_url", (str,), "a string") or ""
    return Issue(number, title, body, is_pr, tuple(closes), url)


class StatementFinder:
    """Looks up each task's statement in the export, on GitHub, else in the commit."""

    def __init__(
        self,
        *,
        export: IssueExport | None = None,
        github: GitHub | None = None,
        warn: Callable[[str], None] = lambda message: None,
    ) -> None:
        self.export = export
        self.github = github
        self.warn = warn
        self._warned = False

    @property
    def degraded(self) -> bool:
        """True once GitHub stopped answering during this run."""
        return self._warned

    def find(self, refs: list[IssueRef], change: ChangeText) -> Statement:
        notes: list[str] = []
        keys = {ref.key for ref in refs}
        for ref in refs:
            item, source = self._lookup(ref, notes)
            if item is None:
                continue
            if item.is_pull_request:
                for closed in item.closes:
                    issue, issue_source = self._lookup(
                        IssueRef(closed, f"#{closed}", ref.repo), notes
                    )
                    if issue is not None and not issue.is_pull_request:
                        keys.add(((ref.repo or "").lower(), issue.number))
                        return Statement(
                            issue.title,
                            issue.body,
                            issue_source,
                            issue.url,
                            issue,
                            item.number,
                            notes,
                            keys,
                        )
            return Statement(item.title, item.body, source, item.url, item, None, notes, keys)
        return Statement(
            change.title, _without_trailers(change.body), "commit", notes=notes, keys=keys
        )

    def _lookup(self, ref: IssueRef, notes: list[str]) -> tuple[Issue | None, str]:
        label = f"{ref.repo}#{ref.number}" if ref.repo else f"#{ref.number}"
        if self.export is not None:
            found = self.export.get(ref)
            if found is None:
                notes.append(f"{label} is not in the issues export")
            return found, "export"
        if self.github is None:
            return None, "commit"
        try:
            item = self.github.item(ref.number, ref.repo)
        except NotFound:
            notes.append(f"{label} was not found on GitHub (404)")
            return None, "github"
        except GitHubUnavailable as exc:
            if not self._warned:
                self._warned = True
                self.warn(str(exc))
            notes.append(f"{label} could not be read from GitHub ({exc.short})")
            return None, "github"
        closes: tuple[int, ...] = ()
        if item.is_pull_request:
            closes = tuple(
                r.number for r in closing_refs(item.body, self.github.repo) if r.repo is None
            )
        return Issue(
            item.number, item.title, item.body, item.is_pull_request, closes, item.url, ref.repo
        ), "github"


def _without_trailers(body: str) -> str:
    return "\n".join(line for line in body.splitlines() if not _TRAILER.match(line)).strip()
