"""The vendor adapters' options, their command lines in other set-ups, and login checks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, ClassVar

import pytest
from bb_core.agents import Session, agent_class
from bb_core.errors import ConfigError, SandboxUnavailable
from bb_core.sandbox import Bubblewrap, NoSandbox, Sandbox
from bb_race.adapters.claude_code import ClaudeCodeAgent
from bb_race.adapters.codex import CodexAgent
from bb_race.adapters.gemini_cli import GeminiCliAgent
from bb_race.adapters.mini_swe_agent import MiniSweAgent
from vendor_support import install_standins

BIN = Path(sys.executable).parent


def session(tmp_path: Path, sandbox: Sandbox | None = None) -> Session:
    for name in ("work", "home", "logs"):
        (tmp_path / name).mkdir(exist_ok=True)
    return Session(
        task_id="t", prompt="Fix it.", prompt_file=tmp_path / "logs" / "prompt.md",
        workdir=tmp_path / "work", logdir=tmp_path / "logs", home=tmp_path / "home",
        sandbox=sandbox or Bubblewrap("/usr/bin/bwrap"), timeout=60, test_command="pytest",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("harness", "model", "options", "problem"),
    [
        ("codex", None, {"effort": "high"}, "unknown option 'effort' for agent 'codex' "
         "(accepted: base-url, local-provider, reasoning-effort)"),
        ("codex", None, {"reasoning-effort": "extreme"}, "reasoning-effort must be one of"),
        ("codex", None, {"local-provider": "vllm"}, "local-provider must be one of ollama, lmstudio"),
        ("claude-code", None, {"reasoning-effort": "high"}, "unknown option 'reasoning-effort' "
         "for agent 'claude-code' (accepted: base-url, effort)"),
        ("claude-code", None, {"effort": "huge"}, "effort must be one of low, medium, high, xhigh, max"),
        ("gemini-cli", None, {"effort": "high"}, "unknown option 'effort' for agent 'gemini-cli' "
         "(accepted: base-url)"),
        ("mini-swe-agent", None, {}, "agent 'mini-swe-agent' needs a model"),
        ("mini-swe-agent", "openai/gpt-5", {"step_limit": 10}, "unknown option 'step_limit'"),
        ("mini-swe-agent", "openai/gpt-5", {"step-limit": 0}, "step-limit must be a whole number"),
        ("mini-swe-agent", "openai/gpt-5", {"step-limit": True}, "step-limit must be a whole number"),
        ("mini-swe-agent", "openai/gpt-5", {"text-actions": "yes"}, "text-actions must be true or false"),
        ("mini-swe-agent", "openai/gpt-5", {"model-kwargs": ["temperature"]}, "model-kwargs must be a table"),
        ("mini-swe-agent", "openai/gpt-5", {"model-kwargs": {"a.b": 1}}, "is not a plain name"),
    ],
)  # fmt: skip
def test_bad_options_are_clear_config_errors(
    harness: str, model: str | None, options: dict[str, Any], problem: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        agent_class(harness)(model, options=options)
    assert problem in str(caught.value)


def test_bb_race_refuses_an_unknown_option_before_running_anything(
    tmp_path: Path, demo_tasks: Any
) -> None:
    (tmp_path / "bugbout.toml").write_text(
        '[project]\nsource = "src"\ntests = "tests"\n\n'
        '[[contestants]]\nagent = "codex"\nmodel = "gpt-5"\neffort = "high"\n'
    )
    (tmp_path / "tasks.jsonl").write_text(json.dumps(demo_tasks.lines[0]) + "\n")
    done = subprocess.run(
        [str(BIN / "bb-race"), "tasks.jsonl"], cwd=tmp_path, capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        'bb-race: bugbout.toml: contestants[0].effort: unknown option for agent "codex" '
        "(accepted: base-url, local-provider, reasoning-effort)"
    ]


def test_codex_runs_a_local_model_through_its_oss_provider(tmp_path: Path) -> None:
    argv = CodexAgent("qwen3-coder:30b", options={"local-provider": "ollama"}).arguments(
        session(tmp_path)
    )
    at = argv.index("--oss")
    assert argv[at : at + 3] == ["--oss", "--local-provider", "ollama"]
    assert argv[argv.index("-m") + 1] == "qwen3-coder:30b"


def test_mini_text_actions_use_the_text_based_model_and_config(tmp_path: Path) -> None:
    argv, confine = MiniSweAgent(
        "ollama/qwen3-coder:30b", options={"text-actions": True}
    ).arguments(session(tmp_path))
    assert argv[argv.index("--model-class") + 1] == "litellm_textbased"
    assert argv[argv.index("-c") + 1] == "mini_textbased.yaml"
    assert "agent.step_limit=75" in argv  # the default
    assert confine is True


def test_mini_with_a_local_model_needs_no_key_and_ignores_pricing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MSWEA_COST_TRACKING", raising=False)
    agent = MiniSweAgent("ollama/qwen3-coder:30b")
    assert agent.credential_env == (
        "OLLAMA_API_BASE",
        "MSWEA_COST_TRACKING",
        "LITELLM_MODEL_REGISTRY_PATH",
        "MSWEA_MODEL_RETRY_STOP_AFTER_ATTEMPT",
    )
    invocation = agent.invocation(session(tmp_path))
    assert invocation.env["MSWEA_COST_TRACKING"] == "ignore_errors"
    assert invocation.env["MSWEA_CONFIGURED"] == "true"
    assert agent.login_status() == "local model through ollama: no login needed"


@pytest.mark.parametrize(
    ("model", "names"),
    [
        ("anthropic/claude-sonnet-4-5", {"ANTHROPIC_API_KEY"}),
        ("claude-sonnet-4-5", {"ANTHROPIC_API_KEY"}),  # LiteLLM guesses the provider
        ("gemini/gemini-2.5-pro", {"GEMINI_API_KEY"}),
        ("openrouter/qwen/qwen3-coder", {"OPENROUTER_API_KEY"}),
        ("somecloud/model-x", {"SOMECLOUD_API_KEY", "SOMECLOUD_API_BASE"}),
    ],
)
def test_mini_passes_the_credentials_of_its_models_provider(model: str, names: set[str]) -> None:
    assert names <= set(MiniSweAgent(model).credential_env)
    assert "GITHUB_TOKEN" not in MiniSweAgent(model).credential_env


def test_mini_takes_keys_stored_with_mini_extra_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "user-config"
    config.mkdir()
    (config / ".env").write_text("ANTHROPIC_API_KEY='sk-ant-stored'\nGITHUB_TOKEN=ghp_no\n")
    monkeypatch.setenv("MSWEA_GLOBAL_CONFIG_DIR", str(config))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    agent = MiniSweAgent("anthropic/claude-sonnet-4-5")
    invocation = agent.invocation(session(tmp_path))
    assert invocation.env["ANTHROPIC_API_KEY"] == "sk-ant-stored"
    assert "GITHUB_TOKEN" not in invocation.env
    assert invocation.env["MSWEA_GLOBAL_CONFIG_DIR"] == str(tmp_path / "home" / "mini-swe-agent")
    assert agent.login_status() == "logged in: ANTHROPIC_API_KEY is in mini-swe-agent's .env"


def test_mini_without_a_sandbox_runs_commands_as_mini_does(tmp_path: Path) -> None:
    argv, _ = MiniSweAgent("openai/gpt-5").arguments(session(tmp_path, NoSandbox()))
    assert "--environment-class" not in argv
    assert not any(word.startswith("environment.wrapper_args") for word in argv)


class FakeSeatbelt(Sandbox):
    name: ClassVar[str] = "seatbelt"


def test_mini_under_seatbelt_routes_commands_through_sandbox_exec(tmp_path: Path) -> None:
    """No macOS here: check the command line, and run its shell shim with a stand-in for
    sandbox-exec's own arguments."""
    agent = MiniSweAgent("openai/gpt-5")
    argv, confine = agent.arguments(session(tmp_path, FakeSeatbelt()))
    assert confine is False  # sandbox-exec cannot be nested: the commands get it instead
    settings = dict(w.split("=", 1) for w in argv if w.startswith("environment."))
    assert settings["environment.executable"] == "/usr/bin/sandbox-exec"
    wrapper = json.loads(settings["environment.wrapper_args"])
    assert wrapper[0] == "-p" and "(deny network*)" in wrapper[1]
    env_at = wrapper.index("/usr/bin/env")
    # What sandbox-exec would run, followed by what mini-swe-agent appends.
    work = tmp_path / "work"
    command = [*wrapper[env_at:], "--bind", str(work), str(work), "--chdir", str(work),
               "--setenv", "PAGER", "cat", "bash", "-c", 'pwd; echo "$PAGER ${OPENAI_API_KEY:-none}"']  # fmt: skip
    env = {"PATH": os.environ["PATH"], "OPENAI_API_KEY": "sk-secret"}
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=True, timeout=30)
    assert done.stdout.splitlines() == [str(work), "cat none"]


def test_claude_code_will_not_start_without_its_sandbox_tools(tmp_path: Path) -> None:
    (tmp_path / "bwrap").write_text("")
    (tmp_path / "bwrap").chmod(0o755)
    with pytest.raises(SandboxUnavailable) as caught:
        ClaudeCodeAgent().check_sandbox(str(tmp_path))
    assert "needs socat, rg on PATH" in str(caught.value)


def test_login_status_without_spending_quota(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = install_standins(tmp_path / "bin", {"mode": "fix"})
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in ("CODEX_API_KEY", "CODEX_ACCESS_TOKEN", "CODEX_HOME", "ANTHROPIC_API_KEY",
                 "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "GEMINI_API_KEY",
                 "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GEMINI_CLI_HOME"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)
    assert str(CodexAgent().login_status()).startswith("not logged in: no ")
    (tmp_path / ".codex").mkdir()
    (tmp_path / ".codex" / "auth.json").write_text("{}")
    assert CodexAgent().login_status() == "Logged in using ChatGPT"  # `codex login status`
    assert str(ClaudeCodeAgent().login_status()).startswith(
        "not logged in: set CLAUDE_CODE_OAUTH_TOKEN"
    )
    monkeypatch.setenv("CLAUDE_CODE_OAUTH_TOKEN", "sk-ant-oat-token")
    assert ClaudeCodeAgent().login_status() == "logged in: claude.ai"  # `claude auth status`
    assert str(GeminiCliAgent().login_status()).startswith("not logged in")
    (tmp_path / ".gemini").mkdir()
    (tmp_path / ".gemini" / "oauth_creds.json").write_text("{}")
    assert str(GeminiCliAgent().login_status()).startswith("logged in: Google login cached in")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    assert MiniSweAgent("openai/gpt-5").login_status() == "logged in: OPENAI_API_KEY is set"


def test_gemini_carries_over_only_a_google_logins_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = tmp_path / "user"
    (user / ".gemini").mkdir(parents=True)
    (user / ".gemini" / "oauth_creds.json").write_text('{"refresh_token": "r"}')
    (user / ".gemini" / "settings.json").write_text('{"mcpServers": {"x": {}}}')
    monkeypatch.setenv("HOME", str(user))
    for name in (
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "GOOGLE_GENAI_USE_VERTEXAI",
        "GEMINI_CLI_HOME",
    ):
        monkeypatch.delenv(name, raising=False)
    s = session(tmp_path)
    GeminiCliAgent().invocation(s)
    fresh = s.home / ".gemini"
    assert json.loads((fresh / "oauth_creds.json").read_text()) == {"refresh_token": "r"}
    settings = json.loads((fresh / "settings.json").read_text())
    assert settings["security"] == {"auth": {"selectedType": "oauth-personal"}}
    assert "mcpServers" not in settings
    assert 'decision = "deny"' in (fresh / "policies" / "bugbout.toml").read_text()


@pytest.mark.parametrize(
    ("model", "options", "environ", "hosts"),
    [
        ("openai/gpt-5", {}, {}, ["api.openai.com"]),
        ("claude-sonnet-4-5", {}, {}, ["api.anthropic.com"]),
        ("ollama/qwen3-coder:30b", {}, {}, ["localhost:11434"]),
        ("ollama/qwen3-coder:30b", {}, {"OLLAMA_API_BASE": "http://gpu-box:11434"}, ["gpu-box:11434"]),
        ("openai/local-model", {"model-kwargs": {"api_base": "http://127.0.0.1:8000/v1"}}, {},
         ["127.0.0.1:8000"]),
        ("openai/gpt-5", {}, {"OPENAI_BASE_URL": "https://gateway.example/v1"}, ["gateway.example"]),
        ("somecloud/model-x", {}, {}, True),  # unknown provider: the whole network
    ],
)  # fmt: skip
def test_mini_reaches_only_its_models_host(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    model: str,
    options: dict[str, Any],
    environ: dict[str, str],
    hosts: list[str] | bool,
) -> None:
    for name in ("OLLAMA_API_BASE", "OPENAI_BASE_URL", "OPENAI_API_BASE", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    invocation = MiniSweAgent(model, options=options).invocation(session(tmp_path))
    assert invocation.network == hosts
    assert invocation.env["LITELLM_LOCAL_MODEL_COST_MAP"] == "True"


def test_gemini_reaches_googles_apis_and_a_gateway_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GOOGLE_GEMINI_BASE_URL", raising=False)
    monkeypatch.delenv("GOOGLE_VERTEX_BASE_URL", raising=False)
    assert GeminiCliAgent().invocation(session(tmp_path)).network == ["*.googleapis.com"]
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", "https://llm-gateway.internal:8443/gemini")
    invocation = GeminiCliAgent().invocation(session(tmp_path))
    assert invocation.network == ["*.googleapis.com", "llm-gateway.internal:8443"]
    assert invocation.confine is True
