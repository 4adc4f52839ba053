"""The names a change to a long class touches are the same whether the class is read by
its changed members or whole."""

from __future__ import annotations

import pytest
from bb_mine import symbols
from bb_mine.symbols import modified_names

METHODS = b"".join(
    b"    def method_%d(self, value):\n        return value + %d\n\n" % (n, n) for n in range(25)
)
OLD = (
    b"import os\n\n\n"
    b"@decorate\nclass Engine(Base):\n"
    b'    """Runs things."""\n\n    limit = 10\n\n'
    + METHODS
    + b"    @property\n    def size(self):\n        return 1\n\n"
    + b"    class Inner:\n        def deep(self):\n            return 0\n"
    + b"\n\nSETTING = Engine()\n"
)

CHANGES = {
    "one method": OLD.replace(b"value + 7\n", b"value + 70\n"),
    "a decorated method": OLD.replace(b"return 1\n", b"return 2\n"),
    "a nested class's method": OLD.replace(b"return 0\n", b"return -1\n"),
    "the class's own attribute": OLD.replace(b"limit = 10", b"limit = 20"),
    "a method added": OLD.replace(
        b"    @property\n", b"    def added(self):\n        return 3\n\n    @property\n"
    ),
    "a method removed": OLD.replace(
        b"    def method_3(self, value):\n        return value + 3\n\n", b""
    ),
    "code after the class": OLD.replace(b"SETTING = Engine()", b"SETTING = Engine(1)"),
    "the docstring": OLD.replace(b"Runs things.", b"Runs other things."),
    "a blank line between members": OLD.replace(b"value + 9\n\n", b"value + 9\n\n\n"),
    "a string at the margin": OLD.replace(b"value + 4\n", b'value + """\nfour\n"""\n'),
    "two methods far apart": OLD.replace(b"value + 2\n", b"value + 20\n").replace(
        b"value + 22\n", b"value + 220\n"
    ),
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_members_read_alone_give_the_names_the_whole_class_gives(
    change: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = [("src/pkg/engine.py", OLD, CHANGES[change])]
    by_members = modified_names(files, "src/pkg")
    with monkeypatch.context() as patch:
        patch.setattr(symbols, "MIN_LINES", 10**9)
        whole = modified_names(files, "src/pkg")
    assert by_members == whole
    assert "src/pkg/engine.py" in by_members


def test_one_changed_method_is_the_only_member_read(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[bytes] = []
    real = symbols.ast.parse

    def counting(source: bytes, *args: object, **kwargs: object) -> object:
        parsed.append(source)
        return real(source, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(symbols.ast, "parse", counting)
    names = modified_names([("src/pkg/engine.py", OLD, CHANGES["one method"])], "src/pkg")
    assert {"method_7", "Engine.method_7"} <= set(names) and "Engine" not in names
    assert all(b"method_8" not in source for source in parsed)


def test_a_definition_under_code_at_the_margin_is_not_taken_for_a_member(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``if ...:`` at the margin ends the class: what is indented under it is not a method,
    even when only that part changed."""
    source = OLD.replace(
        b"\n\nSETTING = Engine()\n",
        b"\n\nif os.name:\n    class Result(tuple):\n        pass\nelse:\n"
        b"    class Result(list):\n        pass\n",
    )
    changed = source.replace(b"class Result(list)", b"class Result(dict)")
    files = [("src/pkg/engine.py", source, changed)]
    with monkeypatch.context() as patch:
        patch.setattr(symbols, "MIN_LINES", 10**9)
        whole = modified_names(files, "src/pkg")
    assert modified_names(files, "src/pkg") == whole
    assert "Result" not in whole
