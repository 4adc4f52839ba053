"""A long test class read member by member gives exactly what reading it whole gives."""

from __future__ import annotations

import re
from typing import Any

import pytest
from bb_mine import tests_added
from bb_mine.members import member_cuts
from bb_mine.pieces import cut_at_margin
from bb_mine.tests_added import Unparseable, collect_module, compare


def _long_class(extra: bytes = b"", *, decorator: bytes = b"") -> bytes:
    methods = b"".join(
        b"    def test_m%d(self):\n        assert %d\n\n" % (n, n) for n in range(30)
    )
    return (
        b"import pytest\n\n\n"
        + decorator
        + b"class TestLong:\n"
        + b'    """Many tests."""\n\n    LIMIT = 3\n\n'
        + methods
        + b'    @pytest.mark.parametrize("x", [1, 2])\n'
        + b"    @pytest.mark.slow\n"
        + b"    def test_cases(self, x):\n        assert x\n\n"
        + b"    class TestInner:\n        def test_deep(self):\n            assert 0\n\n"
        + b"    def helper(self):\n        pass\n"
        + extra
    )


def _view(source: bytes) -> list[tuple[str, Any, bytes, str]]:
    return [
        (q, sorted(t.cases), t.text, t.fingerprint)
        for q, t in collect_module(source, "m").tests.items()
    ]


def _whole(source: bytes, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Any, bytes, str]]:
    with monkeypatch.context() as patch:
        patch.setattr(tests_added, "MIN_LINES", 10**9)
        patch.setattr(tests_added, "_PIECES", type(tests_added._PIECES)())
        return _view(source)


SOURCES = {
    "plain": _long_class(),
    "class decorator": _long_class(
        decorator=b'@pytest.mark.parametrize("y", [7, 8])\n@pytest.mark.skip\n'
    ),
    "name defined again": _long_class(b"\n    def test_m3(self):\n        assert 'again'\n"),
    "line at the margin in a string": _long_class(
        b'\n    def test_text(self):\n        assert """\nx\n"""\n'
    ),
    "cut inside a string": _long_class(
        b'\n    def test_doc(self):\n        """\n    def test_fake(self):\n        """\n'
    ),
    "not a test class": _long_class().replace(b"class TestLong:", b"class Helpers:"),
    "unittest class": _long_class().replace(b"class TestLong:", b"class Long(unittest.TestCase):"),
    "code after the class": _long_class(b"\nX = 1\nif X:\n    def test_hidden():\n        pass\n"),
    "main guard after the class": _long_class(
        b'\n\nif __name__ == "__main__":\n    pytest.main()\n'
    ),
    "tabs": _long_class().replace(b"    ", b"\t"),
}


@pytest.mark.parametrize("name", list(SOURCES))
def test_members_read_alone_match_the_class_read_whole(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = SOURCES[name]
    assert _view(source) == _whole(source, monkeypatch)


def test_a_long_class_is_read_by_members_and_one_edit_reads_one_member() -> None:
    source = _long_class()
    piece = tests_added.cut_pieces(source)[0][-1]  # type: ignore[index]
    assert tests_added._class_tests(piece, tests_added.DEFAULT) is not None
    before = collect_module(source, "before").tests
    edited = source.replace(b"assert 7\n", b"assert 7 == 7\n")
    after = collect_module(edited, "after").tests
    shared = [q for q in after if after[q] is before[q]]
    assert len(shared) == len(after) - 1  # every other member came from the memo
    assert compare(before, after, "m.py") == ([], [], ["m.py::TestLong::test_m7"])


def test_a_member_that_does_not_parse_still_fails_the_whole_module() -> None:
    broken = _long_class(b"\n    def test_(self:\n        pass\n")
    with pytest.raises(Unparseable):
        collect_module(broken, "m")


def test_code_after_the_class_leaves_it_whole_and_a_string_at_the_margin_does_not() -> None:
    after = tests_added.cut_pieces(SOURCES["code after the class"])[0][1]  # type: ignore[index]
    assert tests_added._class_tests(after, tests_added.DEFAULT) is None
    for name in ("line at the margin in a string", "main guard after the class"):
        piece = tests_added.cut_pieces(SOURCES[name])[0][1]  # type: ignore[index]
        assert tests_added._class_tests(piece, tests_added.DEFAULT) is not None, name


_MARGIN_CUT = re.compile(rb"^(?=def |async def |class |@)", re.MULTILINE)
_MEMBER = re.compile(rb"([ \t]+)(?:def |async def |class |@)")

_SOURCES = [
    b"",
    b"@",
    b"def f(): pass\n",
    b"\ndef f(): pass\n@x\nclass C:\n    pass\n",
    b"x = 1\r\ndef f():\r\n    pass\r\nasync def g(): pass\nclass\n@\n",
    b"s = '''\ndef inside():\n'''\n\n\n@a\n@b\ndef f():\n    '\\n@'\n",
    _long_class(b"\tdef tabbed(self): pass\n  \t@odd\n    async def test_a(self):\n        pass\n"),
    _long_class(b"\n\nclass After:\n    def test_x(self):\n        pass\n", decorator=b"@d\n"),
]


@pytest.mark.parametrize("source", _SOURCES)
def test_cutting_at_the_margin_is_the_multiline_split(source: bytes) -> None:
    assert cut_at_margin(source) == _MARGIN_CUT.split(source)


@pytest.mark.parametrize("source", _SOURCES)
def test_member_cuts_find_what_the_member_pattern_finds(source: bytes) -> None:
    """The cuts read with plain string tests, against the pattern they replace."""
    lines = source.splitlines()
    for begin in range(len(lines)):
        for margin in (True, False):
            assert member_cuts(lines, begin, len(lines), margin=margin) == _by_pattern(
                lines, begin, len(lines), margin=margin
            )


def _by_pattern(
    lines: list[bytes], begin: int, end: int, *, margin: bool
) -> tuple[bytes, list[int]] | None:
    start = next((i for i in range(begin, end) if lines[i].startswith(b"class ")), None)
    if start is None or (start > begin and not lines[begin].startswith(b"@")):
        return None
    indent: bytes | None = None
    cuts: list[int] = []
    decorating = False
    margins: list[int] = []
    for index in range(start + 1, end):
        line = lines[index]
        found = _MEMBER.match(line)
        if found is None:
            if line[:1] not in (b" ", b"\t", b"#") and line.strip():
                margins.append(index)
            continue
        if indent is None:
            indent = found.group(1)
        if found.group(1) != indent:
            continue
        if not decorating:
            cuts.append(index)
        decorating = line[len(indent) :].startswith(b"@")
    if indent is None or not cuts:
        return None
    if not margin and any(cuts[0] < index < cuts[-1] for index in margins):
        return None
    return indent, cuts
