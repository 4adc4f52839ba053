"""How long building the demo takes (target: under 3 s), next to copying a built one.

Every test session builds the demo once and copies it for each test that changes it, so
both figures matter: the build for the session's start, the copy for each test.
Prints the median of several builds and copies.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples" / "demo"))

from build_demo import build_demo, write_config

ROUNDS = 5


def main() -> None:
    builds, copies = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(ROUNDS):
            started = time.perf_counter()
            built = build_demo(Path(tmp) / f"build-{n}")
            builds.append(time.perf_counter() - started)
            started = time.perf_counter()
            copy = shutil.copytree(built.root, Path(tmp) / f"copy-{n}", symlinks=True)
            write_config(copy)
            copies.append(time.perf_counter() - started)
    build, copy_time = statistics.median(builds), statistics.median(copies)
    print(f"build (median of {ROUNDS}): {build:6.3f} s   (target < 3 s)")
    print(f"copy  (median of {ROUNDS}): {copy_time:6.3f} s   ({build / copy_time:.0f}x cheaper)")


if __name__ == "__main__":
    main()
