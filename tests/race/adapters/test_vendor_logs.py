"""Summaries, token usage and usage limits read from the CLIs' own logs.

The files in ``captures/`` were written by the real CLIs (codex 0.171.0, claude 2.1.197,
gemini 0.61.0, mini-swe-agent 2.4.6) run by these adapters against a local server
standing in for the model's API; the other logs here are variants of them.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from bb_core.agents import CodingAgent
from bb_race.adapters.claude_code import ClaudeCodeAgent
from bb_race.adapters.codex import CodexAgent
from bb_race.adapters.gemini_cli import GeminiCliAgent
from bb_race.adapters.mini_swe_agent import MiniSweAgent

CAPTURES = Path(__file__).resolve().parent / "captures"
FIXED = "Fixed the off-by-one and added a regression test."


def agent(harness: str) -> CodingAgent:
    return {
        "codex": lambda: CodexAgent("gpt-5"),
        "claude-code": lambda: ClaudeCodeAgent("sonnet"),
        "gemini-cli": lambda: GeminiCliAgent("gemini-2.5-pro"),
        "mini-swe-agent": lambda: MiniSweAgent("openai/gpt-5"),
    }[harness]()


def logdir(tmp_path: Path, **files: str) -> Path:
    """A log folder holding the given files (``stdout``, ``stderr``, ``trajectory``);
    a value naming a capture is copied from ``captures/``."""
    names = {"stdout": "stdout.log", "stderr": "stderr.log", "trajectory": "trajectory.json"}
    for key, value in files.items():
        target = tmp_path / names[key]
        if "\n" not in value and len(value) < 100 and (CAPTURES / value).is_file():
            shutil.copyfile(CAPTURES / value, target)
        else:
            target.write_text(value)
    return tmp_path


def lines(*events: dict[str, Any]) -> str:
    return "".join(json.dumps(e) + "\n" for e in events)


CAPTURED = [
    ("codex", {"stdout": "codex-0.171.0-fixed.jsonl"}, FIXED,
     {"input": 2400, "cached_input": 1600, "cache_write": 0, "output": 180, "reasoning": 60,
      "total": 2580}),
    ("claude-code", {"stdout": "claude-2.1.197-fixed.jsonl"}, FIXED,
     {"input": 72 + 6000 + 30000, "cached_input": 30000, "cache_write": 6000, "output": 462,
      "total": 72 + 6000 + 30000 + 462}),
    ("gemini-cli", {"stdout": "gemini-0.61.0-fixed.stdout.json"}, FIXED,
     {"input": 36000, "cached_input": 24000, "output": 480 + 1200, "reasoning": 1200,
      "total": 37680}),
    ("mini-swe-agent", {"trajectory": "mini-2.4.6-submitted.traj.json"}, "Done.",
     {"input": 4006, "cached_input": 2400, "output": 200, "reasoning": 80, "total": 4206}),
]  # fmt: skip


@pytest.mark.parametrize(("harness", "files", "summary", "tokens"), CAPTURED, ids=lambda x: x)
def test_parse_reads_the_real_clis_logs(
    tmp_path: Path, harness: str, files: dict[str, str], summary: str, tokens: dict[str, int]
) -> None:
    logs = logdir(tmp_path, **files)
    assert agent(harness).parse(logs) == (summary, tokens)
    assert agent(harness).quota_exhausted(logs) is False


USAGE_LIMITS = [
    ("codex", {"stdout": "codex-0.171.0-usage-limit.jsonl"}),
    ("codex", {"stdout": "codex-0.171.0-api-quota.jsonl"}),
    ("codex", {"stdout": lines({"type": "turn.failed", "error": {"message":
        "You've hit your usage limit. Upgrade to Plus to continue using Codex. Try again later."}})}),
    ("codex", {"stdout": lines({"type": "error", "message":
        "exceeded retry limit, last status: 429 Too Many Requests, request id: abc"})}),
    ("claude-code", {"stdout": "claude-2.1.197-rate-limit.jsonl"}),
    ("claude-code", {"stdout": lines(
        {"type": "rate_limit_event", "rate_limit_info": {"status": "rejected", "resetsAt": 1767225600,
                                                         "rateLimitType": "five_hour"}},
        {"type": "result", "subtype": "success", "is_error": True,
         "result": "You've hit your limit \u00b7 resets 7pm (America/Los_Angeles)"})}),
    ("claude-code", {"stdout": lines({"type": "result", "subtype": "success", "is_error": True,
                                      "result": "You\u2019re out of extra usage \u00b7 resets 3am"})}),
    ("claude-code", {"stdout": json.dumps({"type": "result", "is_error": True,
                                           "result": "You've hit your session limit"}, indent=2)}),
    ("claude-code", {"stdout": "Claude AI usage limit reached|1767225600\n"}),
    ("gemini-cli", {"stderr": "gemini-0.61.0-daily-quota.stderr.log"}),
    ("gemini-cli", {"stderr": json.dumps({"session_id": "s", "error": {
        "type": "TerminalQuotaError", "message": "You have exhausted your capacity on this model."}},
        indent=2)}),
    ("gemini-cli", {"stdout": lines(
        {"type": "init", "timestamp": "t", "session_id": "s", "model": "gemini-2.5-pro"},
        {"type": "result", "timestamp": "t", "status": "error", "error": {
            "type": "Error", "message": "Quota exceeded for quota metric 'Generate Content API requests per minute'"}})}),
    ("mini-swe-agent", {"trajectory": "mini-2.4.6-rate-limit.traj.json"}),
    ("mini-swe-agent", {"stderr": "Traceback (most recent call last):\n  ...\n"
                        "litellm.exceptions.RateLimitError: litellm.RateLimitError: quota\n"}),
]  # fmt: skip


@pytest.mark.parametrize(("harness", "files"), USAGE_LIMITS, ids=lambda x: str(x)[:40])
def test_usage_limits_in_each_clis_words_are_recognised(
    tmp_path: Path, harness: str, files: dict[str, str]
) -> None:
    assert agent(harness).quota_exhausted(logdir(tmp_path, **files)) is True


NOT_LIMITS = [
    # Codex retrying a lost connection is not a usage limit; nor is the agent's own prose.
    ("codex", {"stdout": lines(
        {"type": "error", "message": "Reconnecting... 2/5 (stream disconnected before completion)"},
        {"type": "item.completed", "item": {"id": "i", "type": "agent_message",
                                            "text": "I fixed the 'You've hit your usage limit' message."}},
        {"type": "turn.completed", "usage": {"input_tokens": 10, "output_tokens": 2}})}),
    ("claude-code", {"stdout": lines({"type": "result", "subtype": "success", "is_error": False,
                                      "result": "Handled 'usage limit reached' errors in the client."})}),
    ("claude-code", {"stdout": lines({"type": "result", "subtype": "error_max_turns", "is_error": True,
                                      "result": ""})}),
    ("gemini-cli", {"stdout": json.dumps({"session_id": "s", "response":
        "Made the client retry when Resource has been exhausted.", "stats": {}}, indent=2)}),
    ("gemini-cli", {"stderr": json.dumps({"error": {"type": "FatalAuthenticationError",
                                                    "message": "Invalid auth method selected.", "code": 41}})}),
    ("mini-swe-agent", {"trajectory": json.dumps({"info": {"exit_status": "LimitsExceeded"}, "messages": [
        {"role": "exit", "content": "LimitsExceeded", "extra": {"exit_status": "LimitsExceeded"}}]})}),
    ("mini-swe-agent", {"stdout": "THOUGHT: handle RateLimitError in the client\n"}),
]  # fmt: skip


@pytest.mark.parametrize(("harness", "files"), NOT_LIMITS, ids=lambda x: str(x)[:40])
def test_other_failures_and_mere_mentions_are_not_usage_limits(
    tmp_path: Path, harness: str, files: dict[str, str]
) -> None:
    assert agent(harness).quota_exhausted(logdir(tmp_path, **files)) is False


def test_codex_summary_falls_back_on_the_last_message_file(tmp_path: Path) -> None:
    (tmp_path / "stdout.log").write_text(lines({"type": "turn.started"}))
    (tmp_path / "last-message.txt").write_text("Done, from -o.")
    assert CodexAgent().parse(tmp_path) == ("Done, from -o.", {})


def test_claude_run_cut_short_gives_its_last_words_and_the_usage_so_far(tmp_path: Path) -> None:
    usage = {"input_tokens": 5, "cache_read_input_tokens": 100, "cache_creation_input_tokens": 10,
             "output_tokens": 7}  # fmt: skip
    text = lines(
        {"type": "system", "subtype": "init"},
        {"type": "assistant", "message": {"content": [{"type": "text", "text": "Looking."}], "usage": usage}},
        {"type": "assistant", "message": {"content": [{"type": "text", "text": "Editing now."}], "usage": usage}},
    )  # fmt: skip
    logs = logdir(tmp_path, stdout=text + '{"type":"assistant","mess')  # killed mid-line
    assert ClaudeCodeAgent().parse(logs) == (
        "Editing now.",
        {"input": 230, "cached_input": 200, "cache_write": 20, "output": 14, "total": 244},
    )


def test_claude_json_output_is_read_as_well_as_stream_json(tmp_path: Path) -> None:
    result = {"type": "result", "is_error": False, "result": "Done.",
              "usage": {"input_tokens": 1, "output_tokens": 2}, "total_cost_usd": 0.01}  # fmt: skip
    logs = logdir(tmp_path, stdout=json.dumps(result))
    assert ClaudeCodeAgent().parse(logs) == ("Done.", {"input": 1, "output": 2, "total": 3})


def test_gemini_stream_json_result_is_read(tmp_path: Path) -> None:
    text = lines(
        {"type": "init", "timestamp": "t", "session_id": "s", "model": "gemini-2.5-pro"},
        {"type": "message", "timestamp": "t", "role": "assistant", "content": "Fixed ", "delta": True},
        {"type": "message", "timestamp": "t", "role": "assistant", "content": "it.", "delta": True},
        {"type": "result", "timestamp": "t", "status": "success",
         "stats": {"total_tokens": 130, "input_tokens": 100, "output_tokens": 30, "cached": 60,
                   "input": 40, "duration_ms": 9, "tool_calls": 1}},
    )  # fmt: skip
    assert GeminiCliAgent().parse(logdir(tmp_path, stdout=text)) == (
        "Fixed it.",
        {"input": 100, "cached_input": 60, "output": 30, "total": 130},
    )


def test_gemini_answer_after_warnings_on_stdout_is_found(tmp_path: Path) -> None:
    answer = (CAPTURES / "gemini-0.61.0-fixed.stdout.json").read_text()
    logs = logdir(tmp_path, stdout="Warning: something about the terminal\n" + answer)
    assert GeminiCliAgent().parse(logs)[0] == FIXED


def test_mini_text_based_trajectory_gives_the_models_last_words(tmp_path: Path) -> None:
    trajectory = {"info": {"exit_status": "Submitted", "submission": ""}, "messages": [
        {"role": "assistant", "content": [{"type": "text", "text": "THOUGHT: all tests pass."}],
         "extra": {"response": {"usage": {"prompt_tokens": 10, "completion_tokens": 3}}}},
        {"role": "exit", "content": "", "extra": {"exit_status": "Submitted"}}]}  # fmt: skip
    assert MiniSweAgent("ollama/qwen3-coder:30b").parse(
        logdir(tmp_path, trajectory=json.dumps(trajectory))
    ) == ("THOUGHT: all tests pass.", {"input": 10, "output": 3, "total": 13})


@pytest.mark.parametrize("harness", ["codex", "claude-code", "gemini-cli", "mini-swe-agent"])
def test_missing_or_garbled_logs_parse_to_nothing(tmp_path: Path, harness: str) -> None:
    assert agent(harness).parse(tmp_path) == ("", {})
    for name in ("stdout.log", "stderr.log", "trajectory.json"):
        (tmp_path / name).write_text("{not json\n\x00\x01")
    _, tokens = agent(harness).parse(tmp_path)
    assert tokens == {}
    assert agent(harness).quota_exhausted(tmp_path) is False
