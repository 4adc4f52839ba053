"""Each vendor adapter, raced through the real bb-race against a stand-in of its CLI."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from bb_race.adapters.claude_code import SANDBOX_SETTINGS
from vendor_support import CLIS, CREDENTIALS, REGRESSION_TEST, SECRETS, SUMMARY

HARNESSES = list(CLIS)
#: The credential variables each adapter must pass, of those the race environment sets.
OWN = {
    "codex": {"CODEX_API_KEY", "OPENAI_API_KEY"},
    "claude-code": {"ANTHROPIC_API_KEY"},
    "gemini-cli": {"GEMINI_API_KEY"},
    "mini-swe-agent": {"OPENAI_API_KEY"},  # its model is openai/gpt-5
}
TOKENS = {
    "codex": {"input": 184230, "cached_input": 161024, "cache_write": 0, "output": 5120,
              "reasoning": 2048, "total": 189350},
    "claude-code": {"input": 41 + 18234 + 512003, "cached_input": 512003, "cache_write": 18234,
                    "output": 6120, "total": 41 + 18234 + 512003 + 6120},
    "gemini-cli": {"input": 98211, "cached_input": 77800, "output": 3120 + 3646, "reasoning": 3646,
                   "total": 104977},
    # Four model calls (the stand-in's usage grows by 500 prompt tokens a call).
    "mini-swe-agent": {"input": 1000 + 1500 + 2000 + 2500 + 3000 + 3500, "cached_input": 3600,
                       "output": 300, "reasoning": 120, "total": 13800},
}  # fmt: skip
VERSIONS = {
    "codex": "codex-cli 0.171.0",
    "claude-code": "2.1.197 (Claude Code)",
    "gemini-cli": "0.61.0",
    "mini-swe-agent": "mini-swe-agent 2.4.6",
}


def dirs(attempt: dict[str, Any]) -> tuple[Path, Path, Path]:
    """(work, home, logs) of an attempt."""
    logs = Path(attempt["logdir"])
    return logs.parent / "work", logs.parent / "home", logs


def expected_argv(harness: str, attempt: dict[str, Any]) -> list[str]:
    work, _, logs = dirs(attempt)
    prompt = (logs / "prompt.md").read_text()
    if harness == "codex":
        return ["exec", "--json", "--color", "never", "--skip-git-repo-check", "--ephemeral",
                "--ignore-user-config", "--ignore-rules",
                "--sandbox", "workspace-write", "-c", "sandbox_workspace_write.network_access=false",
                "-c", "sandbox_workspace_write.exclude_slash_tmp=true",
                "-c", "sandbox_workspace_write.exclude_tmpdir_env_var=false",
                "-c", 'web_search="disabled"', "-c", "project_doc_max_bytes=0",
                "-c", "check_for_update_on_startup=false", "-c", "analytics.enabled=false",
                "-c", "features.plugins=false",
                "-m", "gpt-5", "-c", 'model_reasoning_effort="high"',
                "-o", str(logs / "last-message.txt"), "-"]  # fmt: skip
    if harness == "claude-code":
        return ["--print", "--output-format", "stream-json", "--verbose", "--safe-mode",
                "--no-session-persistence", "--permission-mode", "acceptEdits",
                "--disallowedTools", "WebSearch", "WebFetch",
                "--settings", str(logs / "claude-settings.json"),
                "--model", "sonnet", "--effort", "high"]  # fmt: skip
    if harness == "gemini-cli":
        return [f"--prompt={prompt}", "--output-format", "json", "--approval-mode", "yolo",
                "--skip-trust", "--extensions", "none", "--model", "gemini-2.5-pro"]  # fmt: skip
    bwrap = os.path.realpath(shutil.which("bwrap") or "bwrap")
    return ["-m", "openai/gpt-5", "-t", prompt, "-y", "--exit-immediately", "-c", "mini.yaml",
            "-c", "agent.step_limit=20", "-c", "model.model_kwargs.temperature=0",
            "-c", f"environment.cwd={work}", "--environment-class", "bubblewrap",
            "-c", f"environment.executable={bwrap}", "-c", "WRAPPER",
            "-o", str(logs / "trajectory.json")]  # fmt: skip


@pytest.mark.parametrize("harness", HARNESSES)
def test_each_adapter_fixes_the_task_and_reports_summary_tokens_and_version(
    vendor_race: Any, harness: str
) -> None:
    race = vendor_race("fix")
    assert race.returncode == 0, race.stderr
    attempt = race.attempts()[harness]
    assert (attempt["status"], attempt["exit_code"]) == ("finished", 0), attempt.get("error")
    assert attempt["changed_files"] == ["src/textkit/cases.py", "tests/test_regression_standin.py"]
    assert attempt["test_files"] == ["tests/test_regression_standin.py"]
    assert attempt["tests"] == [
        "tests/test_regression_standin.py::test_camel_case_first_word_is_lowercase"
    ]
    fix_lines = [
        line
        for line in race.task["reference_patch"].splitlines()
        if line[:1] in "+-" and line[:3] not in ("+++", "---")
    ]
    assert fix_lines and all(line in attempt["source_patch"].splitlines() for line in fix_lines)
    assert all(
        f"+{line}" in attempt["test_patch"].splitlines() for line in REGRESSION_TEST.splitlines()
    )
    assert attempt["summary"] == SUMMARY
    assert attempt["tokens"] == TOKENS[harness]
    assert attempt["version"] == VERSIONS[harness]
    # The stand-ins bugbout confines whole also try GitHub, which the egress proxy refuses.
    confined = harness in ("gemini-cli", "mini-swe-agent")
    flags = [f for f in attempt["flags"] if not f.startswith(("unconfined:", "leak:", "refused:"))]
    # The confined stand-ins try a write outside their folders, which the sandbox refuses.
    assert ("refused:write" in attempt["flags"]) == confined
    assert flags == (["network-refused:github.com:443"] if confined else []), attempt["flags"]
    # Under bubblewrap every adapter's whole process runs in bugbout's sandbox, the CLIs
    # that confine their own commands too, so no attempt is flagged unconfined.
    assert not [f for f in attempt["flags"] if f.startswith("unconfined:")]
    # The stand-in writes the maintainers' own fix: flagged, never scored differently.
    assert "leak:matches-reference" in attempt["flags"]


@pytest.mark.parametrize("harness", HARNESSES)
def test_each_adapter_runs_its_cli_headless_with_the_exact_command_line(
    vendor_race: Any, harness: str
) -> None:
    race = vendor_race("fix")
    attempt = race.attempts()[harness]
    call = race.call(harness)
    argv = call["argv"]
    expected = expected_argv(harness, attempt)
    if harness == "mini-swe-agent":
        at = expected.index("WRAPPER")
        assert argv[at].startswith("environment.wrapper_args=")
        wrapper = json.loads(argv[at].split("=", 1)[1])
        _, home, logs = dirs(attempt)
        assert "--unshare-net" in wrapper and "--share-net" not in wrapper
        assert wrapper[:6] == ["--ro-bind", "/", "/", "--bind", "/tmp", "/tmp"]
        assert ["--ro-bind", str(home), str(home)] == wrapper[6:9]
        assert ["--ro-bind", str(logs), str(logs)] == wrapper[9:12]
        assert {"OPENAI_API_KEY", "OPENAI_BASE_URL"} <= {
            wrapper[i + 1] for i, word in enumerate(wrapper) if word == "--unsetenv"
        }
        expected[at] = argv[at]
    assert argv == expected
    assert Path(call["cwd"]) == dirs(attempt)[0]
    prompt = (dirs(attempt)[2] / "prompt.md").read_text()
    # The prompt goes on stdin where the CLI reads it from there, else on the command line.
    assert call["stdin"] == (prompt if harness in ("codex", "claude-code") else None)


@pytest.mark.parametrize("harness", HARNESSES)
def test_each_cli_gets_its_own_credentials_a_fresh_home_and_no_other_secrets(
    vendor_race: Any, harness: str
) -> None:
    race = vendor_race("fix")
    attempt = race.attempts()[harness]
    env = race.call(harness)["env"]
    _, home, _ = dirs(attempt)
    given = {name for name in {*CREDENTIALS, *SECRETS} if name in env}
    assert given == OWN[harness]
    assert all(env[name] == CREDENTIALS[name] for name in OWN[harness])
    assert env["HOME"] == str(home)
    assert not any(name.startswith(("AWS_", "GITHUB_")) for name in env)
    assert str(race.user_home) not in json.dumps(env)
    fresh = {
        "codex": ("CODEX_HOME", home / ".codex"),
        "claude-code": ("CLAUDE_CONFIG_DIR", home / ".claude"),
        "gemini-cli": ("GEMINI_CLI_HOME", home),
        "mini-swe-agent": ("MSWEA_GLOBAL_CONFIG_DIR", home / "mini-swe-agent"),
    }[harness]
    assert env[fresh[0]] == str(fresh[1])


def test_codex_home_holds_only_a_link_to_the_users_login(vendor_race: Any) -> None:
    race = vendor_race("fix")
    call = race.call("codex")
    assert call["auth_json"] == str((race.user_home / ".codex" / "auth.json").resolve())
    assert "config.toml" not in call["codex_home_files"]
    assert "AGENTS.md" not in call["codex_home_files"]


def test_claude_code_runs_with_its_bash_sandbox_on_and_no_web_tools(vendor_race: Any) -> None:
    race = vendor_race("fix")
    call = race.call("claude-code")
    prompt = (Path(race.attempts()["claude-code"]["logdir"]) / "prompt.md").read_text()
    [command] = [line.strip() for line in prompt.splitlines() if "-m pytest" in line]
    # The prompt's test command is allowed, exactly and on part of the suite.
    allowed = [f"Bash({command})", f"Bash({command.rsplit(' ', 1)[0]}:*)"]
    # Inside bugbout's bubblewrap sandbox, Claude's Bash sandbox binds the /proc it is
    # given rather than mounting one (which a nested user namespace may not).
    assert call["settings"] == {
        "sandbox": {**SANDBOX_SETTINGS["sandbox"], "enableWeakerNestedSandbox": True},
        "permissions": {**SANDBOX_SETTINGS["permissions"], "allow": allowed},
    }
    sandbox = call["settings"]["sandbox"]
    assert sandbox["enabled"] and sandbox["failIfUnavailable"]
    assert sandbox["allowUnsandboxedCommands"] is False
    assert sandbox["network"] == {"allowedDomains": [], "strictAllowlist": True}
    assert "WebSearch" not in call["tools"] and "WebFetch" not in call["tools"]
    assert "Bash" in call["tools"]


def test_gemini_cli_is_confined_whole_reaches_only_its_model_and_has_no_web_tools(
    vendor_race: Any,
) -> None:
    race = vendor_race("fix")
    call = race.call("gemini-cli")
    assert call["model_reached"] == "connected"  # through the egress proxy
    assert call["github_reached"].startswith("proxy said: HTTP/1.1 403")
    assert call["env"]["HTTPS_PROXY"] == "http://127.0.0.1:3128"
    assert call["outside_write"].startswith("refused")
    assert not (race.bin / "written-by-gemini.txt").exists()
    assert "google_web_search" not in call["tools"] and "web_fetch" not in call["tools"]
    assert "run_shell_command" in call["tools"]
    assert call["settings"]["security"] == {"auth": {"selectedType": "gemini-api-key"}}
    assert "mcpServers" not in call["settings"]


def test_mini_swe_agent_reaches_only_its_model_and_its_commands_no_network_nor_keys(
    vendor_race: Any,
) -> None:
    race = vendor_race("fix")
    call = race.call("mini-swe-agent")
    assert call["model_reached"] == "connected"  # through the egress proxy
    assert call["github_reached"].startswith("proxy said: HTTP/1.1 403")
    probe, env_dump, outside = call["observations"][:3]
    assert probe["returncode"] != 0 and "connected" not in probe["output"]
    assert env_dump["returncode"] == 0
    assert not any(value in env_dump["output"] for value in {**CREDENTIALS, **SECRETS}.values())
    assert "PAGER=cat" in env_dump["output"]  # mini.yaml's environment still reaches commands
    assert outside["returncode"] != 0 and "Read-only file system" in outside["output"]
    _, home, _ = dirs(race.attempts()["mini-swe-agent"])
    assert not (home / "outside-probe").exists()
    assert call["config"]["agent"]["step_limit"] == 20
    assert call["config"]["model"]["model_kwargs"] == {"temperature": 0}


@pytest.mark.parametrize("harness", HARNESSES)
def test_a_usage_limit_in_each_clis_own_words_makes_the_attempt_quota(
    vendor_race: Any, harness: str
) -> None:
    race = vendor_race("quota")
    assert race.returncode == 0, race.stderr
    attempt = race.attempts()[harness]
    assert attempt["status"] == "quota", attempt
    assert attempt["patch"] == ""
    assert attempt["exit_code"] == {"gemini-cli": 173}.get(harness, 1)
