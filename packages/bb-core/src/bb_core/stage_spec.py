"""Each stage of a bout as one declaration, found the same way for built-in and custom ones.

A tool declares its stage as a :class:`StageSpec` and publishes it in the entry-point group
``bugbout.stages`` of its ``pyproject.toml``::

    [project.entry-points."bugbout.stages"]
    oracle = "bb_oracle.spec:SPEC"

The spec says what the stage reads and writes (record kinds), which settings class owns
its part of ``bugbout.toml``, how it makes the :class:`~bb_core.stage.Stage` whose units
and ``combine`` do the work, its command line (:func:`bb_core.stage_cli.stage_command`
builds the command from it) and how wide its executor is. :func:`run` runs any stage and
returns what it did as one :class:`Ran`; :func:`pipeline` is every installed stage in
the order a bout runs them: the built-in ones in :data:`BUILT_IN` order, and each custom
stage right after the stage its ``after`` names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from importlib.metadata import entry_points
from typing import Any, Generic, Protocol, Self, TypeVar

from bb_core.cli.progress import Progress
from bb_core.config import STAGES_GROUP, Config, Section, register_section, unregister_section
from bb_core.errors import ConfigError
from bb_core.executors.units import Executor, ExecutorSettings, make_executor
from bb_core.records import STDIN, Line, Writer
from bb_core.stage import AnyStage, read_whole, run_stage
from bb_core.store import Store

#: The entry-point group every stage is published in.
ENTRY_POINT_GROUP = STAGES_GROUP

#: The built-in stages of a bout, in the order they run (the report comes after them).
BUILT_IN = ("mine", "oracle", "race", "xexam", "judge")


class StageSettings(Protocol):
    """What a stage's settings class offers: its values from the configuration, with the
    options given (those not None) on top."""

    @classmethod
    def from_config(cls, config: Config, **overrides: Any) -> Self: ...


SettingsT = TypeVar("SettingsT", bound=StageSettings)


@dataclass(frozen=True)
class Ran:
    """What one run of a stage did: the records of its kind it handled, the line its
    command ends with (None: it says nothing more), and the counts behind that line."""

    handled: int
    line: str | None = None
    counts: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Command:
    """A stage's command line: its help, its options and how they become settings.

    ``options`` are click decorators, listed top to bottom as the help shows them;
    the input argument comes first and ``--strict`` (for a stage that reads records),
    ``--debug`` and ``--version`` last. ``settings`` makes the stage's settings of the
    configuration and the command's parameters; ``check`` checks the machine before any
    work (by default :func:`bb_core.cli.preflight.preflight` with ``--sandbox`` applied)."""

    help: str
    options: Sequence[Callable[[Any], Any]]
    settings: Callable[[Config, Mapping[str, Any]], Any]
    #: What the input files hold, for the input argument's help.
    input_help: str = ""
    check: Callable[[Config, Mapping[str, Any]], None] | None = None
    #: Run with SIGTERM taken as Ctrl-C (the finished work is kept).
    terminate_as_interrupt: bool = False
    #: What its progress lines start with (default: the program's name).
    progress: str = ""


def _as_chosen(chosen: ExecutorSettings, settings: Any) -> ExecutorSettings:
    return chosen


@dataclass(frozen=True)
class StageSpec(Generic[SettingsT]):
    """One stage of a bout, as its tool declares it.

    ``make(config, settings, store)`` is the work-unit factory: the
    :class:`~bb_core.stage.Stage` whose ``units`` split each record into work and whose
    ``combine`` makes the records it writes of their results. A stage that reads no
    records (``reads`` None: the miner reads a repository) gives ``source`` instead: it
    writes every record itself, its inputs being the repository."""

    #: The stage's name in the pipeline and in ``.bugbout/run.json`` (``oracle``).
    name: str
    #: Its program, for messages and progress lines (``bb-oracle``).
    prog: str
    #: The file its whole output is kept in under ``.bugbout/`` (``oracles.jsonl``).
    stream: str
    #: The record kind it works on (others pass through); None: it reads a repository.
    reads: str | None
    #: The record kinds it writes.
    writes: tuple[str, ...]
    #: Its settings class: owns its part of bugbout.toml, its defaults and its checks.
    settings: type[SettingsT]
    command: Command
    make: Callable[[Config, SettingsT, Store], AnyStage] | None = None
    source: (
        Callable[[Sequence[str], Config, SettingsT, Writer, Progress | None, str], Ran] | None
    ) = None
    #: The executor its units run on, given the one chosen (``--executor``, ``--jobs``).
    width: Callable[[ExecutorSettings, SettingsT], ExecutorSettings] = _as_chosen
    #: Reads and checks its whole input before the first unit starts (the race: a bad
    #: line costs no agent's quota).
    whole_input: bool = False
    #: For a stage that is not built in: the stage whose output it reads; it runs right
    #: after that one and the stages after it read its output.
    after: str | None = None
    #: Draws its own view on a terminal (progress lines only off one).
    own_view: bool = False
    #: Its section of bugbout.toml, when it has one (read when the configuration loads).
    section: Section | None = None

    def settings_of(self, config: Config, **overrides: Any) -> SettingsT:
        """The stage's settings as *config* gives them, with *overrides* on top."""
        return self.settings.from_config(config, **overrides)


def run(
    spec: StageSpec[SettingsT],
    inputs: Sequence[str],
    settings: SettingsT,
    executor: ExecutorSettings | Executor | None = None,
    progress: Progress | None = None,
    writer: Writer | None = None,
    *,
    config: Config,
    store: Store | None = None,
    stage: AnyStage | None = None,
    label: str | None = None,
) -> Ran:
    """Run *spec*'s stage over *inputs* (JSON-lines files, ``-`` or none for stdin; the
    repository for a stage that reads none) with *settings*, its units on the executor
    *executor* describes (this machine's threads, one at a time, by default) as wide as
    the stage makes it - or on *executor* itself when it is one already made (not closed
    here) - its lines written to *writer* (stdout by default); returns what it did.

    *stage*, when given, is the stage already made (with what its factory does not
    take, e.g. agents defined in a script); *store* is ``.bugbout/`` beside the
    configuration by default; *label* starts its warnings (default: the program's name)."""
    out = writer or Writer()
    if spec.source is not None:
        return spec.source(inputs, config, settings, out, progress, label or spec.prog)
    if stage is None:
        if spec.make is None:
            raise TypeError(f"stage {spec.name} has neither make nor source")
        stage = spec.make(config, settings, store or Store(config.root))
    lines: list[Line] | None = None
    if spec.whole_input:
        lines = read_whole(inputs or (STDIN,), out)
        if progress is not None:
            progress.update(total=sum(1 for line in lines if line.known and line.kind == "task"))
        before = getattr(stage, "before", None)
        if callable(before):
            before(lines)
    if executor is None or isinstance(executor, ExecutorSettings):
        chosen = spec.width(executor or ExecutorSettings(), settings)
        units = make_executor(chosen, on_change=getattr(stage, "draw", None))
        try:
            handled = run_stage(inputs, stage, units, progress, out, lines=lines)
        finally:
            units.close()
    else:
        handled = run_stage(inputs, stage, executor, progress, out, lines=lines)
    closing = getattr(stage, "closing", None)
    counts = getattr(stage, "counts", None)
    return Ran(
        handled,
        closing() if callable(closing) else None,
        counts() if callable(counts) else {},
    )


# -- finding the stages ----------------------------------------------------------------

_registered: dict[str, StageSpec[Any]] = {}


def register(spec: StageSpec[Any]) -> StageSpec[Any]:
    """Make *spec* known in this process (a stage defined in a script or a test);
    a published stage uses the ``bugbout.stages`` entry-point group instead."""
    _registered[spec.name] = spec
    if spec.section is not None:
        register_section(spec.section)
    return spec


def unregister(name: str) -> None:
    """Forget a stage :func:`register` made known."""
    spec = _registered.pop(name, None)
    if spec is not None and spec.section is not None:
        unregister_section(spec.section.name)


def installed() -> dict[str, StageSpec[Any]]:
    """Every stage this installation knows, by name (one registered in process wins)."""
    return {**_published(), **_registered}


@cache
def _published() -> dict[str, StageSpec[Any]]:
    """The stages of the ``bugbout.stages`` entry points, loaded once a process."""
    found: dict[str, StageSpec[Any]] = {}
    for point in entry_points(group=ENTRY_POINT_GROUP):
        if point.name in found:
            continue
        try:
            spec = point.load()
        except Exception as exc:
            raise ConfigError(
                f"stage {point.name!r} cannot be loaded from {point.value}: {exc}"
            ) from exc
        if not isinstance(spec, StageSpec) or spec.name != point.name:
            raise ConfigError(
                f"stage {point.name!r} ({point.value}) is not a StageSpec named {point.name!r}"
            )
        found[point.name] = spec
    return found


def pipeline(specs: Mapping[str, StageSpec[Any]] | None = None) -> list[StageSpec[Any]]:
    """The stages of a bout in the order they run: the built-in ones in :data:`BUILT_IN`
    order, each other one right after the stage its ``after`` names (in name order when
    several follow the same one). A custom stage that names no known stage is a
    :class:`ConfigError`."""
    known = dict(installed() if specs is None else specs)
    order = [known[name] for name in BUILT_IN if name in known]
    custom = sorted((s for name, s in known.items() if name not in BUILT_IN), key=lambda s: s.name)
    placed: list[StageSpec[Any]] = []
    while custom:
        names = [spec.name for spec in order]
        ready = [spec for spec in custom if spec.after in names]
        if not ready:
            stray = custom[0]
            raise ConfigError(
                f"stage {stray.name!r} runs after {stray.after!r}, which is not a stage "
                f"(stages: {', '.join(names)})"
            )
        for spec in ready:
            at = names.index(str(spec.after)) + 1
            while at < len(order) and order[at] in placed and order[at].after == spec.after:
                at += 1
            order.insert(at, spec)
            names.insert(at, spec.name)
            placed.append(spec)
            custom.remove(spec)
    return order


def with_width(chosen: ExecutorSettings, jobs: int) -> ExecutorSettings:
    """*chosen* with *jobs* units at once on its shared lane."""
    return replace(chosen, jobs=jobs)
