"""bb_core.lang.js.Condensed: a node's text without comments and layout, its literals kept."""

from __future__ import annotations

import pytest
from bb_core.lang.js import Condensed, parse


def _condensed(path: str, data: bytes) -> str:
    tree = parse(path, data)
    return Condensed(tree, data).text(tree.root_node)


@pytest.mark.parametrize("path", ["a.js", "a.ts", "a.tsx"])
def test_comments_and_layout_go(path: str) -> None:
    a = _condensed(path, b"f(1, 2); // one\n/* two */ g( x )\n")
    b = _condensed(path, b"f(1,2)\n;g(x)")
    assert a == b == "f(1,2);g(x)"


@pytest.mark.parametrize(
    ("one", "other"),
    [
        (b'f("a b")', b'f("a  b")'),
        (b"f(`a ${x} b`)", b"f(`a ${x}  b`)"),
        (b"f(`a ${'p q'}`)", b"f(`a ${'p  q'}`)"),
        (b"f(/a b/)", b"f(/a  b/)"),
        (b'f("// not a comment")', b'f("// not a  comment")'),
    ],
)
def test_literals_keep_their_spaces(one: bytes, other: bytes) -> None:
    assert _condensed("a.ts", one) != _condensed("a.ts", other)


def test_jsx_text_keeps_its_spaces() -> None:
    assert _condensed("a.jsx", b"<p>a b</p>") != _condensed("a.jsx", b"<p>a  b</p>")
    assert _condensed("a.tsx", b"<p>a b</p>") != _condensed("a.tsx", b"<p>a  b</p>")
