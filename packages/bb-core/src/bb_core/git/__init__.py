"""Read git repositories with dulwich: history, changes, blobs, trees and diffs.

Never the git command line. A repository is opened from a local path, or cloned from a URL
(``file://`` included) into a bare mirror under ``BUGBOUT_HOME/repos`` that later opens
bring up to date. Everything here reads; nothing writes to the user's repository.

- :mod:`~bb_core.git.repo`: :func:`open_repo` and :class:`Repo`, the reads bugbout needs;
- :mod:`~bb_core.git.objects`: commits, trees and blobs read from packs, with caches;
- :mod:`~bb_core.git.trees`: what changed between two trees under some folders;
- :mod:`~bb_core.git.diffs`: the git-format diff of those changes;
- :mod:`~bb_core.git.checkout`: a commit's tree written to a folder;
- :mod:`~bb_core.git.remote`: URLs and their mirrors;
- :mod:`~bb_core.git.model`: :class:`Commit`, :class:`Change` and the commit parser.
"""

from __future__ import annotations

from bb_core.git.model import ADD, DELETE, MODIFY, RENAME, Change, Commit
from bb_core.git.remote import is_url, network_problem
from bb_core.git.repo import Repo, open_repo
from bb_core.patch import unified_hunks

__all__ = [
    "ADD",
    "DELETE",
    "MODIFY",
    "RENAME",
    "Change",
    "Commit",
    "Repo",
    "is_url",
    "network_problem",
    "open_repo",
    "unified_hunks",
]
