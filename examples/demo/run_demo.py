"""Build the demo afresh and run a whole bout on it, ending with the terminal report.

    python examples/demo/run_demo.py DEST [--lang ts]

DEST is replaced by a fresh build (see build_demo.py; ``--lang ts`` builds the TypeScript
demo, tskit, on vitest). Then ``bugbout run`` races the
scripted agents on the demo's tasks and ``bugbout report --format terminal`` prints the
report. The ``bugbout`` command is the one installed beside this Python; its exit status
is this script's exit status. It ends, on stderr, with the next commands to try and
whether ``bugbout`` is on the PATH of the shell that called it (``BUGBOUT_CALLER_PATH``,
which scripts/demo.sh sets before it changes its own PATH), with the line that puts it
there when it is not.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from build_demo import LANGUAGES, build_demo


def bugbout_command() -> str:
    """The bugbout console script of this interpreter's environment, else the one on PATH."""
    beside = Path(sys.executable).parent / "bugbout"
    if beside.is_file():
        return str(beside)
    found = shutil.which("bugbout")
    if found is None:
        raise FileNotFoundError("bugbout is not installed here (try `bash scripts/setup.sh`)")
    return found


def on_path_lines(caller_path: str, bindir: Path) -> list[str]:
    """Whether ``bugbout`` is on *caller_path*, and if not, the line that puts it there."""
    found = shutil.which("bugbout", path=caller_path)
    if found is not None:
        return [f"bugbout is on your PATH ({found})."]
    linked = bindir / "bugbout"
    folder = bindir if linked.exists() else Path(bugbout_command()).parent
    return [
        f"bugbout is in {folder}, which is not on your shell's PATH; this line puts it there"
        " (add it to ~/.bashrc to keep it):",
        f'    export PATH="{folder}:$PATH"',
    ]


def closing_lines(dest: Path, caller_path: str, bindir: Path) -> list[str]:
    """What the demo says last: where the bout is kept, the next commands, and PATH."""
    here = shlex.quote(str(dest))
    return [
        f"The bout is kept in {dest / '.bugbout'}. Next:",
        f"    cd {here} && bugbout report -o report.html    # the report as one offline HTML page",
        f"    cd {here} && bugbout tasks                    # the mined tasks, one line each",
        "    cd your-repo && bugbout init                   # the same on your own repository",
        *on_path_lines(caller_path, bindir),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="run_demo.py",
        description="Build the demo into DEST (replacing it) and run a whole bout on it.",
    )
    parser.add_argument("dest", type=Path, help="folder to build the demo into")
    parser.add_argument(
        "--lang", choices=LANGUAGES, default="py",
        help="py: textkit, a Python package (pytest); ts: tskit, a TypeScript library (vitest)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    try:
        bugbout = bugbout_command()
        paths = build_demo(args.dest, force=True, lang=args.lang)
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
    status = subprocess.run(report, check=False).returncode
    caller_path = os.environ.get("BUGBOUT_CALLER_PATH", os.environ.get("PATH", ""))
    bindir = Path(os.environ.get("BUGBOUT_BIN") or Path.home() / ".local" / "bin")
    sys.stdout.flush()
    for line in closing_lines(paths.root, caller_path, bindir):
        print(line, file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
