"""What runs on a Ray cluster's nodes for :mod:`bb_core.executors.ray_executor`.

* :func:`run_unit`, the task every unit runs as: it takes the stage's work object (put
  in the object store once, and unpickled once per worker process), holds a slot of each
  lane the unit runs under while the work runs, and sends back the result with the files
  under the node's BUGBOUT_HOME the result names (its logs), since the driver's machine
  cannot read them;
* :class:`Slots`, the actor of one lane: a semaphore every node's units acquire before
  they run and release after, so a quota holds across the whole cluster;
* :func:`land_files`, the driver's half of shipping: the files written at the same place
  under the driver's BUGBOUT_HOME, and the result's paths rewritten to point there.

A unit whose work raises comes back as ``("raised", message, traceback)``, not as an
exception: the driver records it as :class:`bb_core.executors.units.Failed` with its log.
"""

from __future__ import annotations

import asyncio
import os
import re
import socket
import threading
import traceback
from pathlib import Path
from typing import Any

os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")  # see ray_connect.UV_HOOK

import ray

from bb_core.executors.units import Unit
from bb_core.store import bugbout_home

#: At most this much of one unit's files is shipped back (a log's tail is what matters).
MAX_FILE_BYTES = 16 * 1024 * 1024
MAX_SHIPPED_BYTES = 64 * 1024 * 1024
MAX_SHIPPED_FILES = 2000

_works: dict[str, Any] = {}
_works_lock = threading.Lock()


def _work_of(holder: list[Any]) -> Any:
    """The work object behind *holder* (``[ObjectRef]``), unpickled once per process."""
    ref = holder[0]
    key = ref.hex()
    with _works_lock:
        if key not in _works:
            _works[key] = ray.get(ref)
        return _works[key]


def where() -> tuple[str, str]:
    """This process's machine and BUGBOUT_HOME."""
    return socket.gethostname(), str(bugbout_home())


def run_unit(
    holder: list[Any], unit: Unit, token: str, slots: list[Any], driver: tuple[str, str]
) -> tuple[Any, ...]:
    """Run *unit* with the work in *holder* under the lanes' *slots*; see the module."""
    work = _work_of(holder)
    taken: list[Any] = []
    try:
        for slot in slots:
            if not ray.get(slot.acquire.remote(token)):
                return ("dropped",)
            taken.append(slot)
        try:
            result = work(unit)
        except Exception as exc:
            return ("raised", f"{type(exc).__name__}: {exc}", traceback.format_exc())
    finally:
        for slot in reversed(taken):
            slot.release.remote(token)
    here = where()
    if here == driver:
        return ("ok", result, {}, here[1])
    files = collect_files(result, here[1])
    return ("ok", result, files, here[1])


class Slots:
    """A lane's slots for the whole cluster: at most ``width`` holders at once.

    Each holder is a token; a token released (or given up by the driver, for a unit
    whose worker died) is never granted again, so a late acquire of a lost worker cannot
    take a slot nobody would release.
    """

    def __init__(self, width: int) -> None:
        self.width = max(1, int(width))
        self._held: set[str] = set()
        self._gone: set[str] = set()
        self._changed: asyncio.Condition | None = None
        self._peak = 0

    def _condition(self) -> asyncio.Condition:
        if self._changed is None:
            self._changed = asyncio.Condition()
        return self._changed

    async def acquire(self, token: str) -> bool:
        changed = self._condition()
        async with changed:
            await changed.wait_for(lambda: token in self._gone or len(self._held) < self.width)
            if token in self._gone:
                return False
            self._held.add(token)
            self._peak = max(self._peak, len(self._held))
            return True

    async def release(self, token: str) -> None:
        changed = self._condition()
        async with changed:
            self._held.discard(token)
            self._gone.add(token)
            changed.notify_all()

    async def resize(self, width: int) -> None:
        changed = self._condition()
        async with changed:
            self.width = max(1, int(width))
            changed.notify_all()

    async def state(self) -> dict[str, int]:
        return {"width": self.width, "held": len(self._held), "peak": self._peak}


# -- shipping files ---------------------------------------------------------------------

_STOP = "\"'`<>|;,()[]{}\n\r\t "


def _strings(value: Any) -> list[str]:
    found: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple | set | frozenset):
            stack.extend(item)
    return found


def named_paths(result: Any, home: str) -> list[Path]:
    """The files and folders under *home* that strings of *result* name."""
    prefix = home.rstrip("/") + "/"
    pattern = re.compile(re.escape(prefix) + r"[^" + re.escape(_STOP) + r"]+")
    paths: dict[str, Path] = {}
    for text in _strings(result):
        if prefix not in text:
            continue
        for match in pattern.finditer(text):
            raw = match.group(0).rstrip(".:")
            path = Path(raw)
            if path.exists():
                paths[raw] = path
    return list(paths.values())


def collect_files(result: Any, home: str) -> dict[str, bytes]:
    """The files *result* names under *home*, by path relative to it (a named folder:
    every file in it), within the size limits; a file's last bytes when it is large."""
    root = Path(home)
    files: dict[str, bytes] = {}
    total = 0
    for named in named_paths(result, home):
        members = [named] if named.is_file() else sorted(p for p in named.rglob("*") if p.is_file())
        for path in members:
            if len(files) >= MAX_SHIPPED_FILES or total >= MAX_SHIPPED_BYTES:
                return files
            if path.is_symlink():
                continue
            relative = str(path.relative_to(root))
            if relative in files:
                continue
            try:
                size = path.stat().st_size
                with open(path, "rb") as handle:
                    if size > MAX_FILE_BYTES:
                        handle.seek(size - MAX_FILE_BYTES)
                    data = handle.read(MAX_FILE_BYTES)
            except OSError:
                continue
            files[relative] = data
            total += len(data)
    return files


def land_files(result: Any, files: dict[str, bytes], worker_home: str) -> Any:
    """*result* with *worker_home* rewritten to the driver's BUGBOUT_HOME, and *files*
    written under it at the same places."""
    home = bugbout_home()
    for relative, data in files.items():
        target = (home / relative).resolve()
        if not target.is_relative_to(home.resolve()):
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f".{target.name}.{os.getpid()}.part")
        partial.write_bytes(data)
        os.replace(partial, target)
    old = worker_home.rstrip("/")
    new = str(home).rstrip("/")
    if old == new:
        return result
    return rewrite(result, old, new)


def rewrite(value: Any, old: str, new: str) -> Any:
    """*value* with every ``old/...`` prefix of its strings made ``new/...``."""
    if isinstance(value, str):
        if old not in value:
            return value
        return re.sub(re.escape(old) + r"(?=/|$)", lambda _m: new, value)
    if isinstance(value, dict):
        return {rewrite(k, old, new): rewrite(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [rewrite(v, old, new) for v in value]
    if isinstance(value, tuple):
        return tuple(rewrite(v, old, new) for v in value)
    return value
