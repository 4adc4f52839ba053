"""The HTML report of a large bout: a light page, and a page per task beside it."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest
from bb_report import build_report, html_pages, render_html
from bb_report.cli import main
from bb_report.html_pages import PAGED_ABOVE, file_name, html_files
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[2]


def test_a_split_report_keeps_its_sections_and_moves_each_task_to_its_page(
    bout_records: list[dict[str, Any]],
) -> None:
    report = build_report(bout_records)
    files = html_files(report, Path("out/report.html"))
    main_page = files.pop("report.html")
    assert sorted(files) == sorted(f"report.tasks/{file_name(t.id)}" for t in report.tasks)
    # The main page has every section but no heat map and no drill-down of its own...
    single = render_html(report)
    for section in re.findall(r'<section id="([a-z-]+)"', single):
        if section != "matrices":
            assert f'<section id="{section}"' in main_page, section
    assert '<svg class="heatmap"' not in main_page and "<details" not in main_page
    assert '<a href="report.tasks/textkit-t1.html">textkit-t1</a>' in main_page
    # ... each task's page has them, opened, and a way back.
    t1 = files["report.tasks/textkit-t1.html"]
    assert '<svg class="heatmap" data-task="textkit-t1"' in t1
    assert '<details open class="task"' in t1
    assert '<a href="../report.html">back to the report</a>' in t1
    for text in (main_page, *files.values()):
        assert re.search(r"https?:|<script", text) is None


def test_a_task_id_is_a_safe_file_name() -> None:
    assert file_name("textkit-t1") == "textkit-t1.html"
    assert file_name("../../etc/passwd") == ".._.._etc_passwd.html"


def test_bb_report_splits_a_large_bout_written_to_a_file(
    bout_records: list[dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "bout.jsonl"
    source.write_text((ROOT / "tests/report/fixtures/bout.jsonl").read_text())
    out = tmp_path / "site" / "report.html"
    monkeypatch.setattr(html_pages, "PAGED_ABOVE", 3)  # the fixture's 7 tasks are many
    done = CliRunner().invoke(main, [str(source), "-o", str(out)])
    assert done.exit_code == 0, done.output
    pages = sorted(p.name for p in (tmp_path / "site" / "report.tasks").iterdir())
    assert pages == sorted(file_name(t["id"]) for t in bout_records if t["kind"] == "task")
    assert "report.tasks/textkit-t1.html" in out.read_text()
    # Below the threshold, and always on stdout, the report is one page.
    monkeypatch.setattr(html_pages, "PAGED_ABOVE", 200)
    small = tmp_path / "small.html"
    assert CliRunner().invoke(main, [str(source), "-o", str(small)]).exit_code == 0
    assert not (tmp_path / "small.tasks").exists()
    assert '<svg class="heatmap"' in small.read_text()


def test_the_main_page_stays_light_as_the_bout_grows() -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_report import bout  # the benchmark's synthetic bout: 300-test suites

    size = PAGED_ABOVE + 100
    report = build_report(bout(size))
    main_page = html_files(report, Path("report.html"))["report.html"]
    # Under 2.5 KB a task keeps 2,000 tasks under 5 MB (the single page: ~25 KB a task).
    assert len(main_page.encode()) / size < 2500
