"""Find the text an agent will read for a task: the issue, as it was reported.

Issue texts come from an offline export of issues (JSON lines) or the GitHub REST API;
an export makes mining offline: GitHub is not asked when one is given. The statement is
the first of these that redaction leaves enough of (:func:`choose`): the issue, because it
was written before anyone knew the answer (when a pull request closes an issue, that
issue), then the pull request, then the commit message, then the commit title alone.
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
from bb_core.records import json_type, kinds

from bb_mine.github import GitHub, GitHubUnavailable, NotFound, label_names
from bb_mine.redact import RULES, Redacted, redact, sentence_count
from bb_mine.reveals import FixFacts
from bb_mine.rules import (
    CLOSING_TEXT,
    REF_TEXT,
    ChangeText,
    IssueRef,
    claimed_keys,
    closing_refs,
    is_bug_label,
)

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
    #: Its labels (``bug``, ``regression``, ``enhancement`` ...).
    labels: tuple[str, ...] = ()


#: What a statement can be, in the order it falls back.
KINDS: tuple[kinds.TaskStatementKind, ...] = ("issue", "pull-request", "commit-message", "title")


@dataclass(slots=True)
class Statement:
    """What was found: the text before redaction, where it came from and what it names."""

    title: str
    body: str
    source: kinds.TaskStatementSource
    url: str = ""
    issue: Issue | None = None
    via_pull_request: int | None = None
    notes: list[str] = field(default_factory=list)
    keys: set[tuple[str, int]] = field(default_factory=set)
    kind: kinds.TaskStatementKind = "issue"

    @property
    def text(self) -> str:
        return f"{self.title}\n\n{self.body}".strip()

    @property
    def label(self) -> str:
        """``issue #12``, ``pull request #3``, ``the commit message``, ``the commit title``."""
        if self.kind == "commit-message":
            return "the commit message"
        if self.kind == "title":
            return "the commit title"
        number = self.issue.number if self.issue is not None else "?"
        return f"{'pull request' if self.kind == 'pull-request' else 'issue'} #{number}"


@dataclass(slots=True)
class Chosen:
    """The statement a task gets: the first candidate redaction leaves enough of."""

    statement: Statement
    redacted: Redacted
    sentences: int
    #: Each candidate passed over, in order: ``{"kind", "reason"}`` (and ``number``).
    fallbacks: list[kinds.TaskStatementFallback] = field(default_factory=list)
    #: No candidate kept enough: this one is what was left (``[tasks] keep-thin-statements``).
    thin: bool = False


#: The fewest words a title must keep to be a statement on its own.
TITLE_WORDS = 3

#: What git writes in a merge's title, and issue references: no words of the problem.
_NOT_WORDS = re.compile(
    r"^Merge (?:pull request #\d+ from \S+|(?:remote-tracking )?branch '[^']*'(?: of \S+)?"
    r"(?: into \S+)?)"
    r"|\b" + CLOSING_TEXT + r"\b:?\s*(?=" + REF_TEXT + r")|" + REF_TEXT,
    re.IGNORECASE,
)


def title_words(title: str) -> int:
    """The words of *title* that can say something of the problem: not git's merge
    boilerplate (``Merge branch 'fix-caller'``), not issue references (``fixes #5``)."""
    return len([w for w in _NOT_WORDS.sub(" ", title).split() if any(c.isalnum() for c in w)])


def choose(
    candidates: list[Statement],
    names: list[str],
    patch: str,
    *,
    min_sentences: int = 1,
    tests: list[str] | tuple[str, ...] = (),
    test_patch: str = "",
    keep_thin: bool = False,
    dropped: list[dict[str, str]] | None = None,
    node: bool = False,
) -> tuple[Chosen | None, list[kinds.TaskStatementFallback]]:
    """The first of *candidates* that keeps at least *min_sentences* sentences beyond its
    title once redacted (the bare title: at least :data:`TITLE_WORDS` words), and every
    candidate passed over with the reason. None when no candidate is usable, unless
    *keep_thin*: then the first that keeps any text, marked :attr:`Chosen.thin`. *tests*
    are the fix's test files: a sentence naming one is dropped; *test_patch* their change,
    whose names are the interface a statement may ask for. Each text that redaction
    removed from a candidate passed over is added to *dropped* (``kind``, ``rule``,
    ``text``), for ``--explain``. *node*: the fix is a JavaScript or TypeScript project's."""
    fallbacks: list[kinds.TaskStatementFallback] = []
    fix = FixFacts.of(names, patch, tests, test_patch, node=node)
    thin: Chosen | None = None
    for candidate in candidates:
        title = redact(candidate.title, fix=fix, title=True)
        body = redact(candidate.body, fix=fix)
        merged = Redacted(
            text=f"{title.text}\n\n{body.text}".strip(),
            counts={rule: title.counts[rule] + body.counts[rule] for rule in RULES},
            removed=[*title.removed, *body.removed],
        )
        # A commit's list items are its squashed commits' titles, not the problem's words.
        sentences = sentence_count(body.text, items=candidate.kind != "commit-message")
        if candidate.kind == "title":
            words = title_words(title.text)
            if words >= TITLE_WORDS:
                return Chosen(candidate, merged, 0, fallbacks), fallbacks
            reason = (
                f"{candidate.label} keeps {words} word{'s' * (words != 1)} once redacted; "
                f"at least {TITLE_WORDS} are needed"
            )
        elif sentences >= min_sentences:
            return Chosen(candidate, merged, sentences, fallbacks), fallbacks
        elif not sentence_count(candidate.body):
            reason = f"{candidate.label} has no text beyond its title"
        else:
            reason = (
                f"{candidate.label} keeps {sentences} sentence{'s' * (sentences != 1)} beyond "
                f"its title once redacted ({_removed(body)}); at least {min_sentences} needed"
            )
        entry: kinds.TaskStatementFallback = {"kind": candidate.kind, "reason": reason}
        if candidate.issue is not None and candidate.kind in ("issue", "pull-request"):
            entry["number"] = candidate.issue.number
        fallbacks.append(entry)
        if dropped is not None:
            dropped.extend(
                {"kind": candidate.kind, "rule": r["rule"], "text": r["text"]}
                for r in merged.removed
            )
        if keep_thin and thin is None and title_words(merged.text):
            # what is left of the first text that keeps any words; passed over: those before
            thin = Chosen(candidate, merged, sentences, fallbacks[:-1], thin=True)
    if thin is not None:
        return thin, fallbacks
    return None, fallbacks


def _removed(redacted: Redacted) -> str:
    parts = [f"{n} {rule.replace('_', ' ')}" for rule, n in redacted.counts.items() if n]
    return "removed: " + ", ".join(parts) if parts else "nothing removed"


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

    @property
    def has_bug_labels(self) -> bool:
        """Whether any item of the export carries a bug label (else no label makes a fix)."""
        return any(is_bug_label(item.labels) for item in self.items.values())

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
    labels = need("labels", (list,), "an array") or []
    for index, item in enumerate(labels):
        name = item.get("name") if isinstance(item, dict) else item
        if not isinstance(name, str):
            raise BadRecord(
                source, lineno, f"labels[{index}]",
                f"expected a string or an object with a name, got {json_type(item)}",
            )  # fmt: skip
    return Issue(number, title, body, is_pr, tuple(closes), url, labels=label_names(labels))


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

    def bug_labelled(self, refs: list[dict[str, Any]]) -> bool | None:
        """Whether an issue or pull request the change names (or an issue such a pull
        request closes) carries a bug label: known at once from an export, None when only
        GitHub can say (it is asked when the change is written as a task), False when no
        labels can be read."""
        if self.export is None:
            return None if self.github is not None else False
        for ref in refs:
            item = self.export.get(IssueRef(int(ref["number"]), str(ref["text"]), ref.get("repo")))
            if item is None:
                continue
            closed = [self.export.items.get(n) for n in item.closes] if item.is_pull_request else []
            for found in (item, *closed):
                if found is not None and is_bug_label(found.labels):
                    return True
        return False

    def find(self, refs: list[IssueRef], change: ChangeText) -> list[Statement]:
        """Every text the task's statement may come from, in fallback order: the issues the
        change names (an issue a named pull request closes before that pull request), the
        pull requests, the commit message, and the commit title alone."""
        notes: list[str] = []
        keys = claimed_keys(refs)
        issues: list[Statement] = []
        pulls: list[Statement] = []
        # What the change claims first; an issue it only mentions ("introduced by #3126")
        # speaks only when those have nothing to say.
        for ref in sorted(refs, key=lambda r: r.mentioned):
            item, source = self._lookup(ref, notes)
            if item is None:
                continue
            if not item.is_pull_request:
                issues.append(Statement(item.title, item.body, source, item.url, item))
                continue
            for closed in item.closes:
                issue, issue_source = self._lookup(IssueRef(closed, f"#{closed}", ref.repo), notes)
                if issue is not None and not issue.is_pull_request:
                    if not ref.mentioned:
                        keys.add(((ref.repo or "").lower(), issue.number))
                    issues.append(
                        Statement(
                            issue.title, issue.body, issue_source, issue.url, issue, item.number
                        )
                    )
            pulls.append(
                Statement(item.title, item.body, source, item.url, item, kind="pull-request")
            )
        found = [*issues, *pulls]
        body = _without_trailers(change.body)
        if body:
            found.append(Statement(change.title, body, "commit", kind="commit-message"))
        found.append(Statement(change.title, "", "commit", kind="title"))
        for statement in found:
            statement.notes, statement.keys = notes, keys
        return found

    def _lookup(
        self, ref: IssueRef, notes: list[str]
    ) -> tuple[Issue | None, kinds.TaskStatementSource]:
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
            item.number, item.title, item.body, item.is_pull_request, closes, item.url, ref.repo,
            item.labels,
        ), "github"  # fmt: skip


def labels_of(found: list[Statement]) -> list[str]:
    """The labels of every issue and pull request among *found*, lower-cased, sorted."""
    return sorted(
        {label.strip().lower() for s in found if s.issue is not None for label in s.issue.labels}
    )


#: What a hosted service writes into squashed commit messages: pre-commit.ci's commits
#: (a bullet and the line after it).
_SERVICE_NOISE = re.compile(
    r"^\s*(?:[-*]\s+)?\[pre-commit\.ci\].*$|^for more information, see https://pre-commit\.ci\s*$",
    re.IGNORECASE,
)
_RULE = re.compile(r"^-{3,}\s*$")
#: git's line in a revert's message, kept in a squashed commit's body.
_REVERTS = re.compile(r"^\s*(?:[-*]\s+)?This reverts commit [0-9a-f]{7,40}\.?\s*$")
#: A trailer's name and address wrapped onto the next line.
_WRAPPED = re.compile(r"^\s*<[^<>\s]+@[^<>\s]+>\s*$")


def _without_trailers(body: str) -> str:
    """A commit's body without its trailers (``Co-authored-by:`` ..., an address wrapped onto
    the next line too), git's "This reverts commit ..." lines, the lines a hosted
    service adds to a squashed message (see :data:`_SERVICE_NOISE`), and the rule GitHub
    puts before the trailers (dashes after a blank line; under a line of text, dashes
    make a heading and stay)."""
    kept: list[str] = []
    trailer = False
    for line in body.splitlines():
        wrapped = trailer and _WRAPPED.match(line)
        trailer = bool(_TRAILER.match(line))
        if trailer or wrapped or _SERVICE_NOISE.match(line) or _REVERTS.match(line):
            continue
        if _RULE.match(line) and (not kept or not kept[-1].strip()):
            continue
        kept.append(line)
    return "\n".join(kept).strip()
