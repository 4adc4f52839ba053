"""The report as a team lead reads it: where the tasks come from, flags explained where
they are shown, negative separation said as what it is, colours told apart with enough
contrast, and a terminal report that keeps its tables within 60, 80 and 120 columns."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from bb_report import build_report, render
from bb_report.blocks import CATEGORY_TONE
from bb_report.data import Rate
from bb_report.evidence import describe
from bb_report.flag_words import explain
from bb_report.html import STYLE
from bb_report.termtable import fit, middle

#: Parts of src/textkit as mining's summary would give them: the fixture's tasks changed
#: src/textkit/core.py (t1-t5, t7, t8), so only core gave tasks.
AREAS = {
    "core.py": {"lines": 300, "fixes": 8},
    "wrap.py": {"lines": 500, "fixes": 2},
    "cli": {"lines": 200, "fixes": 1},
}


def _with(bout_records: list[dict[str, Any]], **summary: Any) -> list[dict[str, Any]]:
    records = json.loads(json.dumps(bout_records))
    for record in records:
        if record["kind"] == "summary":
            record.update(summary)
        if record["kind"] == "task":
            record["source_files"] = ["src/textkit/core.py"]
    return records


def test_origins_set_each_part_s_share_of_tasks_against_its_code(
    bout_records: list[dict[str, Any]],
) -> None:
    report = build_report(_with(bout_records, areas=AREAS, source="src/textkit"))
    origins = report.origins
    assert origins is not None
    rows = {r.area: r for r in origins.rows}
    assert [r.area for r in origins.rows] == ["wrap.py", "core.py", "cli"]  # most lines first
    assert (rows["core.py"].line_share, rows["core.py"].fix_share) == (0.3, 8 / 11)
    assert (rows["core.py"].tasks, rows["core.py"].task_share) == (7, 1.0)
    assert rows["wrap.py"].task_share == 0.0
    assert origins.without_task == ["wrap.py", "cli"]
    assert origins.covered == 0.3
    # Under half the lines: the headline says so, right after what was mined.
    sentence = (
        "The tasks come from 1 of 3 parts of src/textkit, holding 30% of its source lines: "
        "the scores speak for that part of the code (see Where the tasks come from)."
    )
    assert origins.headline == sentence
    assert report.headline.sentences[1] == sentence
    assert origins.sentences[1] == (
        "No task came from wrap.py, cli: the scores say nothing about how agents fix bugs there."
    )
    for fmt in ("terminal", "markdown", "html"):
        assert "Where the tasks come from" in render(report, fmt)
    assert "origins" in json.loads(render(report, "json"))["sections"]


def test_no_origins_without_mining_s_areas_nor_a_headline_when_the_tasks_cover_half(
    bout_records: list[dict[str, Any]], report: Any
) -> None:
    assert report.origins is None
    wide = {**AREAS, "core.py": {"lines": 900, "fixes": 8}}
    covered = build_report(_with(bout_records, areas=wide, source="src/textkit"))
    assert covered.origins is not None and covered.origins.headline is None
    assert not any("The tasks come from" in s for s in covered.headline.sentences)


def _matching(bout_records: list[dict[str, Any]], category: str) -> list[dict[str, Any]]:
    """t1 with alpha's attempt flagged leak:matches-reference, alpha's score *category*."""
    records = json.loads(json.dumps(bout_records))
    for record in records:
        if record.get("kind") == "task" and record["id"] == "textkit-t1":
            record["attempts"][0]["flags"] = ["leak:matches-reference"]
            for score in record["scores"]:
                if score["patch"] == record["attempts"][0]["agent"]:
                    score["category"] = category
    return records


def test_a_matching_resolved_fix_is_a_note_and_every_flag_is_explained(
    bout_records: list[dict[str, Any]],
) -> None:
    report = build_report(_matching(bout_records, "resolved"))
    head = " ".join(report.headline.sentences)
    assert "leak" not in " ".join(report.headline.attention)
    assert "Note: 1 resolved patch is the maintainers' fix byte for byte" in head
    text = render(report, "terminal", width=120)
    assert "note: Flags: leak:matches-reference: the patch's source hunks are" in text
    page = render(report, "html")
    assert 'title="leak:matches-reference: the patch' in page
    # The same flag on a patch that did not resolve stays an alarm.
    wrong = build_report(_matching(bout_records, "wrong-fix"))
    assert any("leak" in a for a in wrong.headline.attention)


def test_every_known_flag_reads_and_an_unknown_one_still_does() -> None:
    assert explain("network-refused:api.example.com:443").startswith("network-refused: ")
    assert explain("unconfined: no user namespaces").startswith("unconfined: it ran where")
    assert explain("made-up:thing") == (
        "made-up: raised by a stage; see its logs for what it found."
    )


def test_negative_separation_is_said_as_what_it_is() -> None:
    sentence = describe("careful", Rate.of(0, 1), Rate.of(9, 12), 0 + 9 / 12 - 1)
    assert sentence == (
        "Tests written by careful passed on 0 of 1 resolved patch and failed on 9 of 12 "
        "wrong ones: they turned away a larger share of the resolved patches (1 of 1) than "
        "of the wrong ones (9 of 12), the reverse of what a useful test does (separation "
        "-0.25); with 1 resolved patch to judge, that says little."
    )
    assert "favour" not in sentence


def _luminance(hex_colour: str) -> float:
    r, g, b = (int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5))

    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def _contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _fill(css_class: str) -> str:
    variables = dict(re.findall(r"--([a-z]+):\s*(#[0-9a-f]{6})", STYLE))
    found = re.search(rf"\.seg\.{css_class},[^{{]*\{{\s*fill:\s*([^;]+);", STYLE)
    assert found is not None, css_class
    value = found.group(1).strip()
    return variables[value[6:-1]] if value.startswith("var(") else value


def test_breaks_suite_and_broke_differ_in_hue_and_read_against_white() -> None:
    suite, broke = _fill("resolved-but-breaks-suite"), _fill("fixed-but-broke")
    assert suite != broke
    assert CATEGORY_TONE["resolved-but-breaks-suite"] != CATEGORY_TONE["fixed-but-broke"]
    # White counts are drawn on the segments: WCAG AA asks 4.5:1 of normal text.
    for css_class in ("resolved", "resolved-but-breaks-suite", "fixed-but-broke", "wrong-fix",
                      "no-fix"):  # fmt: skip
        assert _contrast(_fill(css_class), "#ffffff") >= 4.5, css_class
    # Told apart by hue, not only by shade: one is green-blue, the other orange.
    r1, _, b1 = (int(suite[i : i + 2], 16) for i in (1, 3, 5))
    r2, _, b2 = (int(broke[i : i + 2], 16) for i in (1, 3, 5))
    assert b1 > r1 and r2 > b2
    # Coloured words on the white page read at 4.5:1 too.
    variables = dict(re.findall(r"--([a-z]+):\s*(#[0-9a-f]{6})", STYLE))
    for tone in ("good", "warn", "notice", "bad", "muted"):
        assert _contrast(variables[tone], "#ffffff") >= 4.5, tone


@pytest.mark.parametrize("width", [60, 80, 120])
def test_no_line_is_wider_than_the_terminal(report: Any, width: int) -> None:
    lines = render(report, "terminal", width=width).splitlines()
    assert max(len(line) for line in lines) <= width


def test_at_80_columns_the_agents_table_stays_a_table_with_its_key(report: Any) -> None:
    text = render(report, "terminal", width=80)
    assert re.search(r"^agent +tasks +res +res brk +res sus +fix brk +wrong +no fix +fail +rate +95% CI$",
                     text, re.M)  # fmt: skip
    assert "res brk: resolved but breaks suite" in text
    assert "\n  resolve rate: " not in text  # no row drawn as a card


def test_cells_wrap_at_word_boundaries_and_paths_lose_their_middle() -> None:
    path = "/home/me/.bugbout/attempts/textkit-t1/alpha/logs/with/a/long/tail"
    title = "Fix hyphenated words counting as two when the dash sits between letters and digits"
    lines = fit(["task", "title", "logs"], [["t1", title, path]], [False] * 3, 80,
                whole=frozenset({1, 2}))  # fmt: skip
    assert max(len(line) for line in lines) <= 80
    column = [line[6:44].strip() for line in lines[2:]]
    assert " ".join(column).split() == title.split()  # whole words, in order, none cut
    assert lines[2].endswith("/home/me/.bugbout/\u2026/with/a/long/tail")
    assert middle(path, 16) == "/home/me\u2026ng/tail"  # 8 + 1 + 7


def test_titles_are_not_cut_at_120_columns(report: Any) -> None:
    text = render(report, "terminal", width=120)
    for task in report.tasks:
        assert task.title in text or all(word in text for word in task.title.split())
    assert "\u2026" not in "".join(
        line for line in text.splitlines() if line.startswith("textkit-t")
    )


def test_the_drilldown_links_each_attempt_to_its_logs(
    bout_records: list[dict[str, Any]],
) -> None:
    records = json.loads(json.dumps(bout_records))
    for record in records:
        if record.get("kind") == "task" and record.get("attempts"):
            for attempt in record["attempts"]:
                attempt["logdir"] = f"/var/bb/{record['id']}/{attempt['agent']} logs"
    page = render(build_report(records), "html")
    assert '<a class="logs" href="file:///var/bb/textkit-t1/alpha%20logs">' in page
    assert re.search(r"https?:|<script", page) is None
