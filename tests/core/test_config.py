"""bugbout.toml: defaults, every key, paths, overrides, and each error's exact one line."""

from __future__ import annotations

import dataclasses
import datetime as dt
import textwrap
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import build_demo  # examples/demo, on sys.path through tests/conftest.py
import click
import pytest
from bb_core.cli import BbCommand, config_option
from bb_core.config import (
    AgentConfig,
    Config,
    ProjectConfig,
    RunConfig,
    load_config,
)
from bb_core.config.doc import PATTERN_WORDS
from bb_core.errors import ConfigError
from bb_core.records.schemas import schema
from bb_judge.settings import JudgeConfig
from bb_mine.tasks_section import TasksConfig
from click.testing import CliRunner


def tasks_of(config: Config) -> TasksConfig:
    return config.section("tasks", TasksConfig)


def judge_of(config: Config) -> JudgeConfig:
    return config.section("judge", JudgeConfig)


MINIMAL = '[project]\nsource = "src/pkg"\n'

FULL = """\
[project]
source = "src/pkg"
tests = "test"
test-files = ["tests_*.py"]
repository = "../checkout"
github = "octo/pkg"
python = "3.11"
test-dependencies = ["pytest", "hypothesis>=6"]
pytest-args = ["-p", "no:cacheprovider"]
env = { DATABASE_URL = "sqlite://" }
install-project = false
interpreter = "venv/bin/python"
environments = "history"
language = "python"
runner = "pytest"
setup = ["echo 'VERSION = \\"1\\"' > src/pkg/_version.py", ["python", "-m", "pkg.prepare"]]

[tasks]
since = 2023-01-31
limit = 5
max-source-files = 3
statement-min-sentences = 2
keep-thin-statements = true
issues = "exports/issues.jsonl"
require-fix-signal = false
new-tests = "cases"
categories = ["bug"]
exclude = ["0123456789abcdef"]
include = ["pkg-fedcba9876"]

[run]
sandbox = "bubblewrap"
timeout = 600
test-timeout = 30
quotas = { codex = 2, claude-code = 1 }
executor = "ray"
ray-address = "ray://head:10001"
max-patch-bytes = 1000000
max-attempt-disk = 50000000
memory = 1073741824
processes = 256
file-size = 0
samples = 3

[judge]
policy = "cross-vendor"
run-suite = false
suspicious = "count"
samples = "all"

[[contestants]]
agent = "codex"
model = "gpt-5.1-codex"
vendor = "openai"
quota = "team-plan"
samples = 5
reasoning-effort = "high"

[[contestants]]
agent = "command"
name = "aider"
model = "gpt-5"
command = ["aider", "--model", "{model}", "--message-file", "{prompt_file}"]
state-dirs = ["~/.aider"]
env = { AIDER_NO_AUTO_COMMITS = "1" }
sandboxed = true

[[examiners]]
agent = "claude-code"
model = "sonnet"
name = "claude-spec"
assignment = "specify"
effort = "high"
"""


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh folder that is also the working directory, so messages say bugbout.toml."""
    monkeypatch.chdir(tmp_path)
    yield tmp_path


def write(folder: Path, text: str, name: str = "bugbout.toml") -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def error_of(text: str | bytes, **overrides: Any) -> str:
    """The message load_config gives for a bugbout.toml holding *text* (cwd is its folder)."""
    path = Path("bugbout.toml")
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config("bugbout.toml", overrides=overrides or None)
    assert caught.value.exit_code == 2
    message = str(caught.value)
    assert "\n" not in message
    return message


# -- defaults ------------------------------------------------------------------------------


def test_no_file_gives_the_defaults_rooted_in_the_working_directory(folder: Path) -> None:
    config = load_config()
    assert config.path is None
    assert config.root == folder.resolve()
    assert config.project == ProjectConfig()
    assert config.project.source is None
    assert tasks_of(config) == TasksConfig()
    assert config.run == RunConfig()
    assert judge_of(config) == JudgeConfig()
    assert config.contestants == [] and config.examiners == []
    assert config.repository_path() == folder.resolve()


def test_bugbout_toml_in_the_working_directory_is_read_by_default(folder: Path) -> None:
    write(folder, MINIMAL)
    config = load_config()
    assert config.path == Path("bugbout.toml")
    assert config.project.source == "src/pkg"


def test_a_minimal_file_takes_every_default(folder: Path) -> None:
    config = load_config(write(folder, MINIMAL))
    assert config.project == ProjectConfig(source="src/pkg")
    assert (tasks_of(config), config.run, judge_of(config)) == (
        TasksConfig(),
        RunConfig(),
        JudgeConfig(),
    )


def _schema_defaults() -> Iterator[tuple[str, str, Any]]:
    for section in ("project", "tasks", "run", "judge"):
        for key, spec in schema("config")["properties"][section]["properties"].items():
            if "default" in spec:
                yield section, key, spec["default"]


@pytest.mark.parametrize(("section", "key", "default"), list(_schema_defaults()))
def test_schema_defaults_are_the_loaders_defaults(section: str, key: str, default: Any) -> None:
    config = Config(path=None, root=Path("/"))
    owners: dict[str, type[Any]] = {"tasks": TasksConfig, "judge": JudgeConfig}
    read = (
        config.section(section, owners[section]) if section in owners else getattr(config, section)
    )
    assert getattr(read, key.replace("-", "_")) == default


# -- every key -----------------------------------------------------------------------------


def test_every_key_is_read(folder: Path) -> None:
    write(folder, FULL)
    config = load_config("bugbout.toml")
    assert config.project == ProjectConfig(
        source="src/pkg",
        tests="test",
        test_files=["tests_*.py"],
        repository="../checkout",
        github="octo/pkg",
        python="3.11",
        test_dependencies=["pytest", "hypothesis>=6"],
        pytest_args=["-p", "no:cacheprovider"],
        env={"DATABASE_URL": "sqlite://"},
        install_project=False,
        interpreter=str(folder.resolve() / "venv/bin/python"),
        environments="history",
        setup=["echo 'VERSION = \"1\"' > src/pkg/_version.py", ["python", "-m", "pkg.prepare"]],
        language="python",
        runner="pytest",
    )
    assert tasks_of(config) == TasksConfig(
        since=dt.date(2023, 1, 31),
        limit=5,
        max_source_files=3,
        statement_min_sentences=2,
        keep_thin_statements=True,
        issues=folder.resolve() / "exports/issues.jsonl",
        require_fix_signal=False,
        new_tests="cases",
        categories=["bug"],
        exclude=["0123456789abcdef"],
        include=["pkg-fedcba9876"],
    )
    assert config.run == RunConfig(
        sandbox="bubblewrap",
        timeout=600,
        test_timeout=30,
        quotas={"codex": 2, "claude-code": 1},
        executor="ray",
        ray_address="ray://head:10001",
        max_patch_bytes=1_000_000,
        max_attempt_disk=50_000_000,
        memory=1024**3,
        processes=256,
        file_size=0,
        samples=3,
    )
    assert judge_of(config) == JudgeConfig(
        policy="cross-vendor", run_suite=False, suspicious="count", samples="all"
    )
    assert config.contestants == [
        AgentConfig(
            agent="codex",
            model="gpt-5.1-codex",
            name="codex/gpt-5.1-codex",
            vendor="openai",
            quota="team-plan",
            role="contestant",
            samples=5,
            options={"reasoning-effort": "high"},
        ),
        AgentConfig(
            agent="command",
            model="gpt-5",
            name="aider",
            options={
                "command": ["aider", "--model", "{model}", "--message-file", "{prompt_file}"],
                "state-dirs": ["~/.aider"],
                "env": {"AIDER_NO_AUTO_COMMITS": "1"},
                "sandboxed": True,
            },
        ),
    ]
    assert config.examiners == [
        AgentConfig(
            agent="claude-code",
            model="sonnet",
            name="claude-spec",
            role="examiner",
            assignment="specify",
            options={"effort": "high"},
        )
    ]
    assert config.contestants[1].origin == "bugbout.toml: contestants[1]"
    assert config.agents == [*config.contestants, *config.examiners]
    # A contestant's own samples, else [run] samples; an examiner attempts once.
    assert [config.samples(n) for n in ("codex/gpt-5.1-codex", "aider", "claude-spec")] == [5, 3, 1]


def test_to_dict_loads_back_equal(folder: Path) -> None:
    config = load_config(write(folder, FULL))
    assert config.with_overrides({}) == config
    document = config.to_dict()
    write(folder, MINIMAL, "other/bugbout.toml")
    assert load_config("other/bugbout.toml", overrides=document) == (
        dataclasses.replace(
            config, path=Path("other/bugbout.toml"), root=folder.resolve() / "other"
        )
    )


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ('since = "2024-02-29"', dt.date(2024, 2, 29)),
        ("since = 2024-02-29", dt.date(2024, 2, 29)),
        ('since = "2024-02-29T10:30:00Z"', dt.datetime(2024, 2, 29, 10, 30, tzinfo=dt.UTC)),
        ("since = 2024-02-29T10:30:00", dt.datetime(2024, 2, 29, 10, 30, tzinfo=dt.UTC)),
        (
            "since = 2024-02-29T10:30:00+02:00",
            dt.datetime(2024, 2, 29, 8, 30, tzinfo=dt.UTC),
        ),
    ],
)
def test_since_takes_what_bb_mine_since_takes(
    folder: Path, written: str, expected: dt.date
) -> None:
    """A date or a full time, as a string or TOML's own date and date-time."""
    config = load_config(write(folder, MINIMAL + f"[tasks]\n{written}\n"))
    assert tasks_of(config).since == expected


@pytest.mark.parametrize(
    ("entry", "name"),
    [
        ('agent = "codex"\nmodel = "gpt-5"', "codex/gpt-5"),
        ('agent = "gemini-cli"', "gemini-cli"),
        ('agent = "codex"\nmodel = "gpt-5"\nname = "fast"', "fast"),
    ],
)
def test_default_names(folder: Path, entry: str, name: str) -> None:
    config = load_config(write(folder, MINIMAL + f"[[contestants]]\n{entry}\n"))
    assert config.contestants[0].name == name


def test_examiners_reproduce_by_default_and_contestants_have_no_assignment(folder: Path) -> None:
    text = MINIMAL + '[[contestants]]\nagent = "codex"\n[[examiners]]\nagent = "gemini-cli"\n'
    config = load_config(write(folder, text))
    assert config.contestants[0].assignment is None
    assert config.examiners[0].assignment == "reproduce"
    assert config.examiners[0].role == "examiner"


def test_vendor_and_quota_stay_unset_when_not_written(folder: Path) -> None:
    config = load_config(write(folder, MINIMAL + '[[contestants]]\nagent = "codex"\n'))
    assert (config.contestants[0].vendor, config.contestants[0].quota) == (None, None)


def test_adapter_options_pass_through_with_their_dashed_names(folder: Path) -> None:
    text = MINIMAL + textwrap.dedent("""\
        [[contestants]]
        agent = "mini-swe-agent"
        model = "ollama/qwen3-coder:30b"
        text-actions = true
        step-limit = 40
        model-kwargs = { temperature = "0" }
        """)
    (agent,) = load_config(write(folder, text)).contestants
    assert agent.options == {
        "text-actions": True,
        "step-limit": 40,
        "model-kwargs": {"temperature": "0"},
    }


def test_source_may_be_a_list_of_folders(folder: Path) -> None:
    write(folder, '[project]\nsource = ["./src/a/", "lib/b"]\n')
    assert load_config("bugbout.toml").project.source == ["src/a", "lib/b"]


def test_a_bad_folder_in_a_source_list_is_named(folder: Path) -> None:
    write(folder, '[project]\nsource = ["src/a", "/abs"]\n')
    with pytest.raises(ConfigError) as caught:
        load_config("bugbout.toml")
    assert str(caught.value) == (
        "bugbout.toml: project.source[1]: expected a path relative to the repository root, "
        'got "/abs"'
    )


@pytest.mark.parametrize(
    ("written", "cleaned"),
    [("src/pkg/", "src/pkg"), ("./src/pkg", "src/pkg"), ("pkg", "pkg")],
)
def test_source_folder_is_normalised(folder: Path, written: str, cleaned: str) -> None:
    config = load_config(write(folder, f'[project]\nsource = "{written}"\n'))
    assert config.project.source == cleaned


# -- paths ---------------------------------------------------------------------------------


def test_relative_paths_resolve_against_the_config_folder_not_the_cwd(folder: Path) -> None:
    text = textwrap.dedent("""\
        [project]
        source = "src/pkg"
        repository = "repo"
        interpreter = "../envs/py/bin/python"
        [tasks]
        issues = "issues.jsonl"
        """)
    write(folder, text, "conf/bugbout.toml")
    config = load_config("conf/bugbout.toml")
    conf = folder.resolve() / "conf"
    assert config.path == Path("conf/bugbout.toml")
    assert config.root == conf
    assert config.repository_path() == conf / "repo"
    assert config.project.interpreter == str(folder.resolve() / "envs/py/bin/python")
    assert tasks_of(config).issues == conf / "issues.jsonl"


def test_a_folder_means_its_bugbout_toml(folder: Path) -> None:
    write(folder, MINIMAL, "conf/bugbout.toml")
    assert load_config("conf").path == Path("conf/bugbout.toml")


@pytest.mark.parametrize(
    "url",
    [
        "https://github.com/octo/pkg.git",
        "http://example.org/pkg.git",
        "ssh://git@example.org/pkg.git",
        "git@github.com:octo/pkg.git",
        "file:///srv/git/pkg",
    ],
)
def test_git_urls_are_kept_as_written(folder: Path, url: str) -> None:
    config = load_config(write(folder, MINIMAL + f'repository = "{url}"\n'))
    assert config.repository_path() == url


@pytest.mark.parametrize(
    ("written", "expected"),
    [("python3.12", "python3.12"), ("/usr/bin/python3", "/usr/bin/python3")],
)
def test_interpreter_names_and_absolute_paths_are_kept(
    folder: Path, written: str, expected: str
) -> None:
    config = load_config(write(folder, MINIMAL + f'interpreter = "{written}"\n'))
    assert config.project.interpreter == expected


def test_absolute_paths_are_kept(folder: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    text = MINIMAL + f'repository = "{elsewhere}"\n[tasks]\nissues = "{elsewhere}/i.jsonl"\n'
    config = load_config(write(folder, text, "conf/bugbout.toml"))
    assert config.repository_path() == elsewhere
    assert tasks_of(config).issues == elsewhere / "i.jsonl"


# -- overrides -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "overrides",
    [
        {"tasks.limit": 3, "run.test_timeout": 5},
        {"tasks": {"limit": 3}, "run": {"test-timeout": 5}},
        {"tasks.limit": 3, "tasks.since": None, "run": {"test_timeout": 5, "timeout": None}},
    ],
    ids=["dotted", "nested", "none-is-not-given"],
)
def test_overrides_win_over_the_file(folder: Path, overrides: dict[str, Any]) -> None:
    write(folder, MINIMAL + "[tasks]\nlimit = 9\nsince = 2020-01-01\n[run]\ntimeout = 99\n")
    config = load_config("bugbout.toml", overrides=overrides)
    assert (tasks_of(config).limit, config.run.test_timeout) == (3, 5)
    assert (tasks_of(config).since, config.run.timeout) == (dt.date(2020, 1, 1), 99)


def test_overrides_merge_tables_and_keep_underscored_env_names(folder: Path) -> None:
    write(folder, MINIMAL + 'env = { A_B = "1" }\n')
    config = load_config("bugbout.toml", overrides={"project": {"env": {"C_D": "2"}}})
    assert config.project.env == {"A_B": "1", "C_D": "2"}


def test_source_from_a_flag_when_there_is_no_file(folder: Path) -> None:
    config = load_config(overrides={"project.source": "src/pkg", "tasks.since": "2024-01-01"})
    assert config.path is None
    assert config.project.source == "src/pkg"
    assert tasks_of(config).since == dt.date(2024, 1, 1)


def test_with_overrides_checks_and_keeps_the_rest(folder: Path) -> None:
    config = load_config(write(folder, FULL))
    changed = config.with_overrides({"tasks.limit": 1})
    assert tasks_of(changed).limit == 1
    assert changed == config.with_section("tasks", dataclasses.replace(tasks_of(config), limit=1))
    with pytest.raises(ConfigError) as caught:
        config.with_overrides({"tasks": {"limit": -1}})
    assert str(caught.value) == "<overrides>: tasks.limit: expected an integer >= 0, got -1"
    assert tasks_of(config.with_overrides({"tasks.limit": 0})).limit == 0  # every task


def test_dataclasses_replace_is_enough_for_a_flag(folder: Path) -> None:
    config = load_config(write(folder, MINIMAL))
    limited = config.with_section("tasks", dataclasses.replace(tasks_of(config), limit=2))
    assert tasks_of(limited).limit == 2
    assert tasks_of(limited.with_overrides({"run.timeout": 5})).limit == 2


# -- errors --------------------------------------------------------------------------------

ERRORS = [
    (
        "wrong-type",
        MINIMAL + '[run]\ntimeout = "abc"\n',
        'bugbout.toml: run.timeout: expected an integer, got "abc"',
    ),
    (
        "float-for-integer",
        MINIMAL + "[tasks]\nlimit = 2.5\n",
        "bugbout.toml: tasks.limit: expected an integer, got 2.5",
    ),
    (
        "bool-for-integer",
        MINIMAL + "[run]\ntest-timeout = true\n",
        "bugbout.toml: run.test-timeout: expected an integer, got true",
    ),
    (
        "below-minimum",
        MINIMAL + "[tasks]\nmax-source-files = 0\n",
        "bugbout.toml: tasks.max-source-files: expected an integer >= 1, got 0",
    ),
    (
        "quota-below-one",
        MINIMAL + "[run]\nquotas = { codex = 0 }\n",
        "bugbout.toml: run.quotas.codex: expected an integer >= 1, got 0",
    ),
    (
        "unknown-key-suggested",
        MINIMAL + "[run]\ntimout = 5\n",
        'bugbout.toml: run.timout: unknown key; did you mean "timeout"?',
    ),
    (
        "underscore-key",
        MINIMAL + "[tasks]\nmax_source_files = 5\n",
        'bugbout.toml: tasks.max_source_files: unknown key; did you mean "max-source-files"? (keys use dashes)',
    ),
    (
        "unknown-section-suggested",
        MINIMAL + "[judges]\npolicy = 'strict'\n",
        'bugbout.toml: judges: unknown key; did you mean "judge"?',
    ),
    (
        "unknown-key-listed",
        MINIMAL + "[judge]\nzzz = 1\n",
        "bugbout.toml: judge.zzz: unknown key; known keys: policy, run-suite, samples, suspicious",
    ),
    (
        "missing-source",
        '[project]\ntests = "t"\n',
        "bugbout.toml: project.source: required key missing",
    ),
    (
        "missing-project",
        "[run]\ntimeout = 5\n",
        "bugbout.toml: project.source: required key missing",
    ),
    (
        "enum",
        MINIMAL + '[run]\nsandbox = "docker"\n',
        'bugbout.toml: run.sandbox: expected one of "auto", "seatbelt", "bubblewrap", "none"; got "docker"',
    ),
    (
        "policy",
        MINIMAL + '[judge]\npolicy = "most"\n',
        'bugbout.toml: judge.policy: expected one of "majority", "unanimous", "strict", "cross-vendor"; got "most"',
    ),
    (
        "judge-samples",
        MINIMAL + '[judge]\nsamples = "best"\n',
        'bugbout.toml: judge.samples: expected one of "first", "all"; got "best"',
    ),
    (
        "not-a-date",
        MINIMAL + '[tasks]\nsince = "last year"\n',
        'bugbout.toml: tasks.since: expected a date YYYY-MM-DD or an ISO 8601 time, got "last year"',
    ),
    (
        "impossible-date",
        MINIMAL + '[tasks]\nsince = "2023-02-30"\n',
        'bugbout.toml: tasks.since: expected a date YYYY-MM-DD or an ISO 8601 time, got "2023-02-30"',
    ),
    (
        "impossible-time",
        MINIMAL + '[tasks]\nsince = "2023-02-03T25:05:06"\n',
        'bugbout.toml: tasks.since: expected a date YYYY-MM-DD or an ISO 8601 time, got "2023-02-03T25:05:06"',
    ),
    (
        "unquoted-python",
        MINIMAL + "python = 3.10\n",
        "bugbout.toml: project.python: expected a string, got 3.1; put it in quotes",
    ),
    (
        "absolute-source",
        '[project]\nsource = "/src/pkg"\n',
        'bugbout.toml: project.source: expected a path relative to the repository root, got "/src/pkg"',
    ),
    (
        "escaping-tests",
        MINIMAL + 'tests = "../tests"\n',
        'bugbout.toml: project.tests: expected a path relative to the repository root, got "../tests"',
    ),
    (
        "github-form",
        MINIMAL + 'github = "https://github.com/octo/pkg"\n',
        'bugbout.toml: project.github: expected owner/name, got "https://github.com/octo/pkg"',
    ),
    (
        "env-value",
        MINIMAL + "env = { PORT = 5432 }\n",
        "bugbout.toml: project.env.PORT: expected a string, got 5432; put it in quotes",
    ),
    (
        "quoted-key",
        MINIMAL + 'env = { "MY\\nVAR" = 1 }\n',
        'bugbout.toml: project.env."MY\\nVAR": expected a string, got 1; put it in quotes',
    ),
    (
        "array-item",
        MINIMAL + 'pytest-args = ["-x", 3]\n',
        "bugbout.toml: project.pytest-args[1]: expected a string, got 3; put it in quotes",
    ),
    (
        "section-not-a-table",
        "run = 5\n" + MINIMAL,
        "bugbout.toml: run: expected a table, got 5",
    ),
    (
        "single-bracket-contestants",
        MINIMAL + '[contestants]\nagent = "codex"\n',
        "bugbout.toml: contestants: expected an array of tables, got a table; write [[contestants]], not [contestants]",
    ),
    (
        "agent-missing",
        MINIMAL + '[[contestants]]\nagent = "codex"\n[[contestants]]\nmodel = "gpt-5"\n',
        "bugbout.toml: contestants[1].agent: required key missing",
    ),
    (
        "agent-model-type",
        MINIMAL
        + '[[contestants]]\nagent = "codex"\n[[contestants]]\nagent = "codex"\nname = "b"\n'
        + '[[contestants]]\nagent = "codex"\nmodel = 5\n',
        "bugbout.toml: contestants[2].model: expected a string, got 5; put it in quotes",
    ),
    (
        "empty-name",
        MINIMAL + '[[examiners]]\nagent = "codex"\nname = ""\n',
        "bugbout.toml: examiners[0].name: expected a non-empty string",
    ),
    (
        "command-needs-name",
        MINIMAL + '[[contestants]]\nagent = "command"\ncommand = ["./fix"]\n',
        "bugbout.toml: contestants[0].name: required key missing; a command agent needs a name and a command line",
    ),
    (
        "command-needs-command",
        MINIMAL + '[[contestants]]\nagent = "command"\nname = "mine"\n',
        "bugbout.toml: contestants[0].command: required key missing; a command agent needs a name and a command line",
    ),
    (
        "command-is-a-list",
        MINIMAL + '[[contestants]]\nagent = "command"\nname = "mine"\ncommand = "./fix --go"\n',
        'bugbout.toml: contestants[0].command: expected an array, got "./fix --go"',
    ),
    (
        "command-not-empty",
        MINIMAL + '[[contestants]]\nagent = "command"\nname = "mine"\ncommand = []\n',
        "bugbout.toml: contestants[0].command: expected a non-empty array",
    ),
    (
        "assignment-enum",
        MINIMAL + '[[examiners]]\nagent = "codex"\nassignment = "prove"\n',
        'bugbout.toml: examiners[0].assignment: expected one of "reproduce", "specify"; got "prove"',
    ),
    (
        "assignment-on-contestant",
        MINIMAL + '[[contestants]]\nagent = "codex"\nassignment = "specify"\n',
        "bugbout.toml: contestants[0].assignment: only examiners take an assignment",
    ),
    (
        "role-key",
        MINIMAL + '[[contestants]]\nagent = "codex"\nrole = "examiner"\n',
        "bugbout.toml: contestants[0].role: the section sets the role: move the entry to [[contestants]] or [[examiners]]",
    ),
    (
        "duplicate-default-names",
        MINIMAL + '[[contestants]]\nagent = "codex"\n[[contestants]]\nagent = "codex"\n',
        'bugbout.toml: contestants[1]: name "codex" is already used by contestants[0]; give each entry its own name',
    ),
    (
        "duplicate-across-sections",
        MINIMAL
        + '[[contestants]]\nagent = "codex"\nmodel = "gpt-5"\n'
        + '[[examiners]]\nagent = "command"\nname = "codex/gpt-5"\ncommand = ["x"]\n',
        'bugbout.toml: examiners[0]: name "codex/gpt-5" is already used by contestants[0]; give each entry its own name',
    ),
    (
        "first-problem-in-file-order",
        '[run]\ntimeout = "x"\n[project]\nsource = "/abs"\n',
        'bugbout.toml: run.timeout: expected an integer, got "x"',
    ),
    (
        "toml-syntax",
        '[project]\nsource = "src/pkg"\nlimit 5\n',
        "bugbout.toml:3:7: invalid TOML: expected '=' after a key in a key/value pair",
    ),
    (
        "toml-unclosed-table",
        "[project\n",
        "bugbout.toml:1:9: invalid TOML: expected ']' at the end of a table declaration",
    ),
    (
        "toml-duplicate-key",
        MINIMAL + 'source = "other"\n',
        "bugbout.toml:3:17: invalid TOML: cannot overwrite a value",
    ),
    (
        "toml-value-missing-at-the-end",
        MINIMAL + "tests =",
        "bugbout.toml: invalid TOML: invalid value at the end of the file",
    ),
    (
        "not-utf8",
        MINIMAL.encode() + b'tests = "t\xff"\n',
        "bugbout.toml:3: not UTF-8 text",
    ),
]


@pytest.mark.parametrize(("text", "message"), [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_error_messages(folder: Path, text: str | bytes, message: str) -> None:
    assert error_of(text) == message


def test_a_missing_file_given_explicitly_is_an_error(folder: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config("conf/bugbout.toml")
    assert str(caught.value) == "conf/bugbout.toml: no such file"
    assert caught.value.exit_code == 2


def test_messages_name_the_file_as_it_was_given(folder: Path) -> None:
    write(folder, '[run]\nsandbox = "jail"\n', "conf/b.toml")
    with pytest.raises(ConfigError) as caught:
        load_config("conf/b.toml")
    assert str(caught.value) == (
        'conf/b.toml: run.sandbox: expected one of "auto", "seatbelt", "bubblewrap", "none"; got "jail"'
    )


def test_an_override_error_names_the_override_not_the_file(folder: Path) -> None:
    write(folder, MINIMAL)
    with pytest.raises(ConfigError) as caught:
        load_config("bugbout.toml", overrides={"run.sandbox": "jail"})
    assert str(caught.value).startswith("<overrides>: run.sandbox: expected one of")


def test_without_a_file_source_is_not_required_but_other_keys_are_checked(folder: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(overrides={"tasks.limit": "many"})
    assert str(caught.value) == '<overrides>: tasks.limit: expected an integer, got "many"'


def test_without_a_file_a_good_document_is_checked_without_jsonschema(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only a bad document needs jsonschema's explanation; a tool run with flags and no
    bugbout.toml (no project.source in it) does not pay for building the validator."""
    import bb_core.config.doc

    def refuse(name: str) -> None:
        raise AssertionError(f"the {name} validator was built")

    monkeypatch.setattr(bb_core.config.doc, "validator", refuse)
    assert tasks_of(load_config(overrides={"tasks.limit": 3})).limit == 3
    with pytest.raises(AssertionError, match="validator was built"):
        load_config(overrides={"tasks.limit": "many"})


def test_a_command_reports_a_config_error_as_one_line_with_status_2(folder: Path) -> None:
    """What a person sees: ``<prog>: <file>: <key>: <problem>`` and exit status 2."""

    @click.command(cls=BbCommand)
    @config_option
    def tool(config_path: str | None) -> None:
        load_config(config_path)
        click.echo("unreachable")

    write(folder, MINIMAL + '[run]\ntimeout = "abc"\n')
    result = CliRunner().invoke(tool, ["--config", "bugbout.toml"], prog_name="bb-tool")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == 'bb-tool: bugbout.toml: run.timeout: expected an integer, got "abc"\n'


# -- the schema itself ---------------------------------------------------------------------


def _patterns(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        if isinstance(node.get("pattern"), str):
            yield node["pattern"]
        for value in node.values():
            yield from _patterns(value)
    elif isinstance(node, list):
        for value in node:
            yield from _patterns(value)


def test_every_pattern_in_the_schema_has_words() -> None:
    assert set(_patterns(schema("config"))) == set(PATTERN_WORDS)


def test_schema_identity() -> None:
    document = schema("config")
    assert document["$id"] == "https://schemas.bugbout.dev/v1/config.json"
    assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_every_key_of_the_full_example_is_in_the_schema(folder: Path) -> None:
    """FULL writes every section key the schema lists, so the round trip covers them all."""
    written = tomllib.loads(FULL)
    for section in ("project", "tasks", "run", "judge"):
        listed = set(schema("config")["properties"][section]["properties"])
        assert set(written[section]) == listed, section


# -- the demo ------------------------------------------------------------------------------


def test_the_demo_configuration_loads(demo_project: build_demo.DemoPaths) -> None:
    """The demo's bugbout.toml, which every later stage runs on, loads as written."""
    root = Path(demo_project.root).resolve()
    config = load_config(demo_project.config)
    assert config.root == root
    assert config.project.source == "src/textkit"
    assert config.repository_path() == root / "repo"
    assert tasks_of(config).issues == root / "issues.jsonl"
    assert config.run.timeout == 120
    assert [a.name for a in config.contestants] == list(build_demo.PERSONAS)
    assert [a.name for a in config.examiners] == [build_demo.EXAMINER]
    for agent in config.agents:
        assert agent.agent == "command"
        assert agent.vendor == build_demo.VENDORS[agent.name]
        assert agent.options["command"][-1] == str(root / "agents" / f"{agent.name}.py")
    assert config.examiners[0].assignment == "reproduce"


def test_the_documented_example_loads(folder: Path) -> None:
    """docs/configuration.md's complete example stays a valid bugbout.toml."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "configuration.md").read_text()
    example = doc.split("## A complete example", 1)[1].split("```toml\n", 1)[1].split("```", 1)[0]
    write(folder, example)
    config = load_config("bugbout.toml")
    assert config.project.source == "src/inventory"
    assert [a.name for a in config.agents] == [
        "codex/gpt-5.1-codex",
        "claude-code/sonnet",
        "aider",
        "gemini-cli",
    ]
    assert config.examiners[0].assignment == "specify"
