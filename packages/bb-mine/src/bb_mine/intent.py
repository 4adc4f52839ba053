"""What a change's words say of its intent, beyond a fix word in its title: a fix word
anywhere in a merged branch's path, a conventional commit type that is no fix, and a body
that describes wrong behaviour. :func:`bb_mine.rules.fix_signals` and
:func:`bb_mine.rules.category` read them."""

from __future__ import annotations

import re

#: A body that describes wrong behaviour: "wrongly raised TypeError", "was incorrectly
#: assigned", "raised KeyError instead of returning", "crashes on ...", "a regression".
_WRONG_BEHAVIOUR = re.compile(
    r"(?<!\w)(?:wrongly|incorrectly|erroneously|mistakenly"
    r"|crash(?:es|ed|ing)?|regression(?:s)?(?!\s+tests?\b)|regressed"
    r"|(?:raised|raises|threw|throws)\s+(?:an?\s+)?[\w.]+(?:\([^)]*\))?\s+instead\s+of)(?!\w)",
    re.IGNORECASE,
)


_WRONG_WORDS = ("wrong", "incorrect", "erroneous", "mistaken", "crash", "regress", "instead")


def describes_wrong_behaviour(body: str) -> bool:
    """Whether *body* says something behaved wrongly (:data:`_WRONG_BEHAVIOUR`); a closing
    keyword's "fixes #12" is not such a description."""
    lowered = body.lower()  # most messages hold none of the words: no pattern is tried
    return any(word in lowered for word in _WRONG_WORDS) and bool(_WRONG_BEHAVIOUR.search(body))


#: Conventional commit types that say a change is not a fix (``refactor: ...``,
#: ``chore(deps): ...``, ``docs!: ...``).
NOT_FIX_TYPES = (
    "refactor",
    "chore",
    "docs",
    "doc",
    "test",
    "tests",
    "style",
    "perf",
    "ci",
    "build",
)
_NOT_FIX_TYPE = re.compile(
    r"^\s*(?:" + "|".join(NOT_FIX_TYPES) + r")(?:\([^)]*\))?!?:\s", re.IGNORECASE
)


def not_a_fix_type(title: str) -> bool:
    """Whether *title* is a conventional commit whose type is no fix (``refactor: ...``)."""
    return bool(_NOT_FIX_TYPE.match(title))


_BRANCH_WORDS = re.compile(r"[-_/.+]+")
_FIX_BRANCH_WORDS = frozenset(
    {"fix", "fixes", "fixed", "fixing", "bugfix", "hotfix", "bug", "bugs", "crash"}
    | {"regression", "regressions"}
)


def fix_branch(branch: str | None) -> bool:
    """Whether a merged branch's name says fix: a fix word anywhere in its path
    (``fix/sliced-negative-n``, ``bugfix-42``, ``someone/agent/fix-empty-input``)."""
    if not branch:
        return False
    return any(word.lower() in _FIX_BRANCH_WORDS for word in _BRANCH_WORDS.split(branch))


_ISSUE_WORDS = frozenset({"issue", "issues", "gh", "pr", "ticket", "for"})
_NUMBERED = re.compile(r"^(?:gh|issue|pr)?#?\d+$")


def describes_fix(branch: str | None) -> bool:
    """Whether a fix branch's name says what it fixes (``fix/sliced-negative-n``), rather
    than only which issue (``fix-203``, ``fix/issue-12``): such a name is like a closing
    keyword, a fix signal that does not make feature wording a fix."""
    words = [w.lower() for w in _BRANCH_WORDS.split(branch or "") if w]
    fixes = [i for i, w in enumerate(words) if w in _FIX_BRANCH_WORDS]
    if not fixes:
        return False
    return any(
        w not in _FIX_BRANCH_WORDS and w not in _ISSUE_WORDS and not _NUMBERED.match(w)
        for w in words[fixes[0] + 1 :]
    )
