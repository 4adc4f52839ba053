"""The race on a node project: the prompt names the project's runner command, an attempt's
test part is node's (tests beside the code, snapshots, mocks, runner configuration), and
edits of the maintainers' node tests are found."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import pytest
from bb_core.envs.node import NodeEnv
from bb_core.patch import split_patch
from bb_core.testrun import runner
from bb_race.authored import authored_node_tests
from bb_race.footprint import leave_out
from bb_race.project_tests import ProjectTests
from bb_race.prompt import build_prompt
from bb_race.tried import edits_to_tests


class FakeVitest:
    """Stands for the vitest runner: only its command matters here."""

    __test__: ClassVar[bool] = False
    name = "vitest"
    language = "javascript"

    def run(self, checkout: Path, env: Any, targets: Sequence[str], **options: Any) -> Any:
        raise AssertionError("the race's prompt runs nothing")

    collect = run

    def protected(self, checkout: Path) -> tuple[str, ...]:
        return ("vitest.config.ts",)

    def test_command(self, env: Any) -> str:
        return f"{env.node} node_modules/vitest/vitest.mjs run"


@pytest.fixture
def vitest(monkeypatch: pytest.MonkeyPatch) -> FakeVitest:
    fake = FakeVitest()
    monkeypatch.setitem(runner.RUNNERS, "vitest", fake)
    return fake


def node_task(**extra: Any) -> dict[str, Any]:
    return {
        "id": "sums-1",
        "source": "src",
        "tests": "test",
        "statement": "sum(1, 2) gives -1",
        "source_files": ["src/sum.ts"],
        "test_files": ["test/sum.test.ts"],
        **extra,
    }


def bench_with(env: Any) -> Any:
    project = SimpleNamespace(environments="project", pytest_args=(), env={})
    return SimpleNamespace(env=lambda task=None: env, config=SimpleNamespace(project=project))


def test_the_prompt_names_the_runners_command(vitest: FakeVitest, tmp_path: Path) -> None:
    env = NodeEnv(node=Path("/usr/bin/node"), root=tmp_path / "install", key="k", runner="vitest")
    tests = ProjectTests(bench_with(env))
    command = tests.command(node_task())
    assert command == "/usr/bin/node node_modules/vitest/vitest.mjs run"
    prompt = build_prompt(node_task(), role="contestant", assignment=None, command=command)  # type: ignore[arg-type]
    assert f"    {command}\n" in prompt
    assert "pytest" not in prompt
    assert "put a test file's path after the command" in prompt
    # node is in a system folder every sandbox shows; the cached install is added.
    assert tests.readable() == [tmp_path / "install"]


@pytest.mark.parametrize("assignment", ["reproduce", "specify"])
def test_examiners_write_node_test_files(assignment: str) -> None:
    prompt = build_prompt(
        node_task(),  # type: ignore[arg-type]
        role="examiner",
        assignment=assignment,
        command="npx vitest run",
    )
    assert "pytest" not in prompt
    assert "in a new test file under `test/` (named like `*.test.ts`" in prompt


def test_a_python_tasks_prompt_is_unchanged() -> None:
    task = {
        "source": "src/demo",
        "tests": "tests",
        "statement": "x",
        "source_files": ["src/demo/a.py"],
    }
    prompt = build_prompt(
        task,  # type: ignore[arg-type]
        role="examiner",
        assignment="reproduce",
        command="python -m pytest tests",
    )
    assert "write pytest tests, in a new test module under `tests/`" in prompt
    assert "put a test file or node id in place of `tests`" in prompt


def new_file(path: str) -> str:
    return (
        f"diff --git a/{path} b/{path}\nnew file mode 100644\nindex 0000000..1111111\n"
        f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+x\n"
    )


def changed(path: str) -> str:
    return (
        f"diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n"
        f"--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-old\n+new\n"
    )


def test_a_node_attempts_test_part() -> None:
    paths = [
        "src/sum.ts",
        "src/sum.test.ts",
        "src/__snapshots__/a.snap",
        "vitest.config.ts",
        "README.md",
    ]
    patch = "".join(new_file(p) for p in paths)
    source, tests = split_patch(patch, "src", "test", node=True)
    assert "b/src/sum.ts" in source and "sum.test.ts" not in source
    for path in ("src/sum.test.ts", "src/__snapshots__/a.snap", "vitest.config.ts"):
        assert f"b/{path}" in tests
    assert "README" not in source + tests
    python_source, _ = split_patch(patch, "src", "test")
    assert "b/src/sum.test.ts" in python_source  # Python's rule is unchanged


def test_edits_of_the_maintainers_node_tests_are_found() -> None:
    patch = changed("src/sum.test.ts") + changed("src/__mocks__/fs.ts") + changed("src/sum.ts")
    patch += (
        changed("vitest.config.ts")
        .replace("-old\n+new\n", "+added\n")
        .replace("@@ -1 +1 @@", "@@ -1,0 +1 @@")
    )
    found = [f["evidence"].split(":")[0] for f in edits_to_tests(patch, "test", node=True)]
    assert found == ["src/sum.test.ts", "src/__mocks__/fs.ts", "vitest.config.ts"]
    assert edits_to_tests(patch, "test") == []


def test_without_an_environment_a_node_task_is_told_npm_test() -> None:
    assert ProjectTests(bench_with(None)).command(node_task()) == "npm test"


BASE_TEST = "describe('sum', () => {\n  it('adds', () => { expect(sum(1, 2)).toBe(3); });\n});\n"


@pytest.mark.parametrize(
    ("after", "listed"),
    [
        (
            "describe('sum', () => {\n  it('adds', () => { expect(sum(1, 2)).toBe(3); });\n"
            "  it('negatives', () => { expect(sum(-1, -2)).toBe(-3); });\n});\n",
            ["src/sum.test.ts > sum > negatives"],
        ),
        (
            "describe('sum', () => {\n  it('adds', () => { expect(sum(2, 2)).toBe(4); });\n});\n",
            ["src/sum.test.ts > sum > adds"],
        ),
        (BASE_TEST + "it.each([[1, 1]])('row %i', (a) => {});\n", []),
        ("describe('sum', () => {\n", []),
    ],
    ids=["added", "changed", "each-row", "unparseable"],
)
def test_an_attempts_node_tests(tmp_path: Path, after: str, listed: list[str]) -> None:
    for side, text in (("base", BASE_TEST), ("work", after)):
        (tmp_path / side / "src").mkdir(parents=True)
        (tmp_path / side / "src/sum.test.ts").write_text(text)
    (tmp_path / "work/src/__snapshots__").mkdir()
    (tmp_path / "work/src/__snapshots__/sum.test.ts.snap").write_text("x")
    paths = ["src/sum.test.ts", "src/__snapshots__/sum.test.ts.snap", "src/gone.test.ts"]
    files, tests = authored_node_tests(paths, tmp_path / "work", tmp_path / "base")
    assert files == ["src/sum.test.ts"]
    assert tests == listed


def test_a_node_checkout_gets_the_install_linked_and_left_out(tmp_path: Path) -> None:
    """The prompt's command finds the runner in the checkout's node_modules, a link to
    the environment's install that is never part of the agent's patch."""
    (tmp_path / "install/node_modules/vitest").mkdir(parents=True)
    env = NodeEnv(node=Path("/usr/bin/node"), root=tmp_path / "install", key="k", runner="vitest")
    work = tmp_path / "work"
    work.mkdir()
    tests = ProjectTests(bench_with(env))
    assert tests.install(node_task(), work) == ["node_modules"]
    assert (work / "node_modules").resolve() == tmp_path / "install/node_modules"
    assert tests.install(node_task(), work) == []  # already there: left alone
    left_out = leave_out(work, laid=["node_modules"])
    assert left_out("node_modules") and left_out("node_modules/vitest/index.js")
    assert not left_out("src/sum.ts") and not left_out("node_modules_x")
    python = SimpleNamespace(python=Path("/usr/bin/python3"), root=None)
    plain = tmp_path / "python-work"
    plain.mkdir()
    assert ProjectTests(bench_with(python)).install({"source_files": ["a.py"]}, plain) == []
    assert list(plain.iterdir()) == []


def test_the_laid_install_is_taken_back_unflagged_and_a_replaced_one_stays(
    tmp_path: Path,
) -> None:
    """bugbout's own node_modules link is removed before the tree is read, so it raises no
    symlink-outside flag; a link the agent pointed elsewhere is the agent's, and flagged."""
    from bb_core.patch import compare_trees
    from bb_race.footprint import take_back

    install = tmp_path / "install/node_modules"
    install.mkdir(parents=True)
    base, work = tmp_path / "base", tmp_path / "work"
    for tree in (base, work):
        (tree / "src").mkdir(parents=True)
        (tree / "src/sum.ts").write_text("export const sum = 1;\n")
    (work / "node_modules").symlink_to(install, target_is_directory=True)
    laid = [("node_modules", str(install))]
    left_out = leave_out(base, laid=["node_modules"])
    assert any("symlink-outside" in f for f in compare_trees(base, work, leave_out=left_out).flags)
    take_back(work, laid)
    assert not (work / "node_modules").exists()
    assert compare_trees(base, work, leave_out=left_out).flags == []
    (work / "node_modules").symlink_to("/etc", target_is_directory=True)  # the agent's own
    take_back(work, laid)
    flags = compare_trees(base, work, leave_out=left_out).flags
    assert flags == ["symlink-outside:node_modules -> /etc"]
