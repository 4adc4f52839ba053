"""What each agent CLI's own record says it did: its shell commands and tool calls.

Each reader turns one CLI's trajectory into :class:`bb_core.agents.Action` s, in order,
with the command's output when the record keeps it:

- Codex (``codex exec --json`` on stdout): ``command_execution`` items (the command and
  its ``aggregated_output``), ``file_change`` items (the paths), ``web_search`` and
  ``mcp_tool_call`` items;
- Claude Code (``--output-format stream-json`` on stdout): each ``tool_use`` block of an
  assistant message (``Bash``, ``Read``, ``Write``, ``Edit``, ``Glob``, ``Grep``,
  ``WebFetch`` ...) with the ``tool_result`` that answers it;
- Gemini CLI: the chat it records in its home (``.gemini/tmp/<project>/chats/
  session-*.jsonl``, or the older whole-JSON ``session-*.json``): each message's
  ``toolCalls`` (``run_shell_command``, ``read_file``, ``write_file``, ``replace`` ...);
- mini-swe-agent (``trajectory.json``): each ``bash`` tool call of the model and the
  ``tool`` message that answers it;
- any other agent (the ``command`` adapter): every line of ``stdout.log`` and
  ``stderr.log``, as ``log`` actions - what the agent printed is all there is.

Records are written by programs bugbout does not control and may be cut, corrupt or
huge: at most :data:`READ_LIMIT` bytes of a file are read, lines that are not JSON are
skipped, and a trajectory that should be a JSON object and is not raises ``ValueError``
(the caller records it and reads the plain logs instead).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bb_core.agents import Action
from bb_core.records.kinds import JSONObject
from bb_core.sandbox import read_untrusted

from bb_race.adapters._logs import json_lines

#: How much of one trajectory or log is read.
READ_LIMIT = 16 * 1024 * 1024
#: How much of one command's output is kept to judge it by.
OUTPUT_CHARS = 8000
#: How many session files of a CLI's home are read.
MAX_SESSIONS = 20


def read_text(path: Path) -> str:
    """At most :data:`READ_LIMIT` bytes of *path*, without following links ('' when it
    cannot be read)."""
    try:
        return read_untrusted(path, READ_LIMIT).decode("utf-8", "replace")
    except OSError:
        return ""


def _text(value: Any) -> str:
    """Tool output as text: a string, content blocks, or anything else as JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value[:OUTPUT_CHARS]
    if isinstance(value, list):
        parts = [
            str(b.get("text", "")) if isinstance(b, dict) and "text" in b else _text(b)
            for b in value
        ]
        return "\n".join(parts)[:OUTPUT_CHARS]
    try:
        return json.dumps(value)[:OUTPUT_CHARS]
    except (TypeError, ValueError):
        return str(value)[:OUTPUT_CHARS]


def _s(value: Any) -> str:
    return value if isinstance(value, str) else ""


# -- Codex --------------------------------------------------------------------------------


def codex_actions(logdir: Path) -> list[Action]:
    """Codex's items, by id, the completed form of each winning over the started one."""
    items: dict[str, JSONObject] = {}
    for event in json_lines(read_text(logdir / "stdout.log")):
        item = event.get("item")
        if event.get("type") in ("item.started", "item.completed") and isinstance(item, dict):
            items[str(item.get("id", len(items)))] = item
    found: list[Action] = []
    for item in items.values():
        kind = item.get("type")
        if kind == "command_execution":
            found.append(
                Action("shell", _s(item.get("command")), _text(item.get("aggregated_output")))
            )
        elif kind == "file_change":
            for change in item.get("changes") or []:
                if isinstance(change, dict):
                    tool = "write" if change.get("kind") == "add" else "edit"
                    found.append(Action(tool, _s(change.get("path"))))
        elif kind == "web_search":
            found.append(Action("search", _s(item.get("query"))))
        elif kind == "mcp_tool_call":
            what = f"{_s(item.get('server'))}.{_s(item.get('tool'))} {_text(item.get('arguments'))}"
            found.append(Action("tool", what, _text(item.get("result"))))
    return found


# -- Claude Code ---------------------------------------------------------------------------

#: Claude Code's tools, by the action each is, and the input field naming what it acts on.
CLAUDE_TOOLS = {
    "Bash": ("shell", "command"),
    "Read": ("read", "file_path"),
    "Write": ("write", "file_path"),
    "Edit": ("edit", "file_path"),
    "MultiEdit": ("edit", "file_path"),
    "NotebookEdit": ("edit", "notebook_path"),
    "NotebookRead": ("read", "notebook_path"),
    "LS": ("read", "path"),
    "Glob": ("search", "path"),
    "Grep": ("search", "path"),
    "WebFetch": ("fetch", "url"),
    "WebSearch": ("search", "query"),
}


def claude_action(name: str, given: Mapping[str, Any]) -> Action | None:
    tool, field = CLAUDE_TOOLS.get(name, ("", ""))
    if not tool:
        command = _s(given.get("command"))
        return Action("shell", command) if command else None
    text = _s(given.get(field))
    if name in ("Glob", "Grep"):
        text = " ".join(t for t in (_s(given.get("pattern")), text) if t)
    content = _s(given.get("content")) or _s(given.get("new_string"))
    if name == "MultiEdit":
        edits = given.get("edits")
        content = "\n".join(_s(e.get("new_string")) for e in edits or [] if isinstance(e, dict))
    return Action(tool, text, content=content)


def claude_actions(logdir: Path) -> list[Action]:
    """Each ``tool_use`` block, with its ``tool_result`` as the output."""
    calls: dict[str, Action] = {}
    for event in json_lines(read_text(logdir / "stdout.log")):
        message = event.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if event.get("type") == "assistant" and block.get("type") == "tool_use":
                given = block.get("input")
                action = claude_action(
                    _s(block.get("name")), given if isinstance(given, dict) else {}
                )
                if action is not None:
                    calls[str(block.get("id", len(calls)))] = action
            elif event.get("type") == "user" and block.get("type") == "tool_result":
                key = str(block.get("tool_use_id"))
                if key in calls:
                    done = calls[key]
                    calls[key] = Action(
                        done.tool, done.text, _text(block.get("content")), done.content
                    )
    return list(calls.values())


# -- Gemini CLI ----------------------------------------------------------------------------

#: Gemini CLI's tools, by the action each is, and the argument naming what it acts on.
GEMINI_TOOLS = {
    "run_shell_command": ("shell", ("command",)),
    "read_file": ("read", ("absolute_path", "file_path", "path")),
    "read_many_files": ("read", ("paths", "include")),
    "list_directory": ("read", ("dir_path", "path")),
    "glob": ("search", ("dir_path", "path", "pattern")),
    "search_file_content": ("search", ("dir_path", "path", "pattern")),
    "grep": ("search", ("dir_path", "path", "pattern")),
    "write_file": ("write", ("file_path", "absolute_path")),
    "replace": ("edit", ("file_path", "absolute_path")),
    "web_fetch": ("fetch", ("prompt", "url")),
    "google_web_search": ("search", ("query",)),
}


def gemini_sessions(home: Path) -> list[Path]:
    """The chat files Gemini CLI recorded in the attempt's home, oldest first."""
    try:
        found = sorted(
            p
            for p in (home / ".gemini" / "tmp").glob("*/chats/session-*")
            if p.suffix in (".json", ".jsonl") and p.is_file() and not p.is_symlink()
        )
    except OSError:
        return []
    return found[:MAX_SESSIONS]


def gemini_messages(text: str) -> list[JSONObject]:
    """A chat file's messages: the whole-JSON form's ``messages``, or the JSONL form's
    records (a message appended again under its id replaces the earlier one)."""
    stripped = text.lstrip()
    if stripped.startswith("{") and "\n{" not in stripped.rstrip():
        try:
            whole = json.loads(stripped)
        except ValueError:
            whole = None
        if isinstance(whole, dict) and isinstance(whole.get("messages"), list):
            return [m for m in whole["messages"] if isinstance(m, dict)]
    by_id: dict[str, JSONObject] = {}
    for record in json_lines(text):
        if isinstance(record.get("$set"), dict):  # the JSONL form's update of whole fields
            record = record["$set"]
        if isinstance(record.get("messages"), list):
            for message in record["messages"]:
                if isinstance(message, dict):
                    by_id[str(message.get("id", len(by_id)))] = message
        elif "type" in record and ("toolCalls" in record or "content" in record):
            by_id[str(record.get("id", len(by_id)))] = record
    return list(by_id.values())


def gemini_action(call: Mapping[str, Any]) -> Action | None:
    name = _s(call.get("name"))
    args = call.get("args") if isinstance(call.get("args"), dict) else {}
    assert isinstance(args, dict)
    tool, fields = GEMINI_TOOLS.get(name, ("", ("command",)))
    values = [args.get(f) for f in fields if args.get(f)]
    if not tool:
        if not values:
            return None
        tool = "shell"
    text = " ".join(v if isinstance(v, str) else _text(v) for v in values)
    output = _s(call.get("resultDisplay")) or _text(call.get("result"))
    content = _s(args.get("content")) or _s(args.get("new_string"))
    return Action(tool, text, output, content)


#: Where the chats Gemini CLI recorded are kept with the attempt's logs.
GEMINI_CHATS = "gemini-chats"


def keep_gemini_sessions(home: Path, logdir: Path) -> list[Path]:
    """Copy the chats Gemini CLI recorded in the attempt's home (which goes once the
    attempt ends) into ``logdir/gemini-chats/``, each cut to :data:`READ_LIMIT` bytes."""
    kept = []
    for path in gemini_sessions(home):
        dest = logdir / GEMINI_CHATS / path.name
        try:
            dest.parent.mkdir(exist_ok=True)
            dest.write_bytes(read_untrusted(path, READ_LIMIT))
        except OSError:
            continue
        kept.append(dest)
    return kept


def gemini_actions(home: Path, logdir: Path | None = None) -> list[Action]:
    """Each tool call of the chats Gemini CLI recorded (kept in *logdir* when given)."""
    found: list[Action] = []
    paths = keep_gemini_sessions(home, logdir) if logdir is not None else gemini_sessions(home)
    for path in paths:
        for message in gemini_messages(read_text(path)):
            for call in message.get("toolCalls") or []:
                action = gemini_action(call) if isinstance(call, dict) else None
                if action is not None:
                    found.append(action)
    return found


# -- mini-swe-agent -----------------------------------------------------------------------


def mini_actions(logdir: Path, name: str = "trajectory.json") -> list[Action]:
    """Each ``bash`` call of the model with the tool message that answers it."""
    path = logdir / name
    if not path.exists():
        return []
    try:
        data = json.loads(read_text(path))
    except ValueError as exc:
        raise ValueError(f"{name} is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{name} is not a JSON object")
    calls: dict[str, Action] = {}
    for message in data.get("messages") or []:
        if not isinstance(message, dict):
            continue
        if message.get("role") == "assistant":
            for call in message.get("tool_calls") or []:
                function = call.get("function") if isinstance(call, dict) else None
                if not isinstance(function, dict):
                    continue
                try:
                    given = json.loads(_s(function.get("arguments")) or "{}")
                except ValueError:
                    given = {"command": _s(function.get("arguments"))}
                command = _s(given.get("command")) if isinstance(given, dict) else ""
                if command:
                    calls[str(call.get("id", len(calls)))] = Action("shell", command)
        elif message.get("role") == "tool":
            key = str(message.get("tool_call_id"))
            if key in calls:
                output = _s(message.get("content"))
                try:
                    parsed = json.loads(output)
                    output = _s(parsed.get("output")) if isinstance(parsed, dict) else output
                except ValueError:
                    pass
                calls[key] = Action("shell", calls[key].text, output[:OUTPUT_CHARS])
    return list(calls.values())


# -- any agent -----------------------------------------------------------------------------


def log_actions(
    logdir: Path, names: tuple[str, ...] = ("stdout.log", "stderr.log")
) -> list[Action]:
    """Every non-blank line of the agent's own logs, as ``log`` actions."""
    found: list[Action] = []
    for name in names:
        for line in read_text(logdir / name).splitlines():
            line = line.strip()
            if line:
                found.append(Action("log", line[:OUTPUT_CHARS]))
    return found
