"""macOS's ``sandbox-exec`` with a generated allow-list profile.

Reads are denied except for the system folders, the command's program and interpreter,
the readable and writable folders and the temporary folder; writes are denied except for
the writable folders, the temporary folder and a few devices. Without the network every
network operation is denied, Unix sockets included. Seatbelt has no namespaces: the
command sees the host's processes and a folder it may read under its real name, so
attempts under it are flagged ``unconfined``.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from bb_core.sandbox.allow import program_roots
from bb_core.sandbox.base import Confinement, Sandbox

SEATBELT_EXECUTABLE = "/usr/bin/sandbox-exec"
#: What every process on macOS needs to read to start at all.
SEATBELT_SYSTEM = (
    "/usr", "/bin", "/sbin", "/System", "/Library/Apple", "/Library/Frameworks",
    "/private/etc", "/private/var/db/timezone", "/private/var/db/dyld", "/dev",
    "/opt/homebrew", "/usr/local",
)  # fmt: skip

SEATBELT_BASE = """\
(version 1)
; bugbout: read only the allow-list, write only in the given folders and the temporary folder
(allow default)
(deny file-read*)
(allow file-read-metadata)
(allow file-read* (literal "/"))
(allow file-read*
    (subpath (param "TMPDIR")))
(deny file-write*)
(allow file-write*
    (subpath (param "TMPDIR"))
    (literal "/dev/null")
    (literal "/dev/zero")
    (literal "/dev/dtracehelper")
    (regex #"^/dev/tty")
    (regex #"^/dev/fd/"))
(deny file-read* file-write*
    (literal "/private/etc/master.passwd")
    (subpath "/private/etc/ssh"))
"""

SEATBELT_NO_NETWORK = """\
; no network at all, Unix-domain sockets included
(deny network*)
"""


def _params_block(kind: str, prefix: str, paths: Sequence[str], params: dict[str, str]) -> str:
    if not paths:
        return ""
    lines = [f"(allow {kind}"]
    for index, path in enumerate(paths):
        params[f"{prefix}_{index}"] = path
        lines.append(f'    (subpath (param "{prefix}_{index}"))')
    return "\n".join(lines) + ")\n"


def seatbelt_profile(
    confinement: Confinement, argv: Sequence[str] = ()
) -> tuple[str, dict[str, str]]:
    """The ``sandbox-exec`` profile text for *confinement* (and *argv*'s program), and its
    parameters.

    Paths never appear in the text: each folder is a parameter (``-D WRITABLE_0=/path``),
    so no path can break the profile's syntax.
    """
    temp = confinement.temp if confinement.temp is not None else tempfile.gettempdir()
    params = {"TMPDIR": os.path.realpath(temp)}
    writable = [os.path.realpath(p) for p in confinement.writable if os.path.exists(p)]
    if confinement.home is not None:
        writable.append(os.path.realpath(confinement.home))
    readable = [os.path.realpath(p) for p in confinement.readable if os.path.exists(p)]
    readable += [os.path.realpath(p) for p in program_roots(argv)]
    writable = list(dict.fromkeys(writable))
    readable = [p for p in dict.fromkeys(readable) if p not in writable]
    parts = [SEATBELT_BASE]
    parts.append(_params_block("file-read*", "SYSTEM", list(SEATBELT_SYSTEM), params))
    parts.append(_params_block("file-read*", "READABLE", readable, params))
    parts.append(_params_block("file-read* file-write*", "WRITABLE", writable, params))
    if not confinement.network:
        parts.append(SEATBELT_NO_NETWORK)
    return "\n".join(p for p in parts if p), params


class Seatbelt(Sandbox):
    """macOS's ``sandbox-exec`` with a generated profile."""

    name = "seatbelt"
    weakness = (
        "seatbelt cannot give a private view of processes and temporary folders: "
        "the host's processes stay visible"
    )

    def __init__(self, executable: str = SEATBELT_EXECUTABLE) -> None:
        self.executable = executable

    def describe(self) -> str:
        return f"seatbelt ({self.executable})"

    def wrap(
        self, argv: Sequence[str], confinement: Confinement, *, cwd: Path | None = None
    ) -> list[str]:
        profile, params = seatbelt_profile(confinement, argv)
        cmd = [self.executable, "-p", profile]
        for key, value in params.items():
            cmd += ["-D", f"{key}={value}"]
        cmd += list(argv)
        return cmd
