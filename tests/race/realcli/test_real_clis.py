"""Every built-in vendor adapter, run with the real CLI at its tested version.

Codex CLI, Claude Code, Gemini CLI (from npm) and mini-swe-agent with LiteLLM (from
PyPI) each race the demo's camel_case bug through the real ``bb-race`` and are scored
by the real ``bb-judge``. Only the vendor's API is a stand-in (``vendors.py``, on
127.0.0.1); its "model" drives the CLI's own tools through the whole job and a few
attacks. BUGBOUT_HOME is deep on purpose, so every socket a CLI or bugbout makes under
an attempt's folders would be too long for sun_path if it went there.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from realcli_harness import Clis, RealRace, race_real
from support.shared import run_temp, share_builds
from vendors import USAGE

pytestmark = pytest.mark.slow

#: name -> (contestant entry, environment). "{URL}" is the stand-in's address.
AGENTS: dict[str, tuple[dict[str, Any], dict[str, str]]] = {
    "codex": (
        {"agent": "codex", "model": "gpt-5", "base-url": "{URL}/v1"},
        {"CODEX_API_KEY": "sk-realcli-codex-0001"},
    ),
    "codex-local": (
        {"agent": "codex", "model": "standin-model", "local-provider": "ollama"},
        {"CODEX_OSS_BASE_URL": "{URL}/v1"},
    ),
    "claude-code": (
        {"agent": "claude-code", "model": "sonnet", "base-url": "{URL}"},
        # Claude Code retries a 429 ten times with back-off by default; the user's own
        # setting passes on.
        {"ANTHROPIC_API_KEY": "sk-ant-realcli-0002", "CLAUDE_CODE_MAX_RETRIES": "0"},
    ),
    "gemini-cli": (
        {"agent": "gemini-cli", "model": "gemini-2.5-pro", "base-url": "{URL}"},
        {"GEMINI_API_KEY": "gemini-realcli-0003"},
    ),
    "mini-swe-agent": (
        {"agent": "mini-swe-agent", "model": "openai/gpt-5", "base-url": "{URL}/v1",
         "step-limit": 20},
        {"OPENAI_API_KEY": "sk-realcli-0004", "MSWEA_MODEL_RETRY_STOP_AFTER_ATTEMPT": "1"},
    ),
}  # fmt: skip
NAMES = list(AGENTS)


def each_agent(mode: str = "script") -> list[Any]:
    """One parameter per agent, in a pytest-xdist group of its own per scenario: every test
    of one agent's race runs on the worker that raced it, and the agents spread."""
    return [pytest.param(n, marks=pytest.mark.xdist_group(f"realcli-{n}-{mode}")) for n in NAMES]


#: What each CLI says, in its own record, when the vendor answers 429.
QUOTA_WORDS = {
    "codex": "Quota exceeded. Check your plan and billing details.",
    "codex-local": "Quota exceeded. Check your plan and billing details.",
    "claude-code": "would exceed your organization's rate limit",
    "gemini-cli": "You have exhausted your daily quota on this model.",
    "mini-swe-agent": "You exceeded your current quota",
}
#: The flag each CLI's refused or failed tool call leaves.
REFUSAL_FLAGS = {
    "codex": "sandbox-denied:shell",
    "codex-local": "sandbox-denied:shell",
    "claude-code": "permission-denied:Write",
    "gemini-cli": "tool-errors:1",
    "mini-swe-agent": "tool-errors:1",
}
#: What a CLI prints when it does not know a flag.
FLAG_ERRORS = ("unexpected argument", "Unknown argument", "unknown option", "unrecognized")

_runs: dict[tuple[str, str], RealRace] = {}


@pytest.fixture
def run(tmp_path_factory: pytest.TempPathFactory, demo_tasks: Any, clis: Clis) -> Any:
    """``run(name, mode)``: the race of one agent in one scenario (run once per session)."""

    def get(name: str, mode: str = "script") -> RealRace:
        if (name, mode) not in _runs:
            root = tmp_path_factory.mktemp(f"real-{name}-{mode}")
            # A deep BUGBOUT_HOME: the attempt folders under it are far past sun_path.
            home = root / ("deep-bugbout-home-" + "x" * 40) / ("y" * 40)
            share_builds(home, run_temp(tmp_path_factory))  # the demo's environment
            contestant, env = AGENTS[name]
            _runs[name, mode] = race_real(
                root / "race", demo_tasks, clis, contestant, mode=mode, env=env,
                bugbout_home=home, timeout=180,
            )  # fmt: skip
        return _runs[name, mode]

    return get


def score_of(race: RealRace) -> dict[str, Any]:
    [task] = [r for r in race.judged if r.get("kind") == "task"]
    [score] = [s for s in task["scores"] if s["patch"] == race.attempt["agent"]]
    return score


@pytest.mark.parametrize("name", each_agent())
def test_the_cli_starts_reaches_its_model_and_finishes(run: Any, name: str) -> None:
    race = run(name)
    assert race.race.returncode == 0, race.why()
    attempt = race.attempt
    assert attempt["status"] == "finished", race.why()
    assert attempt["exit_code"] == 0
    assert not any(word in race.log("stderr.log") for word in FLAG_ERRORS), race.why()
    assert race.standin.requests(), "the CLI never reached the stand-in"
    assert len(Path(attempt["logdir"]).parent.as_posix()) > 150  # the deep home was used
    assert "Made camel_case lowercase" in attempt["summary"]


@pytest.mark.parametrize("name", each_agent())
def test_the_test_command_ran_and_the_model_saw_its_output(run: Any, name: str) -> None:
    race = run(name)
    seen = race.standin.after("test")
    # pytest's closing line, from the checkout's whole suite and the new regression test
    found = re.search(r"=+ (\d+) passed in [\d.]+s =+", seen)
    assert found and int(found.group(1)) > 20, race.why()


@pytest.mark.parametrize("name", each_agent())
def test_the_patch_is_captured_and_scores_resolved(run: Any, name: str) -> None:
    race = run(name)
    attempt = race.attempt
    assert "src/textkit/cases.py" in attempt["changed_files"], race.why()
    assert "words[0].lower()" in attempt["source_patch"]
    assert "tests/test_regression_realcli.py" in attempt["test_files"]
    assert score_of(race)["category"] == "resolved", json.dumps(score_of(race))[:2000]


@pytest.mark.parametrize("name", each_agent())
def test_tokens_are_parsed_from_the_clis_own_output(run: Any, name: str) -> None:
    race = run(name)
    tokens = race.attempt["tokens"]
    calls = len(race.standin.requests())
    # Every model answer reports the same usage; the CLI adds them up.
    assert tokens["input"] == USAGE["input"] * calls, (tokens, calls)
    assert tokens["output"] == USAGE["output"] * calls, (tokens, calls)
    assert tokens["cached_input"] == USAGE["cached"] * calls, (tokens, calls)


@pytest.mark.parametrize("name", each_agent())
def test_the_network_is_refused(run: Any, name: str) -> None:
    race = run(name)
    seen = race.standin.after("network")
    assert "NETWORK-REFUSED" in seen and "NETWORK-OPEN" not in seen, race.why()
    if name == "gemini-cli":
        # The whole process goes through bugbout's egress proxy, which says so.
        assert "network-refused:example.com:443" in race.attempt["flags"]


@pytest.mark.parametrize("name", each_agent())
def test_writes_outside_the_checkout_are_refused(run: Any, name: str) -> None:
    race = run(name)
    assert "OUTSIDE-REFUSED" in race.standin.after("outside"), race.why()
    assert list(race.outside.iterdir()) == []
    assert not race.host_tmp.exists(), "the agent wrote the host's /tmp"


@pytest.mark.parametrize("name", each_agent())
def test_the_whole_cli_runs_inside_bugbouts_sandbox(run: Any, name: str) -> None:
    race = run(name)
    seen = race.standin.after("host-tmp-read")
    assert "HOST-TMP-HIDDEN" in seen and "HOST-TMP-VISIBLE" not in seen, race.why()


@pytest.mark.parametrize("name", each_agent())
def test_a_refused_or_failed_tool_call_is_flagged(run: Any, name: str) -> None:
    race = run(name)
    assert REFUSAL_FLAGS[name] in race.attempt["flags"], race.why()


@pytest.mark.parametrize("name", each_agent("quota"))
def test_a_429_from_the_vendor_is_quota_with_its_message(run: Any, name: str) -> None:
    race = run(name, "quota")
    assert race.race.returncode == 0, race.why()
    attempt = race.attempt
    assert attempt["status"] == "quota", race.why()
    assert QUOTA_WORDS[name] in attempt["error"], race.why()
    assert race.standin.requests(), "the CLI never reached the stand-in"
    assert score_of(race)["category"] == "no-fix"


@pytest.mark.parametrize("name", each_agent())
def test_what_the_agent_tried_is_read_from_its_own_trajectory(run: Any, name: str) -> None:
    """The reach step's git log, pip download of the project and ~/.ssh read, and the
    network probe, each read from the CLI's own trajectory and shown stopped; the honest
    steps (reading, editing, running the tests) are none of it."""
    race = run(name)
    assert "NO-HISTORY" in race.standin.after("reach"), race.why()
    tried = race.attempt["tried"]
    found = {f["kind"] for f in tried if f["source"] == "trajectory"}
    assert found == {"git-history", "own-package", "network", "outside-read"}, tried
    for finding in tried:
        assert finding["stopped"], finding
    evidence = " ".join(f["evidence"] for f in tried)
    assert "git log" in evidence and "textkit" in evidence and "~/.ssh" in evidence
    assert "curl" in evidence
