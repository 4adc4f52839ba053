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


def test_a_module_parsed_whole_is_never_extended() -> None:
    """A cut inside a string makes the pieces unparseable: the whole module is parsed."""
    whole = b'TEXT = """\ndef test_fake():\n"""\n\n\ndef test_real():\n    pass\n'
    previous = collect_module(whole, "before")
    assert previous.pieces is None and list(previous.tests) == ["test_real"]
    after = whole + b"\n\ndef test_more():\n    pass\n"
    assert list(collect_module(after, "after", previous).tests) == ["test_real", "test_more"]
