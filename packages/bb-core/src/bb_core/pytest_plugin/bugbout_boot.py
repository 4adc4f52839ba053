"""Start pytest for a bugbout test run, with bugbout's plugin and pytest loaded first.

Run as ``python bugbout_boot.py <pytest arguments>`` in place of ``python -m pytest``.
``python -m`` puts the current folder - the checkout - first on ``sys.path``, and
``PYTHONPATH`` puts the checkout's folders before the environment's packages, so a file a
patch adds (``bugbout_pytest.py``, ``sitecustomize.py``, ``pluggy.py``, a module pytest
imports as it starts) would run before the plugin could guard anything. Here the
checkout's folders arrive in ``BUGBOUT_PYTHONPATH`` instead: Python starts with only this
folder and the environment on its path, pytest, its dependencies and the plugin are
imported from there, and only then are the checkout's folders put on ``sys.path`` - after
this folder, so ``-p bugbout_pytest`` and its siblings are always found here, and
otherwise as ``python -m pytest`` with ``PYTHONPATH`` would order them - and into
``PYTHONPATH`` for the processes the tests start. (The plugin is not imported here: pytest
loads it after its own plugins, as it always has.)

Written for every Python the project may use (3.8 and up).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    import pytest


def console_entry() -> Callable[[], int | pytest.ExitCode]:
    """pytest's command-line entry, as ``python -m pytest`` calls it: ``_console_main`` from
    pytest 9.1 on (``pytest.console_main`` warns there, and goes in pytest 10), before that
    ``pytest.console_main``."""
    import pytest
    from _pytest import config

    return getattr(config, "_console_main", None) or pytest.console_main


def main() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    entries = [p for p in os.environ.pop("BUGBOUT_PYTHONPATH", "").split(os.pathsep) if p]
    import pytest  # with its dependencies, from the environment alone

    sys.path[:] = [here, os.getcwd(), *[p for p in entries if p != here], *sys.path[1:]]
    os.environ["PYTHONPATH"] = os.pathsep.join(entries)
    sys.argv[0] = os.path.join(os.path.dirname(pytest.__file__), "__main__.py")
    raise SystemExit(console_entry()())


if __name__ == "__main__":
    main()
