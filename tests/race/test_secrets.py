"""An agent's environment carries its own credentials and none of the user's other secrets."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, ClassVar

import pytest
from bb_core.agents import CodingAgent, Invocation, Session

SECRETS = {
    "GITHUB_TOKEN": "ghp_secret_github_token_0001",
    "AWS_SECRET_ACCESS_KEY": "aws-secret-access-key-0002",
    "AWS_ACCESS_KEY_ID": "AKIAEXAMPLEKEY0003",
    "OPENAI_API_KEY": "sk-openai-key-of-another-vendor-0004",
    "ANTHROPIC_API_KEY": "sk-ant-the-agents-own-key-0005",
    "DATABASE_PASSWORD": "hunter2hunter2-0006",
}

# Dumps its environment beside its logs, echoes its own key, and leaves it in a file.
DUMP = """
import json, os, pathlib, sys
sys.stdin.read()
logdir = pathlib.Path(sys.argv[1])
(logdir / "env.json").write_text(json.dumps(dict(os.environ)))
key = os.environ.get("ANTHROPIC_API_KEY", "")
pathlib.Path("src/textkit/config.py").write_text(f"KEY = {key!r}\\n")
print(f"done; I used the key {key}")
"""


class Dumper(CodingAgent):
    harness: ClassVar[str] = "dumper"
    executable: ClassVar[str] = sys.executable
    credential_env: ClassVar[tuple[str, ...]] = ("ANTHROPIC_API_KEY",)

    def invocation(self, session: Session) -> Invocation:
        return Invocation(
            [sys.executable, "-c", DUMP, str(session.logdir)],
            stdin=session.prompt,
            env={"DUMPER_MODE": "strict"},
        )


@pytest.fixture
def secret_env(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    return SECRETS


def test_only_the_agents_own_credentials_reach_it(
    race_project: Any, demo_tasks: Any, race_lib: Any, secret_env: dict[str, str]
) -> None:
    project = race_project({})
    tasks = project.write_tasks(demo_tasks.pick("User Name"))
    raced = race_lib(project, tasks, agents=[Dumper("claude-sonnet-4-5")])
    [attempt] = raced.attempts().values()
    env = json.loads((Path(attempt["logdir"]) / "env.json").read_text())
    leaked = {name for name, value in secret_env.items() if value in json.dumps(env)}
    assert leaked == {"ANTHROPIC_API_KEY"}
    assert env["ANTHROPIC_API_KEY"] == secret_env["ANTHROPIC_API_KEY"]
    assert env["DUMPER_MODE"] == "strict"
    assert env["HOME"] == str(Path(attempt["logdir"]).parent / "home")
    assert {"PATH", "HOME", "TMPDIR", "LANG"} <= set(env)
    # The attempt record knows the agent, and keeps no secret in its text.
    assert (attempt["agent"], attempt["harness"], attempt["vendor"]) == (
        "dumper/claude-sonnet-4-5", "dumper", "anthropic",
    )  # fmt: skip
    assert attempt["summary"] == "done; I used the key [redacted]"
    assert "secret-in-patch" in attempt["flags"]


def test_a_command_agent_gets_no_credentials_at_all(
    race_project: Any, demo_tasks: Any, race_lib: Any, secret_env: dict[str, str]
) -> None:
    body = """
with open(pathlib.Path(os.environ["NOTES"]).parent / "env.json", "w") as handle:
    json.dump(dict(os.environ), handle)
"""
    project = race_project({"plain": body}, options={"plain": {"env": {"EXTRA": "given"}}})
    tasks = project.write_tasks(demo_tasks.pick("User Name"))
    race_lib(project, tasks)
    env = json.loads((project.shared / "env.json").read_text())
    assert not any(value in json.dumps(env) for value in secret_env.values())
    assert env["EXTRA"] == "given"
    assert not any(name.startswith(("AWS_", "GITHUB_")) for name in env)


#: What a credential file holds: a private key, and a token in a well-known format.
KEY_FILE = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
    "QyNTUxOQAAACDxEXAMPLEkeyMATERIALnotrealatallxxxxxxxxxxxxxxxxxxxxxxxxxx\n"
    "-----END OPENSSH PRIVATE KEY-----\n"
)
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def test_a_credential_files_content_in_a_patch_is_flagged_and_redacted(
    race_project: Any, demo_tasks: Any, race_lib: Any, tmp_path: Path
) -> None:
    """An agent that copies a key file it could read into a source comment: the patch is
    flagged ``secret-in-patch`` and no stored record holds the key or the token."""
    credentials = tmp_path / "id_ed25519"
    credentials.write_text(KEY_FILE + f"token = {TOKEN}\n")
    body = f"""
text = {credentials.read_text()!r}
path = pathlib.Path("src/textkit/config.py")
path.write_text("".join("# " + line + "\\n" for line in text.splitlines()) + "VALUE = 1\\n")
"""
    project = race_project({"copier": body})
    tasks = project.write_tasks(demo_tasks.pick("User Name"))
    raced = race_lib(project, tasks)
    [attempt] = raced.attempts().values()
    assert "secret-in-patch" in attempt["flags"]
    stored = json.dumps(attempt)
    for secret in (TOKEN, "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ", "QyNTUxOQAAACDxEXAMPLE"):
        assert secret not in stored
    assert "+# [redacted]" in attempt["patch"] and "+VALUE = 1" in attempt["patch"]
    assert attempt["source_patch"] == attempt["patch"]
    kept = [p for p in (project.root / ".bugbout").rglob("*") if p.is_file()]
    assert kept and not any(TOKEN in p.read_text(errors="replace") for p in kept)
