"""The JSON-lines contract, checked against every stage's real command line.

Every stage that reads records must: accept empty input, skip blank lines, name the file,
line and field of a bad line in one stderr line with exit status 2 (after writing what it
finished), pass lines of kinds it does not handle through unchanged and in order - with
one warning a kind this release does not know, or exit status 2 under ``--strict`` - and
end quietly when its reader closes the pipe early.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import orjson
import pytest
from support.tools import BIN, run_tool

STAGES = ["bb-oracle", "bb-race", "bb-xexam", "bb-judge"]
READERS = [*STAGES, "bb-report"]
TOOLS = ["bb-mine", *READERS, "bugbout"]

#: A line of a known kind no stage handles: passed on without a word.
NOTE = orjson.dumps(
    {
        "kind": "skip",
        "v": 1,
        "stage": "mine",
        "reason": "not-a-fix",
        "message": "the title does not read like a fix",
        "commit": "3f1c2a9b7d0e4f5a6b7c8d9e0f1a2b3c4d5e6f70",
        "title": "Add wrap()",
    }
)
TASK_WITHOUT_STATEMENT = orjson.dumps(
    {
        "kind": "task",
        "v": 1,
        "id": "demo-0123456789",
        "repository": "demo",
        "base_commit": "0" * 40,
        "fix_commit": "1" * 40,
        "title": "Fix it (#1)",
        "statement_source": "commit",
        "source": "src/demo",
        "tests": "tests",
        "source_files": [],
        "test_files": [],
        "protected_paths": [],
        "reference_patch": "",
        "test_patch": "",
    }
)


@pytest.mark.parametrize("tool", TOOLS)
def test_help_and_version(tool: str, tmp_path: Path) -> None:
    helped = run_tool(tool, "--help", cwd=tmp_path, timeout=60)
    assert helped.returncode == 0
    assert b"Usage:" in helped.stdout
    versioned = run_tool(tool, "--version", cwd=tmp_path, timeout=60)
    assert versioned.returncode == 0
    assert versioned.stdout.decode().startswith(f"{tool} 0.")


@pytest.mark.parametrize("tool", STAGES)
@pytest.mark.parametrize("stdin", [b"", b"\n   \n\n"], ids=["empty", "blank-lines"])
def test_empty_input_gives_empty_output(tool: str, stdin: bytes, tmp_path: Path) -> None:
    done = run_tool(tool, cwd=tmp_path, stdin=stdin, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


@pytest.mark.parametrize("tool", STAGES)
def test_unknown_kinds_pass_through_in_order(tool: str, tmp_path: Path) -> None:
    lines = [orjson.dumps({"kind": "note", "n": n, "z": [n]}) for n in range(5)]
    done = run_tool(tool, cwd=tmp_path, stdin=b"\n".join(lines) + b"\n", timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == lines


@pytest.mark.parametrize("tool", READERS)
def test_unknown_kinds_get_one_warning_a_kind(tool: str, tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    note = orjson.dumps({"kind": "note", "v": 1})
    source.write_bytes(b"\n".join([NOTE, note, note, b'{"kind": "zap"}', note]) + b"\n")
    done = run_tool(tool, str(source), cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stderr
    warnings = [w for w in done.stderr.decode().splitlines() if "unknown record kind" in w]
    assert warnings == [
        f"{tool}: warning: {source}:2: unknown record kind 'note', passed on unchanged "
        f"(this release knows task, skip, summary, oracle, attempt, matrix, verdict, score, "
        f"report; --strict stops on it)",
        f"{tool}: warning: {source}:4: unknown record kind 'zap', passed on unchanged "
        f"(this release knows task, skip, summary, oracle, attempt, matrix, verdict, score, "
        f"report; --strict stops on it)",
    ]
    if tool != "bb-report":
        assert done.stdout == source.read_bytes()


@pytest.mark.parametrize("tool", READERS)
def test_strict_stops_at_an_unknown_kind(tool: str, tmp_path: Path) -> None:
    stdin = NOTE + b"\n" + orjson.dumps({"kind": "note", "v": 1}) + b"\n" + NOTE + b"\n"
    done = run_tool(tool, "--strict", cwd=tmp_path, stdin=stdin, timeout=60)
    assert done.returncode == 2
    assert done.stderr.decode() == (
        f"{tool}: <stdin>:2: kind: unknown record kind 'note' (this release knows task, skip, "
        "summary, oracle, attempt, matrix, verdict, score, report; without --strict it is "
        "passed on unchanged)\n"
    )
    if tool != "bb-report":
        assert done.stdout.splitlines() == [NOTE]


@pytest.mark.parametrize("tool", READERS)
def test_bad_json_names_the_line_and_keeps_earlier_work(tool: str, tmp_path: Path) -> None:
    done = run_tool(
        tool, cwd=tmp_path, stdin=NOTE + b"\n" + b'{"kind": "task", "v": 1,\n', timeout=60
    )
    assert done.returncode == 2
    error = done.stderr.decode()
    assert error.count("\n") == 1
    assert error.startswith(f"{tool}: <stdin>:2: $: not valid JSON")
    if tool != "bb-report":
        assert done.stdout.splitlines() == [NOTE]


@pytest.mark.parametrize("tool", READERS)
def test_schema_violation_names_the_field(tool: str, tmp_path: Path) -> None:
    source = tmp_path / "tasks.jsonl"
    source.write_bytes(NOTE + b"\n" + TASK_WITHOUT_STATEMENT + b"\n")
    done = run_tool(tool, str(source), cwd=tmp_path, timeout=60)
    assert done.returncode == 2
    assert done.stderr.decode() == f"{tool}: {source}:2: statement: required field missing\n"


@pytest.mark.parametrize("tool", READERS)
def test_missing_input_file_is_a_usage_error(tool: str, tmp_path: Path) -> None:
    done = run_tool(tool, "absent.jsonl", cwd=tmp_path, timeout=60)
    assert done.returncode == 2
    assert done.stderr.decode().startswith(f"{tool}: cannot read absent.jsonl")


@pytest.mark.parametrize("tool", STAGES)
def test_pipe_closed_early_ends_quietly(tool: str, tmp_path: Path) -> None:
    source = tmp_path / "many.jsonl"
    source.write_bytes((NOTE + b"\n") * 50_000)
    with subprocess.Popen(
        [str(BIN / tool), str(source)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        assert proc.stdout.readline() == NOTE + b"\n"
        proc.stdout.close()
        error = proc.stderr.read()
        status = proc.wait(timeout=60)
    assert (status, error) == (0, b"")
