"""Load ``bugbout.toml`` into frozen dataclasses, or say in one line what is wrong with it.

``load_config()`` reads the file with :mod:`tomllib`, checks it against
``schemas/config.json`` and builds a :class:`Config`. Keys are dashed in TOML
(``max-source-files``) and underscored in Python (``max_source_files``). Paths in the file
are relative to the file's folder. Every problem is a :class:`~bb_core.errors.ConfigError`
whose message is ``<file>: <key.path>: <problem>``, e.g.
``bugbout.toml: run.timeout: expected an integer, got "abc"``.

Command-line flags override the file through ``overrides`` (or
:meth:`Config.with_overrides` later); overridden values are checked like the file's own.

The kernel reads ``[project]``, ``[run]`` and the agents. Every other section belongs to
a stage: the :class:`Section` its spec declares (see :mod:`bb_core.stage_spec`) reads
it - its keys, defaults and the checks beyond the schema - into the object its tools use,
kept in :attr:`Config.sections`; a custom stage's section is checked against the schema
its :class:`Section` gives. A section no installed stage owns is an unknown key.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import functools
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from bb_core.config.doc import (
    first_problem,
    is_overridden,
    key_path,
    merge_overrides,
    plain,
    read_toml,
    section_problem,
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
    #: ``python``, ``javascript`` or ``typescript``.
    language: str = "python"
    #: ``pytest``, ``vitest`` or ``jest``; None: pytest (a node project must name it).
    runner: str | None = None

    @property
    def node(self) -> bool:
        """Whether this is a JavaScript or TypeScript project (tests run on node)."""
        return self.language in NODE_LANGUAGES

    @property
    def test_runner(self) -> str:
        """The runner's name: ``runner``, else pytest."""
        return self.runner or "pytest"

    @property
    def test_globs(self) -> list[str] | None:
        """``test-files``; for a node project that gives none, the conventions
        (:data:`NODE_TEST_FILES`)."""
        if self.test_files is None and self.node:
            return list(NODE_TEST_FILES)
        return self.test_files


#: The languages whose tests run on node, and the runners that run them.
NODE_LANGUAGES = ("javascript", "typescript")
NODE_RUNNERS = ("vitest", "jest")

#: A node project's test files when ``test-files`` does not say: the runners' conventions.
NODE_TEST_FILES = ("**/*.test.*", "**/*.spec.*", "**/__tests__/**")


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


#: How a section's reader says what is wrong: ``fail(key path, problem)`` is the error to
#: raise, ``<file>: <key.path>: <problem>`` (or ``<overrides>: ...``).
Fail = Callable[[str, str], ConfigError]

SectionT = TypeVar("SectionT")


@dataclass(frozen=True)
class Section:
    """A stage's section of bugbout.toml, as the stage's spec declares it.

    ``read(table, root, fail)`` makes the section's object (a frozen dataclass of
    underscored fields) of its *table* (dashed keys, already checked against the schema;
    empty when the file has none), resolving paths against *root* and raising
    ``fail(key path, problem)`` for what the schema cannot say. A built-in section's keys
    are described in ``schemas/config.json``; a custom stage gives its ``schema`` (a
    JSON schema of its table, with a description and a default per key)."""

    name: str
    read: Callable[[Mapping[str, Any], Path, Fail], Any]
    schema: Mapping[str, Any] | None = None


def section_fields(cls: type[SectionT], table: Mapping[str, Any]) -> dict[str, Any]:
    """The keyword arguments of dataclass *cls* that *table* (dashed keys) gives."""
    return _fields(cls, table)


def resolve(root: Path, value: str) -> Path:
    """A path of the file, resolved against its folder *root* (``~`` expanded)."""
    return _resolve(root, value)


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
    run: RunConfig = field(default_factory=RunConfig)
    contestants: list[AgentConfig] = field(default_factory=list)
    examiners: list[AgentConfig] = field(default_factory=list)
    #: Each stage's section, as its :class:`Section` read it, by section name.
    sections: dict[str, Any] = field(default_factory=dict)

    def section(self, name: str, cls: type[SectionT]) -> SectionT:
        """The ``[name]`` section as its owner read it; *cls*'s defaults when the
        configuration was made without it (built by hand, or its stage not installed)."""
        found = self.sections.get(name)
        return found if isinstance(found, cls) else cls()

    def with_section(self, name: str, value: Any) -> Config:
        """A copy with section *name* replaced by *value* (unchecked)."""
        return dataclasses.replace(self, sections={**self.sections, name: value})

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
            "project": _table(self.project),
            "run": _table(self.run),
            **{name: _table(value) for name, value in self.sections.items()},
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

    owners = _section_owners()
    custom = {name: doc.pop(name) for name, owner in owners.items() if owner.schema and name in doc}
    problem = first_problem(doc, require_source=path is not None)
    if problem is None:
        problem = next(
            (
                found
                for name, table in custom.items()
                if (found := section_problem(name, table, owners[name].schema or {}))
            ),
            None,
        )
    if problem is not None:
        raise fail(*problem)

    p = _fields(ProjectConfig, doc.get("project", {}))
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
    mismatch = _runner_problem(p.get("language", "python"), p.get("runner"))
    if mismatch is not None:
        raise fail("project.runner", mismatch)
    project = ProjectConfig(**p)
    run = RunConfig(**_fields(RunConfig, doc.get("run", {})))
    sections = {
        name: owner.read({**doc, **custom}.get(name, {}), root, fail)
        for name, owner in owners.items()
    }
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
        run=run,
        contestants=agents["contestants"],
        examiners=agents["examiners"],
        sections=sections,
        prices={model: read_price(entry) for model, entry in doc.get("prices", {}).items()},
    )


#: The entry-point group every stage's spec is published in (see bb_core.stage_spec).
STAGES_GROUP = "bugbout.stages"

#: The sections of stages made known in this process (``bb_core.stage_spec.register``).
_registered: dict[str, Section] = {}


def register_section(section: Section) -> None:
    """Make *section*'s owner read it from now on in this process."""
    _registered[section.name] = section


def unregister_section(name: str) -> None:
    _registered.pop(name, None)


def _section_owners() -> dict[str, Section]:
    """The sections the installed stages own, by name (their specs are loaded here)."""
    return {**_published_sections(), **_registered}


@functools.cache
def _published_sections() -> dict[str, Section]:
    from importlib.metadata import entry_points

    found: dict[str, Section] = {}
    for point in entry_points(group=STAGES_GROUP):
        try:
            spec = point.load()
        except Exception as exc:
            raise ConfigError(
                f"stage {point.name!r} cannot be loaded from {point.value}: {exc}"
            ) from exc
        section = getattr(spec, "section", None)
        if isinstance(section, Section):
            found.setdefault(section.name, section)
    return found


def _runner_problem(language: str, runner: str | None) -> str | None:
    """What is wrong with ``[project] runner`` for *language*, or None."""
    if language in NODE_LANGUAGES:
        if runner is None:
            return (
                f'required key missing; a {language} project names its test runner: "vitest" '
                'or "jest" (`bugbout init` finds it)'
            )
        if runner not in NODE_RUNNERS:
            return (
                f'{show(runner)} runs python projects; a {language} project runs "vitest" or "jest"'
            )
    elif runner is not None and runner != "pytest":
        return (
            f"{show(runner)} runs javascript and typescript projects; set [project] language = "
            '"javascript" or "typescript", or runner = "pytest"'
        )
    return None


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
