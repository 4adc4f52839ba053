"""Canaries named from a module's own test names must survive the run's ``-k`` and never
share a name with a twin or a test of the module."""

from __future__ import annotations

from pathlib import Path

import bb_core.tamper.canaries as canaries_module
import pytest
from bb_core.tamper.canaries import place, selection_words
from bb_core.tamper.twins import Twin

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


def _twin(name: str, of: str) -> Twin:
    source = f"def {name}():\n    assert 1 == 2\n"
    return Twin(module="tests/test_pkg.py", scope="", name=name, of=of, source=source)


def test_a_canary_is_never_named_like_a_twin_beside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A must-pass canary that drew a twin's name took the twin's failing outcome (and a
    twin that drew a canary's, the canary's passing one): honest runs were voided."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_pkg.py").write_text(MODULE)
    # The words drawn: the variable's, then the twin's name for the first canary (drawn
    # again), then the canaries' own.
    drawn = iter(["value", "item", "case", "item", "item", "case", "case", "value"])
    monkeypatch.setattr(canaries_module.secrets, "choice", lambda pool: next(drawn))
    monkeypatch.setattr(canaries_module.secrets, "randbelow", lambda n: 0)
    twin = _twin("test_case_item", "test_flag")
    canaries = place(tmp_path, ["tests/test_pkg.py"], twins=[twin])
    names = [n.split("::")[-1] for n in (*canaries.must_pass, *canaries.must_fail)]
    assert canaries.twins == {twin.nodeid: twin.original}
    assert len(names) == 2 and twin.name not in names, names
    text = (tmp_path / "tests" / "test_pkg.py").read_text()
    assert [line for line in text.splitlines() if line.startswith("def ")].count(
        "def test_case_item():"
    ) == 1
    canaries.remove()


def test_a_twin_named_like_a_test_of_the_module_is_left_out(tmp_path: Path) -> None:
    """In cross-examination a twin of the base tree's module is planted into an author's
    version of it, which may define a test of the same name."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_pkg.py").write_text(MODULE)
    clash, fresh = _twin("test_deselected_item", "test_flag"), _twin("test_flag_new", "test_flag")
    canaries = place(tmp_path, ["tests/test_pkg.py"], twins=[clash, fresh])
    assert canaries.twins == {fresh.nodeid: fresh.original}
    text = (tmp_path / "tests" / "test_pkg.py").read_text()
    assert text.count("def test_deselected_item():") == 1
    assert "def test_flag_new():\n    assert 1 == 2" in text
    canaries.remove()
    assert (tmp_path / "tests" / "test_pkg.py").read_text() == MODULE
