"""Every whole ``bugbout run`` kept as a run of its own, to compare a bout with the last.

When a run has written its report, its records are kept under
``.bugbout/runs/<time>/`` (UTC, ``20261203T181502Z``; ``-2``, ``-3`` ... when two finish
in the same second): ``verdicts.jsonl`` (every task with its attempts, matrix, verdict and
scores), ``scores.jsonl``, ``report.json`` and ``run.json``. The live files in
``.bugbout/`` stay where they are; each kept file is a hard link to the live one (the live
files are replaced, never written in place, so the link keeps this run's content), or a
copy where links cannot be made.

:func:`compare` is ``bugbout compare``: the later run's report with the earlier one as its
baseline (:mod:`bb_report.baseline`).
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from bb_core.errors import UsageError
from bb_core.records import read_lines
from bb_report import Report, build_report

from bugbout.results import MANIFEST, Results

#: The folder of kept runs, inside ``.bugbout/``.
RUNS = "runs"
#: The files a run keeps, when the run wrote them.
KEPT = ("verdicts.jsonl", "scores.jsonl", "report.json", MANIFEST)
#: The file a kept run's records are read from.
RECORDS = "verdicts.jsonl"


def runs_dir(results: Results) -> Path:
    return results.root / RUNS


def keep_run(results: Results, now: float | None = None) -> Path:
    """Keep the files of the run that just finished under ``runs/<time>/``; its folder."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(now))
    folder = runs_dir(results) / stamp
    number = 1
    while folder.exists():
        number += 1
        folder = runs_dir(results) / f"{stamp}-{number}"
    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    for name in KEPT:
        live = results.root / name
        if live.is_file():
            try:
                os.link(live, partial / name)
            except OSError:
                shutil.copyfile(live, partial / name)
    partial.rename(folder)  # a run is kept whole or not at all
    return folder


def kept_runs(results: Results) -> list[Path]:
    """The kept runs, oldest first (their names sort by time)."""
    folder = runs_dir(results)
    if not folder.is_dir():
        return []
    found = [p for p in folder.iterdir() if p.is_dir() and not p.name.endswith(".partial")]
    return sorted(found, key=lambda p: _order(p.name))


def _order(name: str) -> tuple[str, int]:
    stamp, _, number = name.partition("-")
    return stamp, int(number) if number.isdigit() else 1


def records_file(results: Results, given: str) -> Path:
    """The records *given* names: a kept run's name, a run's folder, or a records file."""
    for candidate in (runs_dir(results) / given, Path(given)):
        if candidate.is_dir() and (candidate / RECORDS).is_file():
            return candidate / RECORDS
        if candidate.is_file():
            return candidate
    names = ", ".join(p.name for p in kept_runs(results)) or "none"
    raise UsageError(
        f"{given}: no such run or records file (kept runs: {names})",
        hint="name a folder of .bugbout/runs/, or a verdicts.jsonl",
    )


def chosen(results: Results, run_a: str | None, run_b: str | None) -> tuple[Path, Path]:
    """(baseline, current) records: the two runs named, else RUN_A against the last run,
    else the last two runs."""
    kept = kept_runs(results)
    if run_a is not None and run_b is not None:
        return records_file(results, run_a), records_file(results, run_b)
    needed = 1 if run_a is not None else 2
    if len(kept) < needed:
        raise UsageError(
            f"comparing needs {needed} kept {'run' if needed == 1 else 'runs'}; "
            f"{runs_dir(results)} holds {len(kept)}",
            hint="every whole `bugbout run` keeps one",
        )
    if run_a is not None:
        return records_file(results, run_a), kept[-1] / RECORDS
    return kept[-2] / RECORDS, kept[-1] / RECORDS


def label(results: Results, path: Path) -> str:
    """How a records file is named in the report: its run's name, else its path."""
    if path.name == RECORDS and path.parent.parent == runs_dir(results):
        return f"run {path.parent.name}"
    return str(path)


def compare(
    results: Results, run_a: str | None = None, run_b: str | None = None
) -> tuple[Report, str, str]:
    """The later bout's report with the earlier one as its baseline, and both labels."""
    before, after = chosen(results, run_a, run_b)
    earlier, later = label(results, before), label(results, after)
    baseline = [line.record for line in read_lines([str(before)])]
    report = build_report(
        (line.record for line in read_lines([str(after)])),
        baseline=baseline,
        baseline_label=earlier,
        current_label=later,
    )
    return report, earlier, later
