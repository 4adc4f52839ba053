"""The tools name bugbout's shared words through bb_core.records.vocabulary, never by spelling them."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from bb_core.records import kinds, vocabulary
from bb_core.records.schemas import schema

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "packages" / "bb-core" / "src" / "bb_core"
#: The generated modules, where the words are spelled once.
GENERATED = {CORE / "records" / "vocabulary.py", CORE / "records" / "kinds.py"}

#: Words that read as nothing else: spelled anywhere in a string, they are the vocabulary's.
HYPHENATED = tuple(
    word
    for word in (*vocabulary.CATEGORIES, *vocabulary.ATTEMPT_FLAGS, vocabulary.NO_CHANGE)
    if "-" in word
)
#: Words that are also plain words: only a string that is the word alone is the vocabulary's.
WHOLE = (vocabulary.RESOLVED,)
#: Where ``"resolved"`` is a key of another thing: whether a patch resolves (a bool), or the
#: environments a workbench has resolved.
NOT_THE_CATEGORY = {
    "packages/bb-core/src/bb_core/bench/portable.py",
    "packages/bb-judge/src/bb_judge/work.py",
    "packages/bb-judge/src/bb_judge/stage.py",
}


def _strings(tree: ast.AST) -> Iterator[ast.Constant]:
    """The string constants of *tree*, parts of f-strings included, docstrings left out."""
    prose = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
            yield node


def _spelled(text: str, *, whole: bool = True) -> str | None:
    """The word of the vocabulary *text* spells, if any. A CSS class selector
    (``.no-fix``) is the stylesheet's name for a class the report writes from a constant."""
    for word in HYPHENATED:
        if re.search(rf"(?<![\w.-]){re.escape(word)}(?![\w-])", text):
            return word
    if whole and text in WHOLE:
        return text
    for flag in vocabulary.ATTEMPT_FLAGS:  # a flag with its detail: "leak:read-git"
        if text.startswith(f"{flag}:"):
            return flag
    return None


def test_no_tool_spells_a_word_of_the_vocabulary() -> None:
    found = []
    for path in sorted(ROOT.glob("packages/*/src/**/*.py")):
        if path in GENERATED:
            continue
        where = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in _strings(tree):
            word = _spelled(node.value, whole=where not in NOT_THE_CATEGORY)
            if word is not None:
                found.append(f"{where}:{node.lineno}: {word!r}")
    assert not found, "import these from bb_core.records.vocabulary:\n" + "\n".join(found)


def test_the_vocabulary_is_the_schemas_enums_in_their_order() -> None:
    defs = schema("defs")["$defs"]
    words = {
        "category": vocabulary.CATEGORIES,
        "attempt_status": vocabulary.ATTEMPT_STATUSES,
        "attempt_flag": vocabulary.ATTEMPT_FLAGS,
        "reserved_name": vocabulary.RESERVED_NAMES,
    }
    for name, values in words.items():
        assert values == tuple(defs[name]["enum"]), name
    assert vocabulary.RESOLVED_BUT_BREAKS_SUITE == "resolved-but-breaks-suite"
    assert vocabulary.FLAG_OVER_CAP == "over-cap"
    assert (vocabulary.REFERENCE, vocabulary.PICK, vocabulary.BASE) == ("reference", "pick", "base")


def test_the_records_types_are_the_vocabularys() -> None:
    assert kinds.Category is vocabulary.Category
    assert kinds.AttemptStatus is vocabulary.AttemptStatus


def test_the_check_finds_a_spelled_word() -> None:
    code = 'x = "resolved"\ny = f"{n} resolved-but-breaks-suite"\nz = f"over-cap:{n}"\n'
    words = [_spelled(node.value) for node in _strings(ast.parse(code))]
    assert [w for w in words if w] == ["resolved", "resolved-but-breaks-suite", "over-cap"]
    assert _spelled("2 resolved") is None
    assert _spelled(".seg.no-fix { fill: grey; }") is None
    assert not list(_strings(ast.parse('"""resolved-but-breaks-suite."""')))
