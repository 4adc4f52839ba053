"""A JavaScript or TypeScript project's test environment: node, and node_modules from the lockfile.

:class:`NodeEnv` is to a node project what :class:`bb_core.envs.TestEnv` is to a Python
one: where and how its tests run. ``root`` is the cached install - the project's
``package.json`` and lockfile with the ``node_modules`` they make - shared read-only by
every run (each run sees it at ``<checkout>/node_modules``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar


@dataclass(frozen=True)
class NodeEnv:
    """Where and how a node project's tests run.

    ``node``: the node binary. ``root``: the cached install (package.json, the lockfile,
    node_modules). ``key``: names the environment (part of cache keys of results that
    depend on it). ``runner``: ``vitest`` or ``jest``. ``package_manager``: ``npm``,
    ``pnpm`` or ``yarn``. ``env``: ``[project] env``. ``runner_args``: ``[project]
    runner-args``. ``setup``: ``[project] setup``. ``versions``: node's, the runner's and
    the package manager's.
    """

    __test__: ClassVar[bool] = False

    node: Path
    root: Path
    key: str
    runner: str
    package_manager: str = "npm"
    env: dict[str, str] = field(default_factory=dict)
    runner_args: tuple[str, ...] = ()
    setup: tuple[str | tuple[str, ...], ...] = ()
    versions: dict[str, str] = field(default_factory=dict)

    @property
    def node_modules(self) -> Path:
        return self.root / "node_modules"
