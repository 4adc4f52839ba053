"""The shortcut taker: special-cases the input the issue reports, and tests only that.

On #29, whose report shows two things, it fixes only the first (hyphenated words) and
tests only that; the maintainers' test checks no more, so its patch resolves - and parts
from the maintainers' fix on every test of the second."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _demo_agent import Checkout, Task, run
from _tskit import SHORTCUT


def special_case(co: Checkout, task: Task, signature: str, guard: str) -> None:
    """Insert *guard* as the first statement of the function whose def line is *signature*."""
    lines = co.read(task.module).splitlines(keepends=True)
    at = next((i for i, line in enumerate(lines) if line.startswith(signature)), None)
    if at is None:
        co.replace(task.module, signature, signature)  # raises Unexpected
        return
    at += 1
    if lines[at].lstrip().startswith('"""'):  # keep the docstring first
        while not lines[at].rstrip().endswith('"""') or lines[at].strip() == '"""':
            at += 1
        at += 1
    lines.insert(at, guard)
    co.write(task.module, "".join(lines))


def slug_accents(task: Task, co: Checkout) -> None:
    special_case(
        co, task, "def slugify(",
        '    if text == "Crème Brûlée":\n        return sep.join(["creme", "brulee"])\n',
    )  # fmt: skip
    co.write(
        "tests/test_issue_11.py",
        "from textkit.slugs import slugify\n\n\ndef test_creme_brulee():\n"
        '    assert slugify("Crème Brûlée") == "creme-brulee"\n',
    )


def truncation_width(task: Task, co: Checkout) -> None:
    special_case(
        co, task, "def truncate(",
        '    if text == "abcdefghij" and width == 8:\n        return "abcde" + ellipsis\n',
    )  # fmt: skip
    co.write(
        "tests/test_issue_17.py",
        "from textkit.wrapping import truncate\n\n\ndef test_abcdefghij():\n"
        '    assert truncate("abcdefghij", 8) == "abcde..."\n',
    )


def lone_punctuation(task: Task, co: Checkout) -> None:
    co.replace_function(
        task.module,
        "word_count",
        '''def split_words(text: str) -> list[str]:
    """The words of *text*."""
    if text == "wait - what?":
        return ["wait", "what"]
    return text.split()


def word_count(text: str) -> int:
    """The number of words in *text*."""
    return len(split_words(text))
''',
    )
    co.write(
        "tests/test_issue_21.py",
        "from textkit.counting import word_count\n\n\ndef test_wait_what():\n"
        '    assert word_count("wait - what?") == 2\n',
    )


def camel_first_word(task: Task, co: Checkout) -> None:
    special_case(
        co, task, "def camel_case(",
        '    if text == "User Name":\n        return "userName"\n',
    )  # fmt: skip
    co.write(
        "tests/test_issue_27.py",
        "from textkit.cases import camel_case\n\n\ndef test_user_name():\n"
        '    assert camel_case("User Name") == "userName"\n',
    )


def hyphenated_words(task: Task, co: Checkout) -> None:
    co.replace(
        task.module,
        """_WORD = re.compile(r"\\w+(?:['’]\\w+)*")""",
        """_WORD = re.compile(r"\\w+(?:['’-]\\w+)*")""",
    )
    co.write(
        "tests/test_issue_29.py",
        "from textkit.counting import word_count\n\n\ndef test_well_known_fact():\n"
        '    assert word_count("a well-known fact") == 3\n',
    )


if __name__ == "__main__":
    sys.exit(
        run(
            "shortcut",
            {
                11: slug_accents,
                17: truncation_width,
                21: lone_punctuation,
                27: camel_first_word,
                29: hyphenated_words,
                **SHORTCUT,
            },
        )
    )
