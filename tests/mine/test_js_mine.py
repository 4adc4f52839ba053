"""bb-mine on a TypeScript project: test files by node's conventions, tests found by
parsing them, the same rules, statements and redaction as for Python."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from bb_mine.explain import explain
from bb_mine.mine import MineSettings, mine
from build_demo import GitRepo

PACKAGE = (
    '{"name": "sums", "devDependencies": {"vitest": "4.1.12"}, "scripts": {"test": "vitest"}}\n'
)
CONFIG = (
    'import { defineConfig } from "vitest/config";\n'
    "export default defineConfig({ test: {\n"
    '  include: ["src/**/*.test.ts", "checks/**/*.ts"], setupFiles: ["./test/setup.ts"] } });\n'
)
SUM = "export function sum(xs: number[]): number {\n  return xs.reduce((a, b) => a + b, 0);\n}\n"
FIXED = (
    "export function sum(xs: number[]): number {\n"
    "  return xs.map(normalizeInput).reduce((a, b) => a + b, 0);\n"
    "}\n\n"
    "function normalizeInput(x: number): number {\n  return Number.isFinite(x) ? x : 0;\n}\n"
)
TESTS = """import { describe, it, expect } from "vitest";
import { sum } from "./sum";

describe("sum", () => {
  it("adds", () => {
    expect(sum([1, 2])).toBe(3);
  });
  it.skip("ignores NaN", () => {
    expect(sum([1, NaN])).toBe(1);
  });
  it.each([[1, 1]])("sum of [%s] is %s", (x, total) => {
    expect(sum([x])).toBe(total);
  });
});
"""
FIX_TESTS = """import { describe, it, expect } from "vitest";
import { sum } from "./sum";

describe("sum", () => {
  it("adds", () => {
    // unchanged, reformatted
    expect(sum([1,   2])).toBe(3);
  });
  it("ignores NaN", () => {
    expect(sum([1, NaN])).toBe(1);
  });
  it.each([[1, 1], [Infinity, 0]])("sum of [%s] is %s", (x, total) => {
    expect(sum([x])).toBe(total);
  });
  it("is finite", () => {
    expect(sum([Infinity])).toMatchSnapshot();
  });
  it.todo("sums bigints");
});
"""
MESSAGE = (
    "Fix sum of infinite numbers (#7)\n\n"
    "sum([Infinity]) returned Infinity where callers expect a finite total.\n"
    "The fix maps every value through normalizeInput before adding.\n"
    "It now reads `xs.map(normalizeInput).reduce` in src/sum.ts."
)


def _start(repo: GitRepo) -> None:
    repo.commit(
        {
            "package.json": PACKAGE,
            "vitest.config.ts": CONFIG,
            "test/setup.ts": "export {};\n",
            "src/sum.ts": SUM,
            "src/sum.test.ts": TESTS,
            "README.md": "sums\n",
        },
        "Start",
    )


def _mine(repo: GitRepo, **options: Any) -> list[dict[str, Any]]:
    settings = MineSettings(
        **{"language": "typescript", "limit": 0, "use_cache": False, "jobs": 1, **options}
    )
    records = list(mine(repo.path, settings))
    for record in records:
        orjson.dumps(record)  # every record is JSON as written
    return records


def _by_title(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {r["title"]: r for r in records if r["kind"] in ("task", "skip")}


@pytest.fixture
def fixed(git_repo: Callable[..., GitRepo]) -> tuple[GitRepo, str]:
    repo = git_repo("sums")
    _start(repo)
    sha = repo.commit(
        {
            "src/sum.ts": FIXED,
            "src/sum.test.ts": FIX_TESTS,
            "src/__snapshots__/sum.test.ts.snap": "exports[`sum > is finite 1`] = `0`;\n",
            "src/__mocks__/clock.ts": "export const now = () => 0;\n",
        },
        MESSAGE,
    )
    return repo, sha


def test_a_typescript_fix_is_a_task(fixed: tuple[GitRepo, str]) -> None:
    repo, sha = fixed
    records = _mine(repo)
    (task,) = [r for r in records if r["kind"] == "task"]
    # the summary's areas count source lines, the tests, mocks and snapshots beside aside
    assert records[-1]["areas"] == {"sum.ts": {"lines": 7, "fixes": 1}}
    assert task["fix_commit"] == sha
    assert task["source"] == "src"
    assert task["source_files"] == ["src/sum.ts"]
    assert task["test_files"] == [
        "src/__mocks__/clock.ts",
        "src/__snapshots__/sum.test.ts.snap",
        "src/sum.test.ts",
    ]
    p = "src/sum.test.ts > sum > "
    # the new tests (a todo too, as a new skipped Python test is) and the new row are
    # added; the unskipped test is changed; the reformatted one is neither
    assert task["new_tests"] == [
        p + "is finite",
        p + "sums bigints",
        p + "sum of [Infinity] is 0",
        p + "ignores NaN",
    ]
    assert task["changed_tests"] == [p + "ignores NaN"]
    assert "src/__mocks__/clock.ts" in task["protected_paths"]
    # the setup file the configuration names, and the configuration; package.json holds
    # no jest settings here
    assert {"test/setup.ts", "vitest.config.ts"} <= set(task["protected_paths"])
    assert "package.json" not in task["protected_paths"]
    assert "diff --git a/src/sum.ts b/src/sum.ts" in task["reference_patch"]
    assert "src/sum.test.ts" in task["test_patch"] and "src/sum.ts" not in task["test_patch"]


def test_the_statement_keeps_the_symptom_and_loses_the_fix(fixed: tuple[GitRepo, str]) -> None:
    repo, _ = fixed
    (task,) = [r for r in _mine(repo) if r["kind"] == "task"]
    statement = task["statement"]
    assert "sum([Infinity]) returned Infinity" in statement
    assert "normalizeInput" not in statement
    assert "src/sum.ts" not in statement
    rules = {r["rule"] for r in task["redacted"]}
    assert rules & {"code_sentences", "locating_sentences", "prescribing_sentences"}


def test_strict_tests_count_new_tests_only(fixed: tuple[GitRepo, str]) -> None:
    repo, _ = fixed
    (task,) = [r for r in _mine(repo, new_tests="functions") if r["kind"] == "task"]
    p = "src/sum.test.ts > sum > "
    assert task["new_tests"] == [p + "is finite", p + "sums bigints"]


def test_what_is_not_a_task_and_why(git_repo: Callable[..., GitRepo]) -> None:
    repo = git_repo("sums")
    _start(repo)
    repo.commit({"README.md": "sums, fixed\n"}, "Fix the readme (#1)")
    repo.commit(
        {"src/types.d.ts": "export type N = number;\n", "src/sum.test.ts": TESTS + "\n"},
        "Fix the declared types (#2)",
    )
    repo.commit(
        {"src/sum.ts": SUM + "\n", "src/sum.test.ts": TESTS.replace("});\n});", "});\n  it(\n});")},
        "Fix a broken test file (#3)",
    )
    repo.commit(
        {"src/sum.ts": SUM + "\n\n", "src/blob.test.js": b"\x00\x01\x02 it('x')"},
        "Fix with a binary test file (#4)",
    )
    repo.commit(
        {"src/sum.ts": SUM + "\n\n\n", "test/fixtures/broken.js": "export default {{{\n"},
        "Fix with a broken fixture and no test (#5)",
    )
    skips = _by_title(_mine(repo))
    assert skips["Fix the readme (#1)"]["reason"] == "no-source-change"
    assert "no JavaScript or TypeScript module under src" in skips["Fix the readme (#1)"]["message"]
    assert skips["Fix the declared types (#2)"]["reason"] == "no-source-change"
    broken = skips["Fix a broken test file (#3)"]
    assert broken["reason"] == "unreadable"
    assert (
        "src/sum.test.ts:" in broken["message"]
        and "does not parse as TypeScript" in broken["message"]
    )
    binary = skips["Fix with a binary test file (#4)"]
    assert (
        binary["reason"] == "unreadable"
        and "src/blob.test.js: not a text file" in binary["message"]
    )
    # a fixture that does not parse in a test folder is data: the fix just adds no test
    assert skips["Fix with a broken fixture and no test (#5)"]["reason"] == "no-test-added"


def test_tests_in_test_folders_include_globs_and_jest_rows(
    git_repo: Callable[..., GitRepo],
) -> None:
    repo = git_repo("sums")
    _start(repo)
    repo.commit(
        {
            "src/sum.ts": FIXED,
            "checks/sum.ts": 'import { test } from "vitest";\ntest("checks", () => {});\n',
            "src/__tests__/more.ts": (
                'import { test } from "vitest";\n'
                "test.each`\n  a | b\n  ${1} | ${'one'}\n`('$a is $b', () => {});\n"
                "describe.skip.each([1, 2])('%s', (n) => { test('n', () => {}); });\n"
                "test.each(rows())('row %s', () => {});\n"
            ),
            "test/helpers.ts": "export const helper = 1;\n",
        },
        "Fix sums of odd values (#8)",
    )
    (task,) = [r for r in _mine(repo, runner="jest") if r["kind"] == "task"]
    assert task["source_files"] == ["src/sum.ts"]
    assert task["test_files"] == ["checks/sum.ts", "src/__tests__/more.ts", "test/helpers.ts"]
    assert task["new_tests"] == [
        "checks/sum.ts > checks",
        'src/__tests__/more.ts > 1 is "one"',
        "src/__tests__/more.ts > 1 > n",
        "src/__tests__/more.ts > 2 > n",
        "src/__tests__/more.ts > row %s",
    ]


@pytest.mark.parametrize(("runner", "key"), [("vitest", "sum > adds"), ("jest", "sum adds")])
def test_a_rewritten_snapshot_changes_its_test(
    git_repo: Callable[..., GitRepo], runner: str, key: str
) -> None:
    repo = git_repo("sums")
    _start(repo)
    snap = "src/__snapshots__/sum.test.ts.snap"
    repo.commit({snap: f"// Snapshot\n\nexports[`{key} 1`] = `3`;\n"}, "Snapshots")
    repo.commit(
        {"src/sum.ts": FIXED, snap: f"// Snapshot\n\nexports[`{key} 1`] = `4`;\n"},
        "Fix the sum of a pair (#11)",
    )
    (task,) = [r for r in _mine(repo, runner=runner) if r["kind"] == "task"]
    assert task["test_files"] == [snap]
    assert task["new_tests"] == task["changed_tests"] == ["src/sum.test.ts > sum > adds"]


def test_a_tests_folder_that_holds_the_package(fixed: tuple[GitRepo, str]) -> None:
    """bugbout init writes tests = "src" for tests beside the code: src's modules stay
    source, its *.test.ts files tests."""
    repo, _ = fixed
    (task,) = [r for r in _mine(repo, tests="src") if r["kind"] == "task"]
    assert task["source_files"] == ["src/sum.ts"]
    assert "src/sum.test.ts" in task["test_files"]


def test_odd_bytes_in_a_test_file_name(git_repo: Callable[..., GitRepo]) -> None:
    repo = git_repo("sums")
    _start(repo)
    odd = "src/caf\udce9.test.ts"
    (repo.path / "src").mkdir(exist_ok=True)
    (repo.path / odd).write_bytes(b'import { it } from "vitest";\nit("odd", () => {});\n')
    repo.commit({"src/sum.ts": FIXED}, "Fix a sum with an odd test file name (#9)")
    (skip,) = [r for r in _mine(repo) if r["kind"] == "skip"]
    assert skip["reason"] == "unreadable"
    assert skip["message"].endswith('"src/caf\\351.test.ts": the file\'s name is not UTF-8')


def test_explain_tells_each_rule(fixed: tuple[GitRepo, str]) -> None:
    repo, sha = fixed
    settings = MineSettings(language="typescript", limit=0, use_cache=False, jobs=1)
    rows = {rule: (verdict, why) for rule, verdict, why in explain(repo.path, settings, sha[:8])}
    assert rows["not-a-fix"] == ("passes", "fix signals: title")
    assert rows["too-many-source-files"] == ("passes", "src/sum.ts")
    assert rows["no-test-added"][0] == "passes"
    assert rows["no-test-added"][1].startswith("src/sum.test.ts > sum > is finite")
    assert rows["no-statement"] == ("passes", "from the commit")
    assert rows["duplicate-issue"][0] == "passes"


def test_python_mining_of_the_same_history_is_unchanged(fixed: tuple[GitRepo, str]) -> None:
    """A Python project's run reads no node file: the fix touches no Python module."""
    repo, _ = fixed
    records = _mine(repo, language="python", source="src", tests="src")
    assert [r["reason"] for r in records if r["kind"] == "skip"] == ["no-source-change"]


def test_no_tests_folder_is_needed(git_repo: Callable[..., GitRepo], tmp_path: Path) -> None:
    repo = git_repo("sums")
    _start(repo)
    records = _mine(repo)
    assert records[-1]["kind"] == "summary" and records[-1]["tasks"] == 0


def test_bugbout_tasks_explain_reads_the_language_from_bugbout_toml(
    fixed: tuple[GitRepo, str], tmp_path: Path
) -> None:
    from bugbout.cli import main
    from click.testing import CliRunner

    repo, sha = fixed
    config = tmp_path / "bugbout.toml"
    config.write_text(
        f'[project]\nrepository = "{repo.path}"\nsource = "src"\nlanguage = "typescript"\n'
        'runner = "vitest"\n'
    )
    result = CliRunner(env={"COLUMNS": None}).invoke(
        main, ["tasks", "--config", str(config), "--explain", sha[:8]], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert "src/sum.test.ts > sum > is finite" in result.stdout
    assert "no-source-change" in result.stdout


def test_the_cache_and_the_workers_give_the_same_records(
    fixed: tuple[GitRepo, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Facts read in worker processes and replayed from the mining cache are the facts read
    in this process."""
    repo, _ = fixed
    monkeypatch.setenv("BUGBOUT_HOME", str(tmp_path / "home"))
    plain = _mine(repo)
    workers = _mine(repo, jobs=2)
    cached = _mine(repo, use_cache=True)
    replayed = _mine(repo, use_cache=True)

    def tasks(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [r for r in records if r["kind"] == "task"]

    assert tasks(plain) == tasks(workers) == tasks(cached) == tasks(replayed)
    assert len(tasks(plain)) == 1
