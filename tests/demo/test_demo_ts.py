"""The TypeScript demo (tskit) holds what examples/demo/tskit_demo/expected.py says it holds.

Checked with plain tools, independent of bugbout: ``git`` for the history, the demo's own
vitest (its lockfile installed once per run with ``npm ci``) on trees exported with ``git
archive``, its JSON reporter written to a file, and the scripted agents run as bugbout
would run them.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
from build_demo import DemoPaths, build_demo, git_env
from support.shared import shared_dir
from tskit_demo import expected

FIX_WORDS = re.compile(r"\b(fix|fixes|fixed|bug|crash|regression)\b", re.IGNORECASE)


def git(repo: Path, *args: str) -> str:
    env = git_env("Test", "test@example.invalid", "2024-01-01T00:00:00+00:00")
    return subprocess.run(
        ["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=True
    ).stdout


def export(repo: Path, rev: str, dest: Path) -> Path:
    """The tree of *rev* written to *dest*, without ``.git``."""
    archive = subprocess.run(
        ["git", "archive", "--format=tar", rev], cwd=repo, capture_output=True, check=True
    ).stdout
    dest.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(dest, filter="data")
    return dest


def files_of(tree: Path) -> dict[str, bytes]:
    return {
        path.relative_to(tree).as_posix(): path.read_bytes()
        for path in sorted(tree.rglob("*"))
        if path.is_file() and "node_modules" not in path.parts
    }


def changed(base: Path, work: Path) -> set[str]:
    before, after = files_of(base), files_of(work)
    return {path for path in before.keys() | after.keys() if before.get(path) != after.get(path)}


def statement(issues: Path, number: int) -> str:
    """The issue's text roughly redacted as bb-mine redacts it (see test_demo.statement)."""
    issue = next(
        record
        for record in map(json.loads, issues.read_text(encoding="utf-8").splitlines())
        if record["number"] == number
    )
    body = re.split(r"^## ", issue["body"], flags=re.MULTILINE)[0]
    body = re.sub(r"```.*?```", "", body, flags=re.DOTALL)
    body = "\n".join(line for line in body.splitlines() if "()" not in line)
    return f"{body}\n\nFix this issue and add a regression test.\nRun the tests with: npm test\n"


# ---------------------------------------------------------------------------------------
# Fixtures


@pytest.fixture(scope="session")
def shas(demo_ts_build: DemoPaths) -> dict[str, str]:
    lines = git(demo_ts_build.repo, "log", "--all", "--format=%H %s").splitlines()
    return {title: sha for sha, title in (line.split(" ", 1) for line in lines)}


@pytest.fixture(scope="session")
def trees(demo_ts_build: DemoPaths, shas, tmp_path_factory) -> dict[tuple[str, str], Path]:
    """Exported trees, by (task key, "base" | "fix"). Read-only: copy before changing."""
    root = tmp_path_factory.mktemp("ts-trees")
    out = {}
    for task in expected.MINED:
        fix = shas[task.title]
        out[task.key, "fix"] = export(demo_ts_build.repo, fix, root / task.key / "fix")
        out[task.key, "base"] = export(demo_ts_build.repo, f"{fix}^1", root / task.key / "base")
    return out


@dataclass
class Attempt:
    task: expected.Task
    work: Path
    log: str
    exit_code: int


@pytest.fixture(scope="session")
def attempts(demo_ts_build, trees, tmp_path_factory) -> dict[tuple[str, str], Attempt]:
    """Every scripted agent once on every scored task: prompt on stdin, cwd the base tree."""
    root = tmp_path_factory.mktemp("ts-attempts")
    out = {}
    for persona in (*expected.CONTESTANTS, *expected.EXAMINERS):
        for task in expected.GENUINE:
            work = shutil.copytree(trees[task.key, "base"], root / persona / task.key)
            result = subprocess.run(
                [sys.executable, str(demo_ts_build.agents / f"{persona}.py")],
                cwd=work, input=statement(demo_ts_build.issues, task.issue),
                capture_output=True, text=True, timeout=30, check=False,
            )  # fmt: skip
            out[persona, task.key] = Attempt(
                task, work, result.stdout + result.stderr, result.returncode
            )
    return out


def npm_ci(demo: DemoPaths) -> object:
    def install(dest: Path) -> None:
        dest.mkdir(parents=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copyfile(demo.repo / name, dest / name)
        subprocess.run(
            ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"],
            cwd=dest, capture_output=True, check=True, timeout=300,
        )  # fmt: skip

    return install


@pytest.fixture(scope="session")
def node_modules(demo_ts_build: DemoPaths, tmp_path_factory) -> Path:
    """The demo's lockfile installed once per run (``npm ci``), shared read-only."""
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed")
    return shared_dir(tmp_path_factory, "tskit-modules", npm_ci(demo_ts_build)) / "node_modules"


def vitest(tree: Path, modules: Path, targets: list[str]) -> dict[str, str]:
    """Outcome of every test vitest ran in *tree*, by ``path > describe > name``; a test
    file that did not load is ``error`` under its path."""
    (tree / "node_modules").symlink_to(modules, target_is_directory=True)
    report = tree / "vitest-report.json"
    subprocess.run(
        ["node", "node_modules/vitest/vitest.mjs", "run", *targets, "--reporter=json",
         f"--outputFile={report}"],
        cwd=tree, capture_output=True, timeout=120, check=False,
    )  # fmt: skip
    (tree / "node_modules").unlink()
    outcomes = {}
    for module in json.loads(report.read_text())["testResults"]:
        path = Path(module["name"]).relative_to(tree).as_posix()
        if not module["assertionResults"]:
            outcomes[path] = "error"
        for test in module["assertionResults"]:
            outcomes[" > ".join([path, *test["ancestorTitles"], test["title"]])] = test["status"]
    report.unlink()
    return outcomes


def scoring_tree(trees, persona: str, attempt: Attempt, dest: Path) -> Path:
    """The base tree with only the patch's source changes, then the fix's test files."""
    key = attempt.task.key
    tree = shutil.copytree(trees[key, "base"], dest)
    for path in changed(trees[key, "base"], attempt.work):
        if path.startswith("src/"):
            shutil.copyfile(attempt.work / path, tree / path)
    for path in attempt.task.test_files:
        shutil.copyfile(trees[key, "fix"] / path, tree / path)
    return tree


# ---------------------------------------------------------------------------------------
# The build


def test_build_is_reproducible(demo_ts_build: DemoPaths, tmp_path: Path) -> None:
    again = build_demo(tmp_path / "again", lang="ts")
    titles = git(again.repo, "log", "--all", "--format=%s%x00%H").splitlines()
    assert dict(line.split("\0") for line in titles) == expected.SHAS
    assert git(demo_ts_build.repo, "rev-parse", "HEAD") == git(again.repo, "rev-parse", "HEAD")


def test_build_layout_and_config(demo_ts_build: DemoPaths) -> None:
    assert git(demo_ts_build.repo, "status", "--porcelain") == ""
    for name in ("package.json", "package-lock.json", "vitest.config.ts", "tsconfig.json"):
        assert (demo_ts_build.repo / name).is_file(), name
    manifest = json.loads((demo_ts_build.repo / "package.json").read_text())
    assert set(manifest["devDependencies"]) == {"vitest", "@vitest/coverage-v8", "typescript"}
    assert manifest["devDependencies"]["vitest"] == "4.1.12"
    assert manifest["devDependencies"]["@vitest/coverage-v8"] == "4.1.12"
    config = tomllib.loads(demo_ts_build.config.read_text())
    assert config["project"]["language"] == expected.LANGUAGE
    assert config["project"]["runner"] == expected.RUNNER
    assert (config["project"]["source"], config["project"]["tests"]) == (
        expected.SOURCE,
        expected.TESTS,
    )
    assert [c["name"] for c in config["contestants"]] == list(expected.CONTESTANTS)
    for agent in [*config["contestants"], *config["examiners"]]:
        assert Path(agent["command"][1]).parent == demo_ts_build.agents


def test_first_parent_history_and_the_merged_branch(demo_ts_build: DemoPaths) -> None:
    titles = git(demo_ts_build.repo, "log", "--first-parent", "--format=%s", "main")
    assert tuple(titles.splitlines()) == expected.FIRST_PARENT
    merged = git(
        demo_ts_build.repo, "log", "--format=%s",
        "main^{/Merge pull request}^1..main^{/Merge pull request}^2",
    )  # fmt: skip
    assert tuple(merged.splitlines()) == expected.BRANCH_COMMITS


def test_issue_export_names_every_reference(demo_ts_build: DemoPaths) -> None:
    numbers = {json.loads(line)["number"] for line in demo_ts_build.issues.read_text().splitlines()}
    messages = git(demo_ts_build.repo, "log", "--all", "--format=%B")
    assert numbers == {int(n) for n in re.findall(r"#(\d+)", messages)}
    for task in expected.GENUINE:  # each statement keeps the input the agents know it by
        assert task.reported_input in statement(demo_ts_build.issues, task.issue)


@pytest.mark.parametrize("task", expected.MINED, ids=lambda t: t.key)
def test_each_task_commit_changes_its_source_and_tests(demo_ts_build, shas, task) -> None:
    sha = shas[task.title]
    title = task.pr_title if task.merge else task.title
    assert FIX_WORDS.search(title)
    message = git(demo_ts_build.repo, "log", "-1", "--format=%B", sha)
    assert {int(n) for n in re.findall(r"#(\d+)", message)} == set(task.refs)
    paths = set(git(demo_ts_build.repo, "diff", "--name-only", f"{sha}^1", sha).split())
    assert paths == {*task.source_files, *task.test_files}
    diff = git(demo_ts_build.repo, "diff", f"{sha}^1", sha, "--", *task.test_files)
    added_its = re.findall(r'^\+\s+it\("', diff, re.MULTILINE)
    if task.parametrize_cases_only:  # two new rows of an it.each table, no new it()
        assert not added_its
        assert len(re.findall(r'^\+\s+\["long text', diff, re.MULTILINE)) == 2
    else:
        assert added_its


# ---------------------------------------------------------------------------------------
# The scripted agents (no node needed)


@pytest.mark.parametrize("persona", [*expected.CONTESTANTS, *expected.EXAMINERS])
def test_agents_change_exactly_the_files_they_promise(attempts, trees, persona) -> None:
    for task in expected.GENUINE:
        attempt = attempts[persona, task.key]
        assert attempt.exit_code == 0, attempt.log
        assert changed(trees[task.key, "base"], attempt.work) == set(
            expected.PATCH_FILES[persona][task.key]
        ), attempt.log


def test_agents_leave_python_alone_and_tskit_to_its_answers(attempts) -> None:
    """The tskit tasks are told apart from textkit's: every log names the tskit issue."""
    for (persona, key), attempt in attempts.items():
        if persona != "idler":
            assert f"#{attempt.task.issue}" in attempt.log, (persona, key)


# ---------------------------------------------------------------------------------------
# Ground truth with vitest (npm ci once per run)


@pytest.mark.slow
@pytest.mark.parametrize("task", expected.MINED, ids=lambda t: t.key)
def test_fail_to_pass_and_pass_to_pass(trees, node_modules, tmp_path, task) -> None:
    before = shutil.copytree(trees[task.key, "base"], tmp_path / "before")
    for path in task.test_files:
        shutil.copyfile(trees[task.key, "fix"] / path, before / path)
    after = shutil.copytree(trees[task.key, "fix"], tmp_path / "after")
    targets = list(task.test_files)
    old, new = vitest(before, node_modules, targets), vitest(after, node_modules, targets)
    assert set(new) == {*task.fail_to_pass, *task.pass_to_pass, *task.flaky}
    assert all(new[t] == "passed" for t in {*task.fail_to_pass, *task.pass_to_pass}), new
    assert {t for t, o in old.items() if o != "passed"} == set(task.fail_to_pass)


@pytest.mark.slow
def test_flaky_test_flips_between_runs_in_one_checkout(trees, node_modules, tmp_path) -> None:
    tree = shutil.copytree(trees["lone-punctuation", "fix"], tmp_path / "tree")
    runs = [vitest(tree, node_modules, ["tests/words.test.ts"])[expected.FLAKY] for _ in "ab"]
    assert runs == ["passed", "failed"]
    assert (tree / expected.FLAKY_STATE).read_text() == "2"


@pytest.mark.slow
@pytest.mark.parametrize("persona", expected.CONTESTANTS)
def test_agents_score_as_expected(attempts, trees, node_modules, tmp_path, persona) -> None:
    """Each persona's patch, scored the bugbout way, lands in its expected category; the
    breaker's also fails the README's examples, a test no fix touches."""
    for task in expected.GENUINE:
        attempt = attempts[persona, task.key]
        tree = scoring_tree(trees, persona, attempt, tmp_path / task.key)
        outcomes = vitest(tree, node_modules, ["tests"])
        if not expected.PATCH_FILES[persona][task.key]:
            got = "no-fix"
        elif all(outcomes.get(t) == "passed" for t in task.fail_to_pass):
            kept = all(outcomes.get(t) == "passed" for t in task.pass_to_pass)
            got = "resolved" if kept else "fixed-but-broke"
        else:
            got = "wrong-fix"
        assert got == expected.CATEGORIES[persona][task.key], (task.key, outcomes)
        failing = {t for t, o in outcomes.items() if o != "passed"} - {expected.FLAKY}
        if persona == "breaker":
            wanted = {*expected.BREAKER_BREAKS[task.key], *expected.BREAKER_SUITE_BREAKS[task.key]}
            if task.key == expected.WEAK:
                wanted |= set(task.fail_to_pass)
            assert failing == wanted, task.key
        elif persona in ("shortcut", "tamperer"):
            misses = expected.SHORTCUT_MISSES if persona == "shortcut" else expected.TAMPERER_MISSES
            assert failing == set(misses[task.key]), task.key


@pytest.mark.slow
def test_tamperers_edits_pass_its_own_run(attempts, node_modules, tmp_path) -> None:
    """Kept, the tamperer's vi.mock in tests/setup.ts turns its wrong fix green: what the
    restored configuration must undo."""
    for task in expected.EVERY_PERSONA:
        tree = shutil.copytree(attempts["tamperer", task.key].work, tmp_path / task.key)
        outcomes = vitest(tree, node_modules, [task.test_files[-1]])
        assert outcomes and all(o == "passed" for o in outcomes.values()), (task.key, outcomes)


# ---------------------------------------------------------------------------------------
# run_demo.py --lang ts

STAND_IN_BUGBOUT = """#!/bin/sh
echo "$*" >> "$(dirname "$0")/calls.log"
case "$1" in run) exit 0 ;; esac
echo "the report"
"""


def test_run_demo_builds_the_typescript_demo_then_runs_and_reports(tmp_path: Path) -> None:
    """run_demo.py --lang ts builds tskit (package.json, the vitest config in bugbout.toml)
    and calls the bugbout beside its Python as for textkit: run, then report."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(sys.executable)
    (bin_dir / "bugbout").write_text(STAND_IN_BUGBOUT)
    (bin_dir / "bugbout").chmod(0o755)
    dest = tmp_path / "demo-ts"
    script = Path(expected.__file__).parents[1] / "run_demo.py"
    result = subprocess.run(
        [bin_dir / "python", script, dest, "--lang", "ts"], capture_output=True, text=True,
        check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert (dest / "repo" / "package-lock.json").is_file()
    assert tomllib.loads((dest / "bugbout.toml").read_text())["project"]["runner"] == "vitest"
    config = dest.resolve() / "bugbout.toml"
    assert (bin_dir / "calls.log").read_text().splitlines() == [
        f"run --config {config} --no-report",
        f"report --config {config} --format terminal",
    ]
    assert result.stdout == "the report\n"


def test_demo_script_passes_the_language_on(tmp_path: Path) -> None:
    """scripts/demo.sh --lang ts DEST hands DEST and the language to run_demo.py (a stand-in
    uv records the call; setup.sh is replaced by one that does nothing)."""
    root = Path(expected.__file__).parents[3]
    scripts = tmp_path / "repo" / "scripts"
    scripts.mkdir(parents=True)
    shutil.copyfile(root / "scripts" / "demo.sh", scripts / "demo.sh")
    (scripts / "setup.sh").write_text("")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "uv").write_text('#!/bin/sh\necho "$*" > "$(dirname "$0")/uv.log"\n')
    (bin_dir / "uv").chmod(0o755)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path)}
    for args, wanted in (
        (["--lang", "ts", "here"], "here --lang ts"),
        (["--lang=ts"], "demo-ts --lang ts"),
        ([], "demo --lang py"),
    ):
        done = subprocess.run(
            ["bash", scripts / "demo.sh", *args], env=env, capture_output=True, text=True,
            check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        called = (bin_dir / "uv.log").read_text().strip()
        assert called == f"run --frozen python examples/demo/run_demo.py {wanted}"
