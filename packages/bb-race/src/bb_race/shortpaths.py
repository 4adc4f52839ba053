"""Short folders for the Unix sockets agents and bugbout create.

A Unix socket's path must fit in ``sun_path``: 108 bytes on Linux (104 on macOS),
including the closing NUL. Agent CLIs make sockets under their temporary folder - Claude
Code's Bash sandbox opens ``$TMPDIR/claude-http-<16 hex>.sock`` and
``claude-socks-<16 hex>.sock`` - and bugbout's egress proxy listens on one, so under a
deep ``BUGBOUT_HOME`` these paths are too long and the agent's every shell command fails.
Each attempt therefore gets its temporary folder, and each egress proxy its socket, in a
short folder of its own under ``/tmp`` (mode 0700, removed with the attempt).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

#: The longest socket path that fits, without the closing NUL.
SUN_PATH_MAX = 103 if sys.platform == "darwin" else 107
#: The longest name an agent CLI gives a socket in its temporary folder (Claude Code's
#: ``claude-socks-<16 hex>.sock`` is 34 characters), with room to spare.
SOCKET_NAME_ROOM = 48
#: Where the short folders go (``/tmp`` is short on every Unix).
SHORT_ROOT = Path("/tmp")


class SocketPathTooLong(ValueError):
    """A socket path that does not fit in ``sun_path``."""


def fits(path: Path | str) -> bool:
    """Whether *path* fits in ``sun_path``."""
    return len(os.fsencode(str(path))) <= SUN_PATH_MAX


def check_socket_path(path: Path | str) -> Path:
    """*path*, or :class:`SocketPathTooLong` naming it and the limit."""
    if not fits(path):
        raise SocketPathTooLong(
            f"socket path {path} is {len(os.fsencode(str(path)))} bytes; "
            f"Unix sockets allow {SUN_PATH_MAX}"
        )
    return Path(path)


def short_folder(prefix: str = "bb-") -> Path:
    """A new private folder with a short path, for sockets (the caller removes it)."""
    root = SHORT_ROOT if SHORT_ROOT.is_dir() else Path(tempfile.gettempdir())
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir=root))
    check_socket_path(folder / ("x" * SOCKET_NAME_ROOM))
    return folder
