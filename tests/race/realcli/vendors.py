"""Loopback stand-ins of the model APIs the real agent CLIs talk to.

A vendor's servers are the one part of an agent run that cannot exist here, so this
module stands in for them on 127.0.0.1: OpenAI's Responses API with server-sent events
(Codex CLI, and Codex's local provider, which speaks the same), Anthropic's Messages API
with server-sent events (Claude Code), Gemini's ``streamGenerateContent`` (Gemini CLI)
and OpenAI's Chat Completions (LiteLLM, for mini-swe-agent). Everything else - the CLI,
its tools, its own sandbox, bugbout's sandbox and egress proxy - is the real thing.

The "model" follows a script of :class:`Step` s, one per model turn, and answers each with
a call of one of the CLI's own tools (picked from the tools the request offers): list the
files, read one, edit it, run the prompt's test command, reach for the network, write
outside the checkout, then finish with a summary. The step to answer is the number of
tool calls already in the conversation, so every request shows the previous tool's output.
Requests without tools (titles, checks a CLI makes on the side) get a short text answer.
In ``quota`` mode every model request gets the vendor's real HTTP 429 answer.
"""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: The vendors' own 429 bodies, as their APIs send them.
QUOTA_BODIES: dict[str, dict[str, Any]] = {
    "openai": {
        "error": {
            "message": "You exceeded your current quota, please check your plan and billing "
            "details. For more information on this error, read the docs: "
            "https://platform.openai.com/docs/guides/error-codes/api-errors.",
            "type": "insufficient_quota",
            "param": None,
            "code": "insufficient_quota",
        }
    },
    "anthropic": {
        "type": "error",
        "error": {
            "type": "rate_limit_error",
            "message": "This request would exceed your organization's rate limit of 50,000 "
            "input tokens per minute. For details, refer to: "
            "https://docs.claude.com/en/api/rate-limits.",
        },
    },
    "google": {
        "error": {
            "code": 429,
            "message": "You exceeded your current quota, please check your plan and billing "
            "details. For more information on this error, head to: "
            "https://ai.google.dev/gemini-api/docs/rate-limits.",
            "status": "RESOURCE_EXHAUSTED",
            "details": [
                {
                    "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                    "violations": [
                        {
                            "quotaMetric": "generativelanguage.googleapis.com/"
                            "generate_content_free_tier_requests",
                            "quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
                            "quotaDimensions": {"location": "global", "model": "gemini-2.5-pro"},
                            "quotaValue": "50",
                        }
                    ],
                },
                {"@type": "type.googleapis.com/google.rpc.Help", "links": []},
            ],
        }
    },
}
#: The words of each 429 body a quota record must carry.
QUOTA_WORDS = {
    "openai": "You exceeded your current quota",
    "anthropic": "would exceed your organization's rate limit",
    "google": "You exceeded your current quota",
}

#: Per-turn usage every answer reports, so that token counts can be checked exactly.
USAGE = {"input": 1000, "cached": 200, "output": 50}


@dataclass
class Step:
    """One model turn: a tool call of *kind* (``list``, ``read``, ``write``, ``shell``),
    or the closing ``final`` text."""

    kind: str
    arg: str = ""
    content: str = ""
    name: str = ""  # what the test calls this step


@dataclass
class Seen:
    vendor: str
    path: str
    body: dict[str, Any]
    step: int | None  # the step answered, None for a side request


@dataclass
class Standin:
    """The stand-in server; ``with Standin(steps) as api:`` serves on ``api.url``."""

    steps: list[Step]
    mode: str = "script"  # or "quota"
    model: str = "standin-model"
    seen: list[Seen] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __enter__(self) -> Standin:
        standin = self

        class Handler(_Handler):
            api = standin

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def requests(self, step: int | None = None) -> list[Seen]:
        """The model requests answered (at *step*, when given)."""
        with self.lock:
            return [s for s in self.seen if s.step is not None and (step is None or s.step == step)]

    def after(self, name: str) -> str:
        """Everything the model was sent after the step called *name* (as JSON text)."""
        index = next(i for i, s in enumerate(self.steps) if s.name == name)
        return "\n".join(json.dumps(s.body) for s in self.requests() if (s.step or 0) > index)


class _Handler(BaseHTTPRequestHandler):
    api: Standin
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        return None

    # -- plumbing --------------------------------------------------------------------------

    def body(self) -> dict[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if self.headers.get("Content-Encoding") == "zstd" or raw[:4] == b"\x28\xb5\x2f\xfd":
            raise ValueError("compressed request bodies are not understood")
        try:
            value = json.loads(raw or b"{}")
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}

    def send_json(self, status: int, value: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, val in (headers or {}).items():
            self.send_header(key, val)
        self.end_headers()
        self.wfile.write(data)

    def send_events(self, events: list[tuple[str | None, Any]]) -> None:
        chunks = []
        for name, data in events:
            head = f"event: {name}\n" if name else ""
            chunks.append(f"{head}data: {json.dumps(data)}\n\n")
        payload = "".join(chunks).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def record(self, vendor: str, body: dict[str, Any], step: int | None) -> None:
        with self.api.lock:
            self.api.seen.append(Seen(vendor, self.path, body, step))

    def quota(self, vendor: str, body: dict[str, Any]) -> bool:
        if self.api.mode != "quota":
            return False
        self.record(vendor, body, 0)
        self.send_json(429, QUOTA_BODIES[vendor], {"retry-after": "0"})
        return True

    # -- routes ----------------------------------------------------------------------------

    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        if path.endswith("/models") or path.endswith("/api/tags"):
            model = {"id": self.api.model, "name": self.api.model, "model": self.api.model}
            self.send_json(200, {"object": "list", "data": [model], "models": [model]})
        elif path.endswith("/api/version"):
            self.send_json(200, {"version": "0.13.5"})
        else:
            self.send_json(404, {"error": {"message": f"no route {path}"}})

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        path = self.path.split("?")[0]
        try:
            body = self.body()
        except ValueError as exc:
            self.send_json(400, {"error": {"message": str(exc)}})
            return
        routes: dict[str, Callable[[dict[str, Any]], None]] = {
            "/responses": self.openai_responses,
            "/messages": self.messages,
            "/chat/completions": self.chat,
            ":streamGenerateContent": self.gemini_stream,
            ":generateContent": self.gemini_once,
            ":countTokens": lambda b: self.send_json(200, {"totalTokens": 10}),
            "/messages/count_tokens": lambda b: self.send_json(200, {"input_tokens": 10}),
            "/api/show": lambda b: self.send_json(200, {"capabilities": ["completion", "tools"]}),
            "/api/pull": lambda b: self.send_json(200, {"status": "success"}),
        }
        for suffix in sorted(routes, key=len, reverse=True):
            if path.endswith(suffix):
                routes[suffix](body)
                return
        self.send_json(404, {"error": {"message": f"no route {path}"}})

    # -- the script --------------------------------------------------------------------------

    def step(self, calls: int, body: dict[str, Any] | None = None) -> tuple[int, Step]:
        steps = self.api.steps
        index = min(calls, len(steps) - 1)
        step = steps[index]
        if "{TEST}" in step.arg:
            step = replace(step, arg=step.arg.replace("{TEST}", test_command_of(body or {})))
        return index, step

    # OpenAI Responses (Codex) ---------------------------------------------------------------

    def openai_responses(self, body: dict[str, Any]) -> None:
        if self.quota("openai", body):
            return
        tools = {t.get("name"): t for t in body.get("tools") or [] if isinstance(t, dict)}
        items = [i for i in body.get("input") or [] if isinstance(i, dict)]
        calls = sum(1 for i in items if i.get("type") in ("function_call", "custom_tool_call"))
        index, step = self.step(calls, body)
        if not tools:
            self.record("openai", body, None)
            item = _responses_message("ok")
        else:
            self.record("openai", body, index)
            item = _responses_item(step, tools)
        rid = f"resp_{uuid.uuid4().hex[:12]}"
        usage = {
            "input_tokens": USAGE["input"],
            "input_tokens_details": {"cached_tokens": USAGE["cached"]},
            "output_tokens": USAGE["output"],
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": USAGE["input"] + USAGE["output"],
        }
        response = {"id": rid, "object": "response", "status": "in_progress", "output": []}
        self.send_events(
            [
                ("response.created", {"type": "response.created", "response": response}),
                ("response.output_item.added", {"type": "response.output_item.added",
                                                "output_index": 0, "item": item}),
                ("response.output_item.done", {"type": "response.output_item.done",
                                               "output_index": 0, "item": item}),
                ("response.completed", {"type": "response.completed", "response": {
                    **response, "status": "completed", "output": [item], "usage": usage}}),
            ]
        )  # fmt: skip

    # Anthropic Messages (Claude Code) ------------------------------------------------------

    def messages(self, body: dict[str, Any]) -> None:
        if self.quota("anthropic", body):
            return
        tools = {t.get("name"): t for t in body.get("tools") or [] if isinstance(t, dict)}
        calls = 0
        for message in body.get("messages") or []:
            content = message.get("content") if isinstance(message, dict) else None
            if message.get("role") == "assistant" and isinstance(content, list):
                calls += sum(
                    1 for b in content if isinstance(b, dict) and b.get("type") == "tool_use"
                )
        index, step = self.step(calls, body)
        if "Bash" not in tools:
            self.record("anthropic", body, None)
            block: dict[str, Any] = {"type": "text", "text": "ok"}
        else:
            self.record("anthropic", body, index)
            block = _anthropic_block(step)
        mid = f"msg_{uuid.uuid4().hex[:12]}"
        usage = {
            "input_tokens": USAGE["input"] - USAGE["cached"],
            "cache_read_input_tokens": USAGE["cached"],
            "cache_creation_input_tokens": 0,
            "output_tokens": 1,
        }
        start = {
            "type": "message_start",
            "message": {
                "id": mid,
                "type": "message",
                "role": "assistant",
                "model": body.get("model"),
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": usage,
            },
        }
        if block["type"] == "tool_use":
            opened = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            stop = "tool_use"
        else:
            opened = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
            stop = "end_turn"
        self.send_events(
            [
                ("message_start", start),
                ("content_block_start", {"type": "content_block_start", "index": 0,
                                         "content_block": opened}),
                ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                ("message_delta", {"type": "message_delta",
                                   "delta": {"stop_reason": stop, "stop_sequence": None},
                                   "usage": {"output_tokens": USAGE["output"]}}),
                ("message_stop", {"type": "message_stop"}),
            ]
        )  # fmt: skip

    # Gemini (Gemini CLI) -------------------------------------------------------------------

    def gemini_answer(self, body: dict[str, Any]) -> dict[str, Any] | None:
        if self.quota("google", body):
            return None
        names = {
            d.get("name")
            for t in body.get("tools") or []
            for d in (t.get("functionDeclarations") or [])
            if isinstance(d, dict)
        }
        calls = 0
        for content in body.get("contents") or []:
            if isinstance(content, dict) and content.get("role") == "model":
                calls += sum(1 for p in content.get("parts") or [] if "functionCall" in p)
        index, step = self.step(calls, body)
        config = body.get("generationConfig") or {}
        if "run_shell_command" not in names:
            self.record("google", body, None)
            if config.get("responseMimeType") == "application/json":
                text = json.dumps({"next_speaker": "user", "reasoning": "The task is done."})
            else:
                text = "ok"
            part: dict[str, Any] = {"text": text}
        else:
            self.record("google", body, index)
            part = _gemini_part(step)
        return {
            "candidates": [
                {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": USAGE["input"],
                "cachedContentTokenCount": USAGE["cached"],
                "candidatesTokenCount": USAGE["output"],
                "totalTokenCount": USAGE["input"] + USAGE["output"],
            },
            "modelVersion": self.api.model,
        }

    def gemini_stream(self, body: dict[str, Any]) -> None:
        answer = self.gemini_answer(body)
        if answer is not None:
            self.send_events([(None, answer)])

    def gemini_once(self, body: dict[str, Any]) -> None:
        answer = self.gemini_answer(body)
        if answer is not None:
            self.send_json(200, answer)

    # OpenAI Chat Completions (LiteLLM) --------------------------------------------------------

    def chat(self, body: dict[str, Any]) -> None:
        if self.quota("openai", body):
            return
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        # One step per model answer; mini-swe-agent keeps no answer it could not read,
        # only its complaint about it.
        calls = sum(
            1
            for m in messages
            if m.get("role") == "assistant"
            or (m.get("role") == "user" and "Tool call error:" in json.dumps(m.get("content"))[:80])
        )
        index, step = self.step(calls, body)
        self.record("openai", body, index)
        command = _shell_of(step)
        message: dict[str, Any] = {
            "role": "assistant",
            "content": f"THOUGHT: step {index}.",
            "tool_calls": [
                {"id": f"call_{uuid.uuid4().hex[:12]}", "type": "function",
                 "function": {"name": "bash", "arguments": json.dumps({"command": command})}}
            ],
        }  # fmt: skip
        finish = "tool_calls"
        if step.kind == "malformed":
            message, finish = {"role": "assistant", "content": step.arg}, "stop"
        answer = {
            "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model") or self.api.model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {
                "prompt_tokens": USAGE["input"],
                "completion_tokens": USAGE["output"],
                "total_tokens": USAGE["input"] + USAGE["output"],
                "prompt_tokens_details": {"cached_tokens": USAGE["cached"]},
            },
        }
        if body.get("stream"):
            chunk = {
                **answer,
                "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": message, "finish_reason": "tool_calls"}],
            }
            self.send_events([(None, chunk)])
        else:
            self.send_json(200, answer)


# -- steps as each vendor's tool calls -------------------------------------------------------


def _shell_of(step: Step) -> str:
    """A step as one shell command (for CLIs whose only tool is the shell)."""
    if step.kind == "list":
        return f"ls -la {step.arg or '.'}"
    if step.kind == "read":
        return f"cat {step.arg}"
    if step.kind == "write":
        return f"cat > {step.arg} <<'BUGBOUT_EOF'\n{step.content}BUGBOUT_EOF\necho WROTE {step.arg}"
    if step.kind == "shell":
        return step.arg
    # mini-swe-agent's way of finishing: the first output line says so, the rest is the
    # submission.
    return f"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && echo {json.dumps(step.arg)}"


def _responses_message(text: str) -> dict[str, Any]:
    return {"type": "message", "id": f"msg_{uuid.uuid4().hex[:12]}", "role": "assistant",
            "status": "completed", "content": [{"type": "output_text", "text": text,
                                                 "annotations": []}]}  # fmt: skip


def _responses_item(step: Step, tools: dict[str, Any]) -> dict[str, Any]:
    if step.kind == "final":
        return _responses_message(step.arg)
    command = _shell_of(step)
    call = f"call_{uuid.uuid4().hex[:12]}"
    if "exec_command" in tools:
        name, args = "exec_command", {"cmd": command}
    elif "shell_command" in tools:
        name, args = "shell_command", {"command": command}
    elif "shell" in tools:
        name, args = "shell", {"command": ["bash", "-lc", command]}
    else:
        raise ValueError(f"no shell tool among {sorted(tools)}")
    return {"type": "function_call", "id": f"fc_{call}", "call_id": call, "name": name,
            "arguments": json.dumps(args), "status": "completed"}  # fmt: skip


def _anthropic_block(step: Step) -> dict[str, Any]:
    tid = f"toolu_{uuid.uuid4().hex[:16]}"
    if step.kind == "final":
        return {"type": "text", "text": step.arg}
    if step.kind == "list":
        # Glob is left out in --safe-mode; the shell lists.
        return {"type": "tool_use", "id": tid, "name": "Bash",
                "input": {"command": _shell_of(step), "description": "list the files"}}  # fmt: skip
    if step.kind == "read":
        return {"type": "tool_use", "id": tid, "name": "Read", "input": {"file_path": step.arg}}
    if step.kind == "write":
        return {"type": "tool_use", "id": tid, "name": "Write",
                "input": {"file_path": step.arg, "content": step.content}}  # fmt: skip
    return {"type": "tool_use", "id": tid, "name": "Bash",
            "input": {"command": step.arg, "description": step.name or "run a command"}}  # fmt: skip


def _gemini_part(step: Step) -> dict[str, Any]:
    if step.kind == "final":
        return {"text": step.arg}
    if step.kind == "list":
        call = {"name": "list_directory", "args": {"dir_path": step.arg or "."}}
    elif step.kind == "read":
        call = {"name": "read_file", "args": {"file_path": step.arg}}
    elif step.kind == "write":
        call = {"name": "write_file", "args": {"file_path": step.arg, "content": step.content}}
    else:
        call = {
            "name": "run_shell_command",
            "args": {"command": step.arg, "description": step.name or "run a command"},
        }
    return {"functionCall": call}


def test_command_of(body: dict[str, Any]) -> str:
    """The test command the prompt in *body* gives (the indented line after "Run the
    project's tests ... with:")."""
    text = json.dumps(body)
    found = re.search(r"Run the project's tests[^\\]*with:(?:\\n)+    (.+?)\\n", text)
    if not found:
        raise ValueError("the prompt names no test command")
    return str(json.loads(f'"{found.group(1)}"'))
