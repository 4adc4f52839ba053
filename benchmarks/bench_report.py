"""How long bb-report takes to build and render a report as bouts grow, and how big each
format gets.

Synthetic bouts of finished tasks: 5 contestants, 1 examiner and a 300-test suite in every
matrix (a few suite tests broken by some patches, the rest folded in the heat maps),
random categories and gate decisions. Prints, per bout size, the seconds to build the
report object (every section, intervals and paired tests included) and to render each
format, and the size of each output; last, the HTML written to a file as a light page
with a page per task beside it (bb_report.html_pages): the seconds, the main page's size
(what a browser opens) and the task pages' sizes together.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path
from typing import Any

from bb_report import build_report, render
from bb_report.html_pages import html_files

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "report" / "fixtures"))

from build_bout import attempt, matrix, oracle, scores, task, verdict  # noqa: E402

AGENTS = ("alpha", "beta", "gamma", "delta", "echo")
CONTESTANTS = AGENTS[:4]
SIZES = (50, 500, 2000)
CATEGORIES = ("resolved", "resolved", "fixed-but-broke", "wrong-fix", "no-fix")


def bout(tasks: int, seed: int = 11) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    suite = [f"tests/test_suite.py::test_{k}" for k in range(300)]
    lines: list[dict[str, Any]] = []
    for n in range(1, tasks + 1):
        task_id = f"textkit-t{n}"
        cats = {name: rng.choice(CATEGORIES) for name in CONTESTANTS}
        patched = [name for name in CONTESTANTS if cats[name] != "no-fix"]
        authors = [(name, "contestant", [f"tests/test_{name}_{n}.py::test_it"]) for name in patched]
        authors += [("echo", "examiner", [f"tests/test_echo_{n}.py::test_{k}" for k in range(3)])]
        authors += [("suite", "suite", suite)]
        outcomes: dict[tuple[str, str], list[str]] = {}
        for name, _role, tests in authors:
            for test in tests:
                base = "passed" if name == "suite" else "failed"
                row = [base]
                for column in patched:
                    good = cats[column] == "resolved" or rng.random() < 0.98
                    row.append("passed" if good else "failed")
                outcomes[(name, test)] = row
        picks = [name for name in patched if rng.random() < 0.6]
        pick = picks[0] if picks else None
        gate = {name: rng.choice(("approve", "reject")) for name in patched}
        runs = [
            attempt(task_id, name, rng.uniform(10, 600), tokens={"total": 9000})
            for name in CONTESTANTS
        ]
        record = task(
            n % 13 + 1,
            f"Fix thing {n}",
            oracle=oracle(),
            attempts=runs,
            matrix=matrix(task_id, authors, patched, outcomes),
            verdict=verdict(task_id, pick, gate),
            scores=scores(task_id, cats, pick),
        )
        record["id"] = task_id
        lines.append(record)
    return lines


def timed(call: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    result = call()
    return time.perf_counter() - start, result


def main() -> None:
    print(
        f"{'tasks':>6} {'build s':>8}"
        + "".join(
            f" {f + ' s':>11} {f + ' MB':>12}" for f in ("terminal", "markdown", "json", "html")
        )
        + f" {'paged s':>8} {'page MB':>9} {'tasks MB':>10}"
    )
    for size in SIZES:
        records = bout(size)
        build, report = timed(lambda records=records: build_report(records))
        cells = [f"{size:>6} {build:>8.2f}"]
        for fmt in ("terminal", "markdown", "json", "html"):
            seconds, text = timed(lambda fmt=fmt, report=report: render(report, fmt))
            cells.append(f" {seconds:>11.2f} {len(text.encode()) / 1e6:>12.2f}")
        seconds, files = timed(lambda report=report: html_files(report, Path("report.html")))
        main = len(files["report.html"].encode()) / 1e6
        pages = sum(len(text.encode()) for text in files.values()) / 1e6 - main
        cells.append(f" {seconds:>8.2f} {main:>9.2f} {pages:>10.2f}")
        print("".join(cells), flush=True)


if __name__ == "__main__":
    main()
