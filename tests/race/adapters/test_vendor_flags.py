"""Flags and quota messages read from each vendor CLI's logs, in the shapes the real CLIs
wrote them in the real-CLI suite (codex-cli 0.171.0, Claude Code 2.1.197, Gemini CLI
0.61.0, mini-swe-agent 2.4.6)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bb_core.agents import agent_class


def logs(tmp_path: Path, **files: Any) -> Path:
    for name, content in files.items():
        text = (
            content if isinstance(content, str) else "".join(json.dumps(e) + "\n" for e in content)
        )
        (tmp_path / name.replace("_", ".")).write_text(text)
    return tmp_path


def test_claude_codes_denials_tool_errors_and_sandbox_failures(tmp_path: Path) -> None:
    write = {"tool_name": "Write", "tool_use_id": "t1", "tool_input": {"file_path": "/x"}}
    events = [
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "is_error": True, "content": "No such tool available: Glob"},
            {"type": "tool_result", "content": "bash: /x: Read-only file system"},
        ]}},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "is_error": True,
             "content": "Sandbox is required but failed to initialize: Failed to create "
                        "bridge sockets after 5 attempts. Restart to retry."}]}},
        {"type": "result", "subtype": "success", "is_error": False, "result": "done",
         "permission_denials": [write]},
    ]  # fmt: skip
    agent = agent_class("claude-code")("sonnet")
    assert agent.flags(logs(tmp_path, stdout_log=events)) == [
        "permission-denied:Write",
        "sandbox-denied:Bash",
        "tool-errors:2",
        "sandbox-failed: Sandbox is required but failed to initialize: Failed to create "
        "bridge sockets after 5 attempts. Restart to retry.",
    ]


def test_claude_code_killed_while_retrying_a_429_is_quota(tmp_path: Path) -> None:
    retry = {"type": "system", "subtype": "api_retry", "error_status": 429, "error": "rate_limit"}
    events = [
        {"type": "system", "subtype": "init"},
        {**retry, "attempt": 1},
        {**retry, "attempt": 7},
    ]
    agent = agent_class("claude-code")("sonnet")
    logdir = logs(tmp_path, stdout_log=events)
    assert agent.quota_exhausted(logdir)
    assert agent.quota_message(logdir) == "HTTP 429 (rate_limit), still retrying after 7 attempts"
    # A retry that was followed by an answer is not a limit.
    logs(tmp_path, stdout_log=[*events, {"type": "assistant", "message": {"content": []}}])
    assert not agent.quota_exhausted(tmp_path)


def test_codex_flags_and_its_notices(tmp_path: Path) -> None:
    def done(item: dict[str, Any]) -> dict[str, Any]:
        return {"type": "item.completed", "item": item}

    events = [
        done({"type": "error", "message": "Falling back from WebSockets to HTTPS transport."}),
        done({"type": "command_execution", "status": "completed", "exit_code": 0,
              "aggregated_output": "/bin/bash: /x: Read-only file system\nOUTSIDE-REFUSED\n"}),
        done({"type": "command_execution", "status": "failed", "exit_code": 1,
              "aggregated_output": "1 failed"}),
        done({"type": "command_execution", "status": "declined", "exit_code": None}),
        done({"type": "file_change", "status": "failed"}),
        done({"type": "command_execution", "status": "failed", "exit_code": None,
              "aggregated_output": "bwrap: Can't mount proc on /newroot/proc: Operation not permitted"}),
    ]  # fmt: skip
    agent = agent_class("codex")("gpt-5")
    assert agent.flags(logs(tmp_path, stdout_log=events)) == [
        "sandbox-denied:shell",
        "permission-denied:shell",
        "sandbox-failed: bwrap: Can't mount proc on /newroot/proc: Operation not permitted",
        "tool-errors:2",
    ]
    failed = {
        "type": "turn.failed",
        "error": {"message": "Quota exceeded. Check your plan and billing details."},
    }
    (tmp_path / "q").mkdir()
    quota = logs(tmp_path / "q", stdout_log=[failed])
    assert agent.quota_message(quota) == "Quota exceeded. Check your plan and billing details."


def test_gemini_cli_flags_from_its_tool_stats(tmp_path: Path) -> None:
    stats = {"tools": {"totalCalls": 3, "totalFail": 1,
                       "totalDecisions": {"accept": 2, "reject": 1},
                       "byName": {"write_file": {"count": 1, "fail": 1, "decisions": {"reject": 0}},
                                  "run_shell_command": {"count": 2, "decisions": {"reject": 1}}}}}  # fmt: skip
    output = json.dumps({"session_id": "s", "response": "done", "stats": stats}, indent=2)
    agent = agent_class("gemini-cli")()
    assert agent.flags(logs(tmp_path, stdout_log=output)) == [
        "permission-denied:run_shell_command",
        "tool-errors:1",
    ]


def test_mini_swe_agent_counts_format_errors_and_failed_commands(tmp_path: Path) -> None:
    messages = [
        {"role": "user", "content": "Please solve this issue"},
        {
            "role": "tool",
            "content": '{"returncode": -1, "output": "", "exception_info": "timed out"}',
        },
        {"role": "user", "content": "Tool call error:\n\n<error>\nNo tool calls found"},
        {"role": "tool", "content": '{"returncode": 0, "output": "29 passed"}'},
        {
            "role": "tool",
            "content": '{"returncode": -1, "exception_info": "action was not executed"}',
        },
        {"role": "exit", "content": "done", "extra": {"exit_status": "Submitted"}},
    ]
    (tmp_path / "trajectory.json").write_text(json.dumps({"info": {}, "messages": messages}))
    assert agent_class("mini-swe-agent")("openai/gpt-5").flags(tmp_path) == ["tool-errors:2"]
