"""``bugbout doctor``'s checks of a JavaScript or TypeScript project: node and its version
against the one the project asks for, and the lockfile's package manager."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from bb_core.envs.nodebuild import find_node, package_manager_of, package_manager_program
from bb_core.errors import EnvironmentFailed

from bugbout.checks import Check, ok, problem
from bugbout.nodeproject import read_package, satisfies, wanted_node


def check_node(root: Path) -> Check:
    """node runs, and satisfies the version the project at *root* asks for."""
    node = find_node()
    if node is None:
        return problem(
            "node",
            "node is not installed; the project's tests run on it",
            "install node (https://nodejs.org), or put it on PATH",
        )
    said = _version([node])
    if said is None:
        return problem(
            "node", f"{node} does not run", "reinstall node, or put a working one first on PATH"
        )
    version = said.removeprefix("v")
    detail = f"node {version} ({node})"
    wanted, where = wanted_node(root)
    if wanted is None:
        return ok("node", f"{detail}; the project does not say which node it needs")
    verdict = satisfies(version, wanted)
    if verdict is None:
        return ok("node", f"{detail}; the project asks for {wanted} ({where}), not checked")
    if not verdict:
        major = re.search(r"\d+", wanted)
        how = f" (`nvm install {major.group(0)}`)" if major else ""
        return problem(
            "node",
            f"{detail} does not satisfy {wanted}, the version the project asks for ({where})",
            f"install a node that does{how} and put it first on PATH",
        )
    return ok("node", f"{detail}; the project asks for {wanted} ({where})")


def check_package_manager(root: Path) -> Check:
    """The lockfile's package manager runs (the project's dependencies install with it)."""
    chosen = package_manager_of(_names(root), read_package(root))
    if chosen is None:
        return problem(
            "package-manager",
            f"{root} has no lockfile (package-lock.json, pnpm-lock.yaml or yarn.lock)",
            "commit one (`npm install --package-lock-only`): bugbout installs from lockfiles only",
        )
    manager, lockfile = chosen
    try:
        program = package_manager_program(manager)
    except EnvironmentFailed as exc:
        return problem("package-manager", exc.message, exc.hint)
    said = _version(program)
    if said is None:
        return problem(
            "package-manager",
            f"{' '.join(program)} does not run",
            f"reinstall {manager} (`corepack enable` provides pnpm and yarn)",
        )
    return ok("package-manager", f"{manager} {said} ({program[0]}), for {lockfile}")


def _names(root: Path) -> list[str]:
    try:
        return os.listdir(root)
    except OSError:
        return []


def _version(program: list[str]) -> str | None:
    env = {**os.environ, "COREPACK_ENABLE_DOWNLOAD_PROMPT": "0"}
    try:
        done = subprocess.run(
            [*program, "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = done.stdout.strip().splitlines()
    return lines[0].strip() if lines and done.returncode == 0 else None
