"""``just realcli-latest``: the real-CLI tests against the newest agent CLIs, and a table
of how far each has drifted from the release its adapter was tested with.

It asks the registries for the newest Codex CLI, Claude Code and Gemini CLI (``npm
view``) and mini-swe-agent with LiteLLM (``uv pip compile``), installs them with
scripts/realcli.sh into a cache folder of their own (``realcli-latest`` beside the pinned
one), runs tests/race/realcli against them, and prints one row per CLI: the pinned and
the newest version, the tests passed and failed, the flags bugbout's adapter passes that
the newest ``--help`` no longer lists (or whose value it no longer offers), and the
checks of the CLI's output that failed. ``--no-tests`` prints the flag drift alone.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PINS = ROOT / "tests" / "race" / "realcli"
NPM = {"codex": "@openai/codex", "claude-code": "@anthropic-ai/claude-code",
       "gemini-cli": "@google/gemini-cli"}  # fmt: skip
HARNESSES = ("codex", "claude-code", "gemini-cli", "mini-swe-agent")
#: What prints the help of the command line each adapter runs.
HELP_ARGS = {"codex": ("exec", "--help"), "claude-code": ("--help",),
             "gemini-cli": ("--help",), "mini-swe-agent": ("--help",)}  # fmt: skip
#: The real-CLI tests' contestant entries, as (agent type, model, options); a loopback
#: address stands in for the vendor's.
ENTRIES: tuple[tuple[str, str, dict[str, object]], ...] = (
    ("codex", "gpt-5", {"base-url": "http://127.0.0.1:9/v1"}),
    ("codex", "standin-model", {"local-provider": "ollama"}),
    ("claude-code", "sonnet", {"base-url": "http://127.0.0.1:9", "effort": "high"}),
    ("gemini-cli", "gemini-2.5-pro", {"base-url": "http://127.0.0.1:9"}),
    ("mini-swe-agent", "openai/gpt-5", {"base-url": "http://127.0.0.1:9/v1", "step-limit": 20}),
)
#: A failed real-CLI test, in words: what the adapter could not do with the CLI's output.
CHECKS = {
    "test_the_cli_starts_reaches_its_model_and_finishes": "start, finish or summary",
    "test_the_test_command_ran_and_the_model_saw_its_output": "test command's output",
    "test_the_patch_is_captured_and_scores_resolved": "patch or score",
    "test_tokens_are_parsed_from_the_clis_own_output": "token usage",
    "test_the_network_is_refused": "network refused",
    "test_writes_outside_the_checkout_are_refused": "outside writes refused",
    "test_the_whole_cli_runs_inside_bugbouts_sandbox": "bugbout's sandbox",
    "test_a_refused_or_failed_tool_call_is_flagged": "refused-call flag",
    "test_a_429_from_the_vendor_is_quota_with_its_message": "usage-limit answer",
    "test_each_npm_cli_runs_under_the_node_its_lock_asks_for_inside_the_sandbox": "node version",
    "test_each_pinned_cli_accepts_its_adapters_exact_command_line": "doctor's dry run",
    "test_a_rejected_flag_and_a_newer_release_show_before_any_quota_is_spent": "doctor's warnings",
}

_FLAG = re.compile(r"^--?[A-Za-z][\w.-]*$")
_PLACEHOLDER = re.compile(r"^(<[^>]*>|\[[^\]]*\]|[A-Z][A-Z0-9_.-]*|\.\.\.)$")
_CHOICES = re.compile(r"(?:choices|possible values):\s*([^)\]]*)")


# -- reading --help ------------------------------------------------------------------------


def parse_help(text: str) -> dict[str, tuple[str, ...] | None]:
    """Every flag an option list of *text* names (aliases included) -> the values it
    offers (``choices:`` of commander and yargs, ``possible values:`` of clap), None
    when it names none. Reads commander (Claude Code), yargs (Gemini CLI), clap (Codex)
    and rich/typer boxes (mini-swe-agent); flags only mentioned in a description are not
    counted."""
    lines = [raw.rstrip().lstrip("│|").rstrip("│|").rstrip() for raw in text.splitlines()]
    heads = [len(x) - len(x.lstrip()) for x in lines if _FLAG.match((x.split() or [""])[0])]
    # An option's line starts at the option column (long-only flags a little further in,
    # as clap and yargs align them); a flag further in is a description's mention.
    column = min(heads, default=0) + 4
    entries: list[tuple[list[str], list[str]]] = []
    for line in lines:
        indent = len(line) - len(line.lstrip())
        words = line.split()
        names: list[str] = []
        for word in words:
            word = word.rstrip(",")
            if _FLAG.match(word):
                names.append(word)
            elif not (names and _PLACEHOLDER.match(word)):
                break
        if names and indent <= column and _FLAG.match(words[0].rstrip(",")):
            entries.append((names, [line.strip()]))
        elif entries and line.strip():
            entries[-1][1].append(line.strip())
    flags: dict[str, tuple[str, ...] | None] = {}
    for names, lines in entries:
        found = _CHOICES.search(" ".join(lines))
        choices = (
            tuple(c.strip().strip('"') for c in found.group(1).split(",") if c.strip())
            if found
            else None
        )
        choices = tuple(c for c in choices or () if ":" not in c) or None
        for name in names:
            flags[name] = choices
    return flags


def passed_flags(argv: list[str]) -> list[tuple[str, str | None]]:
    """The flags of a command line and the word after each (its value, when it is one):
    ``--a=b`` -> ("--a", "b"), ``--a b`` -> ("--a", "b"), ``--c --d`` -> ("--c", None)."""
    found: list[tuple[str, str | None]] = []
    for index, word in enumerate(argv):
        if not word.startswith("-") or word == "-" or word == "--":
            continue
        name, equals, value = word.partition("=")
        if equals:
            found.append((name, value))
            continue
        following = argv[index + 1] if index + 1 < len(argv) else None
        found.append((name, None if following is None or following.startswith("-") else following))
    return found


@dataclass
class FlagDrift:
    """What the newest ``--help`` says of the flags an adapter passes."""

    gone: list[str] = field(default_factory=list)  # listed by the pinned help, not the newest
    unlisted: list[str] = field(default_factory=list)  # listed by neither (hidden flags)
    values: list[str] = field(default_factory=list)  # "--flag value": a value no longer offered

    def words(self) -> str:
        parts = [f"{f} gone" for f in self.gone] + [f"{v} not offered" for v in self.values]
        return ", ".join(parts) or "none"


def compare_flags(
    argv: list[str],
    pinned: dict[str, tuple[str, ...] | None],
    newest: dict[str, tuple[str, ...] | None],
) -> FlagDrift:
    """The flags of *argv* the newest help lost (or never listed), and values it no
    longer offers, next to the pinned help."""
    drift = FlagDrift()
    for name, value in passed_flags(argv):
        if name not in newest:
            target = drift.gone if name in pinned else drift.unlisted
            if name not in target:
                target.append(name)
            continue
        choices = newest[name]
        shown = f"{name} {value}"
        if value is not None and choices and value not in choices and shown not in drift.values:
            drift.values.append(shown)
    return drift


# -- reading the test results --------------------------------------------------------------


@dataclass
class Results:
    passed: int = 0
    failed: list[str] = field(default_factory=list)  # the checks, in words


def test_results(junit: Path) -> dict[str, Results]:
    """Per CLI (``codex-local`` counts as codex; the doctor's tests, which run all four,
    as ``doctor``), the real-CLI tests passed and the checks failed, from pytest's
    JUnit XML."""
    results: dict[str, Results] = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = case.get("name", "")
        function, _, param = name.partition("[")
        if "test_drift" in case.get("classname", ""):
            continue
        cli = param.rstrip("]").removesuffix("-local") or "doctor"
        row = results.setdefault(cli, Results())
        if case.find("skipped") is not None:
            continue
        if case.find("failure") is not None or case.find("error") is not None:
            check = CHECKS.get(function, function)
            if check not in row.failed:
                row.failed.append(check)
        else:
            row.passed += 1
    return results


# -- the table -------------------------------------------------------------------------------


@dataclass
class Row:
    cli: str
    pinned: str
    newest: str
    results: Results | None
    flags: FlagDrift | None


def render(rows: list[Row]) -> str:
    """The drift table, as aligned plain text."""
    head = ("CLI", "pinned", "newest", "tests", "flags the adapter passes", "checks failed")
    lines = [head]
    for row in rows:
        tests = "not run"
        if row.results is not None:
            tests = f"{row.results.passed} passed, {len(row.results.failed)} failed"
        same = "" if row.newest == row.pinned else " (newer)"
        failed = ", ".join(row.results.failed) if row.results else ""
        lines.append(
            (row.cli, row.pinned, row.newest + same, tests,
             row.flags.words() if row.flags else "", failed or ("none" if row.results else ""))
        )  # fmt: skip
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    out = ["  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
           for line in lines]  # fmt: skip
    out.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(out)


# -- running it ------------------------------------------------------------------------------


def _run(argv: list[str], env: dict[str, str] | None = None, stdin: str = "") -> str:
    done = subprocess.run(argv, input=stdin, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise SystemExit(f"realcli-latest: {' '.join(argv[:3])} failed:\n{done.stderr[-2000:]}")
    return done.stdout


def install(env: dict[str, str]) -> Path:
    """scripts/realcli.sh with *env*; the folder of the set it installed."""
    done = subprocess.run(["bash", str(ROOT / "scripts" / "realcli.sh")], env=env,
                          stdout=subprocess.PIPE, text=True, check=False)  # fmt: skip
    if done.returncode != 0:
        raise SystemExit("realcli-latest: scripts/realcli.sh could not install the CLIs")
    return Path(done.stdout.strip().splitlines()[-1])


def with_node(env: dict[str, str], folder: Path) -> dict[str, str]:
    """*env* with the set's own node first on PATH, when it has one."""
    node = folder / "node-bin"
    return {**env, "PATH": f"{node}{os.pathsep}{env['PATH']}"} if node.exists() else env


def newest_pins(cache: Path, env: dict[str, str]) -> tuple[Path, str]:
    """A folder with package.json and package-lock.json of the newest npm CLIs, and the
    newest mini-swe-agent and LiteLLM as pip requirements, asked of the registries."""
    versions = {pkg: _run(["npm", "view", pkg, "version"], env).strip() for pkg in NPM.values()}
    compiled = _run(["uv", "pip", "compile", "-", "--no-header", "--no-annotate", "--quiet"],
                    env, "mini-swe-agent\nlitellm\n")  # fmt: skip
    wanted = ("mini-swe-agent==", "litellm==")
    mini = " ".join(line for line in compiled.split() if line.startswith(wanted))
    pins = cache / "pins"
    pins.mkdir(parents=True, exist_ok=True)
    manifest = json.loads((PINS / "package.json").read_text(encoding="utf-8"))
    manifest["dependencies"] = dict(sorted(versions.items()))
    text = json.dumps(manifest, indent=2) + "\n"
    if not (pins / "package-lock.json").exists() or (pins / "package.json").read_text() != text:
        (pins / "package.json").write_text(text, encoding="utf-8")
        _run(["npm", "install", "--package-lock-only", "--no-audit", "--no-fund",
              "--prefix", str(pins)], env)  # fmt: skip
    return pins, mini


def installed_version(folder: Path, harness: str) -> str:
    if harness == "mini-swe-agent":
        for meta in (folder / "mini").glob("lib/python*/site-packages/mini_swe_agent-*.dist-info"):
            return meta.name.removeprefix("mini_swe_agent-").removesuffix(".dist-info")
        return "?"
    package = folder / "npm" / "node_modules" / NPM[harness] / "package.json"
    return str(json.loads(package.read_text(encoding="utf-8"))["version"])


def cli_path(folder: Path, harness: str) -> Path:
    if harness == "mini-swe-agent":
        return folder / "mini" / "bin" / "mini"
    bins = {"codex": "codex", "claude-code": "claude", "gemini-cli": "gemini"}
    return folder / "npm" / "node_modules" / ".bin" / bins[harness]


def help_text(folder: Path, harness: str, env: dict[str, str]) -> str:
    """The CLI's help for the command line its adapter runs, with a throwaway HOME."""
    with tempfile.TemporaryDirectory(prefix="bb-help-") as home:
        done = subprocess.run(
            [str(cli_path(folder, harness)), *HELP_ARGS[harness]],
            capture_output=True, text=True, timeout=120, check=False,
            env={**with_node(env, folder), "HOME": home, "COLUMNS": "200"},
        )  # fmt: skip
    return done.stdout + done.stderr


def adapter_argv(harness: str, model: str, options: dict[str, object]) -> list[str]:
    """The command line bugbout's adapter builds for one attempt (unconfined)."""
    from bb_core.agents import Session
    from bb_core.agents.registry import agent_class
    from bb_core.sandbox import NoSandbox

    with tempfile.TemporaryDirectory(prefix="bb-argv-") as folder:
        root = Path(folder)
        for name in ("work", "logs", "home", "tmp"):
            (root / name).mkdir()
        session = Session(
            task_id="drift", prompt="Fix the bug.", prompt_file=root / "logs" / "prompt.md",
            workdir=root / "work", logdir=root / "logs", home=root / "home",
            sandbox=NoSandbox(), timeout=60, test_command="python -m pytest tests",
            tmpdir=root / "tmp",
        )  # fmt: skip
        return agent_class(harness)(model, options=options).invocation(session).argv[1:]


def flag_drift(harness: str, pinned: str, newest: str) -> FlagDrift:
    drift = FlagDrift()
    old, new = parse_help(pinned), parse_help(newest)
    for agent, model, options in ENTRIES:
        if agent != harness:
            continue
        found = compare_flags(adapter_argv(agent, model, options), old, new)
        for mine, theirs in ((drift.gone, found.gone), (drift.unlisted, found.unlisted),
                             (drift.values, found.values)):  # fmt: skip
            mine.extend(x for x in theirs if x not in mine)
    return drift


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="just realcli-latest", description=__doc__)
    parser.add_argument("--no-tests", action="store_true", help="print the flag drift alone")
    parser.add_argument("--workers", default=os.environ.get("BUGBOUT_TEST_WORKERS", "2"),
                        help="pytest-xdist workers for the real-CLI tests (default 2)")  # fmt: skip
    args, pytest_args = parser.parse_known_args(argv)
    env = {k: v for k, v in os.environ.items()
           if k not in ("BUGBOUT_REALCLI_PINS", "BUGBOUT_REALCLI_MINI")}  # fmt: skip
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "bugbout"
    cache = Path(os.environ.get("BUGBOUT_REALCLI_LATEST_CACHE") or base / "realcli-latest")
    pinned_set = install(env)
    print(f"realcli-latest: the pinned CLIs are in {pinned_set}", file=sys.stderr)
    pins, mini = newest_pins(cache, with_node(env, pinned_set))
    latest_env = {**env, "BUGBOUT_REALCLI_CACHE": str(cache),
                  "BUGBOUT_REALCLI_PINS": str(pins), "BUGBOUT_REALCLI_MINI": mini}  # fmt: skip
    latest_set = install(latest_env)
    print(f"realcli-latest: the newest CLIs are in {latest_set}", file=sys.stderr)
    results: dict[str, Results] = {}
    if not args.no_tests:
        junit = cache / "results.xml"
        junit.unlink(missing_ok=True)
        subprocess.run(
            [sys.executable, "-m", "pytest", str(PINS), "-p", "no:randomly", "-n", args.workers,
             "--dist", "loadgroup", f"--junitxml={junit}", *pytest_args],
            env=latest_env, stdout=sys.stderr, cwd=ROOT, check=False,
        )  # fmt: skip
        results = test_results(junit) if junit.exists() else {}
    rows = []
    for harness in HARNESSES:
        drift = flag_drift(
            harness, help_text(pinned_set, harness, env), help_text(latest_set, harness, env)
        )
        rows.append(Row(harness, installed_version(pinned_set, harness),
                        installed_version(latest_set, harness),
                        None if args.no_tests else results.get(harness, Results()),
                        drift))  # fmt: skip
    if "doctor" in results:
        rows.append(Row("doctor (all four)", "", "", results["doctor"], None))
    print(render(rows))
    unlisted = [
        f"{r.cli}: {', '.join(r.flags.unlisted)}" for r in rows if r.flags and r.flags.unlisted
    ]
    if unlisted:
        print(
            f"\nflags no --help lists (hidden, or accepted by the parser alone): {'; '.join(unlisted)}"
        )
    drifted = any((r.results and r.results.failed) or (r.flags and (r.flags.gone or r.flags.values))
                  for r in rows)  # fmt: skip
    return 1 if drifted else 0


if __name__ == "__main__":
    sys.exit(main())
