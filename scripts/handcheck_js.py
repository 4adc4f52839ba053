"""FAIL_TO_PASS of a node project's fix commits, found with the bare test runner by hand.

The ground truth the oracle's records on real JavaScript/TypeScript projects are checked
against. For each fix commit it does what a maintainer would do at a shell:

1. check out the fix's parent, and over it only the fix's changes to test files (test
   files by the runners' conventions: ``*.test.*``, ``*.spec.*``, ``__tests__/``,
   ``__snapshots__/``, ``__mocks__/``, or anything under a top-level ``test/``/``tests/``);
2. install the parent's lockfile with ``npm ci`` (once per lockfile: the installed
   ``node_modules`` is kept by the lockfile's hash and hard-linked into each checkout);
3. run the bare runner on the test files the fix touches - ``npx jest --ci
   --runTestsByPath <files>`` or ``npx vitest run <files>`` with the runner's JSON report
   written to a file - ``--runs`` times;
4. the same on the fix itself, installed from its own lockfile.

A test is FAIL_TO_PASS when it failed or was missing (its file did not load) in every run
before and passed in every run after, the oracle's rule. Ids are ``path > describe >
name`` as the runner's report names them, the path relative to the project's root.

    python scripts/handcheck_js.py --repo /tmp/real/commander --runner jest \\
        --name commander --out docs/real-js/handcheck.json 63eed4aa 2e96cd38 ...

Results are merged into ``--out`` by (project, commit), so runs on several projects add up.
``--compare grounded.jsonl`` instead reads bb-oracle's records and prints, as a markdown
table, each hand-checked fix next to the oracle's FAIL_TO_PASS for it, and where they differ.
The projects' own code is never copied anywhere but the scratch folder.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

TEST_FILE = re.compile(r"(^|/)[^/]*\.(test|spec)\.[cm]?[jt]sx?$|(^|/)__tests__/")
TEST_PATH = re.compile(
    r"(^|/)[^/]*\.(test|spec|test-d)\.[cm]?[jt]sx?$|(^|/)(__tests__|__snapshots__|__mocks__)/"
    r"|^tests?/"
)
PASSED, FAILED, SKIPPED, MISSING = "passed", "failed", "skipped", "missing"


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True)
    return done.stdout.decode()


def changed(repo: Path, fix: str) -> list[tuple[str, str]]:
    """(status, path) of each file the fix changes against its first parent."""
    out = git(repo, "diff", "--no-renames", "--name-status", f"{fix}^", fix)
    return [(line[0], line.split("\t", 1)[1]) for line in out.splitlines() if line]


def checkout(repo: Path, commit: str, folder: Path) -> None:
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(repo), "archive", commit], capture_output=True, check=True
    )
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)


def overlay_tests(repo: Path, fix: str, folder: Path) -> list[str]:
    """Apply the fix's test-file changes over a checkout of its parent."""
    applied = []
    for status, path in changed(repo, fix):
        if not TEST_PATH.search(path):
            continue
        target = folder / path
        if status == "D":
            target.unlink(missing_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            blob = subprocess.run(
                ["git", "-C", str(repo), "show", f"{fix}:{path}"], capture_output=True, check=True
            )
            target.write_bytes(blob.stdout)
        applied.append(path)
    return applied


def install(cache: Path, folder: Path, log: list[str]) -> None:
    """node_modules for the checkout's lockfile: ``npm ci`` once, hard-linked after."""
    lock = (folder / "package-lock.json").read_bytes()
    key = hashlib.sha256(lock).hexdigest()[:16]
    built = cache / key
    if not (built / "node_modules").is_dir():
        scratch = cache / f"{key}.tmp"
        shutil.rmtree(scratch, ignore_errors=True)
        scratch.mkdir(parents=True)
        shutil.copy(folder / "package.json", scratch)
        shutil.copy(folder / "package-lock.json", scratch)
        started = time.monotonic()
        done = subprocess.run(
            ["nice", "npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"],
            cwd=scratch,
            capture_output=True,
            check=False,
        )
        if done.returncode != 0:
            raise SystemExit(f"npm ci failed for lockfile {key}: {done.stderr.decode()[-2000:]}")
        log.append(f"npm ci {key}: {time.monotonic() - started:.0f}s")
        shutil.rmtree(built, ignore_errors=True)
        scratch.rename(built)
    subprocess.run(["cp", "-al", str(built / "node_modules"), str(folder)], check=True)


def command(runner: str, files: list[str], report: Path) -> list[str]:
    if runner == "jest":
        return [
            "npx",
            "jest",
            "--ci",
            "--json",
            f"--outputFile={report}",
            "--runTestsByPath",
            *files,
        ]
    return ["npx", "vitest", "run", "--reporter=json", f"--outputFile={report}", *files]


def outcomes(report: dict[str, Any], folder: Path) -> dict[str, str]:
    """One outcome per test id from a jest-shaped JSON report (jest's and vitest's)."""
    found: dict[str, str] = {}
    for suite in report.get("testResults", []):
        path = os.path.relpath(suite["name"], folder)
        for case in suite.get("assertionResults", []):
            test_id = " > ".join([path, *case.get("ancestorTitles", []), case["title"]])
            status = case.get("status")
            if found.get(test_id) == FAILED:
                continue  # two tests of one name: a failure of either stands
            found[test_id] = (
                PASSED if status == "passed" else FAILED if status == "failed" else SKIPPED
            )
    return found


def run_side(runner: str, folder: Path, files: list[str], runs: int) -> dict[str, Any]:
    results: list[dict[str, str]] = []
    seconds: list[float] = []
    for n in range(runs):
        report = folder.parent / f"{folder.name}-report-{n}.json"
        report.unlink(missing_ok=True)
        started = time.monotonic()
        subprocess.run(
            ["nice", *command(runner, files, report)],
            cwd=folder,
            capture_output=True,
            check=False,
        )
        seconds.append(round(time.monotonic() - started, 2))
        data = json.loads(report.read_text()) if report.exists() else {}
        results.append(outcomes(data, folder))
    return {"runs": results, "seconds": seconds}


def fail_to_pass(before: list[dict[str, str]], after: list[dict[str, str]]) -> list[str]:
    ids = set().union(*after)
    return sorted(
        t
        for t in ids
        if all(run.get(t, MISSING) in (FAILED, MISSING) for run in before)
        and all(run.get(t) == PASSED for run in after)
    )


def pass_to_pass(before: list[dict[str, str]], after: list[dict[str, str]]) -> list[str]:
    ids = set().union(*after)
    return sorted(
        t
        for t in ids
        if all(run.get(t) == PASSED for run in before)
        and all(run.get(t) == PASSED for run in after)
    )


def check(args: argparse.Namespace, fix: str) -> dict[str, Any]:
    repo: Path = args.repo
    fix = git(repo, "rev-parse", fix).strip()
    parent = git(repo, "rev-parse", f"{fix}^").strip()
    runnable = [
        p
        for s, p in changed(repo, fix)
        if s != "D" and TEST_FILE.search(p) and not re.search(r"\.test-d\.", p)
    ]
    log: list[str] = []
    scratch: Path = args.scratch / args.name / fix[:10]
    before, after = scratch / "before", scratch / "after"
    checkout(repo, parent, before)
    overlay = overlay_tests(repo, fix, before)
    install(args.scratch / "node_modules", before, log)
    checkout(repo, fix, after)
    install(args.scratch / "node_modules", after, log)
    b = run_side(args.runner, before, runnable, args.runs)
    a = run_side(args.runner, after, runnable, args.runs)
    f2p = fail_to_pass(b["runs"], a["runs"])
    record = {
        "project": args.name,
        "commit": fix,
        "parent": parent,
        "subject": git(repo, "log", "-1", "--format=%s", fix).strip(),
        "runner": args.runner,
        "test_files": runnable,
        "overlay": overlay,
        "command": " ".join(command(args.runner, runnable, Path("report.json"))),
        "runs": args.runs,
        "before": b["runs"][0],
        "after": a["runs"][0],
        "seconds": {"before": b["seconds"], "after": a["seconds"]},
        "fail_to_pass": f2p,
        "pass_to_pass": len(pass_to_pass(b["runs"], a["runs"])),
        "log": log,
    }
    if not args.keep:
        shutil.rmtree(scratch, ignore_errors=True)
    return record


def compare(records: list[dict[str, Any]], grounded: Path) -> None:
    """A markdown table: FAIL_TO_PASS by hand against the oracle's, fix by fix."""
    tasks: dict[str, dict[str, Any]] = {}
    skips: dict[str, str] = {}
    for line in grounded.read_text().splitlines():
        row = json.loads(line)
        if row.get("kind") == "task":
            tasks[row["fix_commit"]] = row
        elif row.get("kind") == "skip" and row.get("commit"):
            skips[row["commit"]] = row.get("reason", "skipped")
    print("| project | fix | by hand | by oracle | agree |")
    print("|---|---|---|---|---|")
    for record in records:
        hand = set(record["fail_to_pass"])
        task = tasks.get(record["commit"])
        if task is None:
            reason = skips.get(record["commit"], "not mined")
            oracle_text = f"not a task ({reason})"
            agree = "yes" if not hand and reason == "no-fail-to-pass" else "no"
        else:
            oracle = set((task.get("oracle") or {}).get("fail_to_pass") or [])
            oracle_text = str(len(oracle))
            agree = (
                "yes"
                if oracle == hand
                else (f"no: {len(hand - oracle)} by hand only, {len(oracle - hand)} by oracle only")
            )
        print(
            f"| {record['project']} | `{record['commit'][:8]}` {record['subject'][:50]} "
            f"| {len(hand)} | {oracle_text} | {agree} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", type=Path)
    parser.add_argument("--runner", choices=("jest", "vitest"), default="jest")
    parser.add_argument("--name", required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--scratch", type=Path, default=Path("/tmp/handcheck"))
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--compare", type=Path, help="bb-oracle's records to compare with")
    parser.add_argument("commits", nargs="*")
    args = parser.parse_args()
    records = json.loads(args.out.read_text()) if args.out.exists() else []
    if args.compare:
        compare([r for r in records if r["project"] == args.name], args.compare)
        return
    for fix in args.commits:
        record = check(args, fix)
        records = [
            r for r in records if (r["project"], r["commit"]) != (args.name, record["commit"])
        ]
        records.append(record)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(records, indent=1, sort_keys=True) + "\n")
        print(
            f"{args.name} {record['commit'][:10]} FAIL_TO_PASS {len(record['fail_to_pass'])}"
            f" PASS_TO_PASS {record['pass_to_pass']} {record['log']}",
            file=sys.stderr,
        )


if __name__ == "__main__":
    main()
