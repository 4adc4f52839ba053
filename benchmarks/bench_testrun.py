"""The fixed cost of bugbout's test runs: run_pytest next to bare pytest on the same tests.

Builds a small project (4 modules, 40 quick tests) and, in alternating rounds, runs it
with bare ``python -m pytest -q -p no:cacheprovider`` and with ``run_pytest`` under
bubblewrap and unconfined, all with the same interpreter. Prints the median and the
best wall time of each and the overhead per run: median minus bare median, and best minus
bare best (the steadier figure on a busy machine). The target
is under 0.3 s of overhead on top of bare pytest.

    python benchmarks/bench_testrun.py [--rounds N] [--python PATH]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bb_core.envs import TestEnv
from bb_core.sandbox import get_sandbox
from bb_core.testrun import run_pytest

MODULES = 4
TESTS = 10


def build(root: Path) -> None:
    for m in range(MODULES):
        lines = ["import pytest", ""]
        for t in range(TESTS // 2):
            lines.append(f"def test_plain_{t}():\n    assert {t} + 1 == {t + 1}\n")
        lines.append(f"@pytest.mark.parametrize('n', range({TESTS - TESTS // 2}))")
        lines.append("def test_param(n):\n    assert n >= 0\n")
        path = root / "tests" / f"test_mod{m}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines))


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--python", default=sys.executable, help="an interpreter that has pytest")
    options = parser.parse_args()
    python = Path(options.python)
    env = TestEnv(python=python, env={}, key="bench")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        build(root)
        logs = Path(tmp) / "logs"
        bare_argv = [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]

        def bare() -> None:
            subprocess.run(bare_argv, cwd=root, stdout=subprocess.DEVNULL, check=True)

        def harness(kind: str) -> Callable[[], None]:
            sandbox = get_sandbox(kind)

            def go() -> None:
                run = run_pytest(
                    root,
                    env,
                    ["tests"],
                    sandbox=sandbox,
                    timeout=120,
                    log_path=logs / f"{kind}.log",
                )
                assert run.counts["passed"] == MODULES * TESTS and run.ok, run

            return go

        runs = {"bare pytest": bare, "run_pytest, none": harness("none")}
        try:
            runs["run_pytest, bubblewrap"] = harness("bubblewrap")
        except Exception as exc:  # no bubblewrap here: measure what can be measured
            print(f"(bubblewrap skipped: {exc})")
        for action in runs.values():  # warm caches (bytecode, the bwrap probe)
            action()
        times: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(options.rounds):
            for name, action in runs.items():
                times[name].append(timed(action))
    base = statistics.median(times["bare pytest"])
    best = min(times["bare pytest"])
    print(f"{MODULES * TESTS} tests, {options.rounds} rounds, {python}")
    print(f"{'':24} {'median':>8} {'best':>8}   overhead: median, best")
    for name, values in times.items():
        median = statistics.median(values)
        line = f"{name:24} {median:7.3f}s {min(values):7.3f}s"
        if name != "bare pytest":
            line += f"   {median - base:+.3f}s {min(values) - best:+.3f}s"
        print(line)


if __name__ == "__main__":
    main()
