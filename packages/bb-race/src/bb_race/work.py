"""One attempt as a work unit: the agent's run (and an examiner's tests), here or elsewhere.

:class:`RaceWork` turns a unit planned by :class:`bb_race.stage.RaceStage` - one agent on
one task, with what it is given, its opaque attempt id and its CLI's version, all
decided on the machine that drives the race - into the attempt record and the record to
keep in ``.bugbout/attempts/``. It is plain data (the workbench, the settings, the
agents' entries): the agents, the sandbox, the checkouts and the egress proxies are
opened in each process on first use. On another machine, the attempt's folder (its
logs: the prompt, the transcript, ``stdout.log``, ``stderr.log``, the examiner's
``reproduce.log``) comes back in the result as bytes, for the driver to write; here the
attempt writes it in place.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, cast

from bb_core.agents import CodingAgent, agent_from_config, secret_values
from bb_core.bench.workbench import Workbench
from bb_core.config import AgentConfig
from bb_core.executors.units import Unit
from bb_core.records.kinds import Attempt, JSONObject, Task, as_attempt
from bb_core.records.vocabulary import FLAG_REPRODUCE_FAILED
from bb_core.store import bugbout_home
from bb_core.store.scratch import remove_tree
from bb_core.store.treewalk import make_dirs, walk

from bb_race.attempts import AttemptStore, needs_reproduction, with_sample
from bb_race.checkout import AttemptDirs, Checkouts, attempt_dirs
from bb_race.footprint import Footprints
from bb_race.outcome import crashed_record, finish, now_iso
from bb_race.project_tests import ProjectTests
from bb_race.reproduce import reproduce
from bb_race.runner import Cancelled, RaceContext, attempt
from bb_race.settings import RaceSettings

#: What the record's ``logdir`` says of an attempt run elsewhere, until the driver has
#: written its folder: the folder's path under BUGBOUT_HOME.
SHIPPED = "BUGBOUT_HOME"


@dataclass
class RaceWork:
    """Turns a unit (``task``, ``agent``, ``action``, ``work_id``, ``given``, ``version``,
    ``stored``, ``replaces``) into ``{"record": ..., "save": ..., "replaces": ...}``: the
    attempt as written, the record to keep (None: keep what is stored) and whether it
    replaces a stored one; with ``files`` (the attempt's folder) when run elsewhere."""

    bench: Workbench
    settings: RaceSettings
    #: The agents, by the order of bugbout.toml; rebuilt from ``entries`` in a process
    #: the work is sent to, when it has them.
    agents: tuple[CodingAgent, ...]
    entries: tuple[AgentConfig, ...] | None = None
    #: The environment agents take their credentials from; None: this process's own.
    environ: Mapping[str, str] | None = None
    #: Set when the attempts run where ``.bugbout/`` is: an examiner's attempt is then
    #: kept the moment the agent stops, before its tests run.
    store_root: Path | None = None
    #: Units run in other processes: the attempt's folder is returned in the result.
    remote: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    _cancel: threading.Event = field(default_factory=threading.Event, init=False, repr=False)
    _ctx: RaceContext | None = field(default=None, init=False, repr=False)
    _tests: ProjectTests | None = field(default=None, init=False, repr=False)

    # -- what each process opens once ---------------------------------------------------

    @property
    def tests(self) -> ProjectTests:
        with self._lock:
            if self._tests is None:
                self._tests = ProjectTests(self.bench)
            return self._tests

    def context(self) -> RaceContext:
        """What every attempt in this process shares, opened on first use."""
        tests = self.tests
        with self._lock:
            if self._ctx is None:
                sandbox = self.bench.sandbox
                checkouts = Checkouts(self.bench)
                footprints = Footprints(
                    checkouts=checkouts,
                    repository=self.bench.location,
                    test_env=tests.env,
                    sandbox=sandbox,
                    timeout=self.settings.run_limit,
                    test_timeout=self.settings.test_timeout,
                )
                environ = dict(os.environ if self.environ is None else self.environ)
                self._ctx = RaceContext(
                    sandbox=sandbox,
                    timeout=self.settings.timeout,
                    checkouts=checkouts,
                    footprint=footprints.of,
                    repository=self.bench.location,
                    test_command=tests.command,
                    install=tests.install,
                    readable=tests.readable(),
                    environ=environ,
                    secrets=secret_values(environ),
                    cancel=self._cancel,
                    max_patch_bytes=self.settings.max_patch_bytes,
                    max_disk_bytes=self.settings.max_disk_bytes,
                )
            return self._ctx

    def agent(self, name: str) -> CodingAgent:
        return next(agent for agent in self.agents if agent.name == name)

    def cancel(self) -> None:
        """Stop every attempt running in this process; none of them is recorded."""
        self._cancel.set()

    # -- one unit -----------------------------------------------------------------------

    def __call__(self, unit: Unit) -> dict[str, Any]:
        payload = unit.payload
        task, agent = payload["task"], self.agent(str(payload["agent"]))
        dirs = attempt_dirs(str(payload["work_id"]))
        if payload["action"] == "reproduce":
            record, ran = self.examine(task, payload["stored"], dirs)
            result: dict[str, Any] = {
                "record": record,
                "save": record if ran else None,
                "replaces": False,
            }
        else:
            result = self.run(task, agent, dirs, payload)
        if self.remote:
            result["files"] = pack(dirs.root)
            for key in ("record", "save"):
                if result[key] is not None:
                    result[key] = relabel(result[key], dirs.root, _shipped(dirs.root))
        return result

    def run(
        self,
        task: Task,
        agent: CodingAgent,
        dirs: AttemptDirs,
        payload: Mapping[str, Any],
    ) -> dict[str, Any]:
        """The agent's attempt, then an examiner's tests on the unfixed tree."""
        ctx = self.context()
        if ctx.cancel.is_set():
            raise Cancelled()
        started = now_iso()
        ask = payload.get("given")
        sample = int(payload.get("sample", 1))
        record = with_sample(
            attempt(ctx, task, agent, dirs, payload.get("version"), sample), sample
        )
        try:
            done = finish(
                cast(JSONObject, {**record, "given": ask} if ask else record), ctx.secrets
            )
        except ValueError as exc:
            crashed = with_sample(crashed_record(task, agent, exc, started, 0.0), sample)
            done = finish(
                cast(JSONObject, {**crashed, "given": ask} if ask else crashed), ctx.secrets
            )
        record = as_attempt(done)
        replaces = bool(payload.get("replaces"))
        if not needs_reproduction(record):
            return {"record": record, "save": record, "replaces": replaces}
        kept = False
        if self.store_root is not None:
            store = AttemptStore(self.store_root)
            if replaces:
                store.retire(str(task["id"]), agent.name, sample)
            store.save(record)
            kept, replaces = True, False
        examined, ran = self.examine(task, record, dirs)
        save = examined if ran else (None if kept else record)
        return {"record": examined, "save": save, "replaces": replaces}

    def examine(self, task: Task, record: Attempt, dirs: AttemptDirs) -> tuple[Attempt, bool]:
        """An examiner's tests run on the unfixed tree: the record with ``reproducing``,
        and True; or with a ``reproduce-failed`` flag, and False."""
        ctx = self.context()
        if ctx.cancel.is_set():
            raise Cancelled()
        record = record.copy()
        try:
            record["reproducing"] = reproduce(
                task,
                record,
                folder=dirs.root,
                location=self.bench.location(task),
                checkouts=ctx.checkouts,
                test_env=self.tests.env,
                sandbox=ctx.sandbox,
                timeout=self.settings.run_limit,
                test_timeout=self.settings.test_timeout,
            )
        except Exception as exc:
            return as_attempt(reproduce_failed(record, str(exc))), False
        return record, True

    # -- shipping -----------------------------------------------------------------------

    def __getstate__(self) -> dict[str, Any]:
        state = {
            name: getattr(self, name)
            for name in ("bench", "settings", "agents", "entries", "environ", "store_root")
        }
        if self.entries is not None:
            state["agents"] = ()  # rebuilt from their entries where the work runs
        return {**state, "store_root": None, "remote": True}

    def __setstate__(self, state: dict[str, Any]) -> None:
        agents = state["agents"] or tuple(agent_from_config(e) for e in state["entries"] or ())
        self.__init__(**{**state, "agents": tuple(agents)})  # type: ignore[misc]


def reproduce_failed(record: Mapping[str, Any], why: str) -> dict[str, Any]:
    """*record* flagged ``reproduce-failed`` (once) for *why*."""
    flags = [f for f in record.get("flags", []) if not f.startswith(FLAG_REPRODUCE_FAILED)]
    return {**record, "flags": [*flags, f"{FLAG_REPRODUCE_FAILED}: {why}"]}


def _shipped(root: Path) -> Path:
    try:
        return Path(SHIPPED) / root.relative_to(bugbout_home())
    except ValueError:
        return Path(SHIPPED) / "work" / root.name


def relabel(record: Attempt, old: Path, new: Path) -> Attempt:
    """*record* with its ``logdir`` under *new* instead of *old*."""
    logdir = record.get("logdir")
    if not isinstance(logdir, str):
        return record
    path = Path(logdir)
    try:
        return {**record, "logdir": str(new / path.relative_to(old))}
    except ValueError:
        return record


def pack(root: Path) -> dict[str, bytes]:
    """Every regular file under *root*, by its path relative to *root* (links skipped:
    nothing an agent left is followed)."""
    files: dict[str, bytes] = {}
    for folder, _dirs, names in walk(root):
        for name in names:
            path = Path(folder, name)
            if path.is_file() and not path.is_symlink():
                files[path.relative_to(root).as_posix()] = path.read_bytes()
    return files


def unpack(files: Mapping[str, bytes], root: Path) -> None:
    """Write *files* (from :func:`pack`) under *root*, replacing what was there; a path
    that would leave *root* is refused."""
    remove_tree(root)
    for name, data in files.items():
        relative = PurePosixPath(name)
        if relative.is_absolute() or ".." in relative.parts or not relative.parts:
            raise ValueError(f"an attempt's file {name!r} is outside its folder")
        target = root.joinpath(*relative.parts)
        make_dirs(target.parent)
        target.write_bytes(data)
