"""Canaries named from a module's own test names must survive the run's ``-k``."""

from __future__ import annotations

from pathlib import Path

from bb_core.canaries import place, selection_words

MODULE = """
def test_flag():
    assert True


def test_deselected_case():
    assert True


def test_deselected_value():
    assert True


def test_deselected_item():
    assert True
"""


def test_the_words_of_k_expressions_are_read_and_nothing_else() -> None:
    assert selection_words(["-k", "not deselected"]) == {"deselected"}
    assert selection_words(["-knot slow_one"]) == {"slow_one"}
    assert selection_words(["-k=foo or bar"]) == {"foo", "bar"}
    assert selection_words(["-p", "no:cacheprovider", "-x", "--keep-duplicates"]) == set()


def test_no_canary_is_named_with_a_word_the_run_deselects(tmp_path: Path) -> None:
    """`-k "not deselected"` in pytest-args voided every oracle run: the canary, now named
    from the words of the module's own tests, was called test_deselected_... and never ran."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_pkg.py").write_text(MODULE)
    for _ in range(20):
        canaries = place(tmp_path, ["tests/test_pkg.py"], avoid=frozenset({"deselected"}))
        names = [*canaries.must_pass, *canaries.must_fail]
        assert len(names) == 2
        assert not any("deselected" in name.split("::")[-1] for name in names), names
        canaries.remove()
    assert (tmp_path / "tests" / "test_pkg.py").read_text() == MODULE
