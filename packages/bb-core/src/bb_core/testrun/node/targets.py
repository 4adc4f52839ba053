"""What of the requested targets a node runner is handed: files, and a test-name pattern.

A target is a file or folder relative to the checkout, or a test id
(``path > describe > ... > test name``). Neither vitest nor jest selects a test by id:
both take test files and a pattern matched against a test's full name (its describe
blocks' and its own names, space-separated). So the files of the ids are handed over
with one pattern matching exactly their names; tests the pattern catches besides them
(the same names in another requested file) run too, and are left out of the outcomes.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

#: What separates a test id's parts.
SEP = " > "
#: A test-name pattern (a JavaScript regular expression) that matches no name: the
#: runner loads every test file and lists its tests, and runs none.
NOTHING = "(?!)"
_SPECIAL = re.compile(r"[\\^$.*+?()[\]{}|/]")


def js_escape(text: str) -> str:
    """*text* as a JavaScript regular expression that matches it literally."""
    return _SPECIAL.sub(lambda m: "\\" + m.group(0), text)


def split_id(test_id: str) -> tuple[str, str]:
    """``(path, names)`` of a test id; names empty for a file or folder."""
    path, _, names = test_id.partition(SEP)
    return path, names


def _names(names: Sequence[str]) -> str:
    """A group matching a full name that ends with one of *names*, word by word."""
    return "(?:.* )?(?:" + "|".join(js_escape(name) for name in dict.fromkeys(names)) + ")$"


@dataclass
class Plan:
    """``files``: the checkout paths handed to the runner. ``select``: the ids and
    paths the outcomes are kept to (None: whatever ran). ``names``: the full names of the
    tests to run (None: every test of the files). ``absent``: targets whose file or folder
    is not in the checkout. ``skip_names`` and ``skip_files``: tests and files a run after
    a test that hung leaves out (their outcomes are known). ``nothing``: list the tests,
    run none."""

    files: list[str] = field(default_factory=list)
    select: list[str] | None = None
    names: list[str] | None = None
    absent: list[str] = field(default_factory=list)
    #: A target named the whole checkout (``.``): the runner's own discovery, no file.
    everything: bool = False
    skip_names: list[str] = field(default_factory=list)
    skip_files: list[str] = field(default_factory=list)
    nothing: bool = False

    @property
    def empty(self) -> bool:
        """Nothing of the targets is in the checkout: nothing to run."""
        return not self.files and not self.everything

    @property
    def pattern(self) -> str | None:
        """The test-name pattern handed to the runner, or None."""
        if self.nothing:
            return NOTHING
        if self.names is not None and not self.skip_names:
            return "(?:^| )(?:" + "|".join(js_escape(n) for n in dict.fromkeys(self.names)) + ")$"
        if not self.skip_names:
            return None
        keep = f"(?={_names(self.names)})" if self.names is not None else ""
        return f"^{keep}(?!{_names(self.skip_names)})"

    def listing(self) -> Plan:
        """The same files, every test listed and none run (:data:`NOTHING` as pattern)."""
        return replace(self, nothing=True)

    def without(self, ids: Sequence[str], files: Sequence[str]) -> Plan:
        """The same run, leaving out the tests *ids* and the test files *files*."""
        names = [split_id(test_id)[1].replace(SEP, " ") for test_id in ids]
        return replace(
            self, skip_names=[*self.skip_names, *names], skip_files=[*self.skip_files, *files]
        )

    def alone(self, test_id: str) -> Plan:
        """A run of test *test_id* alone."""
        path, name = split_id(test_id)
        return Plan(files=[path], select=[test_id], names=[name.replace(SEP, " ")])

    def selected(self, test_id: str) -> bool:
        if self.select is None:
            return True
        return any(
            s == "." or test_id == s or test_id.startswith((s + SEP, s + "/")) for s in self.select
        )


def plan_targets(checkout: Path, targets: Sequence[str]) -> Plan:
    """The files, selection and pattern for *targets* (see the module's docstring)."""
    plan = Plan()
    names: list[str] = []
    select: list[str] = []
    whole = False
    for target in targets:
        path, rest = split_id(target)
        path = os.path.normpath(path).replace(os.sep, "/")
        if path.startswith(("../", "-")) or os.path.isabs(path) or not (checkout / path).exists():
            plan.absent.append(target)
            continue
        if path == ".":
            plan.everything = True
        elif path not in plan.files:
            plan.files.append(path)
        select.append(f"{path}{SEP}{rest}" if rest else path)
        if rest:
            names.append(rest.replace(SEP, " "))
        else:
            whole = True
    if plan.everything:
        plan.files = []
    if names:
        plan.select = select
        if not whole:
            plan.names = names
    return plan
