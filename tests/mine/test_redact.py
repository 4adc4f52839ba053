"""Redaction: each rule removes what was written with the fix in hand, and counts it."""

from __future__ import annotations

import pytest
from bb_mine.redact import redact
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
    assert result.counts == {"fix_sections": 1, "diff_blocks": 0, "naming_sentences": 0}


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
    assert result.counts == {"fix_sections": 1, "diff_blocks": 1, "naming_sentences": 0}


@pytest.mark.parametrize(
    ("sentence", "removed"),
    [
        ("The culprit is parse_header(), which never checks.", True),
        ("I think `Parser.feed` is wrong.", True),
        ("The bug is in src/pkg/reader.py somewhere.", True),
        ("It lives in reader.py.", True),
        ("Importing pkg.reader shows it.", True),
        ("The Parser class keeps state.", True),
        ("Calling `feed` twice breaks.", True),
        ("Calling feed() twice breaks.", True),
        ("Please feed the parser twice.", False),
        ("The header is wrong.", False),
    ],
)
def test_sentences_naming_what_the_fix_modifies_are_removed(sentence: str, removed: bool) -> None:
    names = [
        "parse_header",
        "Parser",
        "Parser.feed",
        "feed",
        "src/pkg/reader.py",
        "reader.py",
        "pkg.reader",
    ]
    text = f"{SYMPTOM} {sentence} Seen on Linux."
    result = redact(text, names)
    assert (sentence not in result.text) is removed
    assert SYMPTOM in result.text and "Seen on Linux." in result.text
    assert result.counts["naming_sentences"] == (1 if removed else 0)


def test_naming_sentences_in_lists_and_wrapped_paragraphs() -> None:
    text = (
        "The parser fails\non long lines. Then parse_header()\nis called again.\n\n"
        "- parse_header() is slow.\n- It happens daily.\n\n```\nparse_header('x')\n```\n"
    )
    result = redact(text, ["parse_header"])
    # A paragraph that lost a sentence is joined onto one line; code is never touched.
    assert (
        result.text
        == "The parser fails on long lines.\n\n- It happens daily.\n\n```\nparse_header('x')\n```"
    )
    assert result.counts["naming_sentences"] == 2


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
