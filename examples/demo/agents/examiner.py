"""The examiner: fixes nothing; writes tests that reproduce exactly what the issue reports,
so they fail on the unfixed code and pass once the bug is gone."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _demo_agent import Checkout, Task, run
from _tskit import EXAMINER

REPRODUCTIONS = {
    11: (
        "from textkit.slugs import slugify\n\n\n"
        "def test_reported_title_keeps_its_letters():\n"
        '    assert slugify("Crème Brûlée") == "creme-brulee"\n'
    ),
    17: (
        "from textkit.wrapping import truncate\n\n\n"
        "def test_reported_text_fits_the_width():\n"
        '    result = truncate("abcdefghij", 8)\n'
        "    assert len(result) <= 8\n"
        '    assert result == "abcde..."\n'
    ),
    21: (
        "from textkit.counting import word_count\n\n\n"
        "def test_reported_sentence_has_two_words():\n"
        '    assert word_count("wait - what?") == 2\n'
    ),
    27: (
        "from textkit.cases import camel_case\n\n\n"
        "def test_reported_name_starts_lower_case():\n"
        '    assert camel_case("User Name") == "userName"\n'
    ),
    29: (
        "from textkit.counting import longest_word, word_count\n\n\n"
        "def test_reported_hyphenated_word_is_one_word():\n"
        '    assert word_count("a well-known fact") == 3\n\n\n'
        "def test_reported_longest_word_has_no_punctuation():\n"
        '    assert longest_word("Stop, thief!") == "thief"\n'
    ),
}


def reproduce(task: Task, co: Checkout) -> None:
    co.write(f"tests/test_repro_{task.issue}.py", REPRODUCTIONS[task.issue])


if __name__ == "__main__":
    sys.exit(run("examiner", {**dict.fromkeys(REPRODUCTIONS, reproduce), **EXAMINER}))
