"""How long bb-mine takes on 20,000 first-parent commits, next to git log on the same repository.

Builds a repository with ``git fast-import`` (a few seconds): every 10th commit is a fix
that names an issue, changes one source file and adds a test; the others change a source
or documentation file under titles that are not fixes. Then times, in the same run:

- ``git log --first-parent --name-status`` (the yardstick);
- ``bb-mine --issues FILE --limit 0`` with an empty cache (the first run);
- the same command again with no new commits (served by the mining cache);
- the same command after 10 new commits have landed.

The first run is timed ``--runs`` times (3 by default), each right after git log and
with an empty cache, and the median ratio is reported: on a shared machine one run says
little. bugbout's bytecode is compiled first, as an installed bugbout has it (see
``installed.py``). Targets: the first run at most 3x git log; a re-run with no new commits < 1 s.
On a busy machine wall times say little: compare the CPU ratio, printed beside it.

    python benchmarks/bench_mine.py [--commits N] [--runs N] [--jobs N]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from installed import compile_bytecode

MODULES = 40
TESTS = 20
DOCS = 30
EPOCH = 1_600_000_000


class Builder:
    """Writes a fast-import stream: whole-file contents kept per path, one commit per step."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {}
        self.chunks: list[bytes] = []
        self.mark = 0

    def commit(self, message: str, changes: dict[str, str], when: int) -> None:
        self.mark += 1
        out = [f"commit refs/heads/main\nmark :{self.mark}\n".encode()]
        out.append(f"author Bench <bench@example.com> {when} +0000\n".encode())
        out.append(f"committer Bench <bench@example.com> {when} +0000\n".encode())
        data = message.encode()
        out.append(f"data {len(data)}\n".encode() + data + b"\n")
        if self.mark > 1:
            out.append(f"from :{self.mark - 1}\n".encode())
        for path, text in changes.items():
            self.files[path] = text
            blob = text.encode()
            out.append(f"M 100644 inline {path}\ndata {len(blob)}\n".encode() + blob + b"\n")
        out.append(b"\n")
        self.chunks.append(b"".join(out))

    def stream(self) -> bytes:
        return b"".join(self.chunks) + b"done\n"


def module(index: int, version: int) -> str:
    return f'"""Module {index}."""\n\n\ndef compute_{index}(value):\n    return value + {version}\n'


def build(dest: Path, commits: int) -> tuple[Path, Path]:
    builder = Builder()
    initial = {f"src/pkg/mod_{m}.py": module(m, 0) for m in range(MODULES)}
    initial["src/pkg/__init__.py"] = ""
    initial |= {
        f"tests/test_mod_{t}.py": f"from pkg.mod_{t} import compute_{t}\n" for t in range(TESTS)
    }
    initial |= {f"docs/page_{d}.md": f"# Page {d}\n" for d in range(DOCS)}
    initial["pyproject.toml"] = (
        '[project]\nname = "pkg"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
    )
    builder.commit("Start the package", initial, EPOCH)
    issues = []
    for n in range(1, commits):
        when = EPOCH + n * 600
        if n % 10 == 0:
            m, t = (n // 10) % MODULES, (n // 10) % TESTS
            test_path = f"tests/test_mod_{t}.py"
            test_text = (
                builder.files[test_path]
                + f"\n\ndef test_case_{n}():\n    assert compute_{t}({n}) == {n}\n"
            )
            builder.commit(
                f"Fix compute_{m} off by one (#{n})\n\nFixes #{n}.\n",
                {f"src/pkg/mod_{m}.py": module(m, n), test_path: test_text},
                when,
            )
            issues.append(
                {
                    "number": n,
                    "title": f"compute_{m} is off by one",
                    "body": f"Calling it with {n} gives the wrong answer.\n\n## Solution\n\nChange mod_{m}.py.\n",
                    "is_pull_request": False,
                    "closes": [],
                }
            )
        elif n % 3 == 0:
            d = n % DOCS
            builder.commit(
                f"Document page {d}, revision {n}",
                {f"docs/page_{d}.md": f"# Page {d}\n\nRevision {n}\n"},
                when,
            )
        else:
            m = n % MODULES
            builder.commit(
                f"Tune module {m}, step {n}", {f"src/pkg/mod_{m}.py": module(m, n)}, when
            )
    repo = dest / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=builder.stream(), check=True)
    subprocess.run(["git", "checkout", "-q", "main"], cwd=repo, check=True)
    export = dest / "issues.jsonl"
    export.write_text("".join(json.dumps(i) + "\n" for i in issues))
    return repo, export


#: Wall seconds, CPU seconds and stdout of one command.
Timed = tuple[float, float, bytes]


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> Timed:
    """Wall seconds, CPU seconds (user + system) and stdout of one run of *argv*."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, check=False)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        sys.exit(f"{argv[0]} failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
    if argv[0].endswith("bb-mine") and done.stderr:
        sys.exit(f"bb-mine wrote on stderr: {done.stderr.decode()[:500]}")
    return elapsed, cpu, done.stdout


def add_commits(repo: Path, count: int) -> None:
    env = os.environ | {
        "GIT_AUTHOR_NAME": "B",
        "GIT_AUTHOR_EMAIL": "b@e",
        "GIT_COMMITTER_NAME": "B",
        "GIT_COMMITTER_EMAIL": "b@e",
    }
    for n in range(count):
        (repo / "docs" / "late.md").write_text(f"late {n}\n")
        subprocess.run(["git", "add", "docs/late.md"], cwd=repo, check=True, env=env)
        subprocess.run(["git", "commit", "-qm", f"Late note {n}"], cwd=repo, check=True, env=env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=20_000)
    parser.add_argument(
        "--runs", type=int, default=3, help="first runs to time, each beside git log (median)"
    )
    parser.add_argument("--jobs", type=int, help="bb-mine --jobs (default: one worker per core)")
    args = parser.parse_args()
    bb_mine = shutil.which("bb-mine") or str(Path(sys.executable).with_name("bb-mine"))
    compile_bytecode()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        started = time.perf_counter()
        repo, export = build(root, args.commits)
        print(
            f"built {args.commits:,} commits with git fast-import in {time.perf_counter() - started:.1f} s"
        )
        mine = [bb_mine, str(repo), "--source", "src/pkg", "--issues", str(export), "--limit", "0"]
        if args.jobs:
            mine += ["--jobs", str(args.jobs)]
        loads = os.getloadavg()
        pairs: list[tuple[Timed, Timed]] = []
        for run in range(args.runs):  # each first run with an empty cache, right after git log
            env = os.environ | {"BUGBOUT_HOME": str(root / f"home-{run}")}
            git = timed(["git", "log", "--first-parent", "--name-status"], repo, env)
            first = timed(mine, root, env)
            if pairs:
                assert records(first[2]) == records(pairs[0][1][2]), "first runs differ"
            pairs.append((git, first))
        out = pairs[-1][1][2]
        summary = json.loads(out.splitlines()[-1])
        again_wall, again_cpu, again = timed(mine, root, env)
        assert records(again) == records(out), "the cached run differs"
        add_commits(repo, 10)
        new_wall, new_cpu, _ = timed(mine, root, env)
    print(f"{'':38} {'wall':>8} {'cpu':>8}")
    for (git_wall, git_cpu, _), (first_wall, first_cpu, _) in pairs:
        print(f"{'git log --first-parent --name-status':38} {git_wall:7.2f}s {git_cpu:7.2f}s")
        print(
            f"{'bb-mine, first run':38} {first_wall:7.2f}s {first_cpu:7.2f}s"
            f"  ({first_wall / git_wall:.1f}x wall, {first_cpu / git_cpu:.1f}x cpu)"
        )
    print(
        f"{'bb-mine, re-run, no new commits':38} {again_wall:7.2f}s {again_cpu:7.2f}s  (target < 1 s)"
    )
    print(f"{'bb-mine, re-run after 10 new commits':38} {new_wall:7.2f}s {new_cpu:7.2f}s")
    wall = statistics.median(first[0] / git[0] for git, first in pairs)
    cpu = statistics.median(first[1] / git[1] for git, first in pairs)
    print(
        f"first run / git log, median of {len(pairs)}: {wall:.1f}x wall, {cpu:.1f}x cpu"
        f" (target <= 3x); bb-mine on {os.cpu_count()} cores"
    )
    after = os.getloadavg()[0]
    busy = max(loads[0], after) > (os.cpu_count() or 1)
    print(
        f"load average (1 min) {loads[0]:.1f} before the runs, {after:.1f} after"
        + (": above the core count, wall times mostly measure the other jobs" if busy else "")
    )
    print(
        f"examined {summary['examined']:,} commits, {summary['candidates']:,} fix-titled, {summary['tasks']:,} tasks"
    )


def records(stdout: bytes) -> list[bytes]:
    """A run's records without the summary's elapsed time."""
    lines = stdout.splitlines()
    summary = json.loads(lines[-1])
    summary.pop("elapsed", None)
    return [*lines[:-1], json.dumps(summary, sort_keys=True).encode()]


if __name__ == "__main__":
    main()
