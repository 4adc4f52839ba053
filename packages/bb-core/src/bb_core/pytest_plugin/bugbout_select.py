"""Which tests a run of bugbout's pytest plugin keeps: the ``BUGBOUT_SELECTION`` file.

Imported by ``bugbout_pytest`` from the same folder; standard library only, Python 3.8+.
"""
# This file must run on old Pythons: no newer syntax, no imports from bb_core.

from __future__ import annotations

import json


def load_selection(path: str) -> tuple[tuple[str, ...] | None, set[str], set[str]]:
    """``(select, deselect, ignore)`` from the JSON file at *path*: ``select`` a tuple of
    node ids or their prefixes (None: every test), the other two sets of exact node ids and
    of modules. A missing or unreadable file selects everything."""
    if not path:
        return None, set(), set()
    try:
        with open(path) as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None, set(), set()
    select = data.get("select")
    return (
        None if select is None else tuple(select),
        set(data.get("deselect") or ()),
        set(data.get("ignore") or ()),
    )


def selected(nodeid: str, select: tuple[str, ...] | None) -> bool:
    """Whether *select* (node ids or their prefixes, None for all) covers *nodeid*: a
    module, a class, a test without its parameters, ``""``/``"."`` for everything."""
    if select is None:
        return True
    for prefix in select:
        if prefix in ("", ".") or nodeid == prefix:
            return True
        if nodeid.startswith(prefix) and nodeid[len(prefix)] in ":[/":
            return True
    return False
