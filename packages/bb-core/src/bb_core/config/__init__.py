"""Load ``bugbout.toml`` into frozen dataclasses, or say in one line what is wrong with it.

``load_config()`` reads the file with :mod:`tomllib`, checks it against
``schemas/config.json`` and builds a :class:`Config`. Keys are dashed in TOML
(``max-source-files``) and underscored in Python (``max_source_files``). Paths in the file
are relative to the file's folder. Every problem is a :class:`~bb_core.errors.ConfigError`
whose message is ``<file>: <key.path>: <problem>``, e.g.
``bugbout.toml: run.timeout: expected an integer, got "abc"``.

Command-line flags override the file through ``overrides`` (or
:meth:`Config.with_overrides` later); overridden values are checked like the file's own.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bb_core.config.doc import (
    first_problem,
    is_overridden,
    key_path,
    merge_overrides,
    plain,
    read_toml,
    show,
)
from bb_core.config.eras import era_problem
from bb_core.config.prices import Price, price_table, read_price
from bb_core.errors import ConfigError
from bb_core.git import is_url

#: The file :func:`load_config` looks for in the current folder.
FILE_NAME = "bugbout.toml"

#: How the origin of overridden values is named in messages.
OVERRIDES = "<overrides>"

#: The keys every agent entry has; any other key is an adapter option.
AGENT_KEYS = frozenset(
    {"agent", "model", "name", "vendor", "quota", "assignment", "samples", "cost-per-attempt"}
)


#: What ``tasks.since`` and ``bb-mine --since`` take, in words.
SINCE_WORDS = "a date YYYY-MM-DD or an ISO 8601 time"


def parse_since(text: str) -> dt.date | dt.datetime:
    """``2023-01-01`` (a date) or a full ISO 8601 time, UTC unless it says otherwise."""
    text = text.strip()
    if len(text) == 10:
        return dt.date.fromisoformat(text)
    when = dt.datetime.fromisoformat(text)
    return when if when.tzinfo else when.replace(tzinfo=dt.UTC)


def since_moment(since: dt.date | dt.datetime) -> dt.datetime:
    """The aware time *since* starts at: a date's midnight UTC."""
    if isinstance(since, dt.datetime):
        return since
    return dt.datetime(since.year, since.month, since.day, tzinfo=dt.UTC)


@dataclass(frozen=True)
class ProjectConfig:
    """``[project]``: the code under test and the environment its tests need."""

    #: A folder, ``.`` for the whole tree, or a list of folders.
    source: str | list[str] | None = None
    tests: str = "tests"
    #: Test module patterns replacing pytest's ``python_files`` (None: as the project says).
    test_files: list[str] | None = None
    repository: str = "."
    github: str | None = None
    python: str = "3.12"
    #: A list, or eras (``"<2019-01-01"``, ``">=2019-01-01"``, ``"A..B"``, ``"default"``)
    #: each mapped to a list, in the file's order; see :mod:`bb_core.config.eras`.
    test_dependencies: list[str] | dict[str, list[str]] = field(default_factory=lambda: ["pytest"])
    pytest_args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    install_project: bool = True
    #: An absolute path when the file gave a path, else a command name such as python3.12.
    interpreter: str | None = None
    #: ``"project"``: one environment; ``"history"``: one per base commit's declarations.
    environments: str = "project"
    #: Commands run in each checkout before every test run: a string (``sh -c``) or argv.
    setup: list[str | list[str]] = field(default_factory=list)


@dataclass(frozen=True)
class TasksConfig:
    """``[tasks]``: which fixes become tasks."""

    #: A date (from midnight UTC) or an aware time.
    since: dt.date | dt.datetime | None = None
    limit: int = 20
    max_source_files: int = 2
    #: Sentences a statement must keep beyond its title after redaction.
    statement_min_sentences: int = 1
    #: Keep a fix whose texts keep no symptom once redacted, flagged statement-thin.
    keep_thin_statements: bool = False
    #: The offline issue export, resolved against the config's folder.
    issues: Path | None = None
    require_fix_signal: bool = True
    new_tests: str = "changed"
    categories: list[str] = field(default_factory=lambda: ["bug", "unknown"])
    exclude: list[str] = field(default_factory=list)
    include: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class RunConfig:
    """``[run]``: the sandbox, the time limits, how many runs share a quota at once, and
    the caps on what one attempt may leave (its patch's bytes, its disk use)."""

    sandbox: str = "auto"
    timeout: int = 1800
    test_timeout: int = 60
    quotas: dict[str, int] = field(default_factory=dict)
    #: Where the stages' units run: ``local`` or ``ray`` (see bb_core.executors.units).
    executor: str = "local"
    #: The Ray cluster for ``executor = "ray"``; None starts a Ray of this machine alone.
    ray_address: str | None = None
    max_patch_bytes: int = 8 * 1024 * 1024
    max_attempt_disk: int = 2 * 1024 * 1024 * 1024
    #: Limits of every confined command (an attempt, a test run); 0: none.
    memory: int = 8 * 1024 * 1024 * 1024
    processes: int = 1024
    file_size: int = 2 * 1024 * 1024 * 1024
    #: How many times each contestant attempts each task (a contestant's own wins).
    samples: int = 1


@dataclass(frozen=True)
class OracleConfig:
    """``[oracle]``: how strong each task's oracle is measured to be."""

    strength: bool = True
    max_mutants: int = 20
    min_mutation_score: float = 0.5
    min_coverage: float = 0.8


@dataclass(frozen=True)
class JudgeConfig:
    """``[judge]``: how one patch per task is picked."""

    policy: str = "majority"
    run_suite: bool = True
    #: ``exclude``: a resolved patch with a suspicious finding is counted apart and never
    #: picked; ``count``: it counts as resolved (for a team that has reviewed them).
    suspicious: str = "exclude"


@dataclass(frozen=True)
class AgentConfig:
    """One ``[[contestants]]`` or ``[[examiners]]`` entry.

    ``options`` holds every other key of the entry under its dashed name, for the adapter.
    ``origin`` (``bugbout.toml: contestants[2]``) starts messages about this entry.
    """

    agent: str
    model: str | None = None
    name: str = ""
    vendor: str | None = None
    quota: str | None = None
    role: str = "contestant"
    assignment: str | None = None
    #: How many times this contestant attempts each task; None: ``[run] samples``.
    samples: int | None = None
    #: US dollars one attempt costs (``cost-per-attempt``); None: priced by its tokens.
    cost_per_attempt: float | None = None
    options: dict[str, Any] = field(default_factory=dict)
    origin: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not self.name:
            default = f"{self.agent}/{self.model}" if self.model else self.agent
            object.__setattr__(self, "name", default)
        if self.role == "examiner" and self.assignment is None:
            object.__setattr__(self, "assignment", "reproduce")

    def to_dict(self) -> dict[str, Any]:
        """The entry as bugbout.toml would spell it: dashed keys, unset ones left out."""
        entry: dict[str, Any] = {"agent": self.agent}
        for key in ("model", "name", "vendor", "quota", "assignment", "samples"):
            value = getattr(self, key)
            if value is not None:
                entry[key] = value
        if self.cost_per_attempt is not None:
            entry["cost-per-attempt"] = self.cost_per_attempt
        entry.update(copy.deepcopy(self.options))
        return entry


@dataclass(frozen=True)
class Config:
    """The whole of bugbout.toml. ``path`` is as given (None: defaults, no file)."""

    path: Path | None
    root: Path
    project: ProjectConfig = field(default_factory=ProjectConfig)
    tasks: TasksConfig = field(default_factory=TasksConfig)
    run: RunConfig = field(default_factory=RunConfig)
    oracle: OracleConfig = field(default_factory=OracleConfig)
    judge: JudgeConfig = field(default_factory=JudgeConfig)
    contestants: list[AgentConfig] = field(default_factory=list)
    examiners: list[AgentConfig] = field(default_factory=list)
    #: ``[prices]``: the user's token prices by model, on top of the shipped table.
    prices: dict[str, Price] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """How messages name this configuration: the file as given, or ``bugbout.toml``."""
        return str(self.path) if self.path is not None else FILE_NAME

    @property
    def agents(self) -> list[AgentConfig]:
        """Contestants then examiners."""
        return [*self.contestants, *self.examiners]

    def price_table(self) -> dict[str, Price]:
        """Token prices by model: the shipped table with ``[prices]`` on top."""
        return price_table(self.prices)

    def samples(self, name: str) -> int:
        """How many times the contestant *name* attempts each task: its own ``samples``,
        else ``[run] samples``; an examiner (or an agent not configured here) once."""
        entry = next((a for a in self.contestants if a.name == name), None)
        if entry is None:
            return 1 if any(a.name == name for a in self.examiners) else self.run.samples
        return entry.samples if entry.samples is not None else self.run.samples

    def repository_path(self) -> Path | str:
        """The repository: a git URL as written, else its path resolved against ``root``."""
        repository = self.project.repository
        if is_url(repository):
            return repository
        return _resolve(self.root, repository)

    def to_dict(self) -> dict[str, Any]:
        """The configuration as a TOML-shaped, JSON-ready document that loads back equal."""
        document: dict[str, Any] = {
            section: _table(getattr(self, section))
            for section in ("project", "tasks", "run", "oracle", "judge")
        }
        if self.prices:
            document["prices"] = {
                model: {k: v for k, v in dataclasses.asdict(price).items() if v is not None}
                for model, price in self.prices.items()
            }
        document["contestants"] = [a.to_dict() for a in self.contestants]
        document["examiners"] = [a.to_dict() for a in self.examiners]
        return document

    def with_overrides(self, overrides: Mapping[str, Any]) -> Config:
        """A copy with *overrides* applied and checked; see :func:`load_config`."""
        document = merge_overrides(self.to_dict(), overrides)
        return build(document, path=self.path, root=self.root, overridden=overrides)


def load_config(
    path: str | os.PathLike[str] | None = None, *, overrides: Mapping[str, Any] | None = None
) -> Config:
    """Read bugbout.toml and return the checked :class:`Config`.

    *path* is the file (or a folder holding ``bugbout.toml``); a missing file is an error.
    With no *path*, ``./bugbout.toml`` is read when it exists, else the defaults are used
    (``path`` is None, ``root`` the current folder, ``project.source`` unset).

    *overrides* come from command-line flags and win over the file: a nested mapping
    (``{"tasks": {"limit": 5}}``) or dotted keys (``{"tasks.limit": 5}``), dashed or
    underscored. A None value means "not given" and is skipped.
    """
    file: Path | None
    if path is None:
        file = Path(FILE_NAME) if Path(FILE_NAME).is_file() else None
    else:
        file = Path(path)
        if file.is_dir():
            file = file / FILE_NAME
    document: dict[str, Any] = read_toml(file) if file is not None else {}
    if overrides:
        document = merge_overrides(document, overrides)
    root = file.parent.resolve() if file is not None else Path.cwd().resolve()
    return build(document, path=file, root=root, overridden=overrides or {})


def build(
    document: Mapping[str, Any],
    *,
    path: Path | None,
    root: Path,
    overridden: Mapping[str, Any] | None = None,
) -> Config:
    """Check a TOML-shaped *document* and build the :class:`Config` it describes."""
    label = str(path) if path is not None else FILE_NAME
    doc = plain(document)

    def fail(where: str, problem: str) -> ConfigError:
        origin = OVERRIDES if overridden and is_overridden(where, overridden) else label
        return ConfigError(f"{origin}: {where}: {problem}")

    problem = first_problem(doc, require_source=path is not None)
    if problem is not None:
        raise fail(*problem)

    p = _fields(ProjectConfig, doc.get("project", {}))
    t = _fields(TasksConfig, doc.get("tasks", {}))
    for key in ("source", "tests"):
        if key in p:
            p[key] = [_clean(f) for f in p[key]] if isinstance(p[key], list) else _clean(p[key])
    if "/" in p.get("interpreter", ""):
        p["interpreter"] = str(_resolve(root, p["interpreter"]))
    deps = p.get("test_dependencies")
    if isinstance(deps, dict):
        wrong = era_problem(deps)
        if wrong is not None:
            raise fail(key_path(["project", "test-dependencies", wrong[0]]), wrong[1])
    if "issues" in t:
        t["issues"] = _resolve(root, t["issues"])
    if "since" in t:
        try:
            t["since"] = parse_since(t["since"])
        except ValueError as exc:
            raise fail("tasks.since", f"expected {SINCE_WORDS}, got {show(t['since'])}") from exc
    project = ProjectConfig(**p)
    tasks = TasksConfig(**t)
    run = RunConfig(**_fields(RunConfig, doc.get("run", {})))
    oracle = OracleConfig(**_fields(OracleConfig, doc.get("oracle", {})))
    judge = JudgeConfig(**_fields(JudgeConfig, doc.get("judge", {})))
    agents: dict[str, list[AgentConfig]] = {}
    seen: dict[str, str] = {}
    for section, role in (("contestants", "contestant"), ("examiners", "examiner")):
        agents[section] = []
        for index, entry in enumerate(doc.get(section, [])):
            where = key_path([section, index])
            agent = AgentConfig(
                agent=entry["agent"],
                model=entry.get("model"),
                name=entry.get("name", ""),
                vendor=entry.get("vendor"),
                quota=entry.get("quota"),
                role=role,
                assignment=entry.get("assignment"),
                samples=entry.get("samples"),
                cost_per_attempt=entry.get("cost-per-attempt"),
                options={k: v for k, v in entry.items() if k not in AGENT_KEYS},
                origin=f"{label}: {where}",
            )
            if agent.name in seen:
                raise fail(
                    where,
                    f"name {show(agent.name)} is already used by {seen[agent.name]}; "
                    "give each entry its own name",
                )
            seen[agent.name] = where
            agents[section].append(agent)
    return Config(
        path=path,
        root=root,
        project=project,
        tasks=tasks,
        run=run,
        oracle=oracle,
        judge=judge,
        contestants=agents["contestants"],
        examiners=agents["examiners"],
        prices={model: read_price(entry) for model, entry in doc.get("prices", {}).items()},
    )


def _fields(cls: type[Any], table: Mapping[str, Any]) -> dict[str, Any]:
    """The keyword arguments of *cls* that *table* (dashed keys) gives; defaults stay."""
    return {
        f.name: table[f.name.replace("_", "-")]
        for f in dataclasses.fields(cls)
        if f.name.replace("_", "-") in table
    }


def _table(section: Any) -> dict[str, Any]:
    """A section dataclass as a TOML table: dashed keys, no None, dates and paths as text."""
    table: dict[str, Any] = {}
    for f in dataclasses.fields(section):
        value = getattr(section, f.name)
        if value is None:
            continue
        if isinstance(value, dt.date | Path):
            value = str(value)  # a date's str() is YYYY-MM-DD
        table[f.name.replace("_", "-")] = copy.deepcopy(value)
    return table


def _clean(folder: str) -> str:
    """``./src/pkg/`` -> ``src/pkg``."""
    while folder.startswith("./"):
        folder = folder[2:]
    return folder.rstrip("/") or "."


def _resolve(root: Path, value: str) -> Path:
    path = Path(value).expanduser()
    return path if path.is_absolute() else (root / path).resolve()
