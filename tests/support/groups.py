"""Which tests pytest-xdist keeps on one worker (``--dist loadgroup``).

A session or module fixture is built once per worker that runs a test needing it. For the
costly ones (a demo mined and run through a stage, a whole ``bugbout run``) that would mean
one build per worker, so every test that needs one is put in that fixture's group and runs
on the worker that built it. Fixtures shared between workers (``support.shared``) and
cheap ones are left out, so their tests spread over every worker. A test module may set
its own ``xdist_group`` marks instead (the real-CLI tests: one group per agent's race).

The controller hands out the longest work first, by the durations pytest's cache kept
from the last run (``DURATIONS``), so a long group never starts last and serialises the
tail. Where the cache has no record (a fresh clone, a new test), the durations of a
whole run kept beside this file (``durations.json``: every test that took a second or
more) stand in; a test in neither counts as a short one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

#: Session fixtures built once per run for every worker, or cheap enough to build in each.
SHARED_OR_CHEAP = frozenset(
    {
        "bugbout_home",
        "demo_build",
        "demo_bout",
        "attack_bout",
        "demo_tasks",
        "host_env",
        "bwrap_sandbox",
        "env_project",
        "bout_records",
        "report",
        "clis",
    }
)


def group_of(item: pytest.Item) -> str | None:
    """The group of *item*: the first costly session fixture it needs (by name), else
    the module of a module-scoped fixture of the tests' own it needs; None if neither."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    session: list[str] = []
    module = False
    for name, defs in info.name2fixturedefs.items():
        fixture = defs[-1]
        if not fixture.baseid.startswith("tests") or name in SHARED_OR_CHEAP:
            continue  # pytest's own, or shared
        if fixture.scope == "session":
            session.append(name)
        elif fixture.scope == "module":
            module = True
    if session:
        # The one the others are built on (crossed_demo is raced_demo cross-examined).
        roots = [
            n for n in session if not set(info.name2fixturedefs[n][-1].argnames) & set(session)
        ]
        return sorted(roots or session)[0]
    if module:
        return item.nodeid.split("::")[0]
    return None


def assign_groups(items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("xdist_group") is None and (group := group_of(item)):
            item.add_marker(pytest.mark.xdist_group(group))


# pytest 9.2 derives a test's node id from its structured id, so pytest-xdist 3.8's way of
# passing groups to the controller (an ``@group`` suffix written to ``item._nodeid``) is
# lost. Each worker writes the groups it collected to the run's temporary folder instead,
# and the controller's scheduler reads them.


def write_groups(items: list[pytest.Item], folder: Path, worker: str) -> None:
    groups = {item.nodeid: g for item in items if (g := group_name(item)) is not None}
    part = folder / f"xdist-groups-{worker}.json.part"
    part.write_text(json.dumps(groups))
    part.rename(folder / f"xdist-groups-{worker}.json")


def group_name(item: pytest.Item) -> str | None:
    mark = item.get_closest_marker("xdist_group")
    if mark is None:
        return None
    return str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))


#: Where the controller keeps each test's last duration (setup, call and teardown), in
#: pytest's cache: the scheduler starts the longest work first in the next run.
DURATIONS = "bugbout/durations"


#: The durations of a whole run of the suite (seconds, tests of a second or more), read
#: where the cache has none: refresh it with ``python -m support.groups`` from tests/
#: after a whole run.
SEED = Path(__file__).with_name("durations.json")
#: What a test found in neither the cache nor the seed counts for, in seconds.
SHORT = 0.3


def known_durations(config: pytest.Config) -> dict[str, float]:
    """The last run's durations from pytest's cache over the kept whole run's."""
    cache = getattr(config, "cache", None)  # None under -p no:cacheprovider
    seed: dict[str, float] = json.loads(SEED.read_text()) if SEED.exists() else {}
    return {**seed, **(cache.get(DURATIONS, {}) if cache is not None else {})}


#: This run's durations so far, by test (on the controller, or without xdist).
SEEN: dict[str, float] = {}


def record_duration(report: pytest.TestReport) -> None:
    """Add one phase of *report* to the run's durations."""
    SEEN[report.nodeid] = SEEN.get(report.nodeid, 0.0) + report.duration


def save_durations(config: pytest.Config) -> None:
    """Keep the run's durations for the next run, beside those of tests it did not run."""
    cache = getattr(config, "cache", None)  # None under -p no:cacheprovider
    if SEEN and cache is not None:
        kept = cache.get(DURATIONS, {})
        cache.set(DURATIONS, {**kept, **{k: round(v, 2) for k, v in SEEN.items()}})


def make_scheduler(config: pytest.Config, log: Any, folder: Path) -> Any:
    """A ``--dist loadgroup`` scheduler that reads the groups the workers wrote and hands
    out the longest work first: a group or test takes as long as its tests took in the last
    run or the kept one (a test in neither counts ``SHORT``), so the costly groups start
    at once and never make the tail."""
    from xdist.scheduler import LoadGroupScheduling

    durations = known_durations(config)

    class GroupsFromWorkers(LoadGroupScheduling):  # type: ignore[misc]
        _groups: dict[str, str] | None = None
        _ordered = False

        def _split_scope(self, nodeid: str) -> str:
            if self._groups is None:
                self._groups = {}
                for path in sorted(folder.glob("xdist-groups-*.json")):
                    self._groups.update(json.loads(path.read_text()))
            return self._groups.get(nodeid) or super()._split_scope(nodeid)

        def _assign_work_unit(self, node: Any) -> None:
            if not self._ordered:
                self._ordered = True
                units = list(self.workqueue.items())
                units.sort(key=lambda unit: -sum(durations.get(n, SHORT) for n in unit[1]))
                self.workqueue.clear()
                self.workqueue.update(units)
            super()._assign_work_unit(node)

    return GroupsFromWorkers(config, log)


def write_seed(cache_file: Path) -> None:
    """Keep the durations in pytest's cache file *cache_file* (``.pytest_cache/v/bugbout/
    durations``) of a second or more as ``SEED``."""
    durations = json.loads(cache_file.read_text())
    kept = {k: round(v, 1) for k, v in sorted(durations.items()) if v >= 1.0}
    SEED.write_text(json.dumps(kept, indent=0, sort_keys=True) + "\n")


if __name__ == "__main__":
    import sys

    write_seed(
        Path(sys.argv[1]) if len(sys.argv) > 1 else Path("../.pytest_cache/v/bugbout/durations")
    )
