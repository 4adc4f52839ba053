"""difflib's line matching with no junk, its longest matches found in linear time.

``difflib.SequenceMatcher(None, a, b, autojunk=False)`` finds each block of its answer as
the longest run of equal lines in a range, by a table over every pair of equal lines:
a long file with hundreds of blank lines costs hundreds of steps per blank line, and
over the histories of black and pytest that was a fifth to a quarter of mining. This
matcher is difflib's own class with one method replaced: on a range past a few thousand
line pairs, the longest run is found with a suffix automaton of the ``b`` range (built in
one pass) and one pass over the ``a`` range, in time linear in their lengths.

It gives difflib's answer exactly, ties included: difflib keeps the first longest run
that ends at the smallest ``a`` line, and for that line the smallest ``b`` line; the pass
over ``a`` keeps the first position that reaches a new longest length, and the automaton
knows the first place in ``b`` where each run ends. Small ranges keep difflib's table.
"""

from __future__ import annotations

import difflib
from collections.abc import Hashable, Sequence

#: Ranges with at most this many line pairs use difflib's own table (cheaper when small).
TABLE_PAIRS = 2500


class Matcher(difflib.SequenceMatcher[Hashable]):
    """``SequenceMatcher(None, a, b, autojunk=False)``, with faster longest matches."""

    def __init__(self, a: Sequence[Hashable], b: Sequence[Hashable]) -> None:
        super().__init__(None, a, b, autojunk=False)
        ids: dict[Hashable, int] = {}
        self._b_ids = [ids.setdefault(line, len(ids)) for line in b]
        self._a_ids = [ids.get(line, -1) for line in a]  # -1: in no range of b
        self._lengths = len(a), len(b)

    def find_longest_match(
        self, alo: int = 0, ahi: int | None = None, blo: int = 0, bhi: int | None = None
    ) -> difflib.Match:
        ahi = self._lengths[0] if ahi is None else ahi
        bhi = self._lengths[1] if bhi is None else bhi
        if (ahi - alo) * (bhi - blo) <= TABLE_PAIRS:
            return super().find_longest_match(alo, ahi, blo, bhi)
        return longest_run(self._a_ids, self._b_ids, alo, ahi, blo, bhi)


def longest_run(
    a: Sequence[int], b: Sequence[int], alo: int, ahi: int, blo: int, bhi: int
) -> difflib.Match:
    """The longest run of equal items of ``a[alo:ahi]`` and ``b[blo:bhi]``, as difflib's
    ``find_longest_match`` with no junk chooses it among equally long ones.

    The suffix automaton of ``b[blo:bhi]``: state 0 is the empty string; each state is a
    set of substrings that end at the same places, ``length`` its longest, ``link`` the
    state of its shorter suffixes, ``first`` the first place where its substrings end.
    """
    moves: list[dict[int, int]] = [{}]
    link = [-1]
    length = [0]
    first = [-1]
    last = 0
    for place in range(blo, bhi):
        item = b[place]
        state = len(length)
        moves.append({})
        length.append(length[last] + 1)
        link.append(0)
        first.append(place)
        back = last
        while back != -1 and item not in moves[back]:
            moves[back][item] = state
            back = link[back]
        if back != -1:
            target = moves[back][item]
            if length[back] + 1 == length[target]:
                link[state] = target
            else:
                clone = len(length)
                moves.append(dict(moves[target]))
                length.append(length[back] + 1)
                link.append(link[target])
                first.append(first[target])
                while back != -1 and moves[back].get(item) == target:
                    moves[back][item] = clone
                    back = link[back]
                link[target] = link[state] = clone
        last = state
    # The longest run of b's range ending at each line of a's range, left to right.
    state = size = best = 0
    best_i, best_j = alo, blo
    for i in range(alo, ahi):
        item = a[i]
        while state and item not in moves[state]:
            state = link[state]
            size = length[state]
        found = moves[state].get(item)
        if found is None:
            size = 0
            continue
        state = found
        size += 1
        if size > best:
            best = size
            best_i, best_j = i - size + 1, first[state] - size + 1
    return difflib.Match(best_i, best_j, best)
