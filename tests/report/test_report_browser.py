"""The HTML report as a team lead sees it, in headless Chromium at 1280 px (and 390 px): the headline
first, a task's drill-down that opens onto its statement, patches, failing hidden tests
and cited cells, and nothing wider than the window. A screenshot is kept for a person to
look at: in $BUGBOUT_TEST_ARTIFACTS, else test-artifacts/ at the top of the checkout."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from html import escape, unescape
from pathlib import Path
from typing import Any

import pytest
from bb_report import build_report, render_html

CHROMIUM = next(
    (found for name in ("chromium", "chromium-browser", "google-chrome") if (found := shutil.which(name))),
    None,
)  # fmt: skip
ROOT = Path(__file__).resolve().parents[2]
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]  # fmt: skip

#: Opens the first task's drill-down, then measures the page and leaves the figures in it.
PROBE = """<script>
const first = document.querySelector("details.task");
first.open = true;
const box = (el) => el.getBoundingClientRect();
const headline = document.querySelector("#headline");
const status = [...document.querySelectorAll("td.status, td.category")].map((el) => ({
  text: el.textContent, height: box(el).height,
  line: parseFloat(getComputedStyle(el).lineHeight) || 20 }));
const pre = document.createElement("pre");
pre.id = "probe";
pre.textContent = JSON.stringify({
  scrollWidth: document.documentElement.scrollWidth,
  clientWidth: document.documentElement.clientWidth,
  headlineTop: box(headline).top, headline: headline.innerText,
  firstSectionTop: box(document.querySelector("section")).top,
  details: document.querySelectorAll("details.task").length,
  openHeight: box(first).height,
  statement: first.querySelector("pre.statement").innerText,
  diffs: first.querySelectorAll("pre.diff").length,
  added: first.querySelectorAll("pre.diff .add").length,
  cited: first.querySelectorAll("table.cited tbody tr").length,
  hovers: [...document.querySelectorAll("svg.heatmap text title")].map((t) => t.textContent),
  status,
});
document.body.appendChild(pre);
</script>"""

LONG_TEST = (
    "tests/test_echo_1.py::TestSlugify::test_keeps_unicode_letters_and_digits_of_every_script"
)


def _bout(bout_records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The hand-built bout, with a long test id and cited cells on t1, and a crashed attempt."""
    records = json.loads(json.dumps(bout_records))
    for record in records:
        if record.get("kind") == "task" and record["id"] == "textkit-t1":
            record["verdict"]["cited"] = [
                {"author": "echo", "test": LONG_TEST, "column": "base",
                 "outcome": "failed"},
                {"author": "echo", "test": LONG_TEST, "column": "alpha",
                 "outcome": "passed"},
            ]  # fmt: skip
            record["attempts"][0]["patch"] = (
                "diff --git a/src/textkit/core.py b/src/textkit/core.py\n--- a/src/textkit/core.py\n"
                "+++ b/src/textkit/core.py\n@@ -1,2 +1,2 @@\n-    return text\n"
                "+    return text.lower()\n"
            )
            for cell in record["matrix"]["cells"]:
                if cell["author"] == "echo":
                    cell["test"] = LONG_TEST
            for author in record["matrix"]["authors"]:
                if author["name"] == "echo":
                    author["tests"] = [LONG_TEST]
            crashed = dict(record["attempts"][0], agent="delta", status="crashed", exit_code=127,
                           patch="", error="exited with status 127: bwrap: execvp nosuch: No such file or directory",
                           logdir="/home/me/.bugbout/attempts/textkit-t1/delta")  # fmt: skip
            record["attempts"].append(crashed)
    return records


def _chromium(*args: str, profile: Path) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    return subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


@pytest.mark.slow
@pytest.mark.skipif(
    CHROMIUM is None, reason="no Chromium on PATH (scripts/setup.sh --with-test-tools)"
)
def test_headline_drilldown_and_width_in_chromium(
    bout_records: list[dict[str, Any]], tmp_path: Path
) -> None:
    page = render_html(build_report(_bout(bout_records)))
    assert re.search(r"https?:|<script", page) is None
    probed = tmp_path / "report.html"
    probed.write_text(page.replace("</main></body>", f"</main>{PROBE}</body>"))
    done = _chromium(
        "--window-size=1280,4000", "--dump-dom", probed.as_uri(), profile=tmp_path / "p1"
    )
    assert done.returncode == 0, done.stderr[-2000:]
    found = re.search(r'<pre id="probe">(.*?)</pre>', done.stdout, re.S)
    assert found is not None
    probe = json.loads(
        found.group(1)
        .replace("&quot;", '"')
        .replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
    )

    # The headline comes first and says who leads and what needs attention.
    assert probe["headlineTop"] < probe["firstSectionTop"]
    assert "alpha leads, but its lead over beta is not significant" in probe["headline"]
    assert "1 attempt crashed" in probe["headline"] and "1 attempt timed out" in probe["headline"]
    # Nothing is wider than the window.
    assert probe["scrollWidth"] <= probe["clientWidth"] <= 1280
    # The drill-down opens onto the statement, the patches as diffs and the cited cells.
    assert probe["details"] == 7
    assert probe["openHeight"] > 300
    assert probe["statement"] == "Issue 1: something is wrong."
    assert probe["diffs"] >= 2 and probe["added"] >= 1
    assert probe["cited"] == 2
    # Status words stay on one line; the full test name is there on hover.
    assert probe["status"] and all(s["height"] < 2 * s["line"] + 10 for s in probe["status"])
    assert any(LONG_TEST in title for title in probe["hovers"])

    artifacts = Path(os.environ.get("BUGBOUT_TEST_ARTIFACTS") or ROOT / "test-artifacts")
    artifacts.mkdir(parents=True, exist_ok=True)
    shot = artifacts / "report-1280.png"
    opened = tmp_path / "opened.html"
    opened.write_text(page.replace('<details class="task"', '<details open class="task"', 1))
    done = _chromium(
        "--window-size=1280,3000", f"--screenshot={shot}", opened.as_uri(), profile=tmp_path / "p2"
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert shot.stat().st_size > 10_000


#: Headless Chromium will not make a window narrower than 500 px, so the page is shown in
#: a 390 px frame of a wider one, and the frame's probe is copied out for --dump-dom.
PHONE = """<!DOCTYPE html><html><body style="margin:0">
<iframe id="phone" style="border:0;width:390px;height:2900px" srcdoc="{page}"></iframe>
<script>window.addEventListener("load", () => {{
  const inner = document.getElementById("phone").contentDocument.getElementById("probe");
  const out = document.createElement("pre");
  out.id = "probe";
  out.textContent = inner ? inner.textContent : "{{}}";
  document.body.appendChild(out);
}});</script></body></html>"""


@pytest.mark.slow
@pytest.mark.skipif(
    CHROMIUM is None, reason="no Chromium on PATH (scripts/setup.sh --with-test-tools)"
)
def test_a_phone_wide_window_scrolls_tables_not_the_page(
    bout_records: list[dict[str, Any]], tmp_path: Path
) -> None:
    """At 390 px (a phone), the page is no wider than its window: wide tables and charts
    scroll inside their sections. A screenshot is kept beside the 1280 px one."""
    page = render_html(build_report(_bout(bout_records)))
    probed = page.replace("</main></body>", f"</main>{PROBE}</body>")
    phone = tmp_path / "phone.html"
    phone.write_text(PHONE.format(page=escape(probed, quote=True)))
    done = _chromium(
        "--window-size=500,3000", "--dump-dom", phone.as_uri(), profile=tmp_path / "p1"
    )
    assert done.returncode == 0, done.stderr[-2000:]
    found = re.search(r'<pre id="probe">(.*?)</pre>', done.stdout, re.S)
    assert found is not None
    probe = json.loads(unescape(found.group(1)))
    assert probe["scrollWidth"] <= probe["clientWidth"] <= 390
    assert probe["headlineTop"] < probe["firstSectionTop"]
    assert "alpha leads, but its lead over beta is not significant" in probe["headline"]
    assert probe["statement"] == "Issue 1: something is wrong."

    artifacts = Path(os.environ.get("BUGBOUT_TEST_ARTIFACTS") or ROOT / "test-artifacts")
    artifacts.mkdir(parents=True, exist_ok=True)
    shot = artifacts / "report-390.png"
    done = _chromium(
        "--window-size=500,2900", f"--screenshot={shot}", phone.as_uri(), profile=tmp_path / "p2"
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert shot.stat().st_size > 10_000
