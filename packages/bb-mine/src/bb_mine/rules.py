"""The cheap rules, read from a commit's text alone: does it fix something, which issues.

These run before any tree is opened, so a long history costs little more than reading
its commit messages.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from bb_core.paths.discovery import holds_pytest_config as holds_pytest_config
from bb_core.records import kinds

from bb_mine.intent import (
    describes_fix,
    describes_wrong_behaviour,
    fix_branch,
    not_a_fix_type,
)

#: Whole words (any case) that make a title read like a fix.
FIX_WORDS = (
    "fix",
    "fixes",
    "fixed",
    "fixing",
    "bugfix",
    "hotfix",
    "bug",
    "bugs",
    "crash",
    "crashes",
    "crashed",
    "crashing",
    "regression",
    "regressions",
)

_FIX_TITLE = re.compile(r"(?<!\w)(?:" + "|".join(FIX_WORDS) + r")(?![\w])", re.IGNORECASE)

_MERGE_PR = re.compile(r"^Merge pull request #(\d+) from (?P<from>\S+)", re.IGNORECASE)
_MERGE_BRANCH = re.compile(r"^Merge (?:remote-tracking )?branch '(?P<branch>[^']+)'", re.IGNORECASE)

_MERGE_ANY = re.compile(
    r"^Merge (?:branch|remote-tracking branch|pull request|tag) ", re.IGNORECASE
)

_CLOSING = r"(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)"
_REPO = r"[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9_.-]+"
_REF = re.compile(
    r"(?P<url>https?://[^\s/]+/(?P<urepo>" + _REPO + r")/(?:issues|pull)/(?P<unum>\d+))"
    r"|(?P<gh>\bGH-(?P<ghnum>\d+)\b)"
    r"|(?P<hash>(?<![\w/&#])(?:(?P<hrepo>" + _REPO + r"))?#(?P<hnum>\d+)(?![\w]))",
    re.IGNORECASE,
)
_CLOSING_BEFORE = re.compile(_CLOSING + r":?\s*$", re.IGNORECASE)

#: Pattern text for other modules' patterns: a closing keyword, and an issue or pull
#: request as a change names it (``#12``, ``owner/repo#12``, ``GH-12``, an issue URL).
CLOSING_TEXT = _CLOSING
REF_TEXT = r"(?:" + _REPO + r")?#\d+|GH-\d+|https?://\S+/(?:issues|pull)/\d+\S*"


@dataclass(frozen=True, slots=True)
class IssueRef:
    """One issue or pull request a change names. ``repo`` is None for this repository;
    ``mentioned``: named only in the body, without a closing keyword ("a regression
    introduced by #3126"), so the change does not claim it (see :func:`claimed_keys`)."""

    number: int
    text: str
    repo: str | None = None
    closing: bool = False
    mentioned: bool = False

    @property
    def key(self) -> tuple[str, int]:
        return ((self.repo or "").lower(), self.number)

    def to_record(self) -> kinds.TaskIssueRef:
        record: kinds.TaskIssueRef = {"number": self.number, "text": self.text}
        if self.repo:
            record["repo"] = self.repo
        return record

    def to_fact(self) -> dict[str, object]:
        """As the mining cache keeps it: the task's record, and how the change names it."""
        fact: dict[str, object] = dict(self.to_record())
        if self.closing:
            fact["closing"] = True
        if self.mentioned:
            fact["mentioned"] = True
        return fact

    @classmethod
    def from_fact(cls, fact: dict[str, Any]) -> IssueRef:
        """The reference :meth:`to_fact` kept."""
        return cls(
            fact["number"],
            fact["text"],
            fact.get("repo"),
            fact.get("closing", False),
            fact.get("mentioned", False),
        )


@dataclass(frozen=True, slots=True)
class ChangeText:
    """What a landed change says about itself: its title and the rest of its message.

    For a pull request's merge commit this is the pull request's title and body, and
    ``pull_request`` is its number.
    """

    title: str
    body: str
    pull_request: int | None = None
    #: The merged branch's name, for a merge commit that says it (``fix/sliced-negative-n``).
    branch: str | None = None


def change_text(message: str, is_merge: bool) -> ChangeText:
    """The title and body of a change; a merge commit speaks with its merged PR's words."""
    lines = message.strip().splitlines()
    if not lines:
        return ChangeText("", "")
    first = lines[0].strip()
    rest = "\n".join(lines[1:]).strip()
    if is_merge:
        pr = _MERGE_PR.match(first)
        if pr or _MERGE_ANY.match(first):
            number = int(pr.group(1)) if pr else None
            branch = _branch(first)
            body_lines = rest.splitlines()
            if body_lines:
                title = body_lines[0].strip()
                body = "\n".join(body_lines[1:]).strip()
                return ChangeText(title, body, number, branch)
            return ChangeText(first, "", number, branch)
    return ChangeText(first, rest)


def _branch(first_line: str) -> str | None:
    """The merged branch named by a merge commit's first line, without its owner or remote."""
    pr = _MERGE_PR.match(first_line)
    if pr:
        source = pr.group("from")
        return source.split("/", 1)[1] if "/" in source else source
    named = _MERGE_BRANCH.match(first_line)
    if named:
        branch = named.group("branch")
        return branch.split("/", 1)[1] if branch.startswith("origin/") else branch
    return None


def reads_like_fix(title: str) -> bool:
    """True when *title* holds a fix word (fix, bug, crash, regression ...) as a whole word."""
    return bool(_FIX_TITLE.search(title))


_CLOSING_ANYWHERE = re.compile(
    r"(?<!\w)" + _CLOSING + r":?\s+(?:#\d|GH-\d|https?://\S+/(?:issues|pull)/\d|" + _REPO + r"#\d)",
    re.IGNORECASE,
)


def might_signal_fix(title: str, message: str) -> bool:
    """A quick test that rules out most commits: no fix word in the title, no closing
    keyword anywhere in the message and no account of wrong behaviour in it means no fix
    signal."""
    return (
        bool(_FIX_TITLE.search(title))
        or (
            ("#" in message or "GH-" in message or "/issues/" in message or "/pull/" in message)
            and bool(_CLOSING_ANYWHERE.search(message))
        )
        or describes_wrong_behaviour(message)
    )


def _names_a_bug(body: str) -> bool:
    """Whether *body* names a bug: wrong behaviour, or a fix word that is not a closing
    keyword's ("Fixes #476" names an issue, not a bug)."""
    return describes_wrong_behaviour(body) or reads_like_fix(_CLOSING_ANYWHERE.sub("", body))


def might_name_issue(message: str) -> bool:
    """A quick test that rules out most commits naming no issue or pull request."""
    return "#" in message or "GH-" in message or "/issues/" in message or "/pull/" in message


def fix_signals(
    message: str, text: ChangeText, is_merge: bool, own_repo: str | None = None
) -> list[str]:
    """What says a change is a fix, in the order the signals are checked.

    ``title``: its title (a merged pull request's title, for a merge) holds a fix word;
    ``closing-keyword``: its title or body closes an issue (``Fixes #12``, ``closes GH-3``,
    ``resolved https://github.com/o/r/issues/9``); ``branch``: a word of the merged
    branch's path is a fix word (``fix/...``, ``bugfix-42``, ``someone/agent/fix-empty-input``);
    ``body``: the body describes wrong behaviour ("wrongly raised TypeError", "crashes",
    "regression"). A conventional ``refactor:``, ``chore:``, ``docs:``, ``test:``,
    ``style:`` or ``perf:`` title (see :data:`bb_mine.intent.NOT_FIX_TYPES`) has no signal, closing
    keyword or not, unless its body names a bug.
    """
    if not_a_fix_type(text.title) and not _names_a_bug(text.body):
        return []  # "refactor: flatten ... Fixes #476": its type says what it is
    signals: list[str] = []
    if reads_like_fix(text.title) and not (is_merge and _MERGE_ANY.match(text.title)):
        signals.append("title")
    if _CLOSING_ANYWHERE.search(text.title) or _CLOSING_ANYWHERE.search(text.body):
        signals.append("closing-keyword")
    if fix_branch(text.branch):
        signals.append("branch")
    if describes_wrong_behaviour(text.body):
        signals.append("body")
    return signals


def issue_refs(text: ChangeText, own_repo: str | None = None) -> list[IssueRef]:
    """Issues and pull requests named by a change, in the order they appear.

    Recognised: ``(#123)``, ``#123``, ``Fixes #45``, ``closes owner/repo#12``, ``GH-12`` and
    issue or pull request URLs. A reference to *own_repo* counts as this repository's.
    """
    found: list[IssueRef] = []
    seen: set[tuple[str, int]] = set()
    own = (own_repo or "").lower()
    if text.pull_request is not None:
        found.append(IssueRef(text.pull_request, f"#{text.pull_request}"))
        seen.add(("", text.pull_request))
    for in_body, chunk in enumerate((text.title, text.body)):
        for match in _REF.finditer(chunk):
            if match.group("url"):
                repo: str | None = match.group("urepo")
                number = int(match.group("unum"))
            elif match.group("gh"):
                repo, number = None, int(match.group("ghnum"))
            else:
                repo, number = match.group("hrepo"), int(match.group("hnum"))
            if repo and repo.lower() == own:
                repo = None
            closing = bool(
                _CLOSING_BEFORE.search(chunk[max(0, match.start() - 20) : match.start()])
            )
            ref = IssueRef(number, match.group(0), repo, closing, bool(in_body) and not closing)
            if ref.key in seen:
                if closing:
                    found = [
                        IssueRef(r.number, r.text, r.repo, True) if r.key == ref.key else r
                        for r in found
                    ]
                continue
            seen.add(ref.key)
            found.append(ref)
    return found


def claimed_keys(refs: list[IssueRef]) -> set[tuple[str, int]]:
    """The issues a change claims to resolve, for duplicates: those its title names (its
    pull request's number among them) and those a closing keyword names anywhere; every
    one it names when it only mentions some in its body."""
    claimed = {r.key for r in refs if not r.mentioned}
    return claimed or {r.key for r in refs}


def closing_refs(body: str, own_repo: str | None = None) -> list[IssueRef]:
    """The issues a pull request body closes (``Fixes #12``, ``Closes owner/repo#3`` ...)."""
    return [r for r in issue_refs(ChangeText("", body), own_repo) if r.closing]


# -- bug or feature -----------------------------------------------------------------------

#: Labels (of the linked issue or pull request) that say what a change is.
BUG_LABELS = frozenset({"bug", "regression", "crash", "defect", "bugfix", "type: bug", "kind/bug"})
FEATURE_LABELS = frozenset(
    {"feature", "enhancement", "feature request", "new feature", "type: feature", "kind/feature"}
)


def is_bug_label(labels: Iterable[str]) -> bool:
    """Whether any of *labels* (any case) says bug: :data:`BUG_LABELS`."""
    return any(label.strip().lower() in BUG_LABELS for label in labels)


_LEADING_REF = re.compile(
    r"^\s*(?:(?:" + _CLOSING + r")\s*)?(?:issues?\s+|pr\s+|pull\s+request\s+)?"
    r"(?:\(?(?:#\d+|GH-\d+)\)?[\s,]*)+[:\-–]?\s*",
    re.IGNORECASE,
)
_FEATURE_START = re.compile(
    r"^(?:feat(?:ure)?\b|add(?:s|ed|ing)?\b|implement(?:s|ed|ing)?\b|introduce[sd]?\b"
    r"|support(?:s|ed)?\b|allow(?:s|ed)?\b|new\b|enable[sd]?\b|provide[sd]?\b"
    r"|deprecate[sd]?\b|make\s+it\s+possible\b)",
    re.IGNORECASE,
)


#: A title's scope before a colon, up to three words (``api_jwk: ...``, ``native loggers:
#: ...``, ``docs(cli)!: ...``).
_SCOPE = re.compile(
    r"^(?P<scope>[A-Za-z_][\w./-]{0,30}(?: [\w./-]{1,30}){0,2})(?:\([^)]*\))?!?:\s+"
)
_FIX_TYPES = frozenset({"fix", "bugfix", "hotfix"})


def category(
    title: str,
    signals: list[str],
    labels: list[str] | None = None,
    branch: str | None = None,
) -> kinds.TaskCategory:
    """``bug``, ``feature`` or ``unknown`` for a change, from its labels, else its wording.

    A bug label or a feature label decides. Otherwise the title, less a leading issue
    reference (``Fix #12: ...``, ``#994: ...``) and a scope (``api_jwk: ...``; the
    conventional ``fix: ...`` says bug): one that starts like a feature (``Add``,
    ``Implement``, ``Support`` ...) is a feature, unless a fix word follows that is not a
    closing keyword's, a fix branch's name that says what it fixes, or a body describing
    wrong behaviour (``Added some fixes to key checks``, click's ``allow empty str input
    in prompt()`` from ``fix/allow-empty-...``: unknown, which tasks keep by default, so
    the oracle decides; humanize's ``Add gender support for ordinals`` from ``fix-203``,
    a branch naming only an issue, stays a feature); one with a fix word (fix, bug,
    crash, regression ...) is a bug, and so is one from a fix branch that says what it
    fixes (``fix/...``) or whose body describes wrong behaviour. *branch* is the merged
    branch's name (None: any ``branch`` signal says what it fixes).
    """
    found = {label.strip().lower() for label in labels or ()}
    if found & BUG_LABELS:
        return "bug"
    if found & FEATURE_LABELS:
        return "feature"
    rest = _LEADING_REF.sub("", title, count=1).strip()
    scoped = _SCOPE.match(rest)
    if scoped is not None:
        scope = scoped.group("scope")
        if scope.lower() in _FIX_TYPES or (" " in scope and reads_like_fix(scope)):
            return "bug"  # fix: ..., or words before a colon that say fix ("Fix typo in docs: ...")
        rest = rest[scoped.end() :]
    # a branch that only names an issue (fix-203) says no more than "Fixes #203"
    branch_says = "branch" in signals and (branch is None or describes_fix(branch))
    if _FEATURE_START.match(rest):
        # a fix word that is no closing keyword's, a fix branch naming what it fixes, or
        # a body describing wrong behaviour, says otherwise
        fix = reads_like_fix(_CLOSING_ANYWHERE.sub("", rest)) or branch_says or "body" in signals
        return "unknown" if fix else "feature"
    if reads_like_fix(rest) or branch_says or "body" in signals:
        return "bug"
    return "unknown"


def matches_pick(sha: str, task_id: str, picks: tuple[str, ...]) -> bool:
    """Whether a commit is named by ``[tasks] include``/``exclude``: by its sha or the first
    seven or more digits of it, or by its task id."""
    for pick in picks:
        text = pick.strip().lower()
        if text == task_id.lower() or (len(text) >= 7 and sha.startswith(text)):
            return True
    return False
