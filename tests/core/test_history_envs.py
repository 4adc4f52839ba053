"""Environments that follow history: what each commit declares, test dependencies per era,
failed builds remembered per key, and ``[project] setup`` run confined before each test run."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from bb_core import envs
from bb_core.config import ProjectConfig, load_config
from bb_core.config.eras import era_dependencies
from bb_core.envs import EnvBuildFailed, TestEnv, ensure_env, plan_env
from bb_core.envs import build as env_build
from bb_core.envs.declarations import declared_at
from bb_core.envs.tasks import TaskEnvs, census
from bb_core.errors import ConfigError
from bb_core.git import open_repo
from bb_core.sandbox import Sandbox
from bb_core.testrun import run_pytest
from build_demo import GitRepo

PYTHON_VERSION = f"{sys.version_info.major}.{sys.version_info.minor}"

OLD_SETUP_PY = (
    "from setuptools import setup\n"
    "setup(name='pkg', install_requires=['six==1.16.0'], "
    "extras_require={'test': ['attrs'], 'docs': ['sphinx']})\n"
)
NEW_PYPROJECT = (
    '[project]\nname = "pkg"\nversion = "2"\ndependencies = ["six>=1.17"]\n'
    '[project.optional-dependencies]\ntests = ["hypothesis"]\nserver = ["flask"]\n'
)


def _history(tmp_path: Path) -> tuple[GitRepo, dict[str, str]]:
    """A project that moved from setup.py (2018) through setup.cfg to pyproject (2024)."""
    repo = GitRepo(tmp_path / "repo")
    shas = {
        "setup-py": repo.commit(
            {"setup.py": OLD_SETUP_PY, "src/pkg/__init__.py": "X = 1\n"},
            "Start",
            date="2018-03-01T12:00:00+00:00",
        ),
        "same": repo.commit(
            {"src/pkg/__init__.py": "X = 2\n"}, "Two", date="2018-04-01T12:00:00+00:00"
        ),
        "setup-cfg": repo.commit(
            {
                "setup.py": "from setuptools import setup\nsetup()\n",
                "setup.cfg": "[options]\ninstall_requires =\n    six==1.16.0\n    attrs>=20\n"
                "[options.extras_require]\ntesting = pytest-mock\n",
                "requirements-test.txt": "# for the tests\n-r requirements.txt\nfreezegun==1.2\n-e .\n",
            },
            "Move to setup.cfg",
            date="2020-06-01T12:00:00+00:00",
        ),
        "pyproject": repo.commit(
            {
                "pyproject.toml": NEW_PYPROJECT,
                "setup.cfg": None,
                "setup.py": None,
                "requirements-test.txt": None,
            },
            "Move to pyproject",
            date="2024-01-10T12:00:00+00:00",
        ),
    }
    repo.git("tag", "v2", shas["setup-cfg"])
    return repo, shas


def test_each_commit_declares_what_its_files_say(tmp_path: Path) -> None:
    repo, shas = _history(tmp_path)
    with open_repo(repo.path) as opened:
        found = {name: declared_at(opened, sha) for name, sha in shas.items()}
    assert found["setup-py"] == ["attrs", "six==1.16.0"]  # the docs extra is not the tests'
    assert found["same"] == found["setup-py"]
    assert found["setup-cfg"] == ["attrs>=20", "freezegun==1.2", "pytest-mock", "six==1.16.0"]
    assert found["pyproject"] == ["hypothesis", "six>=1.17"]


def test_dependency_groups_declare_test_dependencies_too(tmp_path: Path) -> None:
    """PEP 735's [dependency-groups] (structlog's tests group), include-group followed."""
    repo = GitRepo(tmp_path / "repo")
    sha = repo.commit(
        {
            "pyproject.toml": NEW_PYPROJECT
            + '[dependency-groups]\ntests = ["pytest>=8", {include-group = "more"}]\n'
            + 'more = ["time-machine", {include-group = "tests"}]\ndocs = ["sphinx"]\n'
        },
        "Start",
    )
    with open_repo(repo.path) as opened:
        assert declared_at(opened, sha) == ["hypothesis", "pytest>=8", "six>=1.17", "time-machine"]


def _project(**fields: Any) -> ProjectConfig:
    fields.setdefault("python", PYTHON_VERSION)
    return ProjectConfig(source="src/pkg", **fields)


def test_history_gives_one_environment_per_distinct_declarations(tmp_path: Path) -> None:
    repo, shas = _history(tmp_path)
    with open_repo(repo.path) as opened:
        history = _project(environments="history")
        keys = {n: plan_env(history, repo.path, repo=opened, base=s).key for n, s in shas.items()}
        assert keys["setup-py"] == keys["same"]
        assert len(set(keys.values())) == 3
        assert census(history, repo.path, opened, list(shas.values())).needed == 3
        # One environment for the whole project: the working tree's pyproject, whatever the
        # base commit.
        project = _project()
        assert {plan_env(project, repo.path, repo=opened, base=s).key for s in shas.values()} == {
            plan_env(project, repo.path).key
        }
        assert census(project, repo.path, opened, list(shas.values())).needed == 1


def test_test_dependencies_follow_eras_by_date_and_by_range(tmp_path: Path) -> None:
    repo, shas = _history(tmp_path)
    eras = {
        "..v2": ["pytest>=7,<8", "requests==2.3.0"],  # everything up to the tag
        "<2024-01-10": ["pytest>=7,<9"],  # never reached for commits v2 holds: first wins
        ">=2024-01-10": ["pytest>=8"],
        "default": ["pytest"],
    }
    project = _project(test_dependencies=eras)
    with open_repo(repo.path) as opened:
        chosen = {n: era_dependencies(project, opened, s) for n, s in shas.items()}
        assert chosen == {
            "setup-py": eras["..v2"], "same": eras["..v2"], "setup-cfg": eras["..v2"],
            "pyproject": eras[">=2024-01-10"],
        }  # fmt: skip
        ranged = _project(test_dependencies={"v2..main": ["pytest>=8"], "default": ["pytest"]})
        assert era_dependencies(ranged, opened, shas["pyproject"]) == ["pytest>=8"]
        assert era_dependencies(ranged, opened, shas["setup-cfg"]) == ["pytest"]  # v2 itself
        dated = _project(test_dependencies={"<2019-01-01": ["pytest<8"], "default": ["pytest"]})
        assert era_dependencies(dated, opened, shas["same"]) == ["pytest<8"]
        assert era_dependencies(dated, opened, shas["setup-cfg"]) == ["pytest"]
        unknown = _project(test_dependencies={"v9..main": ["x"], "default": ["pytest"]})
        with pytest.raises(
            ConfigError, match=r'test-dependencies\."v9\.\.main": v9 names no commit'
        ):
            era_dependencies(unknown, opened, shas["same"])
    # Without a commit (the project's one environment): the default era.
    assert era_dependencies(project) == ["pytest"]


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        (
            '[project.test-dependencies]\n"2019" = ["pytest"]\ndefault = ["pytest"]\n',
            'project.test-dependencies.2019: expected an era: "default", "<YYYY-MM-DD", '
            '">=YYYY-MM-DD" or a commit range "A..B", got "2019"',
        ),
        (
            '[project.test-dependencies]\n"<2019-02-30" = ["pytest"]\ndefault = ["pytest"]\n',
            'project.test-dependencies."<2019-02-30": 2019-02-30 is not a date',
        ),
        (
            '[project.test-dependencies]\n"<2019-02-03" = ["pytest"]\n',
            "project.test-dependencies.default: required key missing",
        ),
        (
            '[project.test-dependencies]\n"<2019-02-03" = "pytest"\ndefault = ["pytest"]\n',
            'project.test-dependencies."<2019-02-03": expected an array, got "pytest"',
        ),
        (
            'environments = "eras"\n',
            'project.environments: expected one of "project", "history"; got "eras"',
        ),
        ("setup = [[]]\n", "project.setup[0]: expected a non-empty array"),
        ('setup = "make"\n', 'project.setup: expected an array, got "make"'),
    ],
)
def test_bad_environment_keys_are_one_line(tmp_path: Path, table: str, problem: str) -> None:
    file = tmp_path / "bugbout.toml"
    file.write_text('[project]\nsource = "src/pkg"\n' + table)
    with pytest.raises(ConfigError) as caught:
        load_config(file)
    assert str(caught.value) == f"{file}: {problem}"


def test_environment_keys_load_and_round_trip(tmp_path: Path) -> None:
    file = tmp_path / "bugbout.toml"
    file.write_text(
        '[project]\nsource = "src/pkg"\nenvironments = "history"\n'
        'setup = ["echo x > src/pkg/_version.py", ["python", "-c", "print(1)"]]\n'
        '[project.test-dependencies]\n"<2019-01-01" = ["pytest<8"]\ndefault = ["pytest"]\n'
    )
    config = load_config(file)
    assert config.project.environments == "history"
    assert config.project.setup == ["echo x > src/pkg/_version.py", ["python", "-c", "print(1)"]]
    assert list(config.project.test_dependencies) == ["<2019-01-01", "default"]
    assert config.with_overrides({}).project == config.project


def test_a_failed_build_is_remembered_per_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BUGBOUT_HOME", str(tmp_path / "home"))
    project = _project(
        test_dependencies=["pytest", "bugbout-no-such-package-zzz"], install_project=False
    )
    with pytest.raises(EnvBuildFailed) as first:
        ensure_env(project, tmp_path)
    calls: list[list[str]] = []
    monkeypatch.setattr(env_build, "run_uv", lambda args, log: calls.append(args))
    with pytest.raises(EnvBuildFailed) as again:
        ensure_env(project, tmp_path)
    assert calls == []  # not built again
    assert again.value.message == first.value.message
    assert again.value.log == first.value.log and again.value.log is not None
    assert "bugbout-no-such-package-zzz" in again.value.output
    key = plan_env(project, tmp_path).key
    assert key is not None and envs.failure_marker(key).is_file()
    # A stage's shared environments say the same for every task that needs it.
    shared = TaskEnvs()
    for _ in range(2):
        with pytest.raises(EnvBuildFailed, match="bugbout-no-such-package-zzz"):
            shared.get(project, tmp_path)
    assert census(project, tmp_path, None, []).failed == 1


# --- [project] setup ------------------------------------------------------------------


def _checkout(tmp_path: Path) -> Path:
    checkout = tmp_path / "checkout"
    (checkout / "src" / "pkg").mkdir(parents=True)
    (checkout / "src" / "pkg" / "__init__.py").write_text("from pkg._version import VERSION\n")
    (checkout / "tests").mkdir()
    (checkout / "tests" / "test_version.py").write_text(
        "import pkg\ndef test_version(): assert pkg.VERSION == '1.2'\n"
    )
    return checkout


def _with_setup(host_env: TestEnv, *commands: Any) -> TestEnv:
    return TestEnv(host_env.python, {}, host_env.key, ("src", "."), (), None, {}, tuple(commands))


def test_setup_runs_before_the_tests_in_the_checkout(
    host_env: TestEnv, bwrap_sandbox: Sandbox, tmp_path: Path
) -> None:
    checkout = _checkout(tmp_path)
    plain = run_pytest(
        checkout, host_env, ["tests"], nodeids=["tests/test_version.py::test_version"],
        sandbox=bwrap_sandbox, timeout=60, log_path=tmp_path / "plain.log",
    )  # fmt: skip
    assert plain.outcomes == {"tests/test_version.py::test_version": "error"}  # cannot import
    env = _with_setup(
        host_env,
        "echo \"VERSION = '1.2'\" > src/pkg/_version.py",
        ["python", "-c", "import sys; print('setup python', sys.executable)"],
    )
    run = run_pytest(
        checkout, env, ["tests"], nodeids=["tests/test_version.py::test_version"],
        sandbox=bwrap_sandbox, timeout=60, log_path=tmp_path / "run.log",
    )  # fmt: skip
    assert run.outcomes == {"tests/test_version.py::test_version": "passed"}, run.messages
    assert run.reason is None and "reason" not in run.record()
    log = (tmp_path / "run.log").read_text()
    assert "[bugbout: setup: echo" in log and f"setup python {host_env.python}" in log


def test_a_failed_setup_is_an_error_run_with_its_reason(
    host_env: TestEnv, bwrap_sandbox: Sandbox, tmp_path: Path
) -> None:
    checkout = _checkout(tmp_path)
    env = _with_setup(host_env, "echo 'cannot write the version' >&2; exit 3", "touch never-run")
    run = run_pytest(
        checkout, env, ["tests"], nodeids=["tests/test_version.py::test_version"],
        sandbox=bwrap_sandbox, timeout=60, log_path=tmp_path / "run.log",
    )  # fmt: skip
    assert run.outcomes == {"tests/test_version.py::test_version": "error"}
    assert run.reason == "setup-failed" and run.record()["reason"] == "setup-failed"
    assert run.problem is not None
    assert "exited with status 3; the log ends with: cannot write the version" in run.problem
    assert not (checkout / "never-run").exists()  # later commands do not run
    assert "pytest" not in (tmp_path / "run.log").read_text().split("[bugbout: setup:", 1)[1]


def test_setup_is_confined_like_a_test_run(
    host_env: TestEnv, bwrap_sandbox: Sandbox, tmp_path: Path
) -> None:
    checkout = _checkout(tmp_path)
    outside = tmp_path / "outside.txt"
    probe = (
        "import os, socket, sys\n"
        f"try:\n    open({str(outside)!r}, 'w').write('x')\nexcept OSError as e:\n    print('outside:', type(e).__name__)\n"
        "print('home:', sorted(os.listdir(os.environ['HOME'])))\n"
        "try:\n    socket.create_connection(('1.1.1.1', 53), timeout=3)\n    print('net: open')\n"
        "except OSError as e:\n    print('net:', type(e).__name__)\n"
        "open('src/pkg/_version.py', 'w').write(\"VERSION = '1.2'\\n\")\n"
    )
    (tmp_path / "probe.py").write_text(probe)
    (checkout / "probe.py").write_text(probe)
    env = _with_setup(host_env, ["python", "probe.py"])
    run = run_pytest(
        checkout, env, ["tests"], nodeids=["tests/test_version.py::test_version"],
        sandbox=bwrap_sandbox, timeout=60, log_path=tmp_path / "run.log",
    )  # fmt: skip
    assert run.outcomes == {"tests/test_version.py::test_version": "passed"}, run.messages
    log = (tmp_path / "run.log").read_text()
    assert not outside.exists()  # a write outside the checkout never reaches the host
    assert "home: []" in log and "net: OSError" in log
