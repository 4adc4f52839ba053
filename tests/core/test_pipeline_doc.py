"""docs/pipeline.md documents every field of every kind, straight from the schemas."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_pipeline_page_is_generated_from_the_current_schemas() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "pipeline_doc.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr


def test_every_field_has_a_meaning() -> None:
    page = (ROOT / "docs" / "pipeline.md").read_text()
    rows = [line for line in page.splitlines() if line.startswith("| `")]
    assert len(rows) > 60
    undocumented = [row.split("|")[1].strip() for row in rows if row.rstrip().endswith("|  |")]
    assert undocumented == []
