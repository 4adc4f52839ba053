"""Reading what agent CLIs leave in their logs, and small helpers the adapters share.

Agent logs are written by programs bugbout does not control and may be cut short (a
run killed at its time limit, a log capped in size), so every reader here is lenient:
lines that are not JSON are skipped, a missing file reads as empty, and numbers that
are not non-negative integers are dropped.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from bb_core.agents import BASE_ENV, read_tail
from bb_core.records.kinds import JSONObject

#: How much of the end of a log is read when looking for results and usage limits.
LOG_TAIL = 4 * 1024 * 1024
#: How long the summary of an attempt may be.
SUMMARY_CHARS = 4000


#: What a CLI's own sandbox says when it cannot start (bubblewrap, Claude Code's bridge
#: sockets, seatbelt).
SANDBOX_FAILURES = (
    re.compile(r"Sandbox is required but failed to initialize[^\n]*"),
    re.compile(r"Failed to create bridge sockets[^\n]*"),
    re.compile(
        r"bwrap: [^\n]*(Operation not permitted|No permissions|Permission denied|"
        r"Invalid argument|Can't [^\n]*)"
    ),
    re.compile(r"error running (landlock|bwrap|sandbox)[^\n]*", re.IGNORECASE),
    re.compile(r"sandbox-exec: [^\n]*"),
)


#: What a shell command prints when a sandbox refused it a write.
SANDBOX_DENIALS = re.compile(r"Read-only file system|Operation not permitted")


def first_line(text: str, patterns: Iterable[re.Pattern[str]]) -> str:
    """The first match of any of *patterns* in *text*, cut to 200 characters."""
    for pattern in patterns:
        found = pattern.search(text)
        if found:
            return found.group(0)[:200]
    return ""


def check_base_url(name: str, value: Any) -> None:
    """Refuse a ``base-url`` option that is not an http(s) URL with a host."""
    if value is None:
        return
    from urllib.parse import urlsplit

    from bb_core.errors import ConfigError

    parts = urlsplit(str(value)) if isinstance(value, str) else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(
            f"{name}: base-url must be an http:// or https:// URL, e.g. "
            f"https://gateway.example.com/v1, not {value!r}"
        )


def log_text(logdir: Path, name: str, limit: int = LOG_TAIL) -> str:
    """The last *limit* characters of ``logdir/name`` ('' when it is missing)."""
    return read_tail(logdir / name, limit)


def json_lines(text: str) -> Iterator[JSONObject]:
    """Every line of *text* that is a JSON object, in order; other lines are skipped."""
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            yield value


def last_json_object(text: str) -> JSONObject | None:
    """The last JSON object in *text* that starts at the beginning of a line.

    Finds both one-line objects and pretty-printed ones (Gemini CLI indents its
    ``-o json`` output), even after other output such as warnings.
    """
    decoder = json.JSONDecoder()
    starts = [m.start() for m in re.finditer(r"(?m)^[ \t]*\{", text)]
    for start in reversed(starts):
        try:
            value, _ = decoder.raw_decode(text[start:].lstrip())
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def count(value: Any) -> int | None:
    """*value* as a token count, or None when it is not a non-negative integer."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if value < 0 or value != int(value):
        return None
    return int(value)


def token_counts(**fields: Any) -> dict[str, int]:
    """The given counts that are real counts (others are left out)."""
    found = {}
    for name, value in fields.items():
        number = count(value)
        if number is not None:
            found[name] = number
    return found


def summary_text(text: str | None) -> str:
    """*text* trimmed to a summary's length (its end is kept)."""
    text = (text or "").strip()
    if len(text) > SUMMARY_CHARS:
        return "..." + text[-SUMMARY_CHARS:]
    return text


def matches_any(text: str, patterns: Iterable[re.Pattern[str]]) -> bool:
    return any(pattern.search(text) for pattern in patterns)


def user_home() -> Path:
    """The user's own home folder (not an attempt's fresh one)."""
    return Path(os.path.expanduser("~"))


def minimal_env(
    extra: Mapping[str, str] | None = None, *, home: Path | None = None
) -> dict[str, str]:
    """The base environment agents get, for a quick look at a CLI outside an attempt."""
    env = {name: os.environ[name] for name in BASE_ENV if name in os.environ}
    env.setdefault("PATH", os.defpath)
    env["HOME"] = str(home or user_home())
    env.update(extra or {})
    return env


def run_quietly(
    argv: list[str], env: Mapping[str, str], *, timeout: float = 15, cwd: Path | None = None
) -> tuple[int, str] | None:
    """Run a short command; (exit status, stdout + stderr), or None when it cannot run."""
    try:
        done = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            env=dict(env),
            cwd=cwd,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.returncode, (done.stdout or "") + (done.stderr or "")


def read_env_file(path: Path) -> dict[str, str]:
    """``KEY=VALUE`` lines of a ``.env`` file (quotes and ``export`` allowed); {} if missing."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    found = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        if line.startswith("export "):
            line = line[len("export ") :].strip()
        key, value = line.split("=", 1)
        key, value = key.strip(), value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
            found[key] = value
    return found


def link_file(source: Path, dest: Path) -> bool:
    """Make *dest* a symbolic link to *source* when *source* exists; whether it did."""
    if not source.is_file():
        return False
    dest.parent.mkdir(parents=True, exist_ok=True)
    if dest.is_symlink() or dest.exists():
        dest.unlink()
    dest.symlink_to(source.resolve())
    return True


def write_json_file(path: Path, value: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2) + "\n", encoding="utf-8")
    return path


def host_of(url: str) -> str | None:
    """The ``host`` or ``host:port`` an URL points at, as egress allow-lists write it."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url if "://" in url else f"http://{url}")
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname:
        return None
    return f"{parts.hostname}:{port}" if port else parts.hostname
