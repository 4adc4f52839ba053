"""Reading what a mini-swe-agent run left: its trajectory (``trajectory.json``) and logs.

The trajectory holds mini's messages - the model's, each tool result, the exit with the
submission - with LiteLLM's usage per model call, and ``info.exit_status``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from bb_core.records.kinds import JSONObject

from bb_race.adapters._logs import count, log_text, summary_text, token_counts

TRAJECTORY = "trajectory.json"

QUOTA_EXITS = frozenset({"RateLimitError"})
QUOTA_PATTERNS = (
    re.compile(r"\bRateLimitError\b"),
    re.compile(r"exceeded your current quota|insufficient_quota", re.IGNORECASE),
    re.compile(r"RESOURCE_EXHAUSTED|Resource has been exhausted", re.IGNORECASE),
)

TRACEBACK_QUOTA = re.compile(r"(?m)^(litellm\.(exceptions\.)?)?RateLimitError\b")


def read_trajectory(logdir: Path) -> JSONObject | None:
    """The trajectory mini wrote in *logdir*, or None when there is none to read."""
    try:
        value = json.loads((logdir / TRAJECTORY).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def trajectory_summary(logdir: Path) -> tuple[str, dict[str, int]]:
    """The submission (else the model's last words) and the summed per-call usage."""
    data = read_trajectory(logdir)
    if data is None:
        return summary_text(log_text(logdir, "stdout.log", 2000)), {}
    info = as_dict(data.get("info"))
    messages = [m for m in data.get("messages") or [] if isinstance(m, dict)]
    summary = str(info.get("submission") or "")
    if not summary.strip():
        for message in reversed(messages):
            if message.get("role") == "assistant":
                summary = message_text(message.get("content"))
                if summary.strip():
                    break
    return summary_text(summary), mini_tokens(messages)


def quota_exhausted(logdir: Path) -> bool:
    """The run ended on LiteLLM's ``RateLimitError`` (after mini's own retries), or a
    provider's quota text, in the trajectory or at the end of the logs."""
    data = read_trajectory(logdir)
    if data is not None:
        info = as_dict(data.get("info"))
        if info.get("exit_status") in QUOTA_EXITS:
            return True
        messages = [m for m in data.get("messages") or [] if isinstance(m, dict)]
        if messages and messages[-1].get("role") == "exit":
            extra = messages[-1].get("extra") or {}
            said = f"{messages[-1].get('content', '')}\n{extra.get('exception_str', '')}"
            if any(p.search(said) for p in QUOTA_PATTERNS):
                return True
    # No trajectory: the traceback mini leaves on stderr (stdout holds the whole
    # conversation, where the words could appear for other reasons).
    return bool(TRACEBACK_QUOTA.search(log_text(logdir, "stderr.log", 20_000)))


def quota_message(logdir: Path) -> str | None:
    """What the provider said when the quota ran out, from the trajectory or the traceback."""
    data = read_trajectory(logdir)
    messages = [m for m in (data or {}).get("messages") or [] if isinstance(m, dict)]
    if messages and messages[-1].get("role") == "exit":
        extra = messages[-1].get("extra") or {}
        said = str(extra.get("exception_str") or messages[-1].get("content") or "")
        return said[:500] or None
    found = TRACEBACK_QUOTA.search(log_text(logdir, "stderr.log", 20_000))
    if found:
        line_end = log_text(logdir, "stderr.log", 20_000)[found.start() :].split("\n", 1)[0]
        return line_end[:500]
    return None


def tool_error_flags(logdir: Path) -> list[str]:
    """Commands that failed to run (timed out, or mini-swe-agent's environment raised)
    and tool calls mini could not read (format errors)."""
    data = read_trajectory(logdir)
    messages = [m for m in (data or {}).get("messages") or [] if isinstance(m, dict)]
    errors = 0
    for index, message in enumerate(messages):
        text = message_text(message.get("content"))
        # The submission is "not executed" too, just before the exit: not an error.
        submitted = index + 1 < len(messages) and messages[index + 1].get("role") == "exit"
        failed = message.get("role") == "tool" and '"exception_info"' in text
        unread = message.get("role") == "user" and text.startswith("Tool call error:")
        errors += (failed and not submitted) or unread
    return [f"tool-errors:{errors}"] if errors else []


def as_dict(value: Any) -> JSONObject:
    return value if isinstance(value, dict) else {}


def message_text(content: Any) -> str:
    """A chat message's text, whether it is a string or a list of content blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(block.get("text", "")) for block in content if isinstance(block, dict))
    return ""


def mini_tokens(messages: list[JSONObject]) -> dict[str, int]:
    """The sum of LiteLLM's per-call usage kept in each model message.

    LiteLLM's ``prompt_tokens`` include cached ones (and, for Anthropic, cache writes);
    ``completion_tokens`` include reasoning."""
    totals: dict[str, int] = {}
    for message in messages:
        extra = message.get("extra")
        response = extra.get("response") if isinstance(extra, dict) else None
        usage = response.get("usage") if isinstance(response, dict) else None
        if not isinstance(usage, dict):
            continue
        prompt_details = usage.get("prompt_tokens_details") or {}
        completion_details = usage.get("completion_tokens_details") or {}
        got = token_counts(
            input=usage.get("prompt_tokens"),
            output=usage.get("completion_tokens"),
            total=usage.get("total_tokens"),
            cached_input=prompt_details.get("cached_tokens")
            if isinstance(prompt_details, dict)
            else None,
            cache_write=usage.get("cache_creation_input_tokens"),
            reasoning=completion_details.get("reasoning_tokens")
            if isinstance(completion_details, dict)
            else None,
        )
        for key, value in got.items():
            totals[key] = totals.get(key, 0) + value
    if totals and "total" not in totals:
        totals["total"] = totals.get("input", 0) + totals.get("output", 0)
    return {k: v for k, v in totals.items() if count(v) is not None}
