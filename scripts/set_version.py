"""Sets the one version of the workspace: every package's and the exact pins between them.

    python scripts/set_version.py 0.2.0

bugbout's packages are released together, so each carries the same version and depends on
its siblings at exactly that version (``bb-core==0.2.0``). The number is written only in
the pyproject.toml files, which packaging needs; code reads it from the installed metadata
(``bb_core.package_version``). tests/core/test_versions.py keeps them in step.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYPROJECTS = [ROOT / "pyproject.toml", *sorted(ROOT.glob("packages/*/pyproject.toml"))]
SIBLINGS = [p.parent.name for p in PYPROJECTS[1:]]
VERSION = re.compile(r'^version = "[^"]*"$', re.MULTILINE)


def pin(text: str, version: str) -> str:
    text = VERSION.sub(f'version = "{version}"', text, count=1)
    for name in SIBLINGS:
        text = re.sub(rf'^(\s*)"{name}(==[^"]*)?",$', rf'\1"{name}=={version}",', text, flags=re.M)
    return text


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not re.fullmatch(r"[0-9]+(\.[0-9]+)*([a-z0-9.+-]*)", argv[0]):
        print("usage: python scripts/set_version.py X.Y.Z", file=sys.stderr)
        return 2
    for path in PYPROJECTS:
        path.write_text(pin(path.read_text(encoding="utf-8"), argv[0]), encoding="utf-8")
    print(f"set {argv[0]} in {len(PYPROJECTS)} pyproject.toml files; now run `uv lock`")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
