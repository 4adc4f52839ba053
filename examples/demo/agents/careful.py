"""The careful fixer: the right fix, plus a regression test in a new test file that checks
the reported input and another input of the same bug."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _demo_agent import Checkout, Task, run
from _tskit import CAREFUL


def slug_accents(task: Task, co: Checkout) -> None:
    co.ensure_import(task.module, "import unicodedata")
    co.replace_function(
        task.module,
        "slugify",
        '''def slugify(text: str, sep: str = "-") -> str:
    """Lower-case *text*, fold accented letters to plain ones, join letters and digits with *sep*."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return sep.join(re.findall(r"[a-z0-9]+", plain.lower()))
''',
    )
    co.write(
        "tests/test_regression_11.py",
        """from textkit.slugs import slugify


def test_accented_title_from_the_report():
    assert slugify("Crème Brûlée") == "creme-brulee"


def test_other_accented_words():
    assert slugify("Façade à la mode", sep="_") == "facade_a_la_mode"
""",
    )


def truncation_width(task: Task, co: Checkout) -> None:
    co.replace_function(
        task.module,
        "truncate",
        '''def truncate(text: str, width: int, ellipsis: str = "...") -> str:
    """Shorten *text* to at most *width* characters, *ellipsis* included."""
    if len(text) <= width:
        return text
    keep = max(width - len(ellipsis), 0)
    return text[:keep] + ellipsis
''',
    )
    co.write(
        "tests/test_regression_17.py",
        """from textkit.wrapping import truncate


def test_width_from_the_report():
    assert truncate("abcdefghij", 8) == "abcde..."


def test_result_never_exceeds_the_width():
    assert truncate("a long sentence", 10) == "a long ..."
    assert truncate("hello world", 7, "~") == "hello ~"
""",
    )


def lone_punctuation(task: Task, co: Checkout) -> None:
    co.ensure_import(task.module, "import re")
    co.replace_function(
        task.module,
        "word_count",
        '''_WORD = re.compile(r"\\w+(?:['’]\\w+)*")


def split_words(text: str) -> list[str]:
    """The words of *text*: runs of letters and digits, apostrophes inside words kept."""
    return _WORD.findall(text)


def word_count(text: str) -> int:
    """The number of words in *text*; punctuation standing alone is not a word."""
    return len(split_words(text))
''',
    )
    co.write(
        "tests/test_regression_21.py",
        """from textkit.counting import word_count


def test_dash_from_the_report():
    assert word_count("wait - what?") == 2


def test_other_lone_punctuation():
    assert word_count("yes ... no ; maybe") == 3
""",
    )


def camel_first_word(task: Task, co: Checkout) -> None:
    co.replace(
        task.module,
        "    return words[0] + ",
        "    return words[0].lower() + ",
    )
    co.write(
        "tests/test_regression_27.py",
        """from textkit.cases import camel_case


def test_first_word_from_the_report():
    assert camel_case("User Name") == "userName"


def test_first_word_that_is_an_acronym():
    assert camel_case("HTML parser") == "htmlParser"
""",
    )


def hyphenated_words(task: Task, co: Checkout) -> None:
    co.replace(
        task.module,
        """_WORD = re.compile(r"\\w+(?:['’]\\w+)*")""",
        """_WORD = re.compile(r"\\w+(?:[-'’]\\w+)*")""",
    )
    co.replace(
        task.module,
        'return max(text.split(), key=len, default="")',
        'return max(split_words(text), key=len, default="")',
    )
    co.write(
        "tests/test_regression_29.py",
        """from textkit.counting import longest_word, word_count


def test_hyphenated_word_from_the_report():
    assert word_count("a well-known fact") == 3


def test_longest_word_leaves_punctuation_out():
    assert longest_word("Stop, thief!") == "thief"
""",
    )


if __name__ == "__main__":
    sys.exit(
        run(
            "careful",
            {
                11: slug_accents,
                17: truncation_width,
                21: lone_punctuation,
                27: camel_first_word,
                29: hyphenated_words,
                **CAREFUL,
            },
        )
    )
