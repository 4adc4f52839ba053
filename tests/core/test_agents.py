"""The agents API: the registry, vendors, options, and what an agent's environment holds."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import pytest
from bb_core.agents import (
    CodingAgent,
    Invocation,
    Session,
    agent_class,
    agent_environment,
    agent_from_config,
    guess_vendor,
    known_agents,
    register,
    scrub,
    secret_values,
)
from bb_core.config import load_config
from bb_core.errors import ConfigError
from bb_core.sandbox import NoSandbox

BUILT_INS = ["claude-code", "codex", "command", "gemini-cli", "mini-swe-agent"]


class Toy(CodingAgent):
    harness: ClassVar[str] = "toy"
    executable: ClassVar[str] = "toy-cli"
    credential_env: ClassVar[tuple[str, ...]] = ("TOY_API_KEY",)
    option_names: ClassVar[frozenset[str]] = frozenset({"effort"})

    def validate(self) -> None:
        if self.options.get("effort", "low") not in ("low", "high"):
            raise ConfigError(f"{self.name}: effort must be low or high")

    def invocation(self, session: Session) -> Invocation:
        return Invocation([self.command(), "--yes"], stdin=session.prompt, env={"TOY_MODE": "1"})


class NeedsModel(Toy):
    harness: ClassVar[str] = "needs-model"
    model_required: ClassVar[bool] = True


def session(tmp_path: Path) -> Session:
    return Session(
        task_id="demo-0123456789",
        prompt="fix it",
        prompt_file=tmp_path / "prompt.md",
        workdir=tmp_path / "work",
        logdir=tmp_path / "logs",
        home=tmp_path / "home",
        sandbox=NoSandbox(),
        timeout=60,
        test_command="python -m pytest tests",
    )


def test_the_built_in_agents_are_registered_through_entry_points() -> None:
    assert set(BUILT_INS) <= set(known_agents())
    command = agent_class("command")
    assert command.harness == "command"
    assert command.__module__ == "bb_race.adapters.command"


def test_an_unknown_agent_names_the_known_ones() -> None:
    with pytest.raises(ConfigError) as caught:
        agent_class("kodex")
    message = str(caught.value)
    assert message.startswith('unknown agent "kodex" (known: ')
    for name in BUILT_INS:
        assert name in message


def test_an_agent_registered_in_process_is_found_by_name() -> None:
    register(Toy)
    assert agent_class("toy") is Toy
    assert "toy" in known_agents()


@pytest.mark.parametrize(
    ("model", "vendor"),
    [
        ("gpt-5.1-codex", "openai"),
        ("o3", "openai"),
        ("ollama/gpt-oss:20b", "openai"),
        ("claude-sonnet-4-5", "anthropic"),
        ("sonnet", "anthropic"),
        ("opus", "anthropic"),
        ("openrouter/anthropic/claude-3.5-haiku", "anthropic"),
        ("bedrock/anthropic.claude-3-sonnet", "anthropic"),
        ("gemini-2.5-pro", "google"),
        ("ollama/qwen3-coder:30b", "alibaba"),
        ("deepseek-chat", "deepseek"),
        ("lm_studio/devstral-small", "mistral"),
        ("ollama/llama3.1:8b", "meta"),
        ("xai/grok-4", "xai"),
        ("my-own-model", None),
        (None, None),
    ],
)
def test_vendor_is_guessed_from_the_model_name(model: str | None, vendor: str | None) -> None:
    assert guess_vendor(model) == vendor


def test_names_vendors_and_quotas_default_sensibly() -> None:
    toy = Toy("gpt-5")
    assert (toy.name, toy.vendor, toy.quota, toy.role, toy.assignment) == (
        "toy/gpt-5", "openai", "toy", "contestant", None,
    )  # fmt: skip
    plain = Toy(name="mine", vendor="acme", quota="shared-plan")
    assert (plain.name, plain.model, plain.vendor, plain.quota) == (
        "mine",
        None,
        "acme",
        "shared-plan",
    )
    assert Toy().name == "toy"
    examiner = Toy("sonnet", role="examiner")
    assert examiner.assignment == "reproduce"
    assert examiner.describe() == {
        "agent": "toy/sonnet", "role": "examiner", "harness": "toy", "model": "sonnet",
        "vendor": "anthropic", "assignment": "reproduce",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: Toy(options={"effrot": "high"}), "toy: unknown option 'effrot' for agent 'toy' (accepted: effort)"),
        (lambda: Toy(options={"effort": "max"}), "toy: effort must be low or high"),
        (lambda: NeedsModel(), "needs-model: agent 'needs-model' needs a model"),
        (lambda: Toy(role="judge"), "toy: role must be contestant or examiner, not 'judge'"),
        (lambda: Toy(role="examiner", assignment="fix"), "toy: assignment must be reproduce or specify, not 'fix'"),
        (lambda: Toy(assignment="specify"), "toy: assignment applies to examiners only"),
    ],
)  # fmt: skip
def test_bad_agent_settings_are_config_errors(build: Any, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        build()
    assert str(caught.value) == message


def test_agents_are_built_from_bugbout_toml(tmp_path: Path) -> None:
    config = tmp_path / "bugbout.toml"
    config.write_text(
        '[project]\nsource = "src/pkg"\n\n'
        '[[contestants]]\nagent = "command"\nname = "aider"\nmodel = "gpt-5"\n'
        'command = ["aider", "--model", "{model}", "--message-file", "{prompt_file}"]\n'
        'state-dirs = ["~/.aider"]\nquota = "openai-plan"\n\n'
        '[[examiners]]\nagent = "command"\nname = "writer"\ncommand = ["writer"]\n'
        'assignment = "specify"\n'
    )
    loaded = load_config(config)
    aider, writer = (agent_from_config(entry) for entry in loaded.agents)
    assert (aider.name, aider.model, aider.vendor, aider.quota, aider.role) == (
        "aider", "gpt-5", "openai", "openai-plan", "contestant",
    )  # fmt: skip
    assert aider.options["state-dirs"] == ["~/.aider"]
    assert (writer.role, writer.assignment, writer.quota) == ("examiner", "specify", "command")


def test_the_environment_is_minimal_plus_own_credentials(tmp_path: Path) -> None:
    user_env = {
        "PATH": "/usr/bin:/bin",
        "HOME": "/home/me",
        "LANG": "en_GB.UTF-8",
        "TERM": "xterm",
        "TOY_API_KEY": "toy-key-123456",
        "OPENAI_API_KEY": "sk-other-vendor",
        "GITHUB_TOKEN": "ghp_123456789",
        "AWS_SECRET_ACCESS_KEY": "aws-secret-123",
        "SSH_AUTH_SOCK": "/run/agent.sock",
    }
    agent = Toy()
    here = session(tmp_path)
    env = agent_environment(agent, here, agent.invocation(here), user_env, tmpdir=tmp_path / "tmp")
    assert env == {
        "PATH": "/usr/bin:/bin",
        "LANG": "en_GB.UTF-8",
        "TERM": "xterm",
        "HOME": str(tmp_path / "home"),
        "TMPDIR": str(tmp_path / "tmp"),
        "TOY_API_KEY": "toy-key-123456",
        "TOY_MODE": "1",
    }


def test_an_invocation_may_set_home_itself(tmp_path: Path) -> None:
    agent = Toy()
    here = session(tmp_path)
    invocation = Invocation(["toy"], env={"HOME": "/elsewhere"})
    assert agent_environment(agent, here, invocation, {})["HOME"] == "/elsewhere"


def test_secrets_are_scrubbed_from_text() -> None:
    env = {
        "OPENAI_API_KEY": "sk-abcdefgh12345",
        "GH_TOKEN": "ghp_xyz987654",
        "PATH": "/usr/bin/long",
    }
    secrets = secret_values(env)
    assert sorted(secrets) == ["ghp_xyz987654", "sk-abcdefgh12345"]
    text = "used sk-abcdefgh12345 and ghp_xyz987654 from /usr/bin/long"
    assert scrub(text, secrets) == "used [redacted] and [redacted] from /usr/bin/long"


def test_the_default_parse_reads_the_end_of_stdout(tmp_path: Path) -> None:
    (tmp_path / "stdout.log").write_text("x" * 5000 + "\nAll done: fixed the bug.\n")
    summary, tokens = Toy().parse(tmp_path)
    assert summary.endswith("All done: fixed the bug.")
    assert len(summary) <= 2000
    assert tokens == {}
    assert Toy().parse(tmp_path / "absent") == ("", {})
