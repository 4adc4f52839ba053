"""Racing the vendor adapters against stand-in CLIs through the real ``bb-race``.

:func:`run_vendor_race` builds a project on the demo repository whose four
contestants are the built-in ``codex``, ``claude-code``, ``gemini-cli`` and
``mini-swe-agent`` adapters, puts the stand-ins of ``standins/`` first on PATH, gives
bb-race a made-up user home full of personal configuration and an environment full of
secrets, and races them all on the demo's camel_case task. A local TCP listener stands
for the models' APIs.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from support.tomlw import toml_value

STANDINS = Path(__file__).resolve().parent / "standins"
BIN = Path(sys.executable).parent
CLIS = {"codex": "codex", "claude-code": "claude", "gemini-cli": "gemini", "mini-swe-agent": "mini"}

#: The agents' own credentials, and secrets no agent may see.
CREDENTIALS = {
    "CODEX_API_KEY": "sk-codex-credential-0001",
    "ANTHROPIC_API_KEY": "sk-ant-credential-0002",
    "GEMINI_API_KEY": "gemini-credential-0003",
    "OPENAI_API_KEY": "sk-openai-credential-0004",
}
SECRETS = {
    "GITHUB_TOKEN": "ghp_not_for_agents_0005",
    "AWS_SECRET_ACCESS_KEY": "aws-not-for-agents-0006",
    "AWS_ACCESS_KEY_ID": "AKIANOTFORAGENTS0007",
    "DATABASE_PASSWORD": "db-not-for-agents-0008",
}
SUMMARY = "Made camel_case lowercase the first word and added a regression test."
REGRESSION_TEST = """\
from textkit.cases import camel_case


def test_camel_case_first_word_is_lowercase():
    assert camel_case("User Name") == "userName"
"""
CONTESTANTS: list[dict[str, Any]] = [
    {"agent": "codex", "model": "gpt-5", "reasoning-effort": "high"},
    {"agent": "claude-code", "model": "sonnet", "effort": "high"},
    {"agent": "gemini-cli", "model": "gemini-2.5-pro"},
    {"agent": "mini-swe-agent", "model": "openai/gpt-5", "step-limit": 20,
     "model-kwargs": {"temperature": "0"}},
]  # fmt: skip


class ModelServer:
    """A loopback TCP listener standing for a model API; counts connections."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.address = f"127.0.0.1:{self.sock.getsockname()[1]}"
        self.connections = 0
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self.sock.close()


def install_standins(dest: Path, scenario: dict[str, Any]) -> Path:
    """The stand-ins in *dest*, run by this interpreter, following *scenario*."""
    dest.mkdir(parents=True, exist_ok=True)
    for path in STANDINS.iterdir():
        if path.name == "__pycache__":
            continue
        target = dest / path.name
        text = path.read_text()
        if text.startswith("#!"):
            text = f"#!{sys.executable}\n" + text.split("\n", 1)[1]
        target.write_text(text)
        target.chmod(0o755)
    # Claude Code's Linux sandbox looks for these before it starts; the stand-in does not
    # use them, so they only need to be there.
    for tool in ("socat", "rg", "bwrap"):
        if shutil.which(tool) is None:
            (dest / tool).write_text("#!/bin/sh\nexit 0\n")
            (dest / tool).chmod(0o755)
    (dest / "scenario.json").write_text(json.dumps(scenario))
    return dest


def personal_home(root: Path) -> Path:
    """A user's home with logins and personal configuration no attempt may read."""
    home = root / "user-home"
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "auth.json").write_text('{"OPENAI_API_KEY": null, "tokens": {}}')
    (home / ".codex" / "config.toml").write_text(
        '[mcp_servers.personal]\ncommand = "personal-mcp"\n'
    )
    (home / ".codex" / "AGENTS.md").write_text("Always answer in French.\n")
    (home / ".claude").mkdir()
    (home / ".claude" / "CLAUDE.md").write_text("Always answer in French.\n")
    (home / ".gemini").mkdir()
    (home / ".gemini" / "settings.json").write_text(
        '{"mcpServers": {"personal": {"command": "x"}}}'
    )
    (home / ".gemini" / "GEMINI.md").write_text("Always answer in French.\n")
    (home / ".config" / "mini-swe-agent").mkdir(parents=True)
    (home / ".config" / "mini-swe-agent" / ".env").write_text("MSWEA_MODEL_NAME=personal/model\n")
    return home


@dataclass
class VendorRace:
    root: Path
    bin: Path
    user_home: Path
    task: dict[str, Any]
    fix_files: dict[str, str]
    server: ModelServer
    returncode: int
    stdout: bytes
    stderr: str

    def attempts(self) -> dict[str, dict[str, Any]]:
        """harness -> attempt."""
        [line] = [json.loads(x) for x in self.stdout.splitlines() if b'"kind":"task"' in x]
        return {a["harness"]: a for a in line["attempts"]}

    def call(self, harness: str) -> dict[str, Any]:
        """What the stand-in recorded about how it was called."""
        logs = Path(self.attempts()[harness]["logdir"])
        return json.loads((logs / "standin-call.json").read_text())


def run_vendor_race(root: Path, demo_tasks: Any, mode: str) -> VendorRace:
    import expected
    from bb_core.git import open_repo

    [task] = demo_tasks.pick("User Name")
    with open_repo(demo_tasks.repo) as repo:
        fixed = repo.read_blob(task["fix_commit"], "src/textkit/cases.py")
    assert fixed is not None
    files = {
        "src/textkit/cases.py": fixed.decode(),
        "tests/test_regression_standin.py": REGRESSION_TEST,
    }
    server = ModelServer()
    scenario = {"mode": mode, "files": files, "model": server.address, "summary": SUMMARY}
    root.mkdir(parents=True, exist_ok=True)
    bin_dir = install_standins(root / "bin", scenario)
    home = personal_home(root)
    blocks = [
        "[project]\n"
        f'source = "{expected.SOURCE}"\ntests = "{expected.TESTS}"\n'
        f"repository = {toml_value(str(demo_tasks.repo))}\n"
        f"interpreter = {toml_value(sys.executable)}\n",
        "[run]\ntimeout = 60\n",
    ]
    for entry in CONTESTANTS:
        blocks.append(
            "[[contestants]]\n" + "".join(f"{k} = {toml_value(v)}\n" for k, v in entry.items())
        )
    (root / "bugbout.toml").write_text("\n".join(blocks))
    (root / "tasks.jsonl").write_text(json.dumps(task) + "\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("BUGBOUT_RUN")}
    for name in ("CODEX_HOME", "GEMINI_CLI_HOME", "MSWEA_GLOBAL_CONFIG_DIR", "CLAUDE_CONFIG_DIR"):
        env.pop(name, None)
    env.update(CREDENTIALS)
    env.update(SECRETS)
    # The models' APIs are the local listener (as for a gateway or a self-hosted model).
    env["GOOGLE_GEMINI_BASE_URL"] = f"http://{server.address}"
    env["OPENAI_BASE_URL"] = f"http://{server.address}/v1"
    env["HOME"] = str(home)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', os.defpath)}"
    done = subprocess.run(
        [str(BIN / "bb-race"), "tasks.jsonl", "--config", "bugbout.toml"],
        cwd=root, env=env, capture_output=True, timeout=180, check=False,
    )  # fmt: skip
    return VendorRace(root, bin_dir, home, task, files, server, done.returncode, done.stdout,
                      done.stderr.decode())  # fmt: skip
