"""An adapter describes itself, and init, detection, the doctor and the public API take it
from the registry: one installed besides the built-in ones takes part everywhere."""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import bugbout
import pytest
from bb_core.agents import CodingAgent, Invocation, Session, adapter_classes, register, registry
from bb_core.config import AgentConfig, build
from bugbout.detect import agent_clis, detect
from bugbout.doctor import PROBLEM, Doctor
from bugbout.init import config_text

BLOCK = '# Lint-bot, a made-up agent.\n[[contestants]]\nagent = "lint-bot"\nmodel = "m1"\n'


class LintBot(CodingAgent):
    harness: ClassVar[str] = "lint-bot"
    executable: ClassVar[str] = "lintbot"
    install: ClassVar[str | None] = "pipx install lintbot"
    init_rank: ClassVar[int] = 15
    init_blocks: ClassVar[tuple[tuple[str, str], ...]] = (("lintbot", BLOCK),)

    def invocation(self, session: Session) -> Invocation:
        return Invocation(argv=["lintbot", session.prompt])

    def requirements(self, path: str | None = None) -> list[tuple[str, str]]:
        return [("lintbot needs its rules file", "run `lintbot init`")]


@pytest.fixture
def lint_bot() -> Iterator[type[LintBot]]:
    register(LintBot)
    yield LintBot
    registry._registered.pop("lint-bot", None)


def _path_with(folder: Path, *names: str) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_text("#!/bin/sh\nexit 0\n")
        (folder / name).chmod(0o755)
    return str(folder)


def test_the_built_in_adapters_describe_their_clis() -> None:
    assert agent_clis()[:5] == (
        ("codex", "codex"),
        ("claude", "claude-code"),
        ("gemini", "gemini-cli"),
        ("mini", "mini-swe-agent"),
        ("aider", "command"),
    )
    classes = adapter_classes()
    assert classes["codex"].install == "npm install -g @openai/codex"
    assert classes["command"].install is None


def test_an_installed_adapter_is_detected_and_written_by_init(
    lint_bot: type[LintBot], tmp_path: Path
) -> None:
    assert ("lintbot", "lint-bot") in agent_clis()
    assert agent_clis().index(("lintbot", "lint-bot")) == 1  # its rank: after codex
    (tmp_path / "repo" / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "repo" / "src" / "pkg" / "__init__.py").write_text("")
    layout = detect(tmp_path / "repo", path=_path_with(tmp_path / "bin", "lintbot"))
    assert layout.agents == ("lintbot",)
    text = config_text(layout)
    assert BLOCK in text  # on PATH: written as is
    assert '# [[contestants]]\n# agent = "codex"' in text  # the others, commented out
    assert [c["agent"] for c in tomllib.loads(text)["contestants"]] == ["lint-bot"]


def test_the_doctor_takes_the_install_hint_and_requirements_from_the_adapter(
    lint_bot: type[LintBot], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    doctor = Doctor(build({}, path=None, root=tmp_path))
    entry = AgentConfig(agent="lint-bot", name="lint-bot")
    monkeypatch.setenv("PATH", _path_with(tmp_path / "empty"))
    missing = doctor.check_agent(entry)
    assert missing.status == PROBLEM
    assert "pipx install lintbot" in missing.line()
    monkeypatch.setenv("PATH", _path_with(tmp_path / "bin", "lintbot"))
    needs = doctor.check_agent(entry)
    assert needs.status == PROBLEM
    assert "lintbot needs its rules file" in needs.line() and "lintbot init" in needs.line()


def test_the_public_api_finds_adapters_in_the_registry(lint_bot: type[LintBot]) -> None:
    assert bugbout.LintBot is LintBot
    assert bugbout.CodexAgent.harness == "codex"
    assert "LintBot" in bugbout.ADAPTERS and "CommandAgent" in bugbout.ADAPTERS
    assert bugbout.adapters()["lint-bot"] is LintBot
    with pytest.raises(AttributeError):
        _ = bugbout.NoSuchAgent
