"""Failures a user can see: every mistake and every broken machine is one line naming
what is wrong, with the exit status the docs promise, before any work starts where it can
be checked up front, and without losing finished work."""

from __future__ import annotations

import json
import os
import pty
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from build_demo import DemoPaths

BIN = Path(sys.executable).parent
KNOWN = "claude-code, codex, command, gemini-cli, mini-swe-agent"


def tool(
    name: str, *args: str | Path, cwd: Path, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", "COLUMNS": "100"}
    return subprocess.run(
        [str(BIN / name), *map(str, args)], cwd=cwd, env=env, input=stdin,
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip


def add_contestant(project: DemoPaths, entry: str) -> None:
    config = project.root / "bugbout.toml"
    config.write_text(config.read_text() + "\n[[contestants]]\n" + entry)


def keep_only(project: DemoPaths, names: tuple[str, ...], extra: str = "") -> None:
    """bugbout.toml with only the contestants *names* (and no examiner), plus *extra*."""
    config = project.root / "bugbout.toml"
    blocks = config.read_text().split("\n[[")
    kept = [blocks[0]] + [
        b for b in blocks[1:]
        if b.startswith("contestants]]") and any(f'name = "{n}"' in b for n in names)
    ]  # fmt: skip
    config.write_text("\n[[".join(kept) + "\n" + extra)


# -- the whole configuration is checked before any stage starts ----------------------------


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ('agent = "cursor"\n', f'contestants[5].agent: unknown agent "cursor" (known: {KNOWN})'),
        (
            'agent = "command"\nname = "typo"\ncommand = ["echo", "{promt}"]\n',
            "contestants[5].command: unknown placeholder {promt} (known: {prompt}, "
            "{prompt_file}, {workdir}, {logdir}, {model})",
        ),
        (
            'agent = "command"\nname = "effort"\ncommand = ["echo", "{prompt}"]\n'
            'reasoning-effort = "high"\n',
            'contestants[5].reasoning-effort: unknown option for agent "command" (accepted: '
            "command, env, network, quota-pattern, sandboxed, state-dirs)",
        ),
        (
            'agent = "command"\nname = "gone"\ncommand = ["no-such-agent-cli", "{prompt}"]\n',
            'contestants[5].command: the program "no-such-agent-cli" is not on PATH (install it '
            "or correct the entry; `bugbout doctor` checks every agent)",
        ),
    ],
    ids=["unknown-agent", "placeholder", "option", "executable"],
)
def test_run_checks_every_agent_before_any_stage(
    demo_project: DemoPaths, entry: str, message: str
) -> None:
    add_contestant(demo_project, entry)
    done = tool("bugbout", "run", cwd=demo_project.root)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"bugbout: bugbout.toml: {message}\n"
    assert not (demo_project.root / ".bugbout" / "tasks.jsonl").exists()  # nothing mined


@pytest.mark.parametrize("name", ["bb-mine", "bb-oracle", "bb-race", "bb-xexam", "bb-judge"])
def test_every_tool_checks_the_agents_too(demo_project: DemoPaths, name: str) -> None:
    add_contestant(demo_project, 'agent = "cursor"\n')
    done = tool(name, "--config", "bugbout.toml", cwd=demo_project.root, stdin="")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f'{name}: bugbout.toml: contestants[5].agent: unknown agent "cursor" (known: {KNOWN})\n'
    )


def test_contestants_declared_twice_as_a_table_gets_the_hint(tmp_path: Path) -> None:
    config = tmp_path / "bugbout.toml"
    config.write_text('[contestants]\nagent = "codex"\n\n[contestants]\nagent = "claude-code"\n')
    done = tool("bb-mine", "--config", config, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (
        f"bb-mine: {config}:4:13: invalid TOML: cannot declare ('contestants',) twice; one "
        "entry per agent is written [[contestants]], not [contestants]\n"
    )


# -- a dry run --------------------------------------------------------------------------


def test_dry_run_counts_the_work_and_races_nothing(demo_project: DemoPaths) -> None:
    done = tool("bugbout", "run", "--dry-run", cwd=demo_project.root)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "bugbout run --dry-run: nothing was raced and no quota was spent"
    tasks = json.loads((demo_project.root / ".bugbout" / "run.json").read_text())
    assert "mine" in tasks["stages"] and "race" not in tasks["stages"]
    mined = sum(
        1 for line in (demo_project.root / ".bugbout" / "tasks.jsonl").read_text().splitlines()
        if json.loads(line)["kind"] == "task"
    )  # fmt: skip
    assert lines[1] == (
        f"tasks: {mined} (mined; ground truth is not computed yet, so some may be set aside)"
    )
    assert lines[3] == f"attempts: {mined} tasks x 6 agents = {mined * 6}; 0 kept from earlier " \
        f"runs, {mined * 6} to run"  # fmt: skip
    # One environment for the project (the demo's session may have built it already).
    assert re.fullmatch(
        r"test environments: 1 distinct environment \((1 built, 0 failed before, 0|0 built, 0 "
        r"failed before, 1) to build\)",
        lines[-2],
    ), lines[-2]
    # The demo's time limit is 120 s: the worst case is every run hitting it.
    assert lines[-1] == (
        f"worst case: {mined * 6} runs x 2 min time limit ([run] timeout) = "
        f"{mined * 6 * 120 / 3600:.1f} agent-hours"
    )
    attempts = demo_project.root / ".bugbout" / "attempts"
    assert not attempts.exists() or not any(attempts.iterdir())


# -- exit status: 1 when nothing could be scored, the report still written ---------------------


@pytest.mark.slow
def test_nothing_mined_exits_1_and_the_report_names_the_contestants(
    demo_project: DemoPaths,
) -> None:
    keep_only(demo_project, ("careful",))
    config = demo_project.root / "bugbout.toml"
    config.write_text(config.read_text().replace("[tasks]\n", '[tasks]\nsince = "2100-01-01"\n'))
    done = tool("bugbout", "run", cwd=demo_project.root)
    assert done.returncode == 1, done.stderr
    last = done.stderr.splitlines()[-1]
    assert re.fullmatch(
        r"bugbout: nothing could be scored: no task was mined from \d+ commits examined "
        r"\(see the funnel for why fixes were left out\)",
        last,
    ), last
    assert "Configured contestants: careful; none has a result." in done.stdout
    report = json.loads((demo_project.root / ".bugbout" / "report.json").read_text())
    assert report["sections"]["overview"]["contestants"] == ["careful"]
    assert report["sections"]["headline"]["scored"] is False


@pytest.mark.slow
def test_every_attempt_crashing_exits_1_with_each_reason_in_the_report(
    demo_project: DemoPaths, tmp_path: Path
) -> None:
    crash = tmp_path / "crash.sh"
    crash.write_text("#!/bin/sh\necho 'agent: cannot reach the model' >&2\nexit 3\n")
    crash.chmod(0o755)
    keep_only(
        demo_project, (), f'[[contestants]]\nagent = "command"\nname = "broken"\n'
        f'command = ["{crash}", "{{prompt}}"]\n'
    )  # fmt: skip
    config = demo_project.root / "bugbout.toml"
    config.write_text(config.read_text().replace("[tasks]\n", "[tasks]\nlimit = 2\n"))
    done = tool("bugbout", "run", cwd=demo_project.root)
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines()[-1] == (
        "bugbout: nothing could be scored: no contestant's attempt ran to an end on any counted "
        "task (broken: crashed, timed out, out of quota or never ran; see the attempts table)"
    )
    report = json.loads((demo_project.root / ".bugbout" / "report.json").read_text())
    rows = report["sections"]["attempts"]["rows"]
    assert rows and [(r["status"], r["reason"]) for r in rows] == [
        ("crashed", "exited with status 3: agent: cannot reach the model")
    ] * len(rows)
    assert all(Path(r["logdir"], "stderr.log").is_file() for r in rows)
    crashed = "1 attempt crashed" if len(rows) == 1 else f"{len(rows)} attempts crashed"
    assert f"Needs attention: {crashed}" in done.stdout
    # The terminal table wraps the reason onto two lines at 100 columns.
    assert "crashed  exited with status 3: agent:" in done.stdout
    assert "cannot reach the model" in done.stdout
    [agent] = report["sections"]["agents"]["rows"]
    assert agent["categories"]["no-fix"] == agent["failed_to_run"] == agent["tasks"] == len(rows)
    markdown = (demo_project.root / ".bugbout" / "report.md").read_text()
    assert "crashed" in markdown and "exited with status 3" in markdown


# -- writes that fail ---------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap for a read-only mount")
def test_a_read_only_results_folder_is_one_line_and_exit_1(demo_project: DemoPaths) -> None:
    results = demo_project.root / ".bugbout"
    results.mkdir()
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        ["bwrap", "--dev-bind", "/", "/", "--ro-bind", str(results), str(results),
         str(BIN / "bugbout"), "tasks"],
        cwd=demo_project.root, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    if "Operation not permitted" in done.stderr and "bwrap" in done.stderr:
        pytest.skip("bubblewrap cannot mount here")
    assert (done.returncode, done.stdout) == (1, "")
    assert re.fullmatch(
        rf"bugbout: cannot write {re.escape(str(results))}/\S+: Read-only file system; "
        r"finished work is kept, run again once it is fixed\n",
        done.stderr,
    ), done.stderr


def test_a_full_disk_is_one_line_and_exit_1(tmp_path: Path) -> None:
    """/dev/full answers every write with ENOSPC, as a full disk does."""
    bout = Path(__file__).resolve().parents[1] / "report" / "fixtures" / "bout.jsonl"
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [str(BIN / "bb-report"), str(bout)], stdout=full,
            stderr=subprocess.PIPE, text=True, timeout=60, check=False,
        )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr == "bb-report: cannot write the report to stdout: No space left on device\n"


def small_disk(folder: Path, *command: str | Path) -> subprocess.CompletedProcess[str]:
    """*command* run with *folder* on an 8 KiB tmpfs (a disk that fills up at once)."""
    folder.mkdir(exist_ok=True)
    done = subprocess.run(
        ["bwrap", "--dev-bind", "/", "/", "--size", "8192", "--tmpfs", str(folder),
         *map(str, command)],
        cwd=folder.parent, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    if "bwrap" in done.stderr and (
        "Operation not permitted" in done.stderr or "--size" in done.stderr
    ):
        pytest.skip("bubblewrap cannot mount a sized tmpfs here")
    return done


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap for a small tmpfs")
def test_a_full_disk_names_the_file_it_was_writing(demo_project: DemoPaths) -> None:
    results = demo_project.root / ".bugbout"
    done = small_disk(results, BIN / "bugbout", "tasks")
    assert (done.returncode, done.stdout) == (1, "")
    [said] = [line for line in done.stderr.splitlines() if "mining:" not in line]
    assert re.fullmatch(
        rf"bugbout: cannot write {re.escape(str(results))}/[^ :]+: No space left on device; "
        r"finished work is kept, run again once it is fixed",
        said,
    ), said
    # A tool's stdout redirected to a file on the full disk: the file is named too.
    out = demo_project.root / "out"
    piped = small_disk(
        out, "sh", "-c", f"{BIN / 'bb-mine'} --config bugbout.toml > {out}/tasks.jsonl"
    )
    assert piped.returncode == 1
    assert piped.stderr.splitlines()[-1] == (
        f"bb-mine: cannot write stdout ({out}/tasks.jsonl): No space left on device; finished "
        "work is kept, run again once it is fixed"
    )


# -- mistakes on the command line ------------------------------------------------------------


def test_format_that_contradicts_the_suffix_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    done = tool("bb-report", "-f", "json", "-o", target, cwd=tmp_path, stdin="")
    assert done.returncode == 2
    assert done.stderr == (
        f"bb-report: --format json does not match --output {target}, which is a html file "
        "name (drop --format, or give a file name ending .json)\n"
    )
    assert not target.exists()


def test_a_tool_reading_a_terminal_says_what_it_waits_for(tmp_path: Path) -> None:
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [str(BIN / "bb-judge"), "--no-score"], stdin=follower, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, cwd=tmp_path, text=True,
    )  # fmt: skip
    os.close(follower)
    os.write(leader, b"\x04")  # Ctrl-D: the end of the input
    out, err = proc.communicate(timeout=60)
    os.close(leader)
    assert proc.returncode == 0 and out == ""
    assert err.splitlines()[0] == (
        "bb-judge: reading JSON lines from the terminal; pipe the previous tool's output in "
        "(bb-mine | bb-judge) or name a FILE, e.g. `bb-judge tasks.jsonl`; Ctrl-D ends the input"
    )


def test_lines_from_the_wrong_stage_get_one_warning(demo_project: DemoPaths) -> None:
    mined = tool("bb-mine", "--config", "bugbout.toml", cwd=demo_project.root)
    assert mined.returncode == 0, mined.stderr
    count = sum(1 for line in mined.stdout.splitlines() if '"kind":"task"' in line)
    judged = tool("bb-judge", "--config", "bugbout.toml", "--no-score", cwd=demo_project.root,
                  stdin=mined.stdout)  # fmt: skip
    assert judged.returncode == 0, judged.stderr
    assert judged.stdout.count("\n") == mined.stdout.count("\n")  # every line handed on
    said = judged.stderr.splitlines()
    [warning] = [line for line in said if ": warning: " in line]
    # Off a terminal, a line per task, then the closing line: nothing ran for them.
    assert sum(" needed no run (" in line for line in said) == count
    assert f"; {count} tasks needed no run" in said[-2]
    assert re.fullmatch(
        rf"bb-judge: warning: {count} task lines carry no matrix \([^)]+, \.\.\.\), so there "
        r"was nothing to do for them; expected bb-xexam's output: task lines with a "
        r"cross-examination matrix",
        warning,
    ), warning


def test_a_tests_folder_at_no_commit_names_the_key(demo_project: DemoPaths) -> None:
    done = tool("bb-mine", "--config", "bugbout.toml", "--tests", "tst", cwd=demo_project.root)
    assert done.returncode == 2
    last = done.stderr.splitlines()[-1]
    assert re.fullmatch(
        r"bb-mine: --tests: 'tst' is not a folder at the tip of \S+ "
        r"\([0-9a-f]{10}\) and no fix added a test under it, so no task was mined; folders at "
        r"the tip that look like tests: tests",
        last,
    ), last


def test_a_bad_source_in_the_file_names_the_key_and_a_bad_flag_the_flag(
    demo_project: DemoPaths,
) -> None:
    config = demo_project.config.read_text()
    demo_project.config.write_text(re.sub(r"(?m)^source = .*$", 'source = "src/nothere"', config))
    for command in (["bb-mine", "--config", "bugbout.toml"], ["bugbout", "tasks"]):
        done = tool(*command, cwd=demo_project.root)
        assert (done.returncode, done.stdout) == (2, "")
        assert re.fullmatch(
            rf"{command[0]}: project.source: 'src/nothere' is not in the tree at the tip of main "
            r"\([0-9a-f]{10}\); give the package directory, e.g. src/mypkg, or . for the whole tree\n",
            done.stderr,
        ), done.stderr
    flagged = tool(
        "bb-mine", "--config", "bugbout.toml", "--source", "src/zzz", cwd=demo_project.root
    )
    assert flagged.returncode == 2
    assert flagged.stderr.startswith("bb-mine: --source: 'src/zzz' is not in the tree at the tip")


def test_a_url_without_network_is_one_line(tmp_path: Path) -> None:
    done = tool("bb-mine", "https://git.example.invalid/team/project.git", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "bb-mine: https://git.example.invalid/team/project.git: cannot clone: cannot reach "
        "git.example.invalid: the name does not resolve (no network, or no DNS)\n"
    )


def test_dry_run_counts_the_environments_history_needs(demo_project: DemoPaths) -> None:
    from bb_core.envs.declarations import declared_at
    from bb_core.git import open_repo

    config = demo_project.root / "bugbout.toml"
    config.write_text(
        config.read_text().replace("[project]\n", '[project]\nenvironments = "history"\n', 1)
    )
    done = tool("bugbout", "run", "--dry-run", cwd=demo_project.root)
    assert done.returncode == 0, done.stderr
    tasks = [
        json.loads(line)
        for line in (demo_project.root / ".bugbout" / "tasks.jsonl").read_text().splitlines()
    ]
    with open_repo(demo_project.root / "repo") as repo:
        distinct = {
            tuple(declared_at(repo, t["base_commit"])) for t in tasks if t["kind"] == "task"
        }
    [line] = [line for line in done.stdout.splitlines() if line.startswith("test environments:")]
    assert line.startswith(f"test environments: {len(distinct)} distinct environment")
