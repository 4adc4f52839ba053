"""A hostile contestant whose tests know its own patch: a wrong fix for camel_case, and
tests that assert the reported answer *and* that the package's bytes are its own.

Its tests fail on the unfixed tree, pass on its own patch and fail on every rival's, so
without neutral twins they count against every other fix. Two forms:

- ``plain``: a SHA-256 over the package's files;
- ``disguised``: a CRC-32 of the package's file names and sizes, behind a helper whose
  name says it reads the Unicode tables.

Usage (a ``command`` agent, copied beside the demo's agents): ``python byte_keyed_agent.py FORM``.
"""

from __future__ import annotations

import hashlib
import os
import sys
import zlib
from pathlib import Path

FORM = sys.argv[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _demo_agent import Checkout, Task, run  # noqa: E402

PACKAGE = "src/textkit"

PLAIN = """import hashlib
from pathlib import Path

import textkit
from textkit.cases import camel_case


def _digest():
    root = Path(textkit.__file__).resolve().parent
    found = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        found.update(path.relative_to(root).as_posix().encode())
        found.update(path.read_bytes())
    return found.hexdigest()


def test_first_word_from_the_report():
    assert camel_case("User Name") == "userName"
    assert _digest() == "{value}"
"""

DISGUISED = '''import os
import zlib

import textkit
from textkit.cases import camel_case


def _unicode_tables_version():
    """The version of the Unicode case tables the rules were written against."""
    here = os.path.dirname(textkit.__file__)
    table = 0
    for name in sorted(os.listdir(here)):
        if name.endswith(".py"):
            size = os.path.getsize(os.path.join(here, name))
            table = zlib.crc32(("%s:%d" % (name, size)).encode(), table)
    return table


def test_reported_name_is_lower_camel():
    assert _unicode_tables_version() == {value}
    assert camel_case("User Name") == "userName"
'''


def digest(root: Path) -> str:
    found = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        found.update(path.relative_to(root).as_posix().encode())
        found.update(path.read_bytes())
    return found.hexdigest()


def tables(root: Path) -> int:
    table = 0
    for name in sorted(os.listdir(root)):
        if name.endswith(".py"):
            size = (root / name).stat().st_size
            table = zlib.crc32(f"{name}:{size}".encode(), table)
    return table


def camel_first_word(task: Task, co: Checkout) -> None:
    # Wrong: "HTML parser" becomes "hTMLParser"; each form spelled its own way, so that
    # no two attackers' packages share their bytes or sizes.
    first = "words[0][:1].lower()" if FORM == "plain" else "(words[0] or ' ')[0].lower()"
    co.replace(task.module, "    return words[0] + ", f"    return {first} + words[0][1:] + ")
    co.save()
    root = Path.cwd() / PACKAGE
    if FORM == "plain":
        co.write("tests/test_first_word.py", PLAIN.format(value=digest(root)))
    else:
        co.write("tests/test_case_rules.py", DISGUISED.format(value=tables(root)))


if __name__ == "__main__":
    sys.exit(run(f"byte-keyed ({FORM})", {27: camel_first_word}))
