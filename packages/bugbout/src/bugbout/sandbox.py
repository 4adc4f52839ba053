"""bugbout's sandbox, for adapters that wrap their own command lines.

An adapter whose agent does not confine itself can wrap its command with the session's
sandbox; the view is the allow-list of docs/sandbox.md, and the program's own install
(a node CLI from npm and its node, a Python tool and its interpreter) is found from the
command line::

    from bugbout.sandbox import Confinement

    argv = session.sandbox.wrap(
        argv,
        Confinement(writable=[session.workdir, session.logdir], home=session.home),
        cwd=session.workdir,
    )

``program_roots(argv)`` lists those install folders and ``view_of(argv, confinement,
cwd)`` the whole view, for an adapter that builds a nested sandbox of its own. These are
:mod:`bb_core.sandbox`'s own classes; see docs/sandbox.md.
"""

from bb_core.sandbox import (
    Completed,
    Confinement,
    Sandbox,
    get_sandbox,
    program_roots,
    run_confined,
    view_of,
)

__all__ = [
    "Completed",
    "Confinement",
    "Sandbox",
    "get_sandbox",
    "program_roots",
    "run_confined",
    "view_of",
]
