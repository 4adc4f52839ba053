"""``bugbout doctor`` against the real, pinned agent CLIs: each one's exact command line
is run dry (no model call), and a release that rejects a flag or is newer than the
tested one shows before any quota is spent."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from bb_core.agents.registry import agent_class
from realcli_harness import Clis

pytestmark = pytest.mark.slow
BIN = Path(sys.executable).parent
CONFIG = """\
[project]
source = "src/textkit"
tests = "tests"
repository = "{repo}"
interpreter = "{python}"

[[contestants]]
agent = "codex"
model = "gpt-5"

[[contestants]]
agent = "claude-code"
model = "sonnet"

[[contestants]]
agent = "gemini-cli"
model = "gemini-2.5-pro"

[[contestants]]
agent = "mini-swe-agent"
model = "openai/gpt-5"
"""
KEYS = {
    "CODEX_API_KEY": "sk-doctor-0001",
    "ANTHROPIC_API_KEY": "sk-ant-doctor-0002",
    "GEMINI_API_KEY": "gemini-doctor-0003",
    "OPENAI_API_KEY": "sk-doctor-0004",
}


def doctor(root: Path, demo_tasks: Any, clis: Clis, first: Path | None = None) -> dict[str, str]:
    """The doctor's agent lines (agent type -> line), with the pinned CLIs on PATH."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "bugbout.toml").write_text(CONFIG.format(repo=demo_tasks.repo, python=sys.executable))
    env = {k: v for k, v in os.environ.items() if not k.startswith("BUGBOUT_RUN")}
    env.update(KEYS)
    env["HOME"] = str(root / "home")
    (root / "home").mkdir(exist_ok=True)
    path = clis.path("codex", f"{clis.bin_dir('mini-swe-agent')}{os.pathsep}{env['PATH']}")
    env["PATH"] = f"{first}{os.pathsep}{path}" if first else path
    done = subprocess.run(
        [str(BIN / "bugbout"), "doctor", "--config", str(root / "bugbout.toml")],
        cwd=root, capture_output=True, text=True, timeout=600, env=env, check=False,
    )  # fmt: skip
    lines = {}
    for line in done.stdout.splitlines():
        for harness in ("codex", "claude-code", "gemini-cli", "mini-swe-agent"):
            if line.split(":")[0].endswith(f"agent {harness}") or f"agent {harness}/" in line:
                lines.setdefault(harness, line)
    assert len(lines) == 4, done.stdout + done.stderr
    return lines


def test_each_pinned_cli_accepts_its_adapters_exact_command_line(
    tmp_path: Path, demo_tasks: Any, clis: Clis
) -> None:
    lines = doctor(tmp_path, demo_tasks, clis)
    for harness, line in lines.items():
        assert "its dry run accepts bugbout's command line" in line, line
        installed, tested = clis.version(harness), agent_class(harness).tested_version
        assert installed in line, line
        if installed == tested:
            assert line.startswith("ok "), line
        else:  # `just realcli-latest`: a release newer than the adapter was tested with
            assert line.startswith("warning "), line
            assert f"is newer than {tested}, the version bugbout's {harness} adapter" in line
    assert f"codex-cli {clis.version('codex')}" in lines["codex"]
    assert f"{clis.version('claude-code')} (Claude Code)" in lines["claude-code"]


def test_a_rejected_flag_and_a_newer_release_show_before_any_quota_is_spent(
    tmp_path: Path, demo_tasks: Any, clis: Clis
) -> None:
    wrappers = tmp_path / "wrappers"
    wrappers.mkdir()
    # The install's real folder: the sandbox shows it, not the links leading to it.
    real = clis.bin_dir("claude-code").resolve()
    scripts = {
        # A Claude Code release that no longer knows one of the flags bugbout passes.
        "claude": (
            "#!/bin/sh\n"
            f'case "$1" in --version|auth) exec "{real}/claude" "$@";; esac\n'
            f'exec "{real}/claude" --flag-removed-in-this-release "$@"\n'
        ),
        # A Gemini CLI newer than the one bugbout was tested with.
        "gemini": (
            "#!/bin/sh\n"
            'if [ "$1" = "--version" ]; then echo 99.0.0; exit 0; fi\n'
            f'exec "{real}/gemini" "$@"\n'
        ),
    }
    # Each script sits beside the real programs, in the install the sandbox shows for
    # them (a script elsewhere could not reach them inside it), under a name of this
    # test's own; PATH finds it first by the program's name.
    placed = []
    for name, text in scripts.items():
        script = real / f"{name}-{tmp_path.name}"
        script.write_text(text)
        script.chmod(0o755)
        placed.append(script)
        (wrappers / name).symlink_to(script)
    try:
        lines = doctor(tmp_path / "project", demo_tasks, clis, first=wrappers)
    finally:
        for script in placed:
            script.unlink()
    claude = lines["claude-code"]
    assert claude.startswith("problem "), claude
    assert (
        "it rejects bugbout's command line: unknown option '--flag-removed-in-this-release'"
        in claude
    )
    tested = agent_class("claude-code").tested_version
    assert (
        f"install the tested version (`npm install -g @anthropic-ai/claude-code@{tested}`)"
        in claude
    )
    gemini = lines["gemini-cli"]
    assert gemini.startswith("warning "), gemini
    assert (
        f"99.0.0 is newer than {agent_class('gemini-cli').tested_version}, the version "
        "bugbout's gemini-cli adapter was tested with"
    ) in gemini
    assert "its dry run accepts bugbout's command line" in gemini
