"""Reading, validating and writing JSON lines (bb_core.records)."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from bb_core.errors import BadRecord, StageFailed, UsageError
from bb_core.records import Writer, parse_line, read_lines

SKIP = {"kind": "skip", "v": 1, "stage": "mine", "reason": "not-a-fix", "message": "a feature"}


def _line(record: dict) -> bytes:
    return orjson.dumps(record)


@pytest.mark.parametrize(
    ("raw", "path", "problem"),
    [
        (b'{"kind": "skip", "v": 1', "$", "not valid JSON: unexpected end of data"),
        (b"\xff\xfe{}", "$", "not valid JSON: str is not valid UTF-8"),
        (b"[1, 2]", "$", "expected a JSON object, got array"),
        (b'"text"', "$", "expected a JSON object, got string"),
        (b'{"v": 1}', "kind", "required field missing"),
        (b'{"kind": 3, "v": 1}', "kind", "expected a string, got integer"),
        (b'{"kind": "skip"}', "v", "required field missing"),
        (
            b'{"kind": "skip", "v": 2}',
            "v",
            "unsupported schema version 2 (this release reads version 1)",
        ),
        (b'{"kind": "skip", "v": "1"}', "v", 'unsupported schema version "1"'),
        (_line({**SKIP, "message": None}), "message", "expected a string, got null"),
        (
            _line({k: v for k, v in SKIP.items() if k != "reason"}),
            "reason",
            "required field missing",
        ),
        (_line({**SKIP, "stage": "nowhere"}), "stage", "expected one of mine, oracle"),
        (_line({**SKIP, "extra": 1}), "extra", "unknown field"),
    ],
)
def test_bad_line_names_file_line_path_and_problem(raw: bytes, path: str, problem: str) -> None:
    with pytest.raises(BadRecord) as caught:
        parse_line(raw, "tasks.jsonl", 7)
    error = caught.value
    assert (error.source, error.lineno, error.path) == ("tasks.jsonl", 7, path)
    assert error.problem.startswith(problem)
    assert str(error) == f"tasks.jsonl:7: {path}: {error.problem}"
    assert "\n" not in str(error)


def test_nested_violation_points_at_the_field() -> None:
    oracle = {
        "kind": "oracle",
        "v": 1,
        "fail_to_pass": ["t.py::a"],
        "pass_to_pass": [],
        "flaky": [],
        "broken_after": [],
        "runs": [{"duration": -1, "counts": {}}],
    }
    with pytest.raises(BadRecord) as caught:
        parse_line(_line(oracle), "x", 1)
    assert caught.value.path == "runs[0].duration"


def test_unknown_kinds_pass_through_byte_for_byte(tmp_path: Path) -> None:
    raw = b'{"kind":"note","b":2,   "a":1}'
    source = tmp_path / "in.jsonl"
    source.write_bytes(raw + b"\n\n   \n" + _line(SKIP) + b"\n")
    lines = list(read_lines([str(source)]))
    assert [(line.lineno, line.known) for line in lines] == [(1, False), (4, True)]
    out = io.BytesIO()
    writer = Writer(out)
    writer.passthrough(lines[0])
    writer.write(lines[1].record)
    assert out.getvalue().splitlines() == [raw, _line(SKIP)]


def test_lines_are_read_lazily_so_earlier_lines_survive_a_bad_one(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_bytes(_line(SKIP) + b"\n{oops\n" + _line(SKIP) + b"\n")
    seen = []
    with pytest.raises(BadRecord) as caught:
        for line in read_lines([str(source)]):
            seen.append(line.lineno)
    assert seen == [1]
    assert caught.value.lineno == 2
    assert caught.value.source == str(source)


def test_empty_input_yields_nothing(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert list(read_lines([str(empty)])) == []


def test_missing_input_file_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"cannot read .*nope\.jsonl"):
        list(read_lines([str(tmp_path / "nope.jsonl")]))


def test_writer_refuses_to_emit_an_invalid_record() -> None:
    with pytest.raises(StageFailed, match="invalid skip line: reason: required field missing"):
        Writer(io.BytesIO()).write({k: v for k, v in SKIP.items() if k != "reason"})


def test_several_inputs_are_read_in_order(tmp_path: Path) -> None:
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_bytes(_line({**SKIP, "message": "one"}) + b"\n")
    second.write_bytes(_line({**SKIP, "message": "two"}) + b"\n")
    messages = [line.record["message"] for line in read_lines([str(first), str(second)])]
    assert messages == ["one", "two"]


def _write_whole(target: Path) -> None:
    from bb_core.store import atomic_write

    atomic_write(target, "# report\n")


def _write_streamed(target: Path) -> None:
    from bb_core.store import atomic_output

    with atomic_output(target, sweep=True) as handle:
        handle.write(b"# report\n")


@pytest.mark.parametrize("write", [_write_whole, _write_streamed], ids=["whole", "streamed"])
def test_atomic_write_gives_results_the_usual_permissions(
    tmp_path: Path, write: Callable[[Path], None]
) -> None:
    """Regression: files written through a temporary file were readable by their owner only."""
    import os

    target = tmp_path / "report.md"
    write(target)
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask
    assert target.read_text() == "# report\n"
    assert [p.name for p in tmp_path.iterdir()] == ["report.md"]
