"""bb-report as a command: stdout carries only the report, files are written whole,
colour appears only on a terminal without NO_COLOR, and bad input is one line, exit 2."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
from pathlib import Path

import pytest
from bb_report import build_report, render
from support.tools import BIN, run_tool

BOUT = Path(__file__).resolve().parent / "fixtures" / "bout.jsonl"  # as in conftest.py

BB_REPORT = str(BIN / "bb-report")
UMASK = os.umask(0)
os.umask(UMASK)


def run(*args: str, stdin: bytes = b"", env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:  # fmt: skip
    """bb-report with *args*: ``run_tool`` with this module's one tool and a short timeout."""
    return run_tool("bb-report", *args, cwd=cwd, stdin=stdin, env=env, timeout=60)


def on_a_terminal(*args: str, env: dict[str, str]) -> bytes:
    """What bb-report writes when its stdout is a pseudo-terminal."""
    leader, follower = pty.openpty()
    with subprocess.Popen(
        [BB_REPORT, *args], stdin=subprocess.DEVNULL, stdout=follower, stderr=subprocess.PIPE,
        env=env,
    ) as proc:  # fmt: skip
        os.close(follower)
        out = b""
        while True:
            ready, _, _ = select.select([leader], [], [], 30)
            if not ready:
                break
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal closed with the process
                break
            if not chunk:
                break
            out += chunk
        assert proc.wait(timeout=30) == 0
    os.close(leader)
    return out


def test_stdout_is_the_report_and_nothing_else(bout_records: list[dict]) -> None:
    done = run(str(BOUT), env={**os.environ, "COLUMNS": "100"})
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""
    assert done.stdout.decode() == render(build_report(bout_records), "terminal", width=100)


def test_reads_stdin_and_writes_one_json_line() -> None:
    done = run("--format", "json", stdin=BOUT.read_bytes())
    assert done.returncode == 0, done.stderr
    [line] = done.stdout.splitlines()
    record = json.loads(line)
    assert record["kind"] == "report"
    assert record["sections"]["overview"]["counted"] == 4


@pytest.mark.parametrize("stdin", [b"", b"\n  \n"], ids=["empty", "blank-lines"])
def test_empty_input_says_there_is_nothing_to_report(stdin: bytes) -> None:
    done = run(stdin=stdin)
    assert (done.returncode, done.stderr) == (0, b"")
    assert b"Nothing to report" in done.stdout


def test_bad_line_is_one_error_line_and_no_report(tmp_path: Path) -> None:
    source = tmp_path / "bad.jsonl"
    source.write_bytes(BOUT.read_bytes() + b'{"kind": "skip", "v": 1, "stage": "mine"}\n')
    done = run(str(source))
    assert done.returncode == 2
    assert done.stdout == b""
    assert done.stderr.decode() == f"bb-report: {source}:13: reason: required field missing\n"


@pytest.mark.parametrize(
    ("name", "starts"),
    [
        ("report.html", "<!DOCTYPE html>"),
        ("report.md", "# bugbout report"),
        ("report.json", '{"kind":"report"'),
        ("report.txt", "bugbout report"),
    ],
)
def test_output_file_format_follows_its_suffix(tmp_path: Path, name: str, starts: str) -> None:
    target = tmp_path / "out" / name
    done = run(str(BOUT), "--output", str(target))
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert target.read_text().startswith(starts)
    assert sorted(p.name for p in target.parent.iterdir()) == [name]  # no temporary left
    assert target.stat().st_mode & 0o777 == 0o666 & ~UMASK


def test_output_replaces_an_existing_file_whole(tmp_path: Path) -> None:
    target = tmp_path / "report.txt"
    target.write_text("old report\n" * 1000)
    done = run(str(BOUT), "-o", str(target), "--format", "terminal")
    assert done.returncode == 0, done.stderr
    text = target.read_text()
    assert text.startswith("bugbout report") and "old report" not in text


def test_unwritable_output_is_a_usage_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    done = run(str(BOUT), "-o", str(blocker / "r.md"))
    assert done.returncode == 2
    assert done.stderr.decode().startswith(f"bb-report: cannot write {blocker / 'r.md'}: ")
    assert done.stderr.count(b"\n") == 1


def test_colour_only_on_a_terminal_without_no_color() -> None:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    assert b"\x1b[32m" in on_a_terminal(str(BOUT), env=env)
    assert b"\x1b[" not in on_a_terminal(str(BOUT), env={**env, "NO_COLOR": "1"})
    assert b"\x1b[" not in on_a_terminal(str(BOUT), "--color", "never", env=env)
    piped = run(str(BOUT), env=env)
    assert b"\x1b[" not in piped.stdout
    forced = run(str(BOUT), "--color", "always", env=env)
    assert b"\x1b[32m" in forced.stdout
