"""The HTML report in a real browser: headless Chromium lays it out, and the charts are
there - a segment per agent and category, a cell per author, test and column - drawn with
the sizes and colours the report means, from one file that loads nothing."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from bb_report import Report, render_html

CHROMIUM = next(
    (found for name in ("chromium", "chromium-browser", "google-chrome") if (found := shutil.which(name))),
    None,
)  # fmt: skip

#: Measures what Chromium laid out and leaves it in the DOM for --dump-dom to return.
#: Added by the test only; the report itself carries no script.
PROBE = """<script>
const box = (el) => el.getBoundingClientRect();
const segs = [...document.querySelectorAll("svg.outcomes rect.seg")].map((el) => ({
  agent: el.dataset.agent, category: el.dataset.category, count: +el.dataset.count,
  width: box(el).width, height: box(el).height, fill: getComputedStyle(el).fill }));
const cells = [...document.querySelectorAll("svg.heatmap rect.cell")].map((el) => ({
  outcome: el.dataset.outcome, width: box(el).width, fill: getComputedStyle(el).fill }));
const pre = document.createElement("pre");
pre.id = "probe";
pre.textContent = JSON.stringify({segs, cells});
document.body.appendChild(pre);
</script>"""

#: Segments of the outcomes chart (zero counts draw none), from the hand-built bout.
SEGMENTS = {
    ("alpha", "resolved", 4),
    ("beta", "resolved", 2),
    ("beta", "fixed-but-broke", 1),
    ("beta", "wrong-fix", 1),
    ("gamma", "wrong-fix", 2),
    ("gamma", "no-fix", 1),  # t1: it ran and changed nothing
    ("gamma", "failed-to-run", 1),  # t4: it timed out
}
#: Cells of each task's heat map: (authors' tests) x (base + patches).
CELLS = {
    # alpha, beta, echo: 1 test each; the suite's 3 tests folded into 2 rows (passed
    # everywhere, failed everywhere) | base, alpha, beta
    "textkit-t1": 5 * 3,
    "textkit-t2": 6 * 4,  # + gamma's test | + gamma's column
    "textkit-t3": 7 * 4,  # the suite's test_a and test_b differ between trees: not folded
    "textkit-t4": 6 * 3,  # echo has two tests
    "textkit-t5": 1 * 2,
}
FILLS = {"passed": "rgb(67, 160, 71)", "failed": "rgb(229, 57, 53)", "skipped": "rgb(251, 192, 45)"}


class Charts(HTMLParser):
    """Collects the rects of every svg in a page, by the svg they are in."""

    def __init__(self) -> None:
        super().__init__()
        self.svg: dict[str, str] | None = None
        self.rects: list[tuple[dict[str, str], dict[str, str]]] = []
        self.svgs: list[dict[str, str]] = []
        self.probe = ""
        self._in_probe = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {k: v or "" for k, v in attrs}
        if tag == "svg":
            self.svg = found
            self.svgs.append(found)
        elif tag == "rect" and self.svg is not None:
            self.rects.append((self.svg, found))
        elif tag == "pre" and found.get("id") == "probe":
            self._in_probe = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "svg":
            self.svg = None
        elif tag == "pre":
            self._in_probe = False

    def handle_data(self, data: str) -> None:
        if self._in_probe:
            self.probe += data


def dump_dom(page: Path, profile: Path) -> str:
    assert CHROMIUM is not None
    done = subprocess.run(
        [
            CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--no-first-run", f"--user-data-dir={profile}", "--window-size=1280,4000",
            "--dump-dom", page.as_uri(),
        ],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.mark.slow
@pytest.mark.skipif(
    CHROMIUM is None,
    reason="no Chromium on PATH to render the HTML report (install it with "
    "`apt-get install -y chromium`, as scripts/setup.sh does where apt-get is available)",
)
def test_chromium_renders_the_charts(report: Report, tmp_path: Path) -> None:
    page = render_html(report)
    assert re.search(r"https?:|<script", page) is None
    probed = tmp_path / "report.html"
    probed.write_text(page.replace("</main></body>", f"</main>{PROBE}</body>"))
    charts = Charts()
    charts.feed(dump_dom(probed, tmp_path / "profile"))

    kinds = [svg.get("class") for svg in charts.svgs]
    assert kinds == ["outcomes", "picking", *["heatmap"] * len(CELLS)]
    segments = {
        (r["data-agent"], r["data-category"], int(r["data-count"]))
        for svg, r in charts.rects
        if svg.get("class") == "outcomes" and "seg" in r.get("class", "")
    }
    assert segments == SEGMENTS
    cells: dict[str, int] = {}
    for svg, rect in charts.rects:
        if svg.get("class") == "heatmap" and rect.get("class", "").startswith("cell "):
            cells[svg["data-task"]] = cells.get(svg["data-task"], 0) + 1
    assert cells == CELLS

    probe = json.loads(charts.probe)
    widths = {(s["agent"], s["category"]): s["width"] for s in probe["segs"]}
    assert all(s["width"] > 0 and s["height"] > 0 for s in probe["segs"])
    # Bars are drawn to scale: beta's 2 resolved are half of alpha's 4, its 1 wrong fix a quarter.
    assert widths["beta", "resolved"] / widths["alpha", "resolved"] == pytest.approx(0.5, abs=0.01)
    assert widths["beta", "wrong-fix"] / widths["alpha", "resolved"] == pytest.approx(
        0.25, abs=0.01
    )
    assert {s["fill"] for s in probe["segs"] if s["category"] == "resolved"} == {"rgb(46, 125, 50)"}
    assert len(probe["cells"]) == sum(CELLS.values())
    assert all(c["width"] > 0 for c in probe["cells"])
    for outcome, fill in FILLS.items():
        assert {c["fill"] for c in probe["cells"] if c["outcome"] == outcome} == {fill}
