"""Bad input to bb-mine: one clear line on stderr, exit status 2, nothing on stdout."""

from __future__ import annotations

import subprocess
from pathlib import Path

import expected
import pytest
from build_demo import DemoPaths
from mine_helpers import invoke, run_bb_mine


def empty_repository(tmp_path: Path) -> str:
    path = tmp_path / "empty"
    path.mkdir()
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return str(path)


SOURCE = ("--source", expected.SOURCE)
CASES = {
    "not-a-repository": (lambda tmp, demo: [str(tmp), *SOURCE], "{tmp}: not a git repository"),
    "missing-folder": (
        lambda tmp, demo: [str(tmp / "nope"), *SOURCE],
        "{tmp}/nope: no such directory",
    ),
    "empty-repository": (
        lambda tmp, demo: [empty_repository(tmp), *SOURCE],
        "{tmp}/empty: empty repository (no commits yet)",
    ),
    "unknown-branch": (
        lambda tmp, demo: [str(demo.repo), *SOURCE, "--branch", "dev"],
        "{repo}: unknown branch 'dev' (branches: dana/fix-slug-accents, main)",
    ),
    "source-absent": (
        lambda tmp, demo: [str(demo.repo), "--source", "src/nope"],
        "--source: 'src/nope' is not in the tree at the tip of main ({head}); "
        "give the package directory, e.g. src/mypkg, or . for the whole tree",
    ),
    "bad-since": (
        lambda tmp, demo: [str(demo.repo), *SOURCE, "--since", "last tuesday"],
        "--since: expected a date YYYY-MM-DD or an ISO 8601 time, got 'last tuesday'",
    ),
    "missing-issues-file": (
        lambda tmp, demo: [str(demo.repo), *SOURCE, "--issues", str(tmp / "none.jsonl")],
        "cannot read issues file {tmp}/none.jsonl: No such file or directory",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_is_one_line_and_exit_2(case: str, tmp_path: Path, demo_build: DemoPaths) -> None:
    build_args, message = CASES[case]
    result = invoke(*build_args(tmp_path, demo_build))
    head = expected.SHAS[expected.FIRST_PARENT[0]][:10]
    want = message.format(tmp=tmp_path, repo=demo_build.repo, head=head)
    assert (result.code, result.records, result.stderr) == (2, [], f"bb-mine: {want}\n")


@pytest.mark.parametrize(
    ("lines", "where"),
    [
        (['{"number": 1, "title": "a", "body": "b"}', "{not json"], "2: $: not valid JSON"),
        (['{"number": 1}', "", '{"title": "no number"}'], "3: number: required field missing"),
        (['{"number": "7"}'], "1: number: expected an integer, got string"),
        (['{"number": 1, "closes": [2, "x"]}'], "1: closes[1]: expected an integer, got string"),
        (["[1, 2]"], "1: $: expected a JSON object, got array"),
    ],
    ids=["bad-json", "missing-number", "string-number", "bad-closes", "not-an-object"],
)
def test_an_unreadable_issues_file_names_its_line(
    lines: list[str], where: str, tmp_path: Path, demo_build: DemoPaths
) -> None:
    export = tmp_path / "issues.jsonl"
    export.write_text("\n".join(lines) + "\n")
    result = invoke(str(demo_build.repo), "--source", expected.SOURCE, "--issues", str(export))
    assert result.code == 2 and result.records == []
    assert result.stderr.startswith(f"bb-mine: {export}:{where}")
    assert result.stderr.count("\n") == 1


def test_errors_from_the_real_command_are_one_line(tmp_path: Path) -> None:
    """The console script reports the same way, with no traceback and no dulwich noise."""
    result = run_bb_mine(str(tmp_path), "--source", "src", cwd=tmp_path)
    assert (result.code, result.records, result.stderr) == (
        2,
        [],
        f"bb-mine: {tmp_path}: not a git repository\n",
    )


def test_a_config_error_names_the_key(tmp_path: Path) -> None:
    (tmp_path / "bugbout.toml").write_text('[tasks]\nlimit = "many"\n')
    result = invoke("--config", str(tmp_path / "bugbout.toml"))
    assert result.code == 2
    assert "tasks.limit" in result.stderr and result.stderr.count("\n") == 1
