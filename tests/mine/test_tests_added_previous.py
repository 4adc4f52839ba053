"""Collecting a test module from its earlier version gives what collecting it afresh gives."""

from __future__ import annotations

import pytest
from bb_mine.tests_added import Unparseable, collect_module

BASE = b"""import pytest


def test_one():
    assert 1


@pytest.mark.parametrize("x", [1, 2])
def test_two(x):
    assert x


class TestThree:
    def test_method(self):
        assert 3
"""

AFTER = {
    "test appended": BASE + b"\n\ndef test_four():\n    assert 4\n",
    "case appended": BASE.replace(b"[1, 2]", b"[1, 2, 3]"),
    "method appended": BASE + b"\n    def test_other(self):\n        assert 5\n",
    "test inserted": BASE.replace(b"\n\nclass", b"\n\ndef test_mid():\n    pass\n\n\nclass"),
    "name defined again": BASE + b"\n\ndef test_one():\n    assert 'again'\n",
    "blank lines only": BASE + b"\n\n\n",
    "test removed": BASE.split(b"\n\nclass")[0] + b"\n",
}


@pytest.mark.parametrize("change", list(AFTER))
def test_reading_from_the_previous_version_changes_nothing(change: str) -> None:
    previous = collect_module(BASE, "before")
    fresh = collect_module(AFTER[change], "after")
    reused = collect_module(AFTER[change], "after", previous)
    assert list(reused.tests) == list(fresh.tests)
    for qualname, test in fresh.tests.items():
        assert reused.tests[qualname].cases == test.cases
        assert reused.tests[qualname].fingerprint == test.fingerprint


def test_tests_added_at_the_end_are_the_only_ones_read() -> None:
    previous = collect_module(BASE, "before")
    reused = collect_module(AFTER["test appended"], "after", previous)
    assert list(reused.tests) == [*previous.tests, "test_four"]
    assert all(reused.tests[q] is previous.tests[q] for q in previous.tests)


def test_a_new_piece_that_does_not_parse_still_fails_the_whole_module() -> None:
    previous = collect_module(BASE, "before")
    with pytest.raises(Unparseable, match="after"):
        collect_module(BASE + b"\n\ndef test_(:\n", "after", previous)


def test_a_cut_inside_a_string_is_read_with_the_pieces_after_it() -> None:
    """Code at the margin inside a string is cut like a test: that piece does not parse
    alone, so it is read with the next one, as the module's own text; no test is made of
    the string, and the module so read is extended like any other."""
    whole = b'TEXT = """\ndef test_fake():\n"""\n\n\ndef test_real():\n    pass\n'
    previous = collect_module(whole, "before")
    assert previous.pieces is not None and list(previous.tests) == ["test_real"]
    after = whole + b"\n\ndef test_more():\n    pass\n"
    extended = collect_module(after, "after", previous)
    assert list(extended.tests) == ["test_real", "test_more"]
    assert extended.tests["test_real"] is previous.tests["test_real"]
    texts = {q: c.text for q, c in extended.tests.items()}
    assert texts == {q: c.text for q, c in collect_module(after, "again").tests.items()}
    assert texts["test_real"] == b"def test_real():\n    pass"
