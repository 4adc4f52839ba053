"""Which node the pinned agent CLIs ask for, read from an npm lock file.

``python3 scripts/realcli_node.py needs LOCKFILE`` prints the lowest node version that
every package of the lock file accepts (the highest of their ``engines.node`` minimums);
``python3 scripts/realcli_node.py satisfies VERSION LOCKFILE`` exits 0 when node VERSION
is at least that. scripts/realcli.sh uses both to decide whether the machine's node will
do or node has to come from PyPI. Standard library only: it runs before the workspace's
environment exists.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

Version = tuple[int, int, int]

_BOUND = re.compile(r"(<=|>=|<|>|\^|~|=)?\s*v?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?")


def parse_version(text: str) -> Version:
    """``v22.20.0`` -> (22, 20, 0); missing or wildcard parts are 0."""
    found = _BOUND.search(text.strip())
    if not found:
        raise ValueError(f"not a version: {text!r}")
    parts = [found.group(i) for i in (2, 3, 4)]
    major, minor, patch = (int(p) if p and p.isdigit() else 0 for p in parts)
    return major, minor, patch


def range_minimum(spec: str) -> Version | None:
    """The lowest version a semver range accepts, as far as its lower bounds say:
    ``>=20`` -> 20.0.0, ``^20.19.0 || >=22.12.0`` -> 20.19.0, ``>16`` -> 16.0.1. Upper
    bounds are not read (no CLI here caps node). None when the range puts no lower
    bound (``*``, empty)."""
    lowest: Version | None = None
    for alternative in spec.split("||"):
        alternative = alternative.strip()
        if alternative in ("", "*", "x"):
            return None
        bounds: list[Version] = []
        for found in _BOUND.finditer(alternative):
            operator = found.group(1) or "="
            if operator in ("<", "<="):
                continue  # an upper bound
            version = parse_version(found.group(0).lstrip(">=^~ "))
            if operator == ">":
                version = (version[0], version[1], version[2] + 1)
            bounds.append(version)
        if not bounds:
            return None
        here = max(bounds)
        lowest = here if lowest is None else min(lowest, here)
    return lowest


def node_needed(lock: dict[str, object]) -> tuple[Version, list[str]]:
    """The highest ``engines.node`` minimum over the lock's packages, and the packages
    that ask for exactly it."""
    packages = lock.get("packages")
    need: Version = (0, 0, 0)
    who: list[str] = []
    for name, entry in packages.items() if isinstance(packages, dict) else []:
        engines = entry.get("engines") if isinstance(entry, dict) else None
        spec = engines.get("node") if isinstance(engines, dict) else None
        if not isinstance(spec, str):
            continue
        minimum = range_minimum(spec)
        if minimum is None:
            continue
        package = name.rpartition("node_modules/")[2] or name
        if minimum > need:
            need, who = minimum, [package]
        elif minimum == need:
            who.append(package)
    return need, who


def show(version: Version) -> str:
    return ".".join(map(str, version))


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "needs":
        need, who = node_needed(json.loads(Path(argv[1]).read_text(encoding="utf-8")))
        print(f"{show(need)} {','.join(who)}")
        return 0
    if len(argv) == 3 and argv[0] == "satisfies":
        need, _ = node_needed(json.loads(Path(argv[2]).read_text(encoding="utf-8")))
        return 0 if parse_version(argv[1]) >= need else 1
    print("usage: realcli_node.py needs LOCKFILE | satisfies VERSION LOCKFILE", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
