"""What every part of :mod:`bb_core.patch` shares: file modes, blob ids, one tree entry."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from bb_core.errors import BbError

MODE_FILE = "100644"
MODE_EXEC = "100755"
MODE_LINK = "120000"
NULL_SHA = "0" * 40


class PatchError(BbError):
    """A patch that cannot be read, or that does not apply exactly to a tree."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One file of a tree: its git mode and its bytes (for a symlink, its target)."""

    mode: str
    data: bytes

    @property
    def is_link(self) -> bool:
        return self.mode == MODE_LINK


def blob_sha(data: bytes) -> str:
    """The git blob id of *data*."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()
