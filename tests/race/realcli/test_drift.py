"""The pieces of ``just realcli-latest``'s drift table and of scripts/realcli.sh's choice of
node, on real captures: ``help/`` holds the ``--help`` each CLI printed (codex-cli 0.171.0
``exec --help``, Claude Code 2.1.197 and 2.1.332, Gemini CLI 0.61.0, mini-swe-agent
2.4.6), and package-lock.json is the real lock file of the pins."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from bb_core.agents.registry import agent_class

ROOT = Path(__file__).resolve().parents[3]
HELP = Path(__file__).parent / "help"
sys.path.insert(0, str(ROOT / "scripts"))

import realcli_drift as drift  # noqa: E402
import realcli_node as node  # noqa: E402

#: The release each capture is of, for the adapter's tested version.
TESTED_HELP = {
    "codex": "codex-exec-0.171.0.txt",
    "claude-code": "claude-2.1.332.txt",
    "gemini-cli": "gemini-0.61.0.txt",
    "mini-swe-agent": "mini-2.4.6.txt",
}


def needs_claude_sandbox_tools() -> None:
    """Claude Code's adapter builds no command line where its Bash sandbox could not
    start (bwrap, socat and rg, which scripts/realcli.sh installs)."""
    missing = agent_class("claude-code")().requirements()
    if missing:
        pytest.skip(missing[0][0])


def help_of(name: str) -> str:
    return (HELP / name).read_text(encoding="utf-8")


def test_commander_help_gives_flags_aliases_and_choices() -> None:
    flags = drift.parse_help(help_of("claude-2.1.332.txt"))
    for name in ("--print", "-p", "--safe-mode", "--no-session-persistence", "--verbose",
                 "--disallowedTools", "--disallowed-tools", "--settings", "--effort"):  # fmt: skip
        assert name in flags, name
    assert flags["--permission-mode"] == (
        "acceptEdits", "auto", "bypassPermissions", "manual", "dontAsk", "plan"
    )  # fmt: skip
    assert flags["--output-format"] == ("text", "json", "stream-json")
    # "--append-system-prompt included" starts a line of --system-prompt-snapshot's
    # description: a mention, not the option (whose own entry offers no choices).
    assert flags["--system-prompt-snapshot"] == ("on", "off")
    assert flags["--append-system-prompt"] is None
    assert not [f for f in flags if f.endswith(".")]  # "--plugin-dir." of a description


def test_clap_yargs_and_rich_help_give_their_flags() -> None:
    codex = drift.parse_help(help_of("codex-exec-0.171.0.txt"))
    assert codex["--sandbox"] == ("read-only", "workspace-write", "danger-full-access")
    assert codex["-s"] == codex["--sandbox"]
    for name in ("--json", "--ephemeral", "--ignore-user-config", "--ignore-rules", "-c",
                 "--skip-git-repo-check", "--oss", "--local-provider", "-o"):  # fmt: skip
        assert name in codex, name
    gemini = drift.parse_help(help_of("gemini-0.61.0.txt"))
    assert gemini["--approval-mode"] == ("default", "auto_edit", "yolo", "plan")
    assert {"--prompt", "--skip-trust", "--extensions", "-e", "--model"} <= set(gemini)
    mini = drift.parse_help(help_of("mini-2.4.6.txt"))
    assert set(mini) == {
        "--model", "-m", "--task", "-t", "--yolo", "-y", "--cost-limit", "-l", "--config",
        "-c", "--output", "-o", "--exit-immediately", "--agent-class", "--environment-class",
        "--model-class", "--help", "--install-completion", "--show-completion",
    }  # fmt: skip


def test_claude_code_2_1_332_kept_every_flag_of_2_1_197() -> None:
    old = drift.parse_help(help_of("claude-2.1.197.txt"))
    new = drift.parse_help(help_of("claude-2.1.332.txt"))
    assert set(old) <= set(new)
    assert {"--restricted", "--permission-prompts", "--cloud"} <= set(new) - set(old)
    assert "default" in (old["--permission-mode"] or ())
    assert "default" not in (new["--permission-mode"] or ())  # renamed "manual"


def test_a_command_lines_flags_and_their_values() -> None:
    assert drift.passed_flags(
        ["exec", "--json", "-c", 'web_search="disabled"', "--prompt=-x", "-m", "gpt-5", "-"]
    ) == [("--json", None), ("-c", 'web_search="disabled"'), ("--prompt", "-x"), ("-m", "gpt-5")]


@pytest.mark.parametrize("harness", list(TESTED_HELP))
def test_every_flag_each_adapter_passes_is_in_its_tested_releases_help(harness: str) -> None:
    if harness == "claude-code":
        needs_claude_sandbox_tools()
    text = help_of(TESTED_HELP[harness])
    assert drift.flag_drift(harness, text, text) == drift.FlagDrift()
    assert (
        TESTED_HELP[harness].removesuffix(".txt").endswith(str(agent_class(harness).tested_version))
    )


def test_a_flag_gone_from_the_newest_help_and_a_value_it_no_longer_offers() -> None:
    needs_claude_sandbox_tools()
    pinned = help_of("claude-2.1.197.txt")
    flags = drift.parse_help(pinned)
    newest = drift.parse_help(
        "\n".join(line for line in pinned.splitlines() if "--safe-mode" not in line)
    )
    argv = drift.adapter_argv("claude-code", "sonnet", {"effort": "high"})
    assert "--safe-mode" in argv
    found = drift.compare_flags([*argv, "--hidden-flag"], flags, newest)
    assert found.gone == ["--safe-mode"]
    assert found.unlisted == ["--hidden-flag"]
    assert found.values == []
    # The permission mode 2.1.197 called "default" is "manual" in 2.1.332.
    renamed = drift.compare_flags(
        ["--permission-mode", "default"], flags, drift.parse_help(help_of("claude-2.1.332.txt"))
    )
    assert renamed.values == ["--permission-mode default"]
    assert renamed.words() == "--permission-mode default not offered"


def test_results_per_cli_from_pytests_junit_xml(tmp_path: Path) -> None:
    junit = tmp_path / "results.xml"
    module = "tests.race.realcli.test_real_clis"
    junit.write_text(
        '<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest">'
        f'<testcase classname="{module}" name="test_the_network_is_refused[codex]" time="1"/>'
        f'<testcase classname="{module}" name="test_the_network_is_refused[codex-local]"/>'
        f'<testcase classname="{module}" name="test_tokens_are_parsed_from_the_clis_own_output'
        '[claude-code]"><failure message="assert 0 == 9000">...</failure></testcase>'
        f'<testcase classname="{module}" name="test_a_429_from_the_vendor_is_quota_with_its'
        '_message[claude-code]"><error message="boom"/></testcase>'
        '<testcase classname="tests.race.realcli.test_doctor_real" '
        'name="test_each_pinned_cli_accepts_its_adapters_exact_command_line"/>'
        '<testcase classname="tests.race.realcli.test_drift" name="test_x"/>'
        "</testsuite></testsuites>"
    )
    results = drift.test_results(junit)
    assert set(results) == {"codex", "claude-code", "doctor"}
    assert (results["codex"].passed, results["codex"].failed) == (2, [])
    assert results["claude-code"].failed == ["token usage", "usage-limit answer"]
    assert results["doctor"].passed == 1


def test_the_table_reads_as_columns() -> None:
    rows = [
        drift.Row("codex", "0.171.0", "0.171.0", drift.Results(8, []), drift.FlagDrift()),
        drift.Row(
            "claude-code",
            "2.1.197",
            "2.1.332",
            drift.Results(7, ["token usage"]),
            drift.FlagDrift(gone=["--safe-mode"]),
        ),
    ]
    lines = drift.render(rows).splitlines()
    assert lines[0].split() == ["CLI", "pinned", "newest", "tests", "flags", "the", "adapter",
                                "passes", "checks", "failed"]  # fmt: skip
    assert set(lines[1]) == {"-", " "}
    assert "2.1.332 (newer)" in lines[3] and "0.171.0 (newer)" not in lines[2]
    assert "--safe-mode gone" in lines[3] and lines[3].endswith("token usage")
    assert lines[2].index("8 passed") == lines[3].index("7 passed") == lines[0].index("tests")


@pytest.mark.parametrize(
    ("spec", "minimum"),
    [(">=22.0.0", (22, 0, 0)), (">=20", (20, 0, 0)), (">16", (16, 0, 1)),
     ("^20.19.0 || >=22.12.0", (20, 19, 0)), (">=18 <23", (18, 0, 0)), ("22.x", (22, 0, 0)),
     ("*", None)],
)  # fmt: skip
def test_the_lowest_node_a_range_accepts(spec: str, minimum: tuple[int, int, int] | None) -> None:
    assert node.range_minimum(spec) == minimum


def test_the_pins_ask_for_node_22_because_of_claude_code() -> None:
    lock = json.loads((Path(__file__).parent / "package-lock.json").read_text())
    assert node.node_needed(lock) == ((22, 0, 0), ["@anthropic-ai/claude-code"])
    lockfile = str(Path(__file__).parent / "package-lock.json")
    assert node.main(["satisfies", "v20.20.2", lockfile]) == 1
    assert node.main(["satisfies", "22.20.0", lockfile]) == 0
