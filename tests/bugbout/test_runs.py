"""Every whole run kept under .bugbout/runs/<time>/, and `bugbout compare` on two of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bb_core.errors import UsageError
from bugbout.results import Results
from bugbout.runs import chosen, keep_run, kept_runs
from support.bouts_compared import AFTER, BEFORE, bout
from support.tools import run_tool


def results_with(root: Path, verdicts: list[dict]) -> Results:
    results = Results(root / ".bugbout")
    results.root.mkdir(parents=True, exist_ok=True)
    live = results.root / "verdicts.jsonl"
    live.unlink(missing_ok=True)  # the stages replace their files, never write in place
    live.write_text("".join(json.dumps(r) + "\n" for r in verdicts))
    (results.root / "run.json").write_text("{}")
    return results


def test_a_kept_run_keeps_its_content_when_the_live_files_are_replaced(tmp_path: Path) -> None:
    results = results_with(tmp_path, bout(BEFORE, "t8"))
    first = keep_run(results, now=0)
    assert first.name == "19700101T000000Z"
    assert sorted(p.name for p in first.iterdir()) == ["run.json", "verdicts.jsonl"]
    kept = (first / "verdicts.jsonl").read_text()
    results_with(tmp_path, bout(AFTER, "t9"))
    second = keep_run(results, now=0)  # the same second: numbered
    assert second.name == "19700101T000000Z-2"
    assert (first / "verdicts.jsonl").read_text() == kept
    assert (second / "verdicts.jsonl").read_text() != kept
    assert (results.root / "verdicts.jsonl").is_file()  # the live file stays
    third = keep_run(results, now=3600)
    assert kept_runs(results) == [first, second, third]
    assert chosen(results, None, None) == (second / "verdicts.jsonl", third / "verdicts.jsonl")
    assert chosen(results, first.name, None) == (
        first / "verdicts.jsonl", third / "verdicts.jsonl",
    )  # fmt: skip
    assert chosen(results, first.name, str(second)) == (
        first / "verdicts.jsonl", second / "verdicts.jsonl",
    )  # fmt: skip
    with pytest.raises(UsageError, match="nope: no such run or records file"):
        chosen(results, "nope", None)


def test_comparing_needs_two_runs(tmp_path: Path) -> None:
    results = results_with(tmp_path, bout(BEFORE, "t8"))
    keep_run(results, now=0)
    with pytest.raises(UsageError, match=r"comparing needs 2 kept runs; .* holds 1"):
        chosen(results, None, None)


def test_bugbout_compare_names_the_flips_and_fails_on_a_regression(tmp_path: Path) -> None:
    (tmp_path / "bugbout.toml").write_text('[project]\nsource = "pkg"\n')
    only = {"slipping": BEFORE["slipping"]}
    results = results_with(tmp_path, bout(only, "t8"))
    keep_run(results, now=0)
    results_with(tmp_path, bout({"slipping": AFTER["slipping"]}, "t9", version="2.0"))
    keep_run(results, now=60)
    done = run_tool("bugbout", "compare", "--width", "200", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    text = done.stdout.decode()
    assert "run 19700101T000100Z compared with run 19700101T000000Z." in text
    assert "slipping: 86% -> 0% on 7 shared tasks; 6 worse, 0 better: significantly worse" in text
    assert "/logs/2.0/t1/slipping" in text and "version 1.0 -> 2.0" in text
    failing = run_tool("bugbout", "compare", "--fail-on-regression", "-f", "json", cwd=tmp_path)
    assert failing.returncode == 1
    assert failing.stderr == (b"bugbout: significantly worse than run 19700101T000000Z: slipping\n")
    assert json.loads(failing.stdout)["sections"]["baseline"]["regressed"] == ["slipping"]
    backwards = run_tool(
        "bugbout", "compare", "19700101T000100Z", "19700101T000000Z", "--fail-on-regression",
        cwd=tmp_path,
    )  # fmt: skip
    assert backwards.returncode == 0  # six better: no regression
