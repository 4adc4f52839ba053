"""Build the demo afresh and run a whole bout on it, ending with the terminal report.

    python examples/demo/run_demo.py DEST

DEST is replaced by a fresh build (see build_demo.py). Then ``bugbout run`` races the
scripted agents on the demo's tasks and ``bugbout report --format terminal`` prints the
report. The ``bugbout`` command is the one installed beside this Python; its exit status
is this script's exit status.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

from build_demo import build_demo


def bugbout_command() -> str:
    """The bugbout console script of this interpreter's environment, else the one on PATH."""
    beside = Path(sys.executable).parent / "bugbout"
    if beside.is_file():
        return str(beside)
    found = shutil.which("bugbout")
    if found is None:
        raise FileNotFoundError("bugbout is not installed here (try `bash scripts/setup.sh`)")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="run_demo.py",
        description="Build the demo into DEST (replacing it) and run a whole bout on it.",
    )
    parser.add_argument("dest", type=Path, help="folder to build the demo into")
    args = parser.parse_args(argv)
    try:
        bugbout = bugbout_command()
        paths = build_demo(args.dest, force=True)
    except (OSError, RuntimeError) as error:
        print(f"run_demo.py: {error}", file=sys.stderr)
        return 1
    print(f"run_demo.py: demo built in {paths.root}", file=sys.stderr)
    config = str(paths.config)
    # `bugbout run` would print the report too; here `bugbout report` prints it once.
    run = [bugbout, "run", "--config", config, "--no-report"]
    status = subprocess.run(run, check=False).returncode
    if status != 0:
        return status
    report = [bugbout, "report", "--config", config, "--format", "terminal"]
    return subprocess.run(report, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
