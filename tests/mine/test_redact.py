"""Redaction: each rule removes what was written with the fix in hand, and counts it."""

from __future__ import annotations

import pytest
from bb_mine.redact import RULES, redact, sentence_count
from bb_mine.symbols import file_names, modified_names

SYMPTOM = "Parsing an empty file raises IndexError."


@pytest.mark.parametrize(
    "section",
    [
        "## Solution\n\nCheck the length first.\n",
        "### Proposed fix\nCheck the length first.\n",
        "Fix\n---\n\nCheck the length first.\n",
        "**Changes**\n\nCheck the length first.\n",
        "Implementation:\nCheck the length first.\n",
        "Solution: check the length first.\n",
        "## Root cause\n\nThe length is never checked first.\n",
    ],
    ids=["atx", "atx-no-gap", "setext", "bold", "label-line", "inline-label", "root-cause"],
)
def test_sections_describing_the_fix_are_removed(section: str) -> None:
    text = f"{SYMPTOM}\n\n{section}\n## Environment\n\nPython 3.11\n"
    result = redact(text)
    assert "length" not in result.text
    assert result.text.startswith(SYMPTOM)
    assert "Python 3.11" in result.text
    assert result.counts == {**dict.fromkeys(RULES, 0), "fix_sections": 1}
    assert result.removed[0]["rule"] == "fix_sections"
    assert "length" in result.removed[0]["text"]


def test_a_section_ends_at_a_heading_of_its_level_not_at_a_subheading() -> None:
    text = "## Solution\n\nStep one.\n\n### Details\n\nStep two.\n\n## Versions\n\n1.0\n"
    assert redact(text).text == "## Versions\n\n1.0"


def test_other_sections_and_code_are_kept() -> None:
    text = f"## Steps\n\n```python\nparse('')\n```\n\n## Expected\n\n{SYMPTOM}\n"
    result = redact(text)
    assert result.text == text.strip()
    assert sum(result.counts.values()) == 0


@pytest.mark.parametrize(
    "block",
    [
        "```diff\n-a\n+b\n```",
        "```patch\n-a\n+b\n```",
        "~~~\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n~~~",
        "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b",
    ],
    ids=["fenced-diff", "fenced-patch", "fenced-unmarked", "unfenced"],
)
def test_diff_and_patch_blocks_are_removed(block: str) -> None:
    result = redact(f"{SYMPTOM}\n\n{block}\n\nThanks.\n")
    assert result.text == f"{SYMPTOM}\n\nThanks."
    assert result.counts["diff_blocks"] == 1


def test_a_diff_inside_a_fix_section_counts_under_both_rules() -> None:
    result = redact(f"{SYMPTOM}\n\n## Solution\n\n```diff\n-a\n+b\n```\n")
    assert result.text == SYMPTOM
    assert result.counts == {**dict.fromkeys(RULES, 0), "fix_sections": 1, "diff_blocks": 1}


NAMES = [
    "parse_header",
    "Parser",
    "Parser.feed",
    "Parser._reset",
    "_Base.__get__",
    "_guard",
    "feed",
    "src/pkg/reader.py",
    "reader.py",
    "pkg.reader",
]


@pytest.mark.parametrize(
    ("sentence", "rule"),
    [
        ("It lives in src/pkg/reader.py somewhere.", "locating_sentences"),
        ("It lives in reader.py.", "locating_sentences"),
        ("Importing pkg.reader shows it.", "locating_sentences"),
        ("The helper `_guard` forgets the length.", "locating_sentences"),
        ("Parser._reset() keeps state.", "locating_sentences"),
        ("Inspecting it in _Base fails.", "locating_sentences"),
        ("The bug is in the header parser.", "prescribing_sentences"),
        ("The problem lies in how lines are split.", "prescribing_sentences"),
        ("Change the separator to a colon.", "prescribing_sentences"),
        ("It should use `partition` here.", "prescribing_sentences"),
        ("Replace the split with a regular expression.", "prescribing_sentences"),
        ("Just use rsplit instead of split.", "prescribing_sentences"),
        ("This is caused by the missing guard.", "prescribing_sentences"),
        ("The fix is to check the length.", "prescribing_sentences"),
        # a pull request's or commit's own account of what it does (pyjwt 412cb67a93)
        ("This adds an explicit close() call in the handler.", "prescribing_sentences"),
        ("Also adds a changelog entry for the close fix.", "prescribing_sentences"),
        ("This PR makes the reader skip empty lines.", "prescribing_sentences"),
        ("This moves the alias lookup before the transformer call.", "prescribing_sentences"),
        ("This makes the reader crash on empty lines.", None),
        # what it fixes is the problem, said by the one who fixed it: it stays
        ("This change fixes unpacking a tuple when the type is a variable.", None),
        # What the user calls, and what it does, is the symptom: it stays.
        ("parse_header('a:b:c') returns three parts instead of two.", None),
        ("Calling `Parser.feed` twice breaks.", None),
        ("The Parser class keeps state.", None),
        ("pkg.reader.parse_header('') raises.", None),
        ("It should be 5 long including the ellipsis.", None),
        ("The header is wrong.", None),
    ],
)
def test_sentences_that_locate_or_prescribe_the_fix_are_removed(
    sentence: str, rule: str | None
) -> None:
    text = f"{SYMPTOM} {sentence} Seen on Linux."
    result = redact(text, NAMES)
    assert (sentence not in result.text) is (rule is not None)
    assert SYMPTOM in result.text and "Seen on Linux." in result.text
    if rule is None:
        assert sum(result.counts.values()) == 0 and result.removed == []
    else:
        assert result.counts[rule] == 1
        assert result.removed == [{"rule": rule, "text": sentence}]


def test_an_issue_whose_every_sentence_names_the_patched_function_keeps_its_reproduction() -> None:
    text = (
        "word_count('') returns 1 instead of 0, and 'a  b' counts 3 words.\n\n"
        "```\n>>> word_count('a  b')\n3\n```\n"
    )
    result = redact(text, ["word_count", "src/demo/text.py", "text.py", "demo.text"])
    assert result.text == text.strip()
    assert sum(result.counts.values()) == 0
    assert sentence_count(result.text) == 2


PATCH = """\
--- a/src/pkg/reader.py
+++ b/src/pkg/reader.py
@@ -1,2 +1,2 @@
 def parse_header(text):
-    return text.split(":")
+    return text.split(":", 1)
"""


def test_code_blocks_writing_out_the_fix_go_and_tracebacks_of_the_old_code_stay() -> None:
    fix = '```python\nreturn text.split(":", 1)\n```'
    traceback = '```\n  File "reader.py", line 2\n    return text.split(":")\nValueError\n```'
    result = redact(f"{SYMPTOM}\n\n{traceback}\n\nTry this:\n\n{fix}\n", NAMES, PATCH)
    assert traceback in result.text and fix not in result.text
    assert result.counts["patch_code"] == 1
    assert result.removed[0] == {"rule": "patch_code", "text": fix}


def test_removed_sentences_in_lists_and_wrapped_paragraphs() -> None:
    text = (
        "The parser fails\non long lines. Then the bug\nis in _guard here.\n\n"
        "- _guard() is slow.\n- It happens daily.\n\n```\n_guard('x')\n```\n"
    )
    result = redact(text, ["_guard"])
    # A paragraph that lost a sentence is joined onto one line; code is never touched.
    assert (
        result.text
        == "The parser fails on long lines.\n\n- It happens daily.\n\n```\n_guard('x')\n```"
    )
    assert result.counts["locating_sentences"] == 2


OLD = b"""\
class Parser:
    limit = 10

    def feed(self, data):
        return data[0]

    def close(self):
        pass


def parse_header(text):
    return text.split(":")
"""

NEW = b"""\
class Parser:
    limit = 10

    def feed(self, data):
        return data[0] if data else None

    def close(self):
        pass


def parse_header(text):
    return text.split(":")


def _guard(data):
    return bool(data)
"""


def test_modified_names_come_from_the_changed_definitions() -> None:
    names = modified_names([("src/pkg/reader.py", OLD, NEW)], "src/pkg")
    assert set(names) == {
        "feed",
        "Parser.feed",
        "_guard",
        "src/pkg/reader.py",
        "reader.py",
        "pkg.reader",
    }


def test_a_class_counts_when_its_own_lines_change() -> None:
    names = modified_names(
        [("src/pkg/reader.py", OLD, OLD.replace(b"limit = 10", b"limit = 20"))], "src/pkg"
    )
    assert "Parser" in names and "feed" not in names


def test_file_names_of_a_package_init() -> None:
    assert file_names("src/pkg/__init__.py", "src/pkg") == {"src/pkg/__init__.py"}


def test_a_conventional_commit_title_is_not_a_fix_label() -> None:
    """pyjwt 412cb67a93: the title "fix: close HTTPError ..." was dropped whole as a
    ``Fix:`` label; a title opens no section. In a body the label rule stands."""
    title = "fix: close HTTPError to prevent ResourceWarning (#1133)"
    assert redact(title, title=True).text == title
    assert redact(f"{SYMPTOM}\n\n{title}").text == SYMPTOM


def test_list_items_need_not_count_as_sentences() -> None:
    """A squashed commit's body is often only its commits' titles (pyjwt 0a99cc2427:
    "* Add test and update changelog"): a commit message's statement does not count them."""
    text = "* Add test and update changelog\n* Bump the version"
    assert sentence_count(text) == 2
    assert sentence_count(text, items=False) == 0
    assert sentence_count(f"Parsing fails on empty input.\n\n{text}", items=False) == 1


@pytest.mark.parametrize("refs", ["fixes #787", "Closes #188,", "See #3 and #4", "Fixes: #676"])
def test_a_sentence_that_only_names_issues_is_no_sentence(refs: str) -> None:
    """structlog's statements "Correctly unpickle WriteLogger (#811)\\n\\nfixes #787" kept a
    title and a reference, counted as one sentence; and "Fixes: #676" is no fix section."""
    assert sentence_count(refs) == 0
    assert sentence_count(f"It breaks on empty input.\n\n{refs}") == 1
    assert redact(f"It breaks on empty input.\n\n{refs}").text.endswith(refs)
    assert sentence_count("Fixes the crash in #3 when the list is empty.") == 1
