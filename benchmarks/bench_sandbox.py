"""What the allow-list costs: starting ``true`` in bubblewrap, with the allow-list view
bugbout builds now next to the plain read-only view of ``/`` it used to build.

Rounds alternate between the three so a busy machine weighs on each alike; prints the
median and best of each and the allow-list's extra cost over the plain view. Both run
through :func:`bb_core.sandbox.run_confined` (deadline, sweep of leftovers), so the
difference is the view alone: working out the program's installs, the bind list, the
blanked ``/etc`` files and the argument block passed by file descriptor.

    python benchmarks/bench_sandbox.py [--rounds N]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bb_core.sandbox import Bubblewrap, Confinement, Sandbox, get_sandbox, run_confined


class PlainView(Bubblewrap):
    """The earlier view: everything read-only, holes for the writable folders."""

    def launch(
        self, argv: Sequence[str], confinement: Confinement, *, cwd: Path | None = None
    ) -> tuple[list[str], bytes | None]:
        cmd = [self.executable, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        cmd += ["--tmpfs", "/tmp", "--tmpfs", "/var/tmp"]
        for path in confinement.writable:
            cmd += ["--bind", str(path), str(path)]
        cmd += ["--setenv", "TMPDIR", "/tmp", "--unshare-all", "--die-with-parent"]
        cmd += ["--new-session", "--chdir", str(cwd or "/"), "--", *argv]
        return cmd, None


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()
    allow = get_sandbox("bubblewrap")
    plain = PlainView(allow.executable)  # type: ignore[attr-defined]
    true = shutil.which("true") or "/bin/true"
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "work"
        home = Path(tmp) / "home"
        for folder in (work, home):
            folder.mkdir()

        def run(sandbox: Sandbox, argv: list[str]) -> Callable[[], object]:
            confinement = Confinement(writable=[work], home=home, readable=[])
            return lambda: run_confined(
                argv, sandbox=sandbox, confinement=confinement, cwd=work, env=None, timeout=30
            )

        for label, argv in (("true", [true]), ("python -c pass", [sys.executable, "-c", "pass"])):
            runs = {
                "bare": lambda argv=argv: subprocess.run(argv, check=True),
                "plain view (0.1)": run(plain, argv),
                "allow-list": run(allow, argv),
            }
            for action in runs.values():
                action()
            times: dict[str, list[float]] = {name: [] for name in runs}
            for _ in range(args.rounds):
                for name, action in runs.items():
                    times[name].append(timed(action))
            print(f"{label}, {args.rounds} rounds:")
            print(f"  {'':20} {'median':>8} {'best':>8}")
            for name, found in times.items():
                print(
                    f"  {name:20} {statistics.median(found) * 1000:7.1f}ms {min(found) * 1000:7.1f}ms"
                )
            extra = statistics.median(times["allow-list"]) - statistics.median(
                times["plain view (0.1)"]
            )
            best = min(times["allow-list"]) - min(times["plain view (0.1)"])
            print(
                f"  allow-list over plain view: {extra * 1000:+.1f} ms median, {best * 1000:+.1f} ms best"
            )


if __name__ == "__main__":
    main()
