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
import datetime as dt
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bb_core.config_check import first_problem, key_path, plain, show, toml_syntax
from bb_core.errors import ConfigError
from bb_core.schemas import schema

#: The file :func:`load_config` looks for in the current folder.
FILE_NAME = "bugbout.toml"

#: How the origin of overridden values is named in messages.
OVERRIDES = "<overrides>"

_URL_PREFIXES = ("http://", "https://", "ssh://", "git://", "git@", "file://")

#: The keys every agent entry has; any other key is an adapter option.
AGENT_KEYS = frozenset({"agent", "model", "name", "vendor", "quota", "assignment"})


def is_url(repository: str) -> bool:
    """Whether *repository* names a git URL to clone rather than a local path."""
    return repository.startswith(_URL_PREFIXES)


@dataclass(frozen=True)
class ProjectConfig:
    """``[project]``: the code under test and the environment its tests need."""

    source: str | None = None
    tests: str = "tests"
    repository: str = "."
    github: str | None = None
    python: str = "3.12"
    test_dependencies: list[str] = field(default_factory=lambda: ["pytest"])
    pytest_args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    install_project: bool = True
    #: An absolute path when the file gave a path, else a command name such as python3.12.
    interpreter: str | None = None


@dataclass(frozen=True)
class TasksConfig:
    """``[tasks]``: which fixes become tasks."""

    since: dt.date | None = None
    limit: int = 20
    max_source_files: int = 2
    #: The offline issue export, resolved against the config's folder.
    issues: Path | None = None


@dataclass(frozen=True)
class RunConfig:
    """``[run]``: the sandbox, the time limits and how many runs share a quota at once."""

    sandbox: str = "auto"
    timeout: int = 1800
    test_timeout: int = 60
    quotas: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class JudgeConfig:
    """``[judge]``: how one patch per task is picked."""

    policy: str = "majority"
    run_suite: bool = True


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
    options: dict[str, Any] = field(default_factory=dict)
    origin: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not self.name:
            default = f"{self.agent}/{self.model}" if self.model else self.agent
            object.__setattr__(self, "name", default)
        if self.role == "examiner" and self.assignment is None:
            object.__setattr__(self, "assignment", "reproduce")

    def to_dict(self) -> dict[str, Any]:
        """The entry as it would be written in bugbout.toml (dashed keys, no defaults)."""
        entry: dict[str, Any] = {"agent": self.agent}
        for key in ("model", "name", "vendor", "quota", "assignment"):
            value = getattr(self, key)
            if value is not None:
                entry[key] = value
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
    judge: JudgeConfig = field(default_factory=JudgeConfig)
    contestants: list[AgentConfig] = field(default_factory=list)
    examiners: list[AgentConfig] = field(default_factory=list)

    @property
    def label(self) -> str:
        """How messages name this configuration: the file as given, or ``bugbout.toml``."""
        return str(self.path) if self.path is not None else FILE_NAME

    @property
    def agents(self) -> list[AgentConfig]:
        """Contestants then examiners."""
        return [*self.contestants, *self.examiners]

    def repository_path(self) -> Path | str:
        """The repository: a git URL as written, else its path resolved against ``root``."""
        repository = self.project.repository
        if is_url(repository):
            return repository
        return _resolve(self.root, repository)

    def to_dict(self) -> dict[str, Any]:
        """The configuration as a TOML-shaped, JSON-ready document that loads back equal."""
        p, t, r, j = self.project, self.tasks, self.run, self.judge
        project: dict[str, Any] = {
            "source": p.source,
            "tests": p.tests,
            "repository": p.repository,
            "github": p.github,
            "python": p.python,
            "test-dependencies": list(p.test_dependencies),
            "pytest-args": list(p.pytest_args),
            "env": dict(p.env),
            "install-project": p.install_project,
            "interpreter": p.interpreter,
        }
        tasks: dict[str, Any] = {
            "since": t.since.isoformat() if t.since else None,
            "limit": t.limit,
            "max-source-files": t.max_source_files,
            "issues": str(t.issues) if t.issues else None,
        }
        return {
            "project": {k: v for k, v in project.items() if v is not None},
            "tasks": {k: v for k, v in tasks.items() if v is not None},
            "run": {
                "sandbox": r.sandbox,
                "timeout": r.timeout,
                "test-timeout": r.test_timeout,
                "quotas": dict(r.quotas),
            },
            "judge": {"policy": j.policy, "run-suite": j.run_suite},
            "contestants": [a.to_dict() for a in self.contestants],
            "examiners": [a.to_dict() for a in self.examiners],
        }

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


def read_toml(file: Path) -> dict[str, Any]:
    """The parsed TOML document of *file*; every failure is a one-line ConfigError."""
    try:
        data = file.read_bytes()
    except FileNotFoundError as exc:
        raise ConfigError(f"{file}: no such file") from exc
    except OSError as exc:
        raise ConfigError(f"{file}: cannot read: {exc.strerror or exc}") from exc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ConfigError(f"{file}:{line}: not UTF-8 text") from exc
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        where, problem = toml_syntax(exc)
        raise ConfigError(f"{file}:{where}: {problem}" if where else f"{file}: {problem}") from exc


def merge_overrides(document: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """*document* with *overrides* laid over it: tables merge key by key, values replace."""
    merged = copy.deepcopy(dict(document))
    for parts, value in _leaves(overrides):
        node = merged
        for part in parts[:-1]:
            child = node.get(part)
            if not isinstance(child, dict):
                child = node[part] = {}
            node = child
        node[parts[-1]] = copy.deepcopy(value)
    return merged


def _leaves(overrides: Mapping[str, Any]) -> list[tuple[list[str], Any]]:
    """Each overridden value with its key path, spelled as in the file; None is skipped."""
    found: list[tuple[list[str], Any]] = []

    def walk(parts: list[str], props: Mapping[str, Any], value: Any) -> None:
        if value is None:
            return
        if isinstance(value, Mapping):
            for key, item in value.items():
                spelled = _known_spelling(str(key), props)
                walk([*parts, spelled], props.get(spelled, {}).get("properties", {}), item)
            return
        found.append((parts, _plain_values(value)))

    top: Mapping[str, Any] = schema("config")["properties"]
    for dotted, value in overrides.items():
        parts: list[str] = []
        props = top
        for part in str(dotted).split("."):
            spelled = _known_spelling(part, props)
            parts.append(spelled)
            props = props.get(spelled, {}).get("properties", {})
        walk(parts, props, value)
    return found


def _known_spelling(key: str, props: Mapping[str, Any]) -> str:
    """``max_source_files`` -> ``max-source-files`` when that is a known key here."""
    dashed = key.replace("_", "-")
    return dashed if key not in props and dashed in props else key


def _plain_values(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain_values(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain_values(v) for v in value]
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return value


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
        origin = OVERRIDES if overridden and _is_overridden(where, overridden) else label
        return ConfigError(f"{origin}: {where}: {problem}")

    problem = first_problem(doc, require_source=path is not None)
    if problem is not None:
        raise fail(*problem)

    p = doc.get("project", {})
    t = doc.get("tasks", {})
    r = doc.get("run", {})
    j = doc.get("judge", {})
    since = None
    if "since" in t:
        try:
            since = dt.date.fromisoformat(t["since"])
        except ValueError as exc:
            raise fail(
                "tasks.since", f"expected a date YYYY-MM-DD, got {show(t['since'])}"
            ) from exc
    interpreter = p.get("interpreter")
    if interpreter is not None and "/" in interpreter:
        interpreter = str(_resolve(root, interpreter))
    project = ProjectConfig(
        source=_clean(p["source"]) if "source" in p else None,
        tests=_clean(p.get("tests", "tests")),
        repository=p.get("repository", "."),
        github=p.get("github"),
        python=p.get("python", "3.12"),
        test_dependencies=list(p.get("test-dependencies", ["pytest"])),
        pytest_args=list(p.get("pytest-args", [])),
        env=dict(p.get("env", {})),
        install_project=p.get("install-project", True),
        interpreter=interpreter,
    )
    tasks = TasksConfig(
        since=since,
        limit=t.get("limit", 20),
        max_source_files=t.get("max-source-files", 2),
        issues=_resolve(root, t["issues"]) if "issues" in t else None,
    )
    run = RunConfig(
        sandbox=r.get("sandbox", "auto"),
        timeout=r.get("timeout", 1800),
        test_timeout=r.get("test-timeout", 60),
        quotas=dict(r.get("quotas", {})),
    )
    judge = JudgeConfig(policy=j.get("policy", "majority"), run_suite=j.get("run-suite", True))
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
        judge=judge,
        contestants=agents["contestants"],
        examiners=agents["examiners"],
    )


def _is_overridden(where: str, overridden: Mapping[str, Any]) -> bool:
    """Whether the key at *where* (``tasks.limit``) holds a value an override set."""
    for parts, _ in _leaves(overridden):
        prefix = key_path(parts)
        if where == prefix or where.startswith((prefix + ".", prefix + "[")):
            return True
    return False


def _clean(folder: str) -> str:
    """``./src/pkg/`` -> ``src/pkg``."""
    while folder.startswith("./"):
        folder = folder[2:]
    return folder.rstrip("/") or "."


def _resolve(root: Path, value: str) -> Path:
    path = Path(value).expanduser()
    return path if path.is_absolute() else (root / path).resolve()
