"""The demo holds what examples/demo/expected.py says it holds.

Checked with plain tools, independent of bugbout: ``git`` for the history, the demo's own
pytest (``-o addopts=``, its coverage option needs a plugin the environment lacks) on trees
exported with ``git archive``, and the scripted agents run as bugbout would run them.
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import expected
import pytest
from build_demo import DemoPaths, build_demo, git_env

FIX_WORDS = re.compile(r"\b(fix|fixes|fixed|bug|crash|regression)\b", re.IGNORECASE)
ISSUE_REF = re.compile(r"#\d+")

# A pytest plugin that records each test's outcome in a JSON file: outcomes come from
# pytest's own reports, never from its console output.
OUTCOMES_PLUGIN = """
import json, os


class Recorder:
    def __init__(self):
        self.outcomes = {}

    def pytest_runtest_logreport(self, report):
        if report.when == "call" or report.outcome != "passed":
            outcome = report.outcome if report.when == "call" else "error"
            if self.outcomes.get(report.nodeid, "passed") == "passed":
                self.outcomes[report.nodeid] = outcome


_recorder = Recorder()
pytest_runtest_logreport = _recorder.pytest_runtest_logreport


def pytest_sessionfinish(session):
    with open(os.environ["DEMO_OUTCOMES"], "w") as handle:
        json.dump(_recorder.outcomes, handle)
"""

# Runs pytest in-process on many checkouts one after the other (as pytester does), putting
# sys.modules and sys.path back between them: one interpreter start for a whole batch.
BATCH_DRIVER = """
import json, os, sys

import pytest
from demo_outcomes import Recorder

jobs = json.load(open(sys.argv[1]))
results = []
for checkout, targets in jobs:
    modules, path = set(sys.modules), list(sys.path)
    os.chdir(checkout)
    recorder = Recorder()
    pytest.main(
        ["-q", "-o", "addopts=", "-p", "no:cacheprovider", "--continue-on-collection-errors",
         *targets],
        plugins=[recorder],
    )
    results.append(recorder.outcomes)
    for name in set(sys.modules) - modules:
        del sys.modules[name]
    sys.path[:] = path
json.dump(results, open(sys.argv[2], "w"))
"""


# ---------------------------------------------------------------------------------------
# Helpers


def git(repo: Path, *args: str) -> str:
    env = git_env("Test", "test@example.invalid", "2024-01-01T00:00:00+00:00")
    return subprocess.run(
        ["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=True
    ).stdout


def export(repo: Path, rev: str, dest: Path) -> Path:
    """The tree of *rev* written to *dest*, without ``.git``."""
    env = git_env("Test", "test@example.invalid", "2024-01-01T00:00:00+00:00")
    archive = subprocess.run(
        ["git", "archive", "--format=tar", rev], cwd=repo, env=env, capture_output=True, check=True
    ).stdout
    dest.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(dest, filter="data")
    return dest


def files_of(tree: Path) -> dict[str, bytes]:
    return {
        path.relative_to(tree).as_posix(): path.read_bytes()
        for path in sorted(tree.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def changed(base: Path, work: Path) -> set[str]:
    """Paths added, removed or modified between two trees."""
    before, after = files_of(base), files_of(work)
    return {path for path in before.keys() | after.keys() if before.get(path) != after.get(path)}


def overlay(dest: Path, source: Path, paths: Iterable[str]) -> None:
    for path in paths:
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if (source / path).exists():
            shutil.copyfile(source / path, target)
        else:
            target.unlink(missing_ok=True)


@dataclass
class Runner:
    plugin_dir: Path
    runs: int = 0

    def _env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
        env.update(PYTHONPATH=str(self.plugin_dir), PYTHONDONTWRITEBYTECODE="1", **extra)
        return env

    def __call__(self, checkout: Path, targets: Iterable[str]) -> dict[str, str]:
        """Outcome of every test a plain ``python -m pytest`` ran in *checkout*, by node id."""
        self.runs += 1
        report = self.plugin_dir / f"outcomes-{self.runs}.json"
        result = subprocess.run(
            [
                sys.executable, "-m", "pytest", "-q", "-o", "addopts=", "-p", "no:cacheprovider",
                "-p", "demo_outcomes", "--continue-on-collection-errors", *targets,
            ],
            cwd=checkout, env=self._env(DEMO_OUTCOMES=str(report)),
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert report.exists(), f"pytest wrote no report:\n{result.stdout}\n{result.stderr}"
        return json.loads(report.read_text())

    def batch(self, jobs: list[tuple[Path, list[str]]]) -> list[dict[str, str]]:
        """Outcomes of pytest on each (checkout, targets), all in one interpreter."""
        self.runs += 1
        spec = self.plugin_dir / f"jobs-{self.runs}.json"
        report = self.plugin_dir / f"batch-{self.runs}.json"
        spec.write_text(json.dumps([(str(checkout), targets) for checkout, targets in jobs]))
        result = subprocess.run(
            [sys.executable, str(self.plugin_dir / "batch_driver.py"), str(spec), str(report)],
            env=self._env(), capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert report.exists(), f"the batch wrote no report:\n{result.stdout}\n{result.stderr}"
        return json.loads(report.read_text())


def passed(outcomes: dict[str, str]) -> set[str]:
    return {node for node, outcome in outcomes.items() if outcome == "passed"}


def statement(issues: Path, number: int) -> str:
    """The issue's text as a prompt would carry it, roughly redacted the way bb-mine
    redacts: no fix sections, no code blocks, no sentence naming a function."""
    for line in issues.read_text(encoding="utf-8").splitlines():
        issue = json.loads(line)
        if issue["number"] == number:
            break
    else:
        raise LookupError(number)
    body = re.split(r"^## ", issue["body"], flags=re.MULTILINE)[0]
    body = re.sub(r"```.*?```", "", body, flags=re.DOTALL)
    body = "\n".join(line for line in body.splitlines() if "()" not in line)
    return f"{body}\n\nFix this issue and add a regression test.\nRun the tests with: pytest\n"


# ---------------------------------------------------------------------------------------
# Fixtures


@pytest.fixture(scope="session")
def run_pytest(tmp_path_factory: pytest.TempPathFactory) -> Runner:
    plugin_dir = tmp_path_factory.mktemp("plugin")
    (plugin_dir / "demo_outcomes.py").write_text(OUTCOMES_PLUGIN)
    (plugin_dir / "batch_driver.py").write_text(BATCH_DRIVER)
    return Runner(plugin_dir)


@pytest.fixture(scope="session")
def shas(demo_build: DemoPaths) -> dict[str, str]:
    """First line of each commit message (main and the merged branch) -> sha."""
    lines = git(demo_build.repo, "log", "--all", "--format=%H %s").splitlines()
    return {title: sha for sha, title in (line.split(" ", 1) for line in lines)}


@pytest.fixture(scope="session")
def trees(demo_build: DemoPaths, shas: dict[str, str], tmp_path_factory: pytest.TempPathFactory):
    """Exported trees, by (task key, "base" | "fix"). Read-only: copy before changing."""
    root = tmp_path_factory.mktemp("trees")
    out = {}
    for task in expected.MINED:
        fix = shas[task.title]
        out[task.key, "fix"] = export(demo_build.repo, fix, root / task.key / "fix")
        out[task.key, "base"] = export(demo_build.repo, f"{fix}^1", root / task.key / "base")
    return out


@dataclass
class Attempt:
    persona: str
    task: expected.Task
    work: Path
    log: str
    exit_code: int


@pytest.fixture(scope="session")
def attempts(demo_build, trees, tmp_path_factory) -> dict[tuple[str, str], Attempt]:
    """Every scripted agent run once on every scored task, as a command agent is run:
    prompt on stdin, cwd the base tree without history."""
    root = tmp_path_factory.mktemp("attempts")
    out = {}
    for persona in (*expected.CONTESTANTS, *expected.EXAMINERS):
        for task in expected.GENUINE:
            work = root / persona / task.key
            shutil.copytree(trees[task.key, "base"], work)
            result = subprocess.run(
                [sys.executable, str(demo_build.agents / f"{persona}.py")],
                cwd=work, input=statement(demo_build.issues, task.issue),
                capture_output=True, text=True, timeout=30, check=False,
            )  # fmt: skip
            out[persona, task.key] = Attempt(
                persona, task, work, result.stdout + result.stderr, result.returncode
            )
    return out


def scoring_tree(trees, attempt: Attempt, dest: Path) -> Path:
    """The base tree with only the patch's changes under the package, then the fix's
    test files installed - the way bugbout scores a patch."""
    key = attempt.task.key
    tree = shutil.copytree(trees[key, "base"], dest)
    source = [p for p in changed(trees[key, "base"], attempt.work) if p.startswith("src/textkit/")]
    overlay(tree, attempt.work, source)
    overlay(tree, trees[key, "fix"], attempt.task.test_files)
    return tree


def hidden(task: expected.Task) -> list[str]:
    """The tests a patch is scored with: fail-to-pass and pass-to-pass. (Run them by module
    and pick them out: given node ids, pytest runs nothing at all when one of their modules
    cannot be imported, even with --continue-on-collection-errors.)"""
    return [*task.fail_to_pass, *task.pass_to_pass]


def category(outcomes: dict[str, str], task: expected.Task, patch_empty: bool) -> str:
    if patch_empty:
        return "no-fix"
    fixed = all(outcomes.get(node) == "passed" for node in task.fail_to_pass)
    kept = all(outcomes.get(node) == "passed" for node in task.pass_to_pass)
    if fixed:
        return "resolved" if kept else "fixed-but-broke"
    return "wrong-fix"


# ---------------------------------------------------------------------------------------
# The build


def test_build_is_reproducible(demo_build: DemoPaths, tmp_path: Path) -> None:
    """Two builds give the same commits, and the commits recorded in expected.SHAS."""
    again = build_demo(tmp_path / "again")
    refs = ["for-each-ref", "--format=%(refname) %(objectname)"]
    assert git(again.repo, *refs) == git(demo_build.repo, *refs)
    everything = git(demo_build.repo, "log", "--all", "--format=%H %T %P %an %cd %s")
    assert git(again.repo, "log", "--all", "--format=%H %T %P %an %cd %s") == everything
    titles = git(again.repo, "log", "--all", "--format=%s%x00%H").splitlines()
    assert dict(line.split("\0") for line in titles) == expected.SHAS


def test_build_layout_and_clean_tree(demo_build: DemoPaths) -> None:
    assert (demo_build.repo / ".git").is_dir()
    assert git(demo_build.repo, "status", "--porcelain") == ""
    assert git(demo_build.repo, "branch", "--show-current").strip() == expected.BRANCH
    assert demo_build.issues.is_file() and demo_build.config.is_file()
    # The agents the config runs, the snoop (a hostile agent to add by hand) and the
    # gambler (a seeded stochastic one, for repeated attempts).
    assert sorted(p.stem for p in demo_build.agents.glob("[!_]*.py")) == sorted(
        [*expected.CONTESTANTS, *expected.EXAMINERS, "snoop", "gambler"]
    )


def test_build_refuses_to_overwrite_without_force(tmp_path: Path) -> None:
    dest = tmp_path / "taken"
    dest.mkdir()
    (dest / "keep.txt").write_text("mine")
    script = Path(expected.__file__).with_name("build_demo.py")
    refused = subprocess.run([sys.executable, script, dest], capture_output=True, text=True)
    assert refused.returncode == 2
    assert refused.stderr.startswith("build_demo.py: ") and "--force" in refused.stderr
    assert (dest / "keep.txt").read_text() == "mine"
    forced = subprocess.run(
        [sys.executable, script, dest, "--force"], capture_output=True, text=True
    )
    assert forced.returncode == 0, forced.stderr
    assert not (dest / "keep.txt").exists() and (dest / "repo" / ".git").is_dir()


def test_config_wires_agents_by_absolute_path(demo_build: DemoPaths) -> None:
    import tomllib

    config = tomllib.loads(demo_build.config.read_text())
    assert config["project"] == {
        "source": expected.SOURCE, "tests": expected.TESTS, "repository": "repo", "python": "3.11",
    }  # fmt: skip
    assert config["tasks"] == {"issues": "issues.jsonl"}
    assert config["run"] == {"timeout": 120}
    agents = {a["name"]: a for a in [*config["contestants"], *config["examiners"]]}
    assert [a["name"] for a in config["contestants"]] == list(expected.CONTESTANTS)
    assert {name: a["vendor"] for name, a in agents.items()} == expected.VENDORS
    assert config["examiners"][0]["assignment"] == "reproduce"
    for name, agent in agents.items():
        assert agent["agent"] == "command"
        assert agent["command"] == [sys.executable, str(demo_build.agents / f"{name}.py")]


def test_issue_export_names_every_reference(demo_build: DemoPaths) -> None:
    issues = {
        issue["number"]: issue
        for issue in map(json.loads, demo_build.issues.read_text(encoding="utf-8").splitlines())
    }
    named = {
        int(n)
        for n in re.findall(r"#(\d+)", git(demo_build.repo, "log", "--first-parent", "--format=%B"))
    }
    assert named <= issues.keys()
    for issue in issues.values():
        assert set(issue) == {"number", "title", "body", "is_pull_request", "closes"}
    assert issues[12]["is_pull_request"] and issues[12]["closes"] == [11]
    for task in expected.MINED:
        body = issues[task.issue]["body"]
        leaks = expected.LEAKS[task.key]
        section = body.index(f"\n{leaks.fix_section}\n")
        assert ("```diff" in body[:section]) == leaks.diff_outside_section
        assert "```diff" in body
        assert " ".join(leaks.locating_sentence.split()) in " ".join(body.split())
        assert task.reported_input == leaks.keep and leaks.keep in body[:section]


# ---------------------------------------------------------------------------------------
# The history


def diff_paths(repo: Path, sha: str) -> tuple[set[str], set[str], set[str]]:
    """(source files, test files, other files) a commit changes against its first parent."""
    names = set(git(repo, "diff", "--name-only", f"{sha}^1", sha).split())
    source = {p for p in names if p.startswith(expected.SOURCE + "/") and p.endswith(".py")}
    tests = {p for p in names if p.startswith(expected.TESTS + "/")}
    return source, tests, names - source - tests


def defined_tests(repo: Path, rev: str, path: str) -> list[str]:
    """Names of the test functions in *path* at *rev* (empty when the file is absent)."""
    try:
        text = git(repo, "show", f"{rev}:{path}")
    except subprocess.CalledProcessError:
        return []
    return re.findall(r"^def (test_\w+)", text, re.MULTILINE)


def test_first_parent_history(demo_build: DemoPaths) -> None:
    titles = git(demo_build.repo, "log", "--first-parent", "--format=%s", "main").splitlines()
    assert tuple(titles) == expected.FIRST_PARENT
    merged = git(
        demo_build.repo,
        "log",
        "--format=%s",
        "main^{/Merge pull request}^1..main^{/Merge pull request}^2",
    )
    assert tuple(merged.splitlines()) == expected.BRANCH_COMMITS


def test_merge_commit_carries_the_pull_request(demo_build: DemoPaths, shas) -> None:
    task = expected.SLUG_ACCENTS
    sha = shas[task.title]
    parents = git(demo_build.repo, "log", "-1", "--format=%P", sha).split()
    assert len(parents) == 2
    message = git(demo_build.repo, "log", "-1", "--format=%B", sha).splitlines()
    assert message[0] == task.title and message[2] == task.pr_title
    assert "Fixes #11." in message[4] and "## Changes" in message


@pytest.mark.parametrize("task", expected.MINED, ids=lambda t: t.key)
def test_each_task_commit_passes_every_mining_rule(demo_build: DemoPaths, shas, task) -> None:
    sha = shas[task.title]
    message = git(demo_build.repo, "log", "-1", "--format=%B", sha)
    title = task.pr_title if task.merge else task.title
    assert FIX_WORDS.search(title)
    assert {int(n) for n in re.findall(r"#(\d+)", message)} == set(task.refs)
    source, tests, _ = diff_paths(demo_build.repo, sha)
    assert source == set(task.source_files) and len(source) <= expected.MAX_SOURCE_FILES
    assert tests == set(task.test_files)
    added = {
        path: set(defined_tests(demo_build.repo, sha, path))
        - set(defined_tests(demo_build.repo, f"{sha}^1", path))
        for path in tests
    }
    if task.parametrize_cases_only:
        assert not any(added.values())  # only new cases in an existing parametrize list
        diff = git(demo_build.repo, "diff", f"{sha}^1", sha, "--", *tests)
        assert len(re.findall(r"^\+\s+pytest\.param\(", diff, re.MULTILINE)) == 2
    else:
        assert any(added.values())


@pytest.mark.parametrize(("title", "reason"), expected.EXPLAIN_SKIPS.items())
def test_each_left_out_commit_breaks_exactly_its_rule(
    demo_build: DemoPaths, shas, title, reason
) -> None:
    sha = shas[title]
    if reason == "not-a-fix":
        assert not FIX_WORDS.search(title)  # the title decides; nothing else is looked at
        return
    message = git(demo_build.repo, "log", "-1", "--format=%B", sha)
    source, tests, _ = diff_paths(demo_build.repo, sha)
    new_tests = [
        name
        for path in tests
        for name in set(defined_tests(demo_build.repo, sha, path))
        - set(defined_tests(demo_build.repo, f"{sha}^1", path))
    ]
    broken = {
        "not-a-fix": not FIX_WORDS.search(title),
        "no-issue-reference": not ISSUE_REF.search(message),
        "no-source-change": not source,
        "too-many-source-files": len(source) > expected.MAX_SOURCE_FILES,
        "no-test-added": not new_tests,
        "duplicate-issue": any(
            set(ISSUE_REF.findall(message))
            & set(ISSUE_REF.findall(git(demo_build.repo, "log", "-1", "--format=%B", shas[newer])))
            for newer in expected.FIRST_PARENT[: expected.FIRST_PARENT.index(title)]
        ),
    }
    assert {rule for rule, hit in broken.items() if hit} == {reason}


def test_duplicate_issue_is_named_by_two_fixes(demo_build: DemoPaths) -> None:
    log = git(demo_build.repo, "log", "--first-parent", "--format=%s").splitlines()
    naming = [title for title in log if f"(#{expected.DUPLICATE_ISSUE})" in title]
    assert naming == [
        expected.SNAKE_TRAILING_ACRONYM.title,
        "Fix snake_case splitting acronyms letter by letter (#15)",
    ]


# ---------------------------------------------------------------------------------------
# Ground truth: the demo's own pytest before and after each fix


@pytest.mark.parametrize("task", expected.MINED, ids=lambda t: t.key)
def test_fail_to_pass_and_pass_to_pass(trees, run_pytest, tmp_path: Path, task) -> None:
    """Before = base tree + the fix's test files; after = the fix's tree; one run each."""
    before = shutil.copytree(trees[task.key, "base"], tmp_path / "before")
    overlay(before, trees[task.key, "fix"], task.test_files)
    after = shutil.copytree(trees[task.key, "fix"], tmp_path / "after")
    outcomes_before = run_pytest(before, task.test_files)
    outcomes_after = run_pytest(after, task.test_files)
    flaky = set(task.flaky)
    assert passed(outcomes_after) == set(task.fail_to_pass) | set(task.pass_to_pass) | flaky
    assert passed(outcomes_after) - passed(outcomes_before) == set(task.fail_to_pass)
    assert passed(outcomes_before) & passed(outcomes_after) == set(task.pass_to_pass) | flaky
    if task.import_error_before:
        assert not any(node.startswith("tests/test_tokens.py") for node in passed(outcomes_before))


def test_flaky_test_flips_between_runs_in_one_checkout(trees, run_pytest, tmp_path: Path) -> None:
    task = expected.LONE_PUNCTUATION
    checkout = shutil.copytree(trees[task.key, "fix"], tmp_path / "after")
    runs = [run_pytest(checkout, task.test_files) for _ in range(2)]
    assert [run[expected.FLAKY] for run in runs] == ["passed", "failed"]
    steady = [{k: v for k, v in run.items() if k != expected.FLAKY} for run in runs]
    assert steady[0] == steady[1]
    assert (checkout / expected.FLAKY_STATE).read_text() == "2"


# ---------------------------------------------------------------------------------------
# The scripted agents


@pytest.mark.parametrize("persona", [*expected.CONTESTANTS, *expected.EXAMINERS])
def test_agents_change_exactly_the_files_they_promise(attempts, trees, persona) -> None:
    for task in expected.GENUINE:
        attempt = attempts[persona, task.key]
        assert attempt.exit_code == 0, attempt.log
        assert f"#{task.issue}" in attempt.log
        assert changed(trees[task.key, "base"], attempt.work) == set(
            expected.PATCH_FILES[persona][task.key]
        ), attempt.log


MISSES = {"shortcut": expected.SHORTCUT_MISSES, "tamperer": expected.TAMPERER_MISSES}


@pytest.mark.parametrize("persona", expected.CONTESTANTS)
def test_agents_score_as_expected(attempts, trees, run_pytest, tmp_path, persona) -> None:
    """Each persona's patch, scored the bugbout way, lands in its expected category."""
    tasks = expected.GENUINE
    jobs = [
        (scoring_tree(trees, attempts[persona, t.key], tmp_path / t.key), list(t.test_files))
        for t in tasks
    ]
    for task, run in zip(tasks, run_pytest.batch(jobs), strict=True):
        empty = not changed(trees[task.key, "base"], attempts[persona, task.key].work)
        outcomes = {node: run.get(node, "missing") for node in hidden(task)}
        assert category(outcomes, task, empty) == expected.CATEGORIES[persona][task.key]
        failing = set(outcomes) - passed(outcomes)
        if persona == "breaker" and task in expected.EVERY_PERSONA:
            assert failing == set(expected.BREAKER_BREAKS[task.key])
        if persona in MISSES:
            assert failing == set(MISSES[persona][task.key])


def suite_tree(trees, task: expected.Task, dest: Path, attempt: Attempt | None) -> Path:
    """The base tree without the fix's test files, with the patch's changes under the
    package: the repository's own suite as a cross-examination runs it on a patch."""
    tree = shutil.copytree(trees[task.key, "base"], dest)
    for path in task.test_files:
        (tree / path).unlink(missing_ok=True)
    if attempt is not None:
        edits = changed(trees[task.key, "base"], attempt.work)
        overlay(tree, attempt.work, [p for p in edits if p.startswith(expected.SOURCE + "/")])
    return tree


def test_only_the_breaker_breaks_the_suite_the_fix_leaves_alone(
    attempts, trees, run_pytest, tmp_path
) -> None:
    """Tests in modules the fix does not touch - what a cross-examination can see - catch
    the breaker on every task, and pass on the unfixed tree and on every other patch."""
    patched = ("careful", "shortcut", "tamperer", "breaker")
    jobs, cells = [], []
    for task in expected.GENUINE:
        modules = sorted(
            path.relative_to(trees[task.key, "base"]).as_posix()
            for path in (trees[task.key, "base"] / expected.TESTS).glob("test_*.py")
        )
        suite = [path for path in modules if path not in task.test_files]
        assert "tests/test_readme.py" in suite
        for column in ("base", *patched):
            attempt = None if column == "base" else attempts[column, task.key]
            jobs.append((suite_tree(trees, task, tmp_path / task.key / column, attempt), suite))
            cells.append((task, column))
    for (task, column), outcomes in zip(cells, run_pytest.batch(jobs), strict=True):
        assert outcomes, (task.key, column)
        assert not {node.split("::")[0] for node in outcomes} & set(task.test_files)
        broken = set(expected.BREAKER_SUITE_BREAKS[task.key]) if column == "breaker" else set()
        assert set(outcomes) - passed(outcomes) == broken, (task.key, column, outcomes)


def test_tamperers_edits_would_pass_the_hidden_tests_if_kept(
    attempts, trees, run_pytest, tmp_path
) -> None:
    """The tamperer's conftest fixture really hides its wrong fix: a scorer that kept the
    agent's conftest.py would call it resolved."""
    jobs = []
    for task in expected.EVERY_PERSONA:  # on the weak-oracle task it changes nothing
        tree = shutil.copytree(attempts["tamperer", task.key].work, tmp_path / task.key)
        overlay(tree, trees[task.key, "fix"], task.test_files)
        jobs.append((tree, list(task.test_files)))
    for task, outcomes in zip(expected.EVERY_PERSONA, run_pytest.batch(jobs), strict=True):
        assert set(hidden(task)) <= passed(outcomes), task.key


def without(mapping: dict[str, str], key: str) -> dict[str, str]:
    return {k: v for k, v in mapping.items() if k != key}


def test_authors_tests_reproduce_and_catch_the_shortcut(
    attempts, trees, run_pytest, tmp_path
) -> None:
    """careful's, breaker's and examiner's tests fail on the unfixed tree and pass on the
    maintainers' fix; careful's and breaker's test another input, so the shortcut fails them.
    On the weak-oracle task (no breaker there) the shortcut fails exactly the longest_word
    tests of careful and the examiner: where it diverges from the maintainers' fix."""
    every = {
        "careful": "test_regression_{}",
        "breaker": "test_fix_{}",
        "examiner": "test_repro_{}",
    }

    def authors_of(task: expected.Task) -> dict[str, str]:
        return every if task in expected.EVERY_PERSONA else without(every, "breaker")

    jobs, cells = [], []
    for task in expected.GENUINE:
        authors = authors_of(task)
        files = {a: f"tests/{name.format(task.issue)}.py" for a, name in authors.items()}
        columns = {
            "base": trees[task.key, "base"],
            "fix": trees[task.key, "fix"],
            "shortcut": attempts["shortcut", task.key].work,
        }
        for column, source in columns.items():
            tree = shutil.copytree(source, tmp_path / task.key / column)
            for author, path in files.items():
                overlay(tree, attempts[author, task.key].work, [path])
            jobs.append((tree, list(files.values())))
            cells.append((task, column))
    results: dict[str, dict[str, dict[str, str]]] = {}
    for (task, column), outcomes in zip(cells, run_pytest.batch(jobs), strict=True):
        results.setdefault(task.key, {})[column] = outcomes
    for task in expected.GENUINE:
        authors = authors_of(task)
        files = {a: f"tests/{name.format(task.issue)}.py" for a, name in authors.items()}
        base, fix, shortcut = (results[task.key][c] for c in ("base", "fix", "shortcut"))
        assert base and not passed(base), task.key
        assert fix and passed(fix) == set(fix), task.key
        if task not in expected.EVERY_PERSONA:
            parted = {test for _, test in expected.DIVERGES["shortcut", task.key]}
            assert set(shortcut) - passed(shortcut) == parted, task.key
            continue
        for author in ("careful", "breaker"):
            theirs = {node for node in shortcut if node.startswith(files[author])}
            assert len(theirs) >= 1 and theirs - passed(shortcut), (author, task.key)
        examiner = {node for node in shortcut if node.startswith(files["examiner"])}
        assert examiner and examiner <= passed(shortcut)  # it only reproduces the report


def test_agents_leave_an_unknown_task_alone(demo_build, trees, tmp_path) -> None:
    base = trees[expected.SNAKE_TRAILING_ACRONYM.key, "base"]
    for persona in (*expected.CONTESTANTS, *expected.EXAMINERS):
        work = shutil.copytree(base, tmp_path / persona)
        result = subprocess.run(
            [sys.executable, str(demo_build.agents / f"{persona}.py")],
            cwd=work, input=statement(demo_build.issues, 15), capture_output=True, text=True,
        )  # fmt: skip
        assert result.returncode == 0
        assert not changed(base, work), persona


# ---------------------------------------------------------------------------------------
# run_demo.py


STAND_IN_BUGBOUT = """#!/bin/sh
echo "$*" >> "$(dirname "$0")/calls.log"
case "$1" in run) exit "${STAND_IN_RUN_STATUS:-0}" ;; esac
echo "the report"
"""


@pytest.mark.parametrize("run_status", [0, 3])
def test_run_demo_builds_runs_and_reports(tmp_path: Path, run_status: int) -> None:
    """run_demo.py calls the bugbout installed beside its Python: run, then report only if
    the run succeeded; its exit status is bugbout's."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(sys.executable)
    (bin_dir / "bugbout").write_text(STAND_IN_BUGBOUT)
    (bin_dir / "bugbout").chmod(0o755)
    dest = tmp_path / "demo"
    dest.mkdir()
    (dest / "stale.txt").write_text("from an earlier build")
    script = Path(expected.__file__).with_name("run_demo.py")
    result = subprocess.run(
        [bin_dir / "python", script, dest],
        env={**os.environ, "STAND_IN_RUN_STATUS": str(run_status)},
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == run_status, result.stderr
    if run_status == 0:
        assert f"cd {dest.resolve()} && bugbout report -o report.html" in result.stderr
    assert not (dest / "stale.txt").exists() and (dest / "repo" / ".git").is_dir()
    config = dest.resolve() / "bugbout.toml"
    calls = (bin_dir / "calls.log").read_text().splitlines()
    if run_status == 0:
        assert calls == [
            f"run --config {config} --no-report",
            f"report --config {config} --format terminal",
        ]
        assert result.stdout == "the report\n"
    else:
        assert calls == [f"run --config {config} --no-report"]


def test_run_demo_says_whether_bugbout_is_on_the_callers_path(tmp_path: Path) -> None:
    """The demo's last words judge the calling shell's PATH, not the script's own: it said
    the tools were on PATH because demo.sh had put them on its own."""
    spec = importlib.util.spec_from_file_location(
        "run_demo", Path(expected.__file__).with_name("run_demo.py")
    )
    assert spec is not None and spec.loader is not None
    run_demo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run_demo)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "bugbout").write_text("#!/bin/sh\n")
    (bindir / "bugbout").chmod(0o755)
    demo = tmp_path / "my demo"

    away = run_demo.closing_lines(demo, "/usr/bin:/bin", bindir)
    assert f'    export PATH="{bindir}:$PATH"' in away
    assert any("not on your shell's PATH" in line for line in away)
    assert any(
        line.startswith(f"    cd '{demo}' && bugbout report -o report.html") for line in away
    )

    home = run_demo.closing_lines(demo, f"/usr/bin:{bindir}", bindir)
    assert home[-1] == f"bugbout is on your PATH ({bindir / 'bugbout'})."
    assert not any("export PATH" in line for line in home)
