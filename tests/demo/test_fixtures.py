"""The shared fixtures in tests/conftest.py do what they promise."""

from __future__ import annotations

import os
import subprocess
import tomllib
from pathlib import Path

from build_demo import git_env


def log(repo: Path, *args: str) -> list[str]:
    out = subprocess.run(
        ["git", "log", *args], cwd=repo, env=git_env("t", "t@t", "2024-01-01T00:00:00+00:00"),
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    return out.splitlines()


def test_bugbout_home_is_private(bugbout_home: Path) -> None:
    assert os.environ["BUGBOUT_HOME"] == str(bugbout_home)
    assert Path.home() not in bugbout_home.parents


def test_demo_project_is_a_private_copy_with_valid_paths(demo_project, demo_build) -> None:
    assert demo_project.root != demo_build.root
    config = tomllib.loads(demo_project.config.read_text())
    for agent in [*config["contestants"], *config["examiners"]]:
        script = Path(agent["command"][1])
        assert script.parent == demo_project.agents
        assert script.is_file()
    assert (demo_project / "bugbout.toml") == demo_project.config
    assert Path(os.fspath(demo_project)) == demo_project.root


def test_demo_repo_is_the_copy_repository(demo_repo, demo_project) -> None:
    assert demo_repo == demo_project.repo
    assert log(demo_repo, "-1", "--format=%s") == ["Fix hyphenated words counting as two (#29)"]


def test_git_repo_factory_builds_merges(git_repo) -> None:
    make = git_repo()
    base = make.commit({"a.txt": "one\n"}, "Start")
    make.branch("topic")
    make.commit({"b.txt": "two\n"}, "Add b")
    make.switch("main")
    make.commit({"a.txt": "uno\n"}, "Change a")
    merge = make.merge("topic", "Merge pull request #1 from x/topic\n\nAdd b")
    assert make.sha("HEAD") == merge
    assert make.sha(f"{merge}^1") != base
    parents = log(make.path, "-1", "--format=%P", merge)[0].split()
    assert len(parents) == 2
    make.commit({"b.txt": None}, "Remove b")
    assert not (make.path / "b.txt").exists()


def test_git_repo_factory_is_reproducible(git_repo) -> None:
    first, second = git_repo("one"), git_repo("two")
    for make in (first, second):
        make.commit({"x.py": "x = 1\n"}, "Start", date="2024-05-01T12:00:00+00:00")
        make.commit({"x.py": "x = 2\n"}, "Fix x (#3)")
    assert first.sha() == second.sha()
