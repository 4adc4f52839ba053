"""Statements keep the symptom and drop the solution: sentences carrying the fix's code,
naming its test files or telling the change, on tenacity's commit messages as written."""

from __future__ import annotations

import pytest
from bb_mine.redact import redact
from bb_mine.statements import Statement, choose
from bb_mine.symbols import modified_names

ORDINAL_BEFORE = """\
def find_ordinal(pos_num: int) -> str:
    # See: https://en.wikipedia.org/wiki/English_numerals#Ordinal_numbers
    if pos_num == 0:
        return "th"
"""
ORDINAL_AFTER = ORDINAL_BEFORE.replace(
    "_numbers\n", '_numbers\n\n    if 11 <= (pos_num % 100) <= 13:\n        return "th"\n\n'
)
ORDINAL_PATCH = """\
--- a/tenacity/_utils.py
+++ b/tenacity/_utils.py
@@ -1,4 +1,8 @@
 def find_ordinal(pos_num: int) -> str:
     # See: https://en.wikipedia.org/wiki/English_numerals#Ordinal_numbers
+
+    if 11 <= (pos_num % 100) <= 13:
+        return "th"
+
     if pos_num == 0:
         return "th"
"""
#: tenacity 0bdf1d9e5f's body: redaction removed nothing.
ORDINAL_BODY = """\
The `find_ordinal` utility incorrectly assigned "st", "nd", and "rd" suffixes to numbers \
greater than 20 that end in 11, 12, or 13 (e.g., 111 became "111st").

This commit modifies the logic to check `pos_num % 100` for the 11–13 range before falling \
back to the modulo 10 recursion. This ensures consistent "th" suffixes for these edge cases \
(e.g., "111th", "112th").

New regression tests have been added to `tests/test_utils.py` to cover these scenarios."""


def test_tenacity_ordinals_keeps_the_symptom_and_drops_the_change() -> None:
    names = modified_names(
        [("tenacity/_utils.py", ORDINAL_BEFORE.encode(), ORDINAL_AFTER.encode())], "tenacity"
    )
    result = redact(ORDINAL_BODY, names, ORDINAL_PATCH, tests=["tests/test_utils.py"])
    assert result.text == (
        'The `find_ordinal` utility incorrectly assigned "st", "nd", and "rd" suffixes to '
        'numbers greater than 20 that end in 11, 12, or 13 (e.g., 111 became "111st").\n\n'
        'This ensures consistent "th" suffixes for these edge cases (e.g., "111th", "112th").'
    )
    assert [r["rule"] for r in result.removed] == ["code_sentences", "locating_sentences"]
    assert "pos_num % 100" in result.removed[0]["text"]


PICKLE_PATCH = """\
--- a/tenacity/__init__.py
+++ b/tenacity/__init__.py
@@ -10,3 +10,11 @@ class BaseRetrying(ABC):
         self._local = threading.local()

+    def __getstate__(self) -> dict[str, t.Any]:
+        # Exclude threading.local which cannot be pickled
+        return {k: v for k, v in self.__dict__.items() if k != "_local"}
+
+    def __setstate__(self, state: dict[str, t.Any]) -> None:
+        self.__dict__.update(state)
+        self._local = threading.local()
+
"""
#: tenacity cb320c4d80, trailers removed.
PICKLE_TITLE = "fix: make Retrying and retry strategies picklable for multiprocessing (#615)"
PICKLE_BODY = """\
Add __getstate__/__setstate__ to BaseRetrying to exclude the unpicklable
threading.local object during serialization. Replace lambdas in retry
strategy classes with bound methods so they can be pickled with standard
pickle.

Fixes #147"""


def test_tenacity_pickling_falls_back_to_its_title() -> None:
    """The body kept "Add __getstate__/__setstate__ to BaseRetrying ...": all of it is the
    change, so the title is the statement."""
    found = [
        Statement(PICKLE_TITLE, PICKLE_BODY, "commit", kind="commit-message"),
        Statement(PICKLE_TITLE, "", "commit", kind="title"),
    ]
    dropped: list[dict[str, str]] = []
    chosen, _fallbacks = choose(found, [], PICKLE_PATCH, dropped=dropped)
    assert chosen is not None and chosen.statement.kind == "title"
    assert chosen.redacted.text == PICKLE_TITLE
    assert [(d["kind"], d["rule"]) for d in dropped] == [
        ("commit-message", "code_sentences"),
        ("commit-message", "prescribing_sentences"),
    ]
    assert "__getstate__" in dropped[0]["text"]


STATISTICS_PATCH = """\
--- a/tenacity/__init__.py
+++ b/tenacity/__init__.py
@@ -20,2 +20,3 @@ class BaseRetrying(ABC):
             copy = self.copy()
+            self._local.statistics = copy.statistics
             return copy(*args, **kw)
"""
#: tenacity 4c1b7bc781, trailers removed.
STATISTICS_BODY = """\
Fixes #613

func.retry.statistics was always empty because func.retry points to
the original Retrying object, but begin() (which populates statistics)
is only called on the per-invocation copy. Fix by pointing the
original's _local.statistics to the copy's statistics dict so they
share the same object."""


def test_tenacity_statistics_drops_fix_by() -> None:
    result = redact(STATISTICS_BODY, ["BaseRetrying.wraps"], STATISTICS_PATCH)
    assert "Fix by" not in result.text
    assert "func.retry.statistics was always empty" in result.text
    assert result.counts["code_sentences"] == 1


@pytest.mark.parametrize(
    ("sentence", "rule"),
    [
        ("It now checks `pos_num % 100` first.", "code_sentences"),
        ("It now checks pos_num % 100 first.", "code_sentences"),
        ("The guard 'if 11 <= (pos_num' was missing.", "code_sentences"),
        ("Fix by pointing the copy at the original.", "prescribing_sentences"),
        ("This commit modifies the logic to check the range first.", "prescribing_sentences"),
        ("Add a range check to find_ordinal so 111 works.", "prescribing_sentences"),
        ("New regression tests have been added to cover these scenarios.", "prescribing_sentences"),
        ("Tests were added for 111 and 112.", "prescribing_sentences"),
        ("See tests/test_utils.py for the cases.", "locating_sentences"),
        ("test_utils covers it.", "locating_sentences"),
    ],
)
def test_what_tells_the_fix(sentence: str, rule: str) -> None:
    result = redact(f"find_ordinal(111) returns '111st'.\n\n{sentence}", [], ORDINAL_PATCH,
                    tests=["tests/test_utils.py"])  # fmt: skip
    assert result.text == "find_ordinal(111) returns '111st'."
    assert [r["rule"] for r in result.removed] == [rule]


@pytest.mark.parametrize(
    "sentence",
    [
        "find_ordinal(111) returns '111st' instead of '111th'.",  # a public name: the symptom
        "Numbers ending in 11, 12 or 13 get the wrong suffix.",  # numbers alone are no code
        "It raises TypeError instead of returning th.",  # a builtin the fix may raise
        "The number of words is wrong.",  # plain words
    ],
)
def test_the_symptom_stays(sentence: str) -> None:
    assert redact(sentence, ["find_ordinal"], ORDINAL_PATCH).text == sentence


def test_a_title_that_says_add_is_no_account_of_the_change() -> None:
    title = "Add gender support for ordinals"
    assert redact(title, [], ORDINAL_PATCH, title=True).text == title


def test_a_fix_left_without_a_symptom_is_kept_flagged_thin_only_when_asked() -> None:
    title = "Check pos_num % 100 (#5)"  # its title is the fix's code
    found = [
        Statement(title, "Fix by checking the hundreds first.", "commit", kind="commit-message"),
        Statement(title, "", "commit", kind="title"),
    ]
    chosen, fallbacks = choose(found, [], ORDINAL_PATCH)
    assert chosen is None and [f["kind"] for f in fallbacks] == ["commit-message", "title"]
    found[0] = Statement("Ordinals (#5)", "Fix by checking the hundreds first.", "commit",
                         kind="commit-message")  # fmt: skip
    chosen, _ = choose(found, [], ORDINAL_PATCH, keep_thin=True)
    assert chosen is not None and chosen.thin and chosen.redacted.text == "Ordinals (#5)"


def test_a_traceback_in_prose_keeps_the_old_code() -> None:
    """The error shows the line the fix changes; written as prose (a commit body), it is the
    symptom and stays, while a sentence quoting the same line is dropped."""
    patch = (
        "--- a/pkg/cache.py\n+++ b/pkg/cache.py\n@@ -1,2 +1,2 @@\n def get(self, key):\n"
        "-    return self._store[key]\n+    return self._store.get(key)\n"
    )
    traceback = (
        "Traceback (most recent call last):\n"
        '  File "app.py", line 3, in <module>\n'
        "    return self._store[key]\n"
        "KeyError: 'a'"
    )
    text = f"Reading a missing key raises.\n\n{traceback}\n\nIt did self._store[key] blindly."
    result = redact(text, [], patch)
    assert result.text == f"Reading a missing key raises.\n\n{traceback}"
    assert [r["rule"] for r in result.removed] == ["code_sentences"]


def test_a_name_the_tests_call_is_the_interface_not_the_answer() -> None:
    patch = (
        "--- a/pkg/counting.py\n+++ b/pkg/counting.py\n@@ -1,2 +1,5 @@\n"
        "+def split_words(text):\n+    return _WORD.findall(text)\n+\n"
        " def word_count(text):\n-    return len(text.split())\n+    return len(split_words(text))\n"
    )
    tests = (
        "--- /dev/null\n+++ b/tests/test_tokens.py\n@@ -0,0 +1,2 @@\n"
        "+from pkg.counting import split_words\n+assert split_words('a - b') == ['a', 'b']\n"
    )
    asks = "It would help to have the tokenizer public, as `split_words(text)`."
    text = f"Lone punctuation counts as a word.\n\n{asks}"
    found = [Statement("Lone punctuation (#21)", text, "export", kind="issue")]
    chosen, _ = choose(found, [], patch, test_patch=tests)
    assert chosen is not None and asks in chosen.redacted.text
    chosen, _ = choose(found, [], patch)  # without the tests, it is the fix's own name
    assert chosen is not None and asks not in chosen.redacted.text
