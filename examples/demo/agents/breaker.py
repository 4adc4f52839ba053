"""The breaker: fixes the reported bug and its neighbours, but breaks behaviour that the
existing tests cover; adds a regression test for the bug (reported and another input)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _demo_agent import Checkout, Task, run
from _tskit_tricks import BREAKER


def slug_accents(task: Task, co: Checkout) -> None:
    co.ensure_import(task.module, "import unicodedata")
    # Folds accents, but always joins with "-": the sep argument is ignored from now on.
    co.replace_function(
        task.module,
        "slugify",
        '''def slugify(text: str, sep: str = "-") -> str:
    """A lower-case ASCII slug of *text*."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return "-".join(re.findall(r"[a-z0-9]+", plain.lower()))
''',
    )
    co.write(
        "tests/test_fix_11.py",
        "from textkit.slugs import slugify\n\n\ndef test_accents_fold():\n"
        '    assert slugify("Crème Brûlée") == "creme-brulee"\n'
        '    assert slugify("Ñandú") == "nandu"\n',
    )


def truncation_width(task: Task, co: Checkout) -> None:
    # Leaves room for the ellipsis, but now cuts short text too.
    co.replace_function(
        task.module,
        "truncate",
        '''def truncate(text: str, width: int, ellipsis: str = "...") -> str:
    """Shorten *text* to at most *width* characters, *ellipsis* included."""
    return text[: max(width - len(ellipsis), 0)] + ellipsis
''',
    )
    co.write(
        "tests/test_fix_17.py",
        "from textkit.wrapping import truncate\n\n\ndef test_width_includes_ellipsis():\n"
        '    assert truncate("abcdefghij", 8) == "abcde..."\n'
        '    assert truncate("abcdefghijkl", 5) == "ab..."\n',
    )


def lone_punctuation(task: Task, co: Checkout) -> None:
    co.ensure_import(task.module, "import re")
    # Counts runs of word characters only, so "don't" now counts as two words.
    co.replace_function(
        task.module,
        "word_count",
        '''def split_words(text: str) -> list[str]:
    """The words of *text*."""
    return re.findall(r"\\w+", text)


def word_count(text: str) -> int:
    """The number of words in *text*."""
    return len(split_words(text))
''',
    )
    co.write(
        "tests/test_fix_21.py",
        "from textkit.counting import word_count\n\n\ndef test_punctuation_is_not_a_word():\n"
        '    assert word_count("wait - what?") == 2\n'
        '    assert word_count("a — b") == 2\n',
    )


def camel_first_word(task: Task, co: Checkout) -> None:
    # Lower-cases the first word, but capitalize() also flattens "XML" to "Xml".
    co.replace(
        task.module,
        '    return words[0] + "".join(word[:1].upper() + word[1:] for word in words[1:])\n',
        '    return words[0].lower() + "".join(word.capitalize() for word in words[1:])\n',
    )
    co.write(
        "tests/test_fix_27.py",
        "from textkit.cases import camel_case\n\n\ndef test_first_word_lower():\n"
        '    assert camel_case("User Name") == "userName"\n'
        '    assert camel_case("First Second") == "firstSecond"\n',
    )


if __name__ == "__main__":
    sys.exit(
        run(
            "breaker",
            {
                11: slug_accents,
                17: truncation_width,
                21: lone_punctuation,
                27: camel_first_word,
                **BREAKER,
            },
        )
    )
