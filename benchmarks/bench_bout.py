"""A whole demo bout through `bugbout run`: the first (building the test environment),
one with the environment built, a second run that repeats nothing, and the other
commands. Target: the README's demo (setup aside) well under 3 minutes.

Each figure is one run of the real command line in a fresh BUGBOUT_HOME; the stage
times are those `bugbout run` prints on stderr.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples" / "demo"))

from build_demo import build_demo

BUGBOUT = Path(sys.executable).parent / "bugbout"
STAGE = re.compile(r"^bugbout: \[\d/\d\] (\w+): .* in ([\d.]+) (s|min)$")


def timed(*args: str, env: dict[str, str]) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(
        [str(BUGBOUT), *args], env=env, capture_output=True, text=True, check=False
    )
    took = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"bugbout {args[0]} failed:\n{done.stderr}")
    return took, done.stderr


def stages(stderr: str) -> str:
    found = []
    for line in stderr.splitlines():
        match = STAGE.match(line)
        if match:
            seconds = float(match.group(2)) * (60 if match.group(3) == "min" else 1)
            found.append(f"{match.group(1)} {seconds:.1f}")
    return ", ".join(found)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "BUGBOUT_HOME": str(Path(tmp) / "home")}
        first = build_demo(Path(tmp) / "first")
        second = build_demo(Path(tmp) / "second")
        rows = []
        took, said = timed("run", "--config", str(first.config), "--no-report", env=env)
        rows.append(("run, environment built first", took, stages(said)))
        took, said = timed("run", "--config", str(second.config), "--no-report", env=env)
        rows.append(("run, environment built", took, stages(said)))
        took, said = timed("run", "--config", str(second.config), "--no-report", env=env)
        rows.append(("run again, nothing new", took, ""))
        took, _ = timed("tasks", "--config", str(second.config), env=env)
        rows.append(("tasks", took, ""))
        took, _ = timed("doctor", "--config", str(second.config), env=env)
        rows.append(("doctor", took, ""))
        took, _ = timed("report", "--config", str(second.config), "-f", "html", env=env)
        rows.append(("report --format html", took, ""))
    for label, seconds, detail in rows:
        print(f"{label:<30} {seconds:7.2f} s   {detail}")
    print("target: the whole demo bout well under 180 s")


if __name__ == "__main__":
    main()
