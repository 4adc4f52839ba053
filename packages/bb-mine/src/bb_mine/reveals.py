"""What in a statement reveals the reference patch: its files, its private helpers, the
lines it adds, and the phrases that tell where the bug is or what to change."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

#: A word of two characters or more.
WORD = re.compile(r"[A-Za-z0-9_]{2,}")

#: Sentences that locate the fix or tell what to change.
PRESCRIBING = re.compile(
    "|".join(
        [
            r"\b(?:the|this|that|a)\s+(?:bug|problem|issue|error|culprit|fault|regression)"
            r"\s+(?:is|lies|seems\s+to\s+be|must\s+be|comes|appears\s+to\s+be)\s+(?:in|at|inside|within|from)\b",
            r"\b(?:is|are|was|were)\s+caused\s+by\b",
            r"\bthe\s+culprit\s+is\b",
            r"\bchang(?:e|ing)\s+(?!to\b)[^.;]{1,80}?\s+(?:to|into)\b",
            r"\bshould\s+(?:use|call|check|be\s+using|instead|be\s+changed|be\s+replaced)\b",
            r"\b(?:we|you|it|one)\s+(?:should|could|need\s+to|needs\s+to|must|have\s+to|can)"
            r"\s+(?:just\s+|simply\s+)?(?:use|call|replace|change|remove|strip|swap|pass)\b",
            r"\breplac(?:e|es|ed|ing)\b[^.;]{0,80}?\bwith\b",
            r"\b(?:use|using|call|calling|try|just|simply|should|could|must)\b[^.;]{0,80}?\binstead\s+of\b",
            r"\b(?:the|a|one|possible|simple|easy|proper)\s+(?:simple\s+|possible\s+|easy\s+|quick\s+)?fix"
            r"\s+(?:is|would\s+be|could\s+be|might\s+be)\b",
            r"\bfix(?:ed)?\s+(?:it|this|that)\s+by\b",
            # what a change does, as its author describes it: "This adds an explicit
            # close() call ...", "This PR replaces ...", "Also adds a guard ..."
            r"(?:^|[.!?]\s+|\n)\W*(?:this|also|it)\s+(?:adds|introduces|replaces|removes|moves)\b",
            r"\bthis\s+(?:pr|pull\s+request|patch|change|commit|fix|mr)\s+"
            r"(?:adds|introduces|replaces|removes|changes|makes|ensures|moves|uses)\b",
        ]
    ),
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class FixFacts:
    """What a statement must not reveal about the reference patch."""

    #: Files and modules it modifies, as prose names them.
    places: frozenset[str] = frozenset()
    #: Private helpers it modifies (``_guard``, ``Parser._feed``).
    private: frozenset[str] = frozenset()
    #: The lines it adds, stripped, long enough to be more than punctuation.
    added_lines: frozenset[str] = frozenset()

    @classmethod
    def of(cls, names: Iterable[str] = (), patch: str = "") -> FixFacts:
        places: set[str] = set()
        private: set[str] = set()
        for name in names:
            if not name or len(name) < 2:
                continue
            if "/" in name or name.endswith(".py") or _is_module(name):
                places.add(name)
            else:
                # Anything reached through a private name is private: ``_Base.__get__``
                # names the class ``_Base``; ``Parser._reset`` is also written ``_reset``.
                parts = name.split(".")
                for depth, part in enumerate(parts, 1):
                    if _is_private(part):
                        private.update({name, part, ".".join(parts[:depth])})
                        break
        return cls(frozenset(places), frozenset(private), frozenset(_added_lines(patch)))


def _is_private(name: str) -> bool:
    last = name.rsplit(".", 1)[-1]
    return last.startswith("_") and not (last.startswith("__") and last.endswith("__"))


def _is_module(name: str) -> bool:
    """A dotted lower-case name such as ``pkg.reader`` (a class's method is ``Class.meth``)."""
    parts = name.split(".")
    return len(parts) > 1 and all(p.isidentifier() and p == p.lower() for p in parts)


def _added_lines(patch: str) -> set[str]:
    removed: set[str] = set()
    added: set[str] = set()
    for line in patch.splitlines():
        if line.startswith(("+++", "---")):
            continue
        if line.startswith(("+", "-")):
            text = line[1:].strip()
            if len(text) >= 8 and len(WORD.findall(text)) >= 2:
                (added if line[0] == "+" else removed).add(text)
    return added - removed


@functools.lru_cache(maxsize=4096)
def name_matcher(name: str) -> re.Pattern[str]:
    """Mentions of *name* as itself: ``pkg.reader`` but not ``pkg.reader.parse``."""
    escaped = re.escape(name)
    return re.compile(r"(?<![\w./])" + escaped + r"(?![\w/]|\.\w)")
