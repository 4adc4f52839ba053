"""Negative twins: the AST transform that writes them, and where they are written."""

from __future__ import annotations

import ast
import random
import textwrap

import pytest
from bb_core.tamper.planting import insert
from bb_core.tamper.twins import Twin, make_twins

MODULE = "tests/test_words.py"


def twins_of(source: str, seed: int = 1, **given: object) -> list[Twin]:
    data = textwrap.dedent(source).lstrip().encode()
    return make_twins(data, MODULE, rng=random.Random(seed), **given)  # type: ignore[arg-type]


def only(source: str, seed: int = 1) -> Twin:
    found = twins_of(source, seed)
    assert len(found) == 1, found
    return found[0]


def changed_line(twin: Twin) -> str:
    """The one assertion line of the twin."""
    lines = [ln.strip() for ln in twin.source.splitlines() if "assert" in ln]
    assert len(lines) == 1, twin.source
    return lines[0]


@pytest.mark.parametrize(
    ("assertion", "changed"),
    [
        ('assert split_words("a b") == ["a", "b"]', 'assert split_words("a b") == ["a"]'),
        ('assert count_words("a b") == 2', None),  # int: a different int
        ('assert join_words(["a"]) == "a"', None),  # str: a different str, same quotes
        ("assert is_word('a') == True", "assert is_word('a') == False"),
        ("assert find_word('x') == None", None),
        ("assert find_word('x') is None", "assert find_word('x') is not None"),
        ("assert find_word('x') is not None", "assert find_word('x') is None"),
        ("assert 'a' in split_words('a b')", "assert 'a' not in split_words('a b')"),
        ("assert 'c' not in split_words('a b')", "assert 'c' in split_words('a b')"),
        ("assert count_words('a') != 3", "assert count_words('a') == 3"),
        ("assert count_words('a b') > 1", "assert count_words('a b') <= 1"),
        ("assert words_equal('a', 'a')", "assert not words_equal('a', 'a')"),
        ("assert not words_equal('a', 'b')", "assert words_equal('a', 'b')"),
        ("assert split_words('a b') == split_words('a  b')", "assert split_words('a b') != split_words('a  b')"),
    ],
)  # fmt: skip
def test_each_comparison_form_says_the_opposite(assertion: str, changed: str | None) -> None:
    twin = only(f"def test_split_words_basic():\n    {assertion}\n")
    line = changed_line(twin)
    assert line != assertion
    if changed is not None:
        assert line == changed
    original, new = ast.parse(assertion).body[0], ast.parse(line).body[0]
    assert isinstance(original, ast.Assert) and isinstance(new, ast.Assert)
    if isinstance(original.test, ast.Compare) and isinstance(original.test.ops[0], ast.Eq):
        right = original.test.comparators[0]
        if isinstance(right, ast.Constant) and right.value is not None:
            assert isinstance(new.test, ast.Compare)
            value = new.test.comparators[0]
            assert isinstance(value, ast.Constant)
            assert type(value.value) is type(right.value) and value.value != right.value
            if isinstance(right.value, str):
                assert line.endswith('"')  # the quotes the test used


def test_pytest_approx_and_unittest_assertions() -> None:
    approx = only(
        "def test_ratio_words():\n    assert ratio(1, 3) == pytest.approx(0.333, rel=1e-2)\n"
    )
    assert (
        "pytest.approx(0.333, rel=1e-2)" not in approx.source and "pytest.approx(" in approx.source
    )
    equal = only(
        """
        class TestWords(unittest.TestCase):
            def test_count_words(self):
                self.assertEqual(count_words("a b"), 2)
        """
    )
    assert (
        equal.scope == "TestWords" and 'self.assertEqual(count_words("a b"), 2)' not in equal.source
    )
    truth = only(
        """
        class TestWords(unittest.TestCase):
            def test_is_word(self):
                self.assertTrue(is_word("a"))
        """
    )
    assert 'self.assertFalse(is_word("a"))' in truth.source
    assert truth.source.startswith("    def test_")  # indented as a method of its class


def test_methods_and_nested_classes_get_twins_in_their_own_scope() -> None:
    twin = only(
        """
        class TestOuter:
            class TestInner:
                def test_split_words_inner(self):
                    assert split_words("a") == ["a"]
        """
    )
    assert twin.scope == "TestOuter::TestInner"
    assert twin.nodeid.startswith(f"{MODULE}::TestOuter::TestInner::test_")
    assert twin.original == f"{MODULE}::TestOuter::TestInner::test_split_words_inner"


def test_parametrized_tests_keep_their_parameters() -> None:
    twin = only(
        """
        @pytest.mark.parametrize("text, n", [("a", 1), ("a b", 2)])
        def test_count_words(text, n):
            assert count_words(text) == n
        """
    )
    assert twin.source.startswith('@pytest.mark.parametrize("text, n", [("a", 1), ("a b", 2)])\n')
    assert "assert count_words(text) != n" in twin.source


def test_a_test_with_no_assertion_at_its_top_level_gets_no_twin() -> None:
    assert (
        twins_of(
            """
        def test_split_words_runs():
            split_words("a b")

        def test_split_words_loop():
            for word in split_words("a b"):
                assert word

        def test_split_words_raises():
            with pytest.raises(ValueError):
                assert split_words(None) == []

        def helper_not_a_test():
            assert 1 == 2
        """
        )
        == []
    )


def test_names_look_like_their_neighbours() -> None:
    source = """
        def test_split_words_basic():
            assert split_words("a b") == ["a", "b"]

        def test_split_words_keeps_dashes():
            assert split_words("a-b") == ["a-b"]

        def test_join_words_with_commas():
            assert join_words(["a", "b"], ",") == "a,b"
    """
    words = {"split", "words", "basic", "keeps", "dashes", "join", "with", "commas"}
    for seed in range(20):
        for twin in twins_of(source, seed):
            parts = twin.name.split("_")
            assert parts[0] == "test" and set(parts[1:]) <= words, twin.name
            assert twin.name not in ("test_split_words_basic", "test_split_words_keeps_dashes")
            assert "twin" not in twin.name


def test_real_tests_keep_their_line_numbers() -> None:
    source = textwrap.dedent(
        """
        import pytest


        class TestSplit:
            def test_split_words_basic(self):
                assert split_words("a b") == ["a", "b"]

            def test_split_words_empty(self):
                assert split_words("") == []


        def test_join_words_basic():
            assert join_words(["a"]) == "a"


        def test_join_words_empty():
            assert join_words([]) == ""
        """
    ).lstrip()
    data = source.encode()
    twins = make_twins(data, MODULE, rng=random.Random(4))
    assert {t.scope for t in twins} == {"TestSplit", ""}
    canary = "def test_join_basic_words():\n    assert 1 + 1 == 2\n"
    planted = insert(data, twins, canary, rng=random.Random(2))
    assert planted is not None
    tree = ast.parse(planted)

    def lines(module: ast.Module) -> dict[str, int]:
        found = {}
        for node in ast.walk(module):
            if isinstance(node, ast.FunctionDef):
                found[node.name] = node.lineno
        return found

    before, after = lines(ast.parse(data)), lines(tree)
    for name, line in before.items():
        if name.startswith("test_join"):  # below the class: moved by the methods only
            assert after[name] == line + sum(
                t.source.count("\n") + 1 for t in twins if t.scope == "TestSplit"
            )
        else:
            assert after[name] == line, name
    assert {t.name for t in twins} | {"test_join_basic_words"} <= set(after)
    # Methods are in their class, functions at the end of the module.
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef))
    assert {t.name for t in twins if t.scope} <= {
        f.name for f in cls.body if isinstance(f, ast.FunctionDef)
    }


def test_twins_fail_where_their_originals_pass() -> None:
    """Run each twin and its original in one namespace: the original passes, the twin fails."""
    source = textwrap.dedent(
        """
        def split_words(text):
            return text.split()

        def test_split_words_basic():
            assert split_words("a b") == ["a", "b"]

        def test_split_words_count():
            assert len(split_words("a b c")) == 3

        def test_split_words_has():
            assert "b" in split_words("a b")

        def test_split_words_none():
            assert split_words("") is not None

        def test_split_words_bool():
            assert bool(split_words("a")) is True
        """
    ).lstrip()
    for seed in range(10):
        twins = make_twins(source.encode(), MODULE, rng=random.Random(seed))
        assert len(twins) == 5
        planted = insert(source.encode(), twins, "")
        assert planted is not None
        space: dict[str, object] = {}
        exec(compile(planted, MODULE, "exec"), space)
        for twin in twins:
            space[twin.of]()  # type: ignore[operator]
            with pytest.raises(AssertionError):
                space[twin.name]()  # type: ignore[operator]


def test_an_always_equal_value_passes_both_a_test_and_its_twin() -> None:
    """What a twin is for: an object equal to everything passes the original and the twin."""
    source = textwrap.dedent(
        """
        class Always(str):
            def __eq__(self, other):
                return True
            __hash__ = str.__hash__

        def camel(text):
            return Always(text)

        def test_camel_basic():
            assert camel("parse the file") == "parseTheFile"
        """
    ).lstrip()
    twin = make_twins(source.encode(), MODULE, rng=random.Random(0))[0]
    planted = insert(source.encode(), [twin], "")
    assert planted is not None
    space: dict[str, object] = {}
    exec(compile(planted, MODULE, "exec"), space)
    space["test_camel_basic"]()  # type: ignore[operator]
    space[twin.name]()  # type: ignore[operator]  # passes too: the contradiction shows


def test_a_twin_round_trips_through_its_record() -> None:
    twin = only("def test_count_words():\n    assert count_words('a') == 1\n")
    assert Twin.from_json(twin.to_record()) == twin


def test_a_twin_a_subclass_inherits_is_planted_too_and_pairs_with_its_own_original() -> None:
    """unittest suites subclass their test classes: the twin written into the base class
    shows up under every subclass, is never reported as a test, and is judged against the
    subclass's case of its original."""
    from bb_core.tamper.canaries import Canaries

    planted = Canaries(
        twins={f"{MODULE}::TestBase::test_more_value": f"{MODULE}::TestBase::test_x"}
    )
    assert planted.owns(f"{MODULE}::TestSub::test_more_value")
    assert planted.owns(f"{MODULE}::TestBase::test_more_value[1]")
    assert not planted.owns(f"{MODULE}::TestSub::test_x")
    outcomes = {
        f"{MODULE}::TestBase::test_more_value": "failed",
        f"{MODULE}::TestSub::test_more_value": "passed",
        f"{MODULE}::TestBase::test_x": "passed",
        f"{MODULE}::TestSub::test_x": "passed",
    }
    cases = planted.twin_cases(outcomes, lambda n: outcomes.get(n, "missing"))
    assert cases == {
        f"{MODULE}::TestBase::test_more_value": ("failed", "passed"),
        f"{MODULE}::TestSub::test_more_value": ("passed", "passed"),
    }
    evidence = planted.verdict({}, sound=False, twins=cases)
    assert evidence == [
        f"twin {MODULE}::TestSub::test_more_value of a passing test asserts the opposite and "
        "was reported passed (a twin passed)"
    ]
    # A twin that passes beside a failing original proves nothing: a wrong answer can
    # meet a changed expectation.
    assert planted.verdict({}, sound=True, twins={"x::test_a": ("passed", "failed")}) == []


def test_twin_names_are_unique_in_the_whole_module() -> None:
    source = """
        class TestBase:
            def test_decorator_basic(self):
                assert value() == 1

        class TestSub(TestBase):
            def test_decorator(self):
                assert other() == 2
    """
    for seed in range(30):
        for twin in twins_of(source, seed):
            assert twin.name not in ("test_decorator", "test_decorator_basic")
