"""`bugbout init`: the layout it finds, the bugbout.toml it writes, and when it refuses."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from bb_core.config import load_config
from bugbout.detect import agent_clis, allowed_minors, choose_python, detect

BUGBOUT = Path(sys.executable).parent / "bugbout"
#: The name each agent CLI's entry gets in the written bugbout.toml.
NAMES = {"codex": "codex", "claude": "claude-code", "gemini": "gemini-cli", "aider": "aider"}
NAMES["mini"] = "mini-swe-agent/ollama/qwen3-coder:30b"


def make_tree(root: Path, files: dict[str, str]) -> Path:
    """A git work tree holding *files* (uncommitted: init reads the files themselves)."""
    from dulwich import porcelain

    root.mkdir(parents=True, exist_ok=True)
    porcelain.init(str(root)).close()
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def fake_clis(folder: Path, names: tuple[str, ...]) -> str:
    """A PATH holding executables with these names (and nothing else)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        exe = folder / name
        exe.write_text("#!/bin/sh\nexit 0\n")
        exe.chmod(0o755)
    return str(folder)


def init(*args: str | Path, path: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{path}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(
        [str(BUGBOUT), "init", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=120,
    )


SRC_LAYOUT = {
    "pyproject.toml": '[project]\nname = "my-pkg"\nrequires-python = ">=3.11"\n',
    "src/my_pkg/__init__.py": "",
    "src/my_pkg/core.py": "def f():\n    return 1\n",
    "src/other/__init__.py": "",
    "tests/test_core.py": "def test_f():\n    pass\n",
}
FLAT_LAYOUT = {
    "pyproject.toml": '[project]\nname = "flat"\nrequires-python = ">=3.10,<3.13"\n',
    "flat/__init__.py": "",
    "docs/conf.py": "",
    "test/test_flat.py": "def test_x():\n    pass\n",
    "examples/__init__.py": "",
}


@pytest.mark.parametrize(
    ("files", "source", "tests", "spec"),
    [
        (SRC_LAYOUT, "src/my_pkg", "tests", ">=3.11"),
        (FLAT_LAYOUT, "flat", "test", ">=3.10,<3.13"),
    ],
    ids=["src-layout", "flat-layout"],
)
def test_init_writes_a_config_that_loads(
    tmp_path: Path, files: dict[str, str], source: str, tests: str, spec: str
) -> None:
    repo = make_tree(tmp_path / "repo", files)
    path = fake_clis(tmp_path / "bin", ("codex", "aider"))
    done = init(repo, path=path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    config = load_config(repo / "bugbout.toml")
    assert config.project.source == source
    assert config.project.tests == tests
    assert config.project.python == choose_python(spec)[0]
    assert config.project.python in allowed_minors(spec)
    found = [exe for exe, _ in agent_clis() if exe in ("codex", "aider") or shutil.which(exe)]
    assert [a.name for a in config.contestants] == [NAMES[exe] for exe in found]
    assert config.contestants[found.index("aider")].options["command"][0] == "aider"
    assert config.examiners == []
    text = (repo / "bugbout.toml").read_text()
    if "claude" not in found:  # not on PATH: shown, commented out
        assert '# [[contestants]]\n# agent = "claude-code"' in text
    assert f"package: {source}" in done.stderr


GROUPS = (
    '[project]\nname = "my-pkg"\nrequires-python = ">=3.11"\n'
    '[project.optional-dependencies]\ndev = ["ruff"]\n'
    "[dependency-groups]\n"
    'tests = ["pytest>=8", "my-pkg[extra]", {include-group = "fixtures"}]\n'
    'fixtures = ["time-machine"]\ndev = [{include-group = "tests"}, "mypy"]\n'
)


def test_init_takes_the_test_dependencies_pyproject_gives(tmp_path: Path) -> None:
    """structlog keeps them in PEP 735's [dependency-groups] tests: init writes them, its
    included groups followed and the project itself left out; dev comes only without."""
    repo = make_tree(tmp_path / "repo", {**SRC_LAYOUT, "pyproject.toml": GROUPS})
    done = init(repo, path=fake_clis(tmp_path / "bin", ()))
    assert done.returncode == 0, done.stderr
    config = load_config(repo / "bugbout.toml")
    assert config.project.test_dependencies == ["pytest>=8", "time-machine"]
    assert "# from [dependency-groups] tests" in (repo / "bugbout.toml").read_text()
    assert "test dependencies: 2 from [dependency-groups] tests" in done.stderr
    only_dev = GROUPS.split("[dependency-groups]")[0]
    repo = make_tree(tmp_path / "dev", {**SRC_LAYOUT, "pyproject.toml": only_dev})
    assert detect(repo, path="").test_dependencies == ("ruff",)
    repo = make_tree(tmp_path / "none", SRC_LAYOUT)
    assert detect(repo, path="").test_dependencies == ()
    assert (
        '# test-dependencies = ["pytest"]'
        in init(repo, path="").stdout + (repo / "bugbout.toml").read_text()
    )


def test_a_thin_package_is_written_with_the_one_it_re_exports(tmp_path: Path) -> None:
    """attrs: the distribution's name is src/attrs, a facade over src/attr's code; mining
    src/attrs alone gave 1 task instead of 76."""
    code = "".join(f"def f{n}():\n    return {n}\n" for n in range(40))
    files = {
        "pyproject.toml": '[project]\nname = "attrs"\n',
        "src/attr/__init__.py": code,
        "src/attrs/__init__.py": "from attr import f1, f2\n\nfrom . import more\n",
        "src/attrs/more.py": "X = 1\n",
        "src/other/__init__.py": code,
        "tests/test_a.py": "def test_a():\n    pass\n",
    }
    repo = make_tree(tmp_path / "repo", files)
    done = init(repo, path="")
    assert done.returncode == 0, done.stderr
    assert load_config(repo / "bugbout.toml").project.source == ["src/attr", "src/attrs"]
    text = (repo / "bugbout.toml").read_text()
    line = next(x for x in text.splitlines() if x.startswith("source"))
    assert line.endswith("# src/attrs re-exports src/attr; other packages here: src/other")
    assert "package: src/attr, src/attrs (src layout)" in done.stderr


def test_init_names_the_other_packages_it_did_not_choose(tmp_path: Path) -> None:
    repo = make_tree(tmp_path / "repo", SRC_LAYOUT)
    layout = detect(repo, path="")
    assert (layout.source, layout.other_sources, layout.layout) == (
        "src/my_pkg",
        ("src/other",),
        "src",
    )
    assert layout.agents == ()


def test_init_refuses_to_overwrite_without_force(tmp_path: Path) -> None:
    repo = make_tree(tmp_path / "repo", SRC_LAYOUT)
    (repo / "bugbout.toml").write_text("# mine\n")
    done = init(repo, path=str(tmp_path))
    assert done.returncode == 2
    assert (
        done.stderr
        == f"bugbout: {repo / 'bugbout.toml'}: already exists; use --force to replace it\n"
    )
    assert (repo / "bugbout.toml").read_text() == "# mine\n"
    forced = init(repo, "--force", path=str(tmp_path))
    assert forced.returncode == 0, forced.stderr
    assert load_config(repo / "bugbout.toml").project.source == "src/my_pkg"


def test_init_in_a_repository_without_a_commit_writes_with_a_warning(tmp_path: Path) -> None:
    """The choice: write the file (the working tree says what the project is) and warn
    that nothing can be mined until there is history; with a commit, no warning."""
    repo = make_tree(tmp_path / "repo", SRC_LAYOUT)
    done = init(repo, path=str(tmp_path))
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if "warning" in line]
    assert warnings == [
        "bugbout: warning: the repository has no commit yet, so there is no history to mine: "
        "commit the project (bugbout mines fixes from its history), then run `bugbout doctor`"
    ]
    assert load_config(repo / "bugbout.toml").project.source == "src/my_pkg"
    from dulwich import porcelain

    porcelain.add(str(repo), paths=[str(repo / name) for name in SRC_LAYOUT])
    porcelain.commit(str(repo), message=b"Start", author=b"A <a@b.c>", committer=b"A <a@b.c>")
    again = init(repo, "--force", path=str(tmp_path))
    assert again.returncode == 0 and "warning" not in again.stderr, again.stderr


def test_init_without_a_package_says_so_in_one_line(tmp_path: Path) -> None:
    repo = make_tree(tmp_path / "repo", {"README.md": "nothing here\n"})
    done = init(repo, path=str(tmp_path))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "no Python package found" in done.stderr
    assert not (repo / "bugbout.toml").exists()


@pytest.mark.parametrize(
    ("spec", "allowed"),
    [
        (">=3.11", ["3.11", "3.12", "3.13", "3.14"]),
        (">=3.10,<3.13", ["3.10", "3.11", "3.12"]),
        ("~=3.9", [f"3.{m}" for m in range(9, 15)]),
        ("~=3.12.1", ["3.12"]),
        ("==3.11.*", ["3.11"]),
        (">3.11", ["3.11", "3.12", "3.13", "3.14"]),  # 3.11.1 is above 3.11
        (">=3.9, !=3.10.*", ["3.9", *(f"3.{m}" for m in range(11, 15))]),
        ("<3.9", ["3.8"]),
        ("not a specifier", [f"3.{m}" for m in range(8, 15)]),
    ],
)
def test_requires_python_gives_the_versions_it_allows(spec: str, allowed: list[str]) -> None:
    assert allowed_minors(spec) == allowed


def test_init_outside_a_work_tree_writes_nothing(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    for name, text in SRC_LAYOUT.items():
        (plain / name).parent.mkdir(parents=True, exist_ok=True)
        (plain / name).write_text(text, encoding="utf-8")
    done = init(plain, path=str(tmp_path))
    assert done.returncode == 2
    assert done.stderr == (
        f"bugbout: {plain}: not the top of a git work tree, so nothing was written (bugbout "
        "mines a repository's history; run it in a git repository's top folder)\n"
    )
    assert not (plain / "bugbout.toml").exists()


def test_init_in_a_subfolder_names_the_top_of_the_work_tree(tmp_path: Path) -> None:
    repo = make_tree(tmp_path / "repo", SRC_LAYOUT)
    done = init(repo / "src", path=str(tmp_path))
    assert done.returncode == 2
    assert f"its work tree starts at {repo.resolve()}; run `bugbout init` there" in done.stderr
    assert not (repo / "src" / "bugbout.toml").exists()
