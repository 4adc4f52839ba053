"""The cheap rules, read from a commit's text alone: does it fix something, which issues.

These run before any tree is opened, so a long history costs little more than reading
its commit messages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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

_MERGE_PR = re.compile(r"^Merge pull request #(\d+) from \S+", re.IGNORECASE)
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


@dataclass(frozen=True, slots=True)
class IssueRef:
    """One issue or pull request a change names. ``repo`` is None for this repository."""

    number: int
    text: str
    repo: str | None = None
    closing: bool = False

    @property
    def key(self) -> tuple[str, int]:
        return ((self.repo or "").lower(), self.number)

    def to_record(self) -> dict[str, object]:
        record: dict[str, object] = {"number": self.number, "text": self.text}
        if self.repo:
            record["repo"] = self.repo
        return record


@dataclass(frozen=True, slots=True)
class ChangeText:
    """What a landed change says about itself: its title and the rest of its message.

    For a pull request's merge commit this is the pull request's title and body, and
    ``pull_request`` is its number.
    """

    title: str
    body: str
    pull_request: int | None = None


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
            body_lines = rest.splitlines()
            if body_lines:
                title = body_lines[0].strip()
                body = "\n".join(body_lines[1:]).strip()
                return ChangeText(title, body, int(pr.group(1)) if pr else None)
            return ChangeText(first, "", int(pr.group(1)) if pr else None)
    return ChangeText(first, rest)


def reads_like_fix(title: str) -> bool:
    """True when *title* holds a fix word (fix, bug, crash, regression ...) as a whole word."""
    return bool(_FIX_TITLE.search(title))


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
    for chunk in (text.title, text.body):
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
            ref = IssueRef(number, match.group(0), repo, closing)
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


def closing_refs(body: str, own_repo: str | None = None) -> list[IssueRef]:
    """The issues a pull request body closes (``Fixes #12``, ``Closes owner/repo#3`` ...)."""
    return [r for r in issue_refs(ChangeText("", body), own_repo) if r.closing]


# -- paths --------------------------------------------------------------------------------


def under(path: str, folder: str) -> bool:
    """True when *path* is *folder* or inside it (``""`` holds everything)."""
    return not folder or path == folder or path.startswith(folder + "/")


def is_test_module(path: str) -> bool:
    """pytest's default ``python_files``: ``test_*.py`` and ``*_test.py``."""
    name = path.rsplit("/", 1)[-1]
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


#: Files that can hold pytest configuration, and the marker that says they do.
PYTEST_CONFIG_FILES = {
    "pytest.ini": None,
    ".pytest.ini": None,
    "pyproject.toml": re.compile(r"^\s*\[tool\.pytest[.\]]", re.MULTILINE),
    "tox.ini": re.compile(r"^\s*\[(?:tool:)?pytest\]", re.MULTILINE),
    "setup.cfg": re.compile(r"^\s*\[tool:pytest\]", re.MULTILINE),
}


def holds_pytest_config(name: str, content: bytes) -> bool:
    marker = PYTEST_CONFIG_FILES.get(name)
    if name not in PYTEST_CONFIG_FILES:
        return False
    return marker is None or bool(marker.search(content.decode("utf-8", "replace")))


def conftest_candidates(test_files: list[str]) -> list[str]:
    """Every ``conftest.py`` path from the root down to each test file's folder."""
    out: set[str] = set()
    for path in test_files:
        parts = path.split("/")[:-1]
        for depth in range(len(parts) + 1):
            out.add("/".join([*parts[:depth], "conftest.py"]))
    return sorted(out)
