"""How long reading and validating 100,000 task lines takes, next to parsing them alone.

Validation must not dominate a stage's run time. Prints lines per second for parsing only
(orjson) and for parse + schema validation (bb_core.records), and their ratio.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import orjson
from bb_core.records import read_lines

LINES = 100_000


def task(n: int) -> dict:
    return {
        "kind": "task",
        "v": 1,
        "id": f"demo-{n:010x}",
        "repository": "demo",
        "base_commit": f"{n:040x}",
        "fix_commit": f"{n + 1:040x}",
        "date": "2026-01-01T00:00:00+00:00",
        "title": f"Fix crash in parse (#{n})",
        "issue_refs": [{"number": n, "text": f"#{n}"}],
        "statement": "Parsing an empty file crashes with IndexError. " * 8,
        "statement_source": "export",
        "redactions": {"section": 1, "diff-block": 1},
        "source": "src/demo",
        "tests": "tests",
        "source_files": ["src/demo/parse.py"],
        "test_files": ["tests/test_parse.py"],
        "protected_paths": ["tests/test_parse.py", "pyproject.toml"],
        "reference_patch": "--- a/src/demo/parse.py\n+++ b/src/demo/parse.py\n" * 10,
        "test_patch": "--- a/tests/test_parse.py\n+++ b/tests/test_parse.py\n" * 10,
    }


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tasks.jsonl"
        path.write_bytes(b"".join(orjson.dumps(task(n)) + b"\n" for n in range(LINES)))
        started = time.perf_counter()
        with path.open("rb") as handle:
            parsed = sum(1 for raw in handle if orjson.loads(raw))
        parse_only = time.perf_counter() - started
        started = time.perf_counter()
        validated = sum(1 for _ in read_lines([str(path)]))
        full = time.perf_counter() - started
    assert parsed == validated == LINES
    print(f"parse only:        {LINES / parse_only:12,.0f} lines/s ({parse_only:.2f} s)")
    print(f"parse + validate:  {LINES / full:12,.0f} lines/s ({full:.2f} s)")
    print(f"per line:          {full / LINES * 1e6:12.1f} µs")
    print(f"ratio:             {full / parse_only:12.1f}x parsing alone")


if __name__ == "__main__":
    main()
