"""The linear-time line matcher gives difflib's answer exactly, ties included."""

from __future__ import annotations

import difflib
import random

import pytest
from bb_core.patch import line_opcodes
from bb_core.patch import lines as lines_module
from bb_core.patch import matcher as matcher_module
from bb_core.patch.matcher import Matcher, longest_run


def _pairs(seed: int, count: int) -> list[tuple[list[int], list[int]]]:
    """Sequences over tiny alphabets (many equally long runs: ties everywhere), some
    copies with a few items changed (long runs, as in a file's two versions)."""
    rng = random.Random(seed)
    pairs = []
    for _ in range(count):
        alphabet = rng.choice([1, 2, 3, 5, 20])
        a = [rng.randrange(alphabet) for _ in range(rng.randint(0, 90))]
        if rng.random() < 0.5:
            b = list(a)
            for _ in range(rng.randint(0, 5)):
                if b:
                    b[rng.randrange(len(b))] = rng.randrange(alphabet + 3)
            if rng.random() < 0.5:
                b.insert(rng.randint(0, len(b)), rng.randrange(alphabet))
        else:
            b = [rng.randrange(alphabet) for _ in range(rng.randint(0, 90))]
        pairs.append((a, b))
    return pairs


def test_the_automaton_gives_difflibs_opcodes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(matcher_module, "TABLE_PAIRS", 0)  # every range by the automaton
    for a, b in _pairs(7, 500):
        expected = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
        assert Matcher(a, b).get_opcodes() == expected, (a, b)


def test_the_longest_run_of_any_range_is_difflibs() -> None:
    rng = random.Random(11)
    for a, b in _pairs(13, 300):
        alo, ahi = sorted(rng.randint(0, len(a)) for _ in range(2))
        blo, bhi = sorted(rng.randint(0, len(b)) for _ in range(2))
        expected = difflib.SequenceMatcher(None, a, b, autojunk=False).find_longest_match(
            alo, ahi, blo, bhi
        )
        assert longest_run(a, b, alo, ahi, blo, bhi) == expected, (a, b, alo, ahi, blo, bhi)


def test_a_long_file_with_scattered_edits_diffs_as_difflib_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A module of thousands of lines, a third of them blank or a lone bracket, edited in
    a dozen places: the case difflib's table was slow on."""
    rng = random.Random(3)
    common = [b"\n", b"    )\n", b"        pass\n", b"]\n"]
    old = [
        rng.choice(common) if rng.random() < 0.35 else b"line %d\n" % rng.randrange(900)
        for _ in range(3000)
    ]
    new = list(old)
    for _ in range(12):
        at = rng.randrange(len(new))
        new[at : at + rng.randint(0, 3)] = [rng.choice([*common, b"changed\n"])]
    found = line_opcodes(old, new, autojunk=False)
    assert sum(code[0] != "equal" for code in found) >= 8
    monkeypatch.setattr(
        lines_module, "Matcher", lambda a, b: difflib.SequenceMatcher(None, a, b, autojunk=False)
    )
    assert found == line_opcodes(old, new, autojunk=False)
