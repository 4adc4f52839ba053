"""Run commands confined: see only the allow-list, write only where allowed, network only
when allowed, no leftovers.

Four kinds: ``bubblewrap`` (Linux, ``bwrap``), ``seatbelt`` (macOS, ``sandbox-exec``),
``none`` (unconfined, chosen explicitly) and ``auto`` (the platform's sandbox, probed
once; when it cannot start, :class:`SandboxUnavailable` says exactly why and how to fix
it - ``auto`` never falls back to running unconfined on its own).

Under bubblewrap a sandbox starts from an empty root: :mod:`bb_core.sandbox.allow` lists
what is bound in (read-only system folders, ``/etc`` without credentials, the command's
program and interpreter, the :class:`Confinement`'s readable and writable folders, a
private ``/tmp`` and HOME). Without network it has its own network namespace: only its
own loopback exists, so servers the command starts for itself still work while the
host's, the LAN's and the internet's - and the host's abstract Unix sockets - are out of
reach; the host's socket files are never bound in.

Modules: ``base`` (Confinement, Sandbox), ``allow`` (the allow-list), ``bubblewrap``,
``seatbelt``, ``probe`` (choosing and checking), ``running`` (deadlines and leftovers),
``untrusted`` (reading what a confined command wrote without following its links),
``resources`` (memory, process and file-size limits, and how a breach shows).
"""

from bb_core.sandbox.allow import (
    View,
    command_words,
    describe_view,
    program_roots,
    too_wide,
    view_of,
)
from bb_core.sandbox.base import (
    KINDS,
    NONE_HINT,
    SANDBOX_HOME,
    Completed,
    Confinement,
    NoSandbox,
    Sandbox,
)
from bb_core.sandbox.bubblewrap import Bubblewrap, bwrap_args
from bb_core.sandbox.probe import (
    PROC_SYS,
    explain_bwrap_failure,
    get_sandbox,
    probe_bubblewrap,
    probe_seatbelt,
)
from bb_core.sandbox.resources import NO_LIMITS, Limits
from bb_core.sandbox.running import Confined, cap_file, run_confined
from bb_core.sandbox.seatbelt import (
    SEATBELT_BASE,
    SEATBELT_EXECUTABLE,
    SEATBELT_NO_NETWORK,
    Seatbelt,
    seatbelt_profile,
)
from bb_core.sandbox.untrusted import defang, read_untrusted, tree_size

__all__ = [
    "KINDS",
    "NONE_HINT",
    "NO_LIMITS",
    "PROC_SYS",
    "SANDBOX_HOME",
    "SEATBELT_BASE",
    "SEATBELT_EXECUTABLE",
    "SEATBELT_NO_NETWORK",
    "Bubblewrap",
    "Completed",
    "Confined",
    "Confinement",
    "Limits",
    "NoSandbox",
    "Sandbox",
    "Seatbelt",
    "View",
    "bwrap_args",
    "cap_file",
    "command_words",
    "defang",
    "describe_view",
    "explain_bwrap_failure",
    "get_sandbox",
    "probe_bubblewrap",
    "probe_seatbelt",
    "program_roots",
    "read_untrusted",
    "run_confined",
    "seatbelt_profile",
    "too_wide",
    "tree_size",
    "view_of",
]
