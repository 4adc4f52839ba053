"""Choosing an executor (``--executor``, ``[run] executor``), and a workbench packed for a
machine that shares no file system with this one (bb_core.bench.portable). The cluster itself
is tested in tests/ray."""

from __future__ import annotations

import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from bb_core.bench.workbench import Workbench
from bb_core.config import load_config
from bb_core.errors import ConfigError
from bb_core.executors.units import (
    ExecutorSettings,
    LocalExecutor,
    executor_settings,
    make_executor,
)
from build_demo import GitRepo
from support.tools import run_tool, tool_env


def config_file(folder: Path, run: str = "") -> Path:
    path = folder / "bugbout.toml"
    path.write_text(f'[project]\nsource = "src/pkg"\nrepository = "repo"\n[run]\n{run}')
    return path


def test_run_executor_and_ray_address_are_read_and_flags_override_them(tmp_path: Path) -> None:
    config = load_config(
        config_file(tmp_path, 'executor = "ray"\nray-address = "ray://head:10001"\n')
    )
    assert (config.run.executor, config.run.ray_address) == ("ray", "ray://head:10001")
    chosen = executor_settings(config, jobs=3)
    assert (chosen.kind, chosen.address, chosen.jobs) == ("ray", "ray://head:10001", 3)
    flags = executor_settings(config, kind="local", address="auto")
    assert (flags.kind, flags.address) == ("local", "auto")
    default = load_config(config_file(tmp_path))
    assert (default.run.executor, default.run.ray_address) == ("local", None)


def test_a_bad_executor_is_one_line_naming_file_and_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(config_file(tmp_path, 'executor = "spark"\n'))
    message = str(caught.value)
    assert caught.value.exit_code == 2 and "\n" not in message
    assert message.endswith('run.executor: expected one of "local", "ray"; got "spark"')
    assert str(tmp_path / "bugbout.toml") in message or message.startswith("bugbout.toml")
    with pytest.raises(ConfigError):
        ExecutorSettings(kind="spark")


def test_the_local_executor_is_the_default_one() -> None:
    made = make_executor(ExecutorSettings(jobs=2))
    try:
        assert isinstance(made, LocalExecutor) and not made.remote
    finally:
        made.close()


def test_the_executor_options_are_offered_by_every_stage_that_runs_units() -> None:
    for tool in ("bb-oracle", "bb-race", "bb-xexam", "bb-judge", "bugbout"):
        args = ["run", "--help"] if tool == "bugbout" else ["--help"]
        shown = run_tool(tool, *args).stdout.decode()
        assert "--executor [local|ray]" in shown and "--ray-address ADDRESS" in shown, tool


# -- a workbench packed for another machine -------------------------------------------------


def project(tmp_path: Path) -> tuple[Path, dict[str, object]]:
    root = tmp_path / "project"
    repo = GitRepo(root / "repo")
    base = repo.commit({"src/pkg/__init__.py": "X = 1\n", "pyproject.toml": "[project]\n"}, "one")
    fix = repo.commit({"src/pkg/__init__.py": "X = 2\n"}, "two")
    (root / "repo" / "pyproject.toml").write_text(
        '[project]\nname = "pkg"\ndependencies = ["attrs"]\n'
    )
    config_file(root)
    task = {"id": "t", "repository": "repo", "base_commit": base, "fix_commit": fix}
    return root, task


def test_a_workbench_that_is_not_portable_is_never_pickled(tmp_path: Path) -> None:
    root, _ = project(tmp_path)
    with pytest.raises(TypeError, match="portable"):
        pickle.dumps(Workbench(load_config(root / "bugbout.toml")))


def test_a_packed_workbench_opens_on_a_machine_without_the_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, task = project(tmp_path)
    monkeypatch.chdir(root)
    bench = Workbench(load_config(root / "bugbout.toml"), sandbox="none", portable=True)
    location = bench.location(task)
    assert bench.repo(task).read_blob(str(task["fix_commit"]), "src/pkg/__init__.py") == b"X = 2\n"
    packed = pickle.dumps(bench)
    bench.close()
    # The other machine: another home, another folder, and no repository where it was.
    shutil.move(root / "repo", tmp_path / "elsewhere")
    worker_home = tmp_path / "worker-home"
    monkeypatch.setenv("BUGBOUT_HOME", str(worker_home))
    monkeypatch.chdir(tmp_path)
    there = pickle.loads(packed)
    assert there.location(task) == location
    handle = there.repo(task)
    assert handle.read_blob(str(task["fix_commit"]), "src/pkg/__init__.py") == b"X = 2\n"
    assert handle.read_blob(str(task["base_commit"]), "src/pkg/__init__.py") == b"X = 1\n"
    assert worker_home in handle.path.parents
    # The environment is planned from the working tree's pyproject.toml, not HEAD's.
    assert (there.env_root(handle) / "pyproject.toml").read_text().endswith('["attrs"]\n')
    assert there.sandbox_kind == "none"
    # Once per process: a second unpickling shares the first's handles and environments.
    again = pickle.loads(packed)
    assert again._envs is there._envs
    there.close()


def test_bundles_are_unpacked_once_per_node_by_concurrent_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, task = project(tmp_path)
    bench = Workbench(load_config(root / "bugbout.toml"), sandbox="none", portable=True)
    bench.repo(task)
    packed = tmp_path / "packed.pickle"
    packed.write_bytes(pickle.dumps(bench))
    worker_home = tmp_path / "worker-home"
    script = (
        "import pickle, sys; b = pickle.loads(open(sys.argv[1], 'rb').read()); "
        "print(b.repo(" + repr(task) + ").path)"
    )
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(packed)],
            stdout=subprocess.PIPE,
            env=tool_env({"BUGBOUT_HOME": str(worker_home)}),
        )
        for _ in range(3)
    ]
    paths = {run.communicate(timeout=120)[0].decode().strip() for run in runs}
    assert all(run.returncode == 0 for run in runs)
    assert len(paths) == 1
    assert len(list((worker_home / "portable").iterdir())) == 1


def test_a_malformed_address_in_the_file_names_the_key(tmp_path: Path) -> None:
    config_file(tmp_path, 'ray-address = "nonsense"\n')
    done = run_tool("bb-oracle", "--executor", "ray", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.decode() == (
        "bb-oracle: bugbout.toml: run.ray-address: 'nonsense': expected auto, ray://host:port "
        "or host:port\n"
    )


@pytest.mark.parametrize(
    ("address", "said"),
    [
        ("127.0.0.1:1", "bb-oracle: cannot reach the Ray cluster at 127.0.0.1:1: "),
        ("nonsense", "bb-oracle: --ray-address: 'nonsense': expected auto, ray://host:port or "),
    ],
)
def test_a_cluster_that_cannot_be_reached_is_one_line_and_exit_2(
    tmp_path: Path, address: str, said: str
) -> None:
    pytest.importorskip("ray")
    config_file(tmp_path)
    done = run_tool("bb-oracle", "--executor", "ray", "--ray-address", address, cwd=tmp_path)
    assert done.returncode == 2
    lines = done.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith(said), lines
