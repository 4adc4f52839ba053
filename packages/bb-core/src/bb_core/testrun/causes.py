"""Causes named in messages: the first error of the first test module that does not
import, and the setting of bugbout.toml that would help.

A task set aside because its tests do not collect is only useful to its reader when the
message says *why* (``ModuleNotFoundError: No module named 'six'``) and what to change,
not only which module broke; the log holds the rest.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from bb_core.testrun import CollectionError

#: pytest's prefix of an error line in a collection report.
_ERROR_MARK = re.compile(r"^E\s+")
_MISSING = re.compile(r"\b(ModuleNotFoundError|ImportError)\b")


def cause(error: CollectionError) -> str:
    """The error that stopped *error*'s module from collecting, as Python said it
    (``ModuleNotFoundError: No module named 'six'``)."""
    return _ERROR_MARK.sub("", error.summary).strip() or "collection failed"


def setting_hint(text: str) -> str:
    """The settings that would help with the error *text*: a missing module is a test
    dependency to add, or one that changed over the history (its own environment per
    era); any other error may need the environment of the task's own time."""
    if _MISSING.search(text):
        return (
            "add the missing package to [project] test-dependencies, or set [project] "
            'environments = "history" when the dependencies changed over the history'
        )
    return (
        'set [project] environments = "history" to test each task with the dependencies '
        "of its own time, or add what the tests need to [project] test-dependencies"
    )


def broken_modules(errors: Iterable[CollectionError]) -> str:
    """``tests/test_x.py does not import: ModuleNotFoundError: No module named 'six'
    (and 2 more modules); add the missing package to ...``: the first module, its first
    error and the hint; '' when there is none."""
    found = sorted(set(errors), key=str)
    if not found:
        return ""
    first = found[0]
    text = f"{first} does not import: {cause(first)}"
    if len(found) > 1:
        more = len(found) - 1
        text += f" (and {more} more module{'s' if more > 1 else ''})"
    return f"{text}; {setting_hint(cause(first))}"
