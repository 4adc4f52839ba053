"""Read, validate and write the JSON lines that bugbout's stages exchange.

Every line is one JSON object with ``kind`` and ``v``. Lines of a kind this release knows
are validated against its schema; lines of other kinds pass through untouched, byte for
byte and in order, and the first line of each such kind gets one warning on stderr naming
its line and its kind (:func:`set_strict` makes it a bad line instead). A bad line raises
:class:`~bb_core.errors.BadRecord`, whose message is ``<file>:<line>: <json-path>: <problem>``.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson

from bb_core.errors import BadRecord, StageFailed, UsageError
from bb_core.records.schema_errors import explain, json_type, path_text
from bb_core.records.schemas import KINDS, VERSION, quick_check, validator

__all__ = [
    "STDIN",
    "Line",
    "Writer",
    "check",
    "json_type",
    "parse_line",
    "read_lines",
    "set_strict",
]

STDIN = "-"

#: Whether a line of a kind this release does not know is bad input (``--strict``).
_STRICT = False
#: The unknown kinds already warned about by this process: one warning a kind.
_WARNED: set[str] = set()


def set_strict(strict: bool) -> None:
    """Make lines of unknown kinds bad input (``--strict``), or warnings again."""
    global _STRICT
    _STRICT = strict


def unknown_kind(line: Line) -> None:
    """Say that *line* is of a kind this release does not know: one warning on stderr for
    the first line of each kind (it is still passed on unchanged); with ``--strict``, a
    :class:`BadRecord` (exit status 2)."""
    known = ", ".join(KINDS)
    if _STRICT:
        raise BadRecord(
            line.source,
            line.lineno,
            "kind",
            f"unknown record kind {line.kind!r} (this release knows {known}; "
            "without --strict it is passed on unchanged)",
        )
    if line.kind in _WARNED:
        return
    _WARNED.add(line.kind)
    _say(
        f"warning: {line.source}:{line.lineno}: unknown record kind {line.kind!r}, "
        f"passed on unchanged (this release knows {known}; --strict stops on it)"
    )


def _prog() -> str:
    return Path(sys.argv[0]).name or "bugbout"


def _say(text: str) -> None:
    """One line on stderr, behind the running tool's name."""
    print(f"{_prog()}: {text}", file=sys.stderr, flush=True)


@dataclass(frozen=True, slots=True)
class Line:
    """One line of input: where it came from, its raw bytes and, when known, its record."""

    source: str
    lineno: int
    raw: bytes
    record: dict[str, Any]
    known: bool

    @property
    def kind(self) -> str:
        return str(self.record.get("kind"))


def check(record: dict[str, Any], kind: str) -> tuple[str, str] | None:
    """Validate *record* against *kind*'s schema; return ``(path, problem)`` or None."""
    if quick_check(kind)(record):
        return None
    from jsonschema.exceptions import best_match  # only a bad line pays for the import

    error = best_match(validator(kind).iter_errors(record))
    if error is None:  # the quick check was stricter than the schema: trust the schema
        return None
    place, what = explain(error)
    return path_text(place), what


def parse_line(raw: bytes, source: str, lineno: int) -> Line:
    """Parse and validate one raw line; raise :class:`BadRecord` when it is bad."""
    try:
        record = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise BadRecord(source, lineno, "$", f"not valid JSON: {exc}") from exc
    if not isinstance(record, dict):
        raise BadRecord(source, lineno, "$", f"expected a JSON object, got {json_type(record)}")
    kind = record.get("kind")
    if "kind" not in record:
        raise BadRecord(source, lineno, "kind", "required field missing")
    if not isinstance(kind, str):
        raise BadRecord(source, lineno, "kind", f"expected a string, got {json_type(kind)}")
    if kind not in KINDS:
        return Line(source, lineno, raw, record, known=False)
    version = record.get("v")
    if "v" not in record:
        raise BadRecord(source, lineno, "v", "required field missing")
    if version != VERSION or isinstance(version, bool):
        raise BadRecord(
            source,
            lineno,
            "v",
            f"unsupported schema version {orjson.dumps(version).decode()} "
            f"(this release reads version {VERSION})",
        )
    problem = check(record, kind)
    if problem is not None:
        raise BadRecord(source, lineno, *problem)
    return Line(source, lineno, raw, record, known=True)


_TASK_LINE = re.compile(rb'"kind"\s*:\s*"task"')


def count_task_lines(inputs: Iterable[str]) -> int | None:
    """How many task lines regular files hold, for a progress total; None for stdin."""
    total = 0
    for name in inputs or (STDIN,):
        path = Path(name)
        if name == STDIN or not path.is_file():
            return None
        with path.open("rb") as handle:
            total += sum(1 for raw in handle if _TASK_LINE.search(raw))
    return total


def terminal_hint(stream: IO[Any] | None = None) -> None:
    """When stdin is a terminal, say on stderr what the tool is waiting for, so that it
    does not wait without a word."""
    stdin = stream if stream is not None else sys.stdin
    try:
        interactive = stdin.isatty()
    except (AttributeError, ValueError):
        return
    if interactive:
        prog = _prog()
        _say(
            "reading JSON lines from the terminal; pipe the previous tool's output in "
            f"(bb-mine | {prog}) or name a FILE, e.g. `{prog} tasks.jsonl`; Ctrl-D ends the input"
        )


def _open(name: str) -> tuple[str, IO[bytes]]:
    if name == STDIN:
        terminal_hint()
        return "<stdin>", sys.stdin.buffer
    try:
        return name, open(name, "rb")
    except OSError as exc:
        raise UsageError(f"cannot read {name}: {exc.strerror or exc}") from exc


def read_lines(inputs: Sequence[str] = (STDIN,)) -> Iterator[Line]:
    """Every non-blank line of *inputs* (paths, ``-`` for stdin), parsed and validated.

    Lines are read lazily, so a stage emits what it finished before a bad line stops it.
    """
    for name in inputs or (STDIN,):
        source, stream = _open(name)
        try:
            for lineno, raw in enumerate(stream, 1):
                if raw.strip():
                    line = parse_line(raw.rstrip(b"\r\n"), source, lineno)
                    if not line.known:
                        unknown_kind(line)
                    yield line
        finally:
            if stream is not sys.stdin.buffer:
                stream.close()


def dumps(record: dict[str, Any]) -> bytes:
    """One record as a JSON line (with its newline)."""
    return orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE)


def _target(stream: IO[bytes]) -> str:
    """What *stream* writes to, for a message: its file's path (standard output's too,
    where the system tells it: ``stdout (/data/tasks.jsonl)``), else its name."""
    name = str(getattr(stream, "name", "") or "the output")
    try:
        path = os.readlink(f"/proc/self/fd/{stream.fileno()}")
    except (OSError, ValueError, AttributeError):
        path = ""
    if name in ("<stdout>", "1") or name.isdigit():
        return f"stdout ({path})" if path.startswith("/") else "stdout"
    return name


class Writer:
    """Writes records to a binary stream, one validated JSON line each, flushed per line."""

    def __init__(self, stream: IO[bytes] | None = None, *, validate: bool = True) -> None:
        self.stream = stream if stream is not None else sys.stdout.buffer
        self.validate = validate
        self.count = 0

    def write(self, record: dict[str, Any]) -> None:
        kind = record.get("kind")
        if self.validate and kind in KINDS:
            problem = check(record, str(kind))
            if problem is not None:
                path, what = problem
                raise StageFailed(f"refusing to write an invalid {kind} line: {path}: {what}")
        self._emit(dumps(record))

    def passthrough(self, line: Line) -> None:
        """Copy a line this stage does not handle, unchanged."""
        self._emit(line.raw + b"\n")

    def _emit(self, data: bytes) -> None:
        try:
            self.stream.write(data)
            self.stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:  # a full disk: say where it was writing
            if exc.filename is not None or exc.errno is None:
                raise
            raise OSError(exc.errno, exc.strerror or str(exc), _target(self.stream)) from exc
        self.count += 1
