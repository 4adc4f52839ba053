"""The race's parts on their own: prompts, authored tests, the command adapter, the store."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from bb_core.agents import Session, agent_class
from bb_core.errors import ConfigError
from bb_core.sandbox import Completed, NoSandbox
from bb_race.adapters.command import CommandAgent
from bb_race.attempts import AttemptStore, file_name, needs_reproduction, needs_run
from bb_race.authored import authored_tests, collect_tests
from bb_race.egress import host_allowed
from bb_race.outcome import decide_status
from bb_race.prompt import build_prompt, pytest_command

TASK = {
    "id": "demo-0123456789",
    "title": "Fix camel_case keeping the first word's capital (#27)",
    "statement": 'camel_case("User Name") gives "UserName"; it should be "userName".',
    "source": "src/textkit",
    "tests": "tests",
}
COMMAND = "PYTHONPATH=src:. /envs/py/bin/python -m pytest -o addopts= tests"


def test_a_contestant_is_asked_to_fix_and_add_a_regression_test() -> None:
    prompt = build_prompt(TASK, role="contestant", assignment=None, command=COMMAND)
    assert TASK["statement"] in prompt
    assert "keeping the first word" not in prompt  # the fix's own title is never shown
    assert "Fix the problem" in prompt and "regression test under `tests/`" in prompt
    assert f"    {COMMAND}\n" in prompt
    assert "no network" in prompt


@pytest.mark.parametrize("assignment", ["reproduce", "specify"])
def test_an_examiner_is_asked_for_tests_only(assignment: str) -> None:
    prompt = build_prompt(TASK, role="examiner", assignment=assignment, command=COMMAND)
    assert "Do not fix anything" in prompt
    assert TASK["statement"] in prompt and COMMAND in prompt
    assert ("nearby behaviour" in prompt) == (assignment == "specify")


def test_the_test_command_puts_the_checkout_on_pythonpath() -> None:
    assert pytest_command("/env/bin/python", "src/textkit", "tests") == (
        "PYTHONPATH=src /env/bin/python -m pytest tests"
    )
    assert pytest_command(
        "/my env/python", "textkit", "tests", pytest_args=["-x"], env={"DB": "a b"},
        pythonpath=["src", "."],
    ) == "PYTHONPATH=src:. DB='a b' '/my env/python' -m pytest -x tests"  # fmt: skip


MODULE_BEFORE = """
def test_kept():
    assert 1

def test_changed():
    assert 1

def helper():
    pass
"""

MODULE_AFTER = """
import pytest

def test_kept():
    assert 1

def test_changed():
    assert 2

async def test_new_async():
    pass

class TestThing:
    def test_method(self):
        pass

    class TestInner:
        def test_deep(self):
            pass

class TestWithInit:
    def __init__(self):
        pass

    def test_not_collected(self):
        pass

class Helper:
    def test_not_a_test_class(self):
        pass
"""


def test_tests_are_named_as_pytest_names_them() -> None:
    found = collect_tests("tests/test_x.py", MODULE_AFTER)
    assert list(found) == [
        "tests/test_x.py::test_kept",
        "tests/test_x.py::test_changed",
        "tests/test_x.py::test_new_async",
        "tests/test_x.py::TestThing::test_method",
        "tests/test_x.py::TestThing::TestInner::test_deep",
    ]
    assert collect_tests("tests/test_bad.py", "def test_(:\n") == {}


def test_an_agents_tests_are_the_new_and_changed_ones(tmp_path: Path) -> None:
    for tree, text in (("base", MODULE_BEFORE), ("work", MODULE_AFTER)):
        (tmp_path / tree / "tests").mkdir(parents=True)
        (tmp_path / tree / "tests" / "test_x.py").write_text(text)
    (tmp_path / "work" / "tests" / "conftest.py").write_text("import pytest\n")
    (tmp_path / "work" / "tests" / "test_new.py").write_text("def test_one():\n    pass\n")
    files, tests = authored_tests(
        ["tests/conftest.py", "tests/test_new.py", "tests/test_x.py", "tests/test_gone.py"],
        tmp_path / "work",
        tmp_path / "base",
    )
    assert files == ["tests/test_new.py", "tests/test_x.py"]
    assert tests == [
        "tests/test_new.py::test_one",
        "tests/test_x.py::test_changed",
        "tests/test_x.py::test_new_async",
        "tests/test_x.py::TestThing::test_method",
        "tests/test_x.py::TestThing::TestInner::test_deep",
    ]


def command_session(tmp_path: Path) -> Session:
    return Session(
        task_id="t", prompt="PROMPT TEXT", prompt_file=tmp_path / "logs" / "prompt.md",
        workdir=tmp_path / "work", logdir=tmp_path / "logs", home=tmp_path / "home",
        sandbox=NoSandbox(), timeout=60, test_command="pytest",
    )  # fmt: skip


def test_command_placeholders_are_filled_in(tmp_path: Path) -> None:
    agent = CommandAgent(
        "gpt-5",
        name="aider",
        options={
            "command": ["aider", "--model", "{model}", "--message-file={prompt_file}", "{workdir}"],
            "state-dirs": ["~/.aider"],
            "env": {"AIDER_X": "1"},
        },
    )
    call = agent.invocation(command_session(tmp_path))
    assert call.argv == [
        "aider", "--model", "gpt-5", f"--message-file={tmp_path}/logs/prompt.md", f"{tmp_path}/work",
    ]  # fmt: skip
    assert call.stdin is None  # the prompt travels in the file
    assert call.state_dirs == [Path(os.path.expanduser("~/.aider"))]
    assert call.env == {"AIDER_X": "1"}
    assert (call.confine, call.network) == (True, False)  # no `network` key: no network


def test_without_a_prompt_placeholder_the_prompt_goes_to_stdin(tmp_path: Path) -> None:
    agent = CommandAgent(
        name="plain", options={"command": ["agent", "{logdir}"], "sandboxed": False}
    )
    call = agent.invocation(command_session(tmp_path))
    assert call.argv == ["agent", f"{tmp_path}/logs"]
    assert call.stdin == "PROMPT TEXT"
    assert call.confine is False
    with_prompt = CommandAgent(name="p", options={"command": ["agent", "-m", "{prompt}"]})
    assert with_prompt.invocation(command_session(tmp_path)).argv == ["agent", "-m", "PROMPT TEXT"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"options": {"command": ["x"]}}, "agent 'command' needs a name"),
        ({"name": "n", "options": {}}, "n: agent 'command' needs a command, as a list"),
        ({"name": "n", "options": {"command": "aider --yes"}}, "n: command must be a list of strings"),
        ({"name": "n", "options": {"command": ["x", "{promt}"]}}, "n: unknown placeholder {promt} in command"),
        ({"name": "n", "options": {"command": ["x", "{model}"]}}, "n: command uses {model} but no model is set"),
        ({"name": "n", "options": {"command": ["x"], "env": {"A": 1}}}, "n: env must be a table of strings"),
        ({"name": "n", "options": {"command": ["x"], "sandboxed": "no"}}, "n: sandboxed must be true or false"),
        ({"name": "n", "options": {"command": ["x"], "quota-pattern": "("}}, "n: quota-pattern is not a regular expression"),
        ({"name": "n", "options": {"command": ["x"], "comand": ["y"]}}, "n: unknown option 'comand'"),
    ],
)  # fmt: skip
def test_bad_command_settings_are_config_errors(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        agent_class("command")(**kwargs)
    assert str(caught.value).startswith(message)


def test_quota_pattern_reads_the_end_of_the_logs(tmp_path: Path) -> None:
    agent = CommandAgent(name="n", options={"command": ["x"], "quota-pattern": "(?i)rate limit"})
    (tmp_path / "stdout.log").write_text("working\n")
    assert not agent.quota_exhausted(tmp_path)
    (tmp_path / "stderr.log").write_text("Error: Rate limit reached\n")
    assert agent.quota_exhausted(tmp_path)


@pytest.mark.parametrize(
    ("exit_code", "timed_out", "changed", "quota", "status"),
    [
        (0, False, True, False, "finished"),
        (0, False, False, False, "no-change"),
        (0, False, False, True, "quota"),  # some CLIs exit 0 on a usage limit
        (1, False, False, True, "quota"),
        (1, False, True, True, "crashed"),  # it did work: not a quota run
        (2, False, True, False, "crashed"),
        (-15, True, True, False, "timed-out"),
        (-9, True, False, False, "timed-out"),
    ],
)
def test_status_follows_how_the_run_ended(
    exit_code: int, timed_out: bool, changed: bool, quota: bool, status: str
) -> None:
    completed = Completed(exit_code=exit_code, timed_out=timed_out, duration=1.0)
    assert decide_status(completed, changed, quota) == status


def test_attempt_files_are_named_safely(tmp_path: Path) -> None:
    assert file_name("codex/gpt-5") == "codex%2Fgpt-5.json"
    assert file_name("..") == "%2E..json"
    assert file_name("a b:c") == "a%20b%3Ac.json"
    store = AttemptStore(tmp_path)
    record = {
        "kind": "attempt", "v": 1, "task_id": "demo-1", "agent": "codex/gpt-5",
        "role": "contestant", "status": "quota", "duration": 1.0, "patch": "",
    }  # fmt: skip
    store.save(record)
    assert store.load("demo-1", "codex/gpt-5") == record
    assert store.load("demo-1", "other") is None
    (tmp_path / "demo-1" / "broken%2Fone.json").write_text('{"kind": "attempt"')
    assert store.load("demo-1", "broken/one") is None  # a torn file means: run it again
    assert needs_run(None, retry_failed=False)
    assert not needs_run(record, retry_failed=False)
    assert needs_run(record, retry_failed=True)
    assert not needs_run({**record, "status": "timed-out"}, retry_failed=True)
    examiner = {**record, "role": "examiner", "tests": ["tests/test_a.py::test_b"]}
    assert needs_reproduction(examiner)
    assert not needs_reproduction({**examiner, "reproducing": {}})


@pytest.mark.parametrize(
    ("host", "port", "allowed"),
    [
        ("api.openai.com", 443, True),
        ("API.OpenAI.com.", 443, True),
        ("chatgpt.com", 443, False),
        ("generativelanguage.googleapis.com", 443, True),
        ("googleapis.com", 443, False),  # *.domain means a subdomain
        ("localhost", 11434, True),
        ("localhost", 8080, False),
        ("github.com", 443, False),
    ],
)
def test_egress_allows_only_the_listed_hosts(host: str, port: int, allowed: bool) -> None:
    patterns = ["api.openai.com", "*.googleapis.com", "localhost:11434"]
    assert host_allowed(host, port, patterns) is allowed


def test_a_network_list_must_hold_hosts() -> None:
    with pytest.raises(ConfigError, match="network must be true, false or a list of hosts"):
        CommandAgent(name="n", options={"command": ["x"], "network": "api.openai.com"})
    agent = CommandAgent(name="n", options={"command": ["x"], "network": ["api.openai.com"]})
    assert agent.invocation(command_session(Path("/tmp"))).network == ["api.openai.com"]
