"""Fixtures for the vendor adapters' tests; see vendor_support.py."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from vendor_support import VendorRace, run_vendor_race


@pytest.fixture(scope="module")
def vendor_race(
    demo_tasks: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Callable[[str], VendorRace]]:
    """``vendor_race("fix")`` / ``vendor_race("quota")``: the race, run once per module."""
    done: dict[str, VendorRace] = {}

    def get(mode: str) -> VendorRace:
        if mode not in done:
            done[mode] = run_vendor_race(
                tmp_path_factory.mktemp(f"vendors-{mode}"), demo_tasks, mode
            )
        return done[mode]

    yield get
    for race in done.values():
        race.server.close()
