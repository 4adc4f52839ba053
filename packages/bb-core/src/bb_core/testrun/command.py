"""The command line and environment of a test run: the one place they are assembled.

:func:`pytest_argv` is the whole pytest line (before sandboxing),
:func:`run_environment` its environment and :func:`plan_targets` what of the requested
targets is handed to pytest.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

PLUGIN_DIR = Path(__file__).resolve().parents[1] / "pytest_plugin"
PLUGIN = "bugbout_pytest"
#: What runs pytest: loads pytest and the plugin before any checkout folder is on the path.
BOOT = PLUGIN_DIR / "bugbout_boot.py"
# Variables of our own environment that test runs keep; everything else is left out
# (credentials in particular), and [project].env is added on top.
KEPT_VARIABLES = ("HOME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "USER", "LOGNAME")


def pytest_argv(
    python: Path, checkout: Path, targets: Sequence[str], pytest_args: Sequence[str] = ()
) -> list[str]:
    """The command line of a test run (before sandboxing)."""
    return [
        str(python),
        str(BOOT),
        "-p",
        PLUGIN,
        "-p",
        "no:cacheprovider",
        "-o",
        "addopts=",
        "--rootdir",
        str(checkout),
        "--continue-on-collection-errors",
        "-q",
        *pytest_args,
        "--",
        *targets,
    ]


def run_environment(
    python: Path,
    checkout: Path,
    pythonpath: Iterable[str],
    extra: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The environment of a test run: a few of ours, the checkout's folders, the project's own.

    The folders (and the plugin's, last) are in ``BUGBOUT_PYTHONPATH``, which the boot
    script (:data:`BOOT`) turns into ``sys.path`` and ``PYTHONPATH`` once pytest and the
    plugin are loaded; a ``PYTHONPATH`` at start-up would let the checkout's files run first.
    """
    env = {name: os.environ[name] for name in KEPT_VARIABLES if name in os.environ}
    env.setdefault("LANG", "C.UTF-8")
    bindir = str(Path(python).parent)
    env["PATH"] = os.pathsep.join([bindir, os.environ.get("PATH", os.defpath)])
    entries = [str((checkout / entry).resolve()) for entry in pythonpath]
    entries.append(str(PLUGIN_DIR))
    env["BUGBOUT_PYTHONPATH"] = os.pathsep.join(dict.fromkeys(entries))
    env.update(extra or {})
    return env


def plan_targets(
    checkout: Path, targets: Sequence[str]
) -> tuple[list[str], list[str] | None, list[str]]:
    """What to hand pytest for *targets*: (arguments, selection, targets left out).

    pytest refuses to run anything when one node id it is given does not exist, so
    node ids are not given to pytest: their files are, and the plugin keeps only the
    tests the targets cover (the selection). Targets whose file or folder is absent are
    left out; their tests are then ``missing``.
    """
    if any(os.path.isabs(t) or t.startswith("-") for t in targets):
        return list(targets), None, []
    args: dict[str, None] = {}
    select: list[str] = []
    absent: list[str] = []
    for target in targets:
        path, sep, rest = target.partition("::")
        path = os.path.normpath(path).replace(os.sep, "/")
        if not (checkout / path).exists():
            absent.append(target)
            continue
        args[path] = None
        select.append(f"{path}{sep}{rest}" if path != "." else "")
    if not any("::" in t for t in targets):
        return list(args), None, absent
    return list(args), select, absent
