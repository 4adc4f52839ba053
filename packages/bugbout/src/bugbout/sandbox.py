"""bugbout's sandbox, for adapters that wrap their own command lines.

An adapter whose agent does not confine itself can wrap its command with the session's
sandbox::

    from bugbout.sandbox import Confinement

    argv = session.sandbox.wrap(argv, Confinement(writable=[session.workdir], network=True))

These are :mod:`bb_core.sandbox`'s own classes; see docs/sandbox.md.
"""

from bb_core.sandbox import Completed, Confinement, Sandbox, get_sandbox, run_confined

__all__ = ["Completed", "Confinement", "Sandbox", "get_sandbox", "run_confined"]
