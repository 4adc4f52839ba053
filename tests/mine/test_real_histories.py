"""Histories shaped like real projects': their own test names, other layouts, fix signals
outside the title, tests that change rather than appear, features, and the user's picks."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from bb_mine.rules import category
from build_demo import GitRepo
from mine_helpers import Mined, invoke

CODE = "def total(xs):\n    return sum(xs)\n"
FIXED = "def total(xs):\n    return sum(x for x in xs if x is not None)\n"
TESTS = "from pkg.core import total\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n"
MORE = TESTS + "\n\ndef test_none():\n    assert total([1, None]) == 1\n"
ASSERTED = TESTS + "    assert total([1, None]) == 1\n"


def mine(repo: GitRepo, *args: str, config: str | None = None, tmp: Path | None = None) -> Mined:
    extra: list[str] = []
    if config is not None:
        assert tmp is not None
        path = tmp / "bugbout.toml"
        path.write_text(config)
        extra = ["--config", str(path)]
    result = invoke(str(repo.path), "--refresh", "--limit", "0", *extra, *args)
    assert result.code == 0, result.stderr
    return result


@pytest.fixture
def base(git_repo: Callable[..., GitRepo]) -> GitRepo:
    repo = git_repo()
    repo.commit({"pkg/__init__.py": "", "pkg/core.py": CODE, "tests/test_core.py": TESTS}, "Start")
    return repo


# -- test discovery as configured ------------------------------------------------------------


def test_the_projects_python_files_make_test_modules(git_repo: Callable[..., GitRepo]) -> None:
    """tqdm names its modules tests_*.py and says so in its configuration."""
    repo = git_repo()
    repo.commit(
        {
            "pkg/__init__.py": "", "pkg/core.py": CODE, "tests/tests_core.py": TESTS,
            "setup.cfg": "[tool:pytest]\npython_files = tests_*.py\n",
        },
        "Start",
    )  # fmt: skip
    repo.commit({"pkg/core.py": FIXED, "tests/tests_core.py": MORE}, "Fix None in total (#3)")
    result = mine(repo, "--source", "pkg")
    (task,) = result.tasks
    assert task["new_tests"] == ["tests/tests_core.py::test_none"]
    assert "setup.cfg" in task["protected_paths"]


def test_a_test_file_no_setting_names_still_counts_under_the_tests_folder(base: GitRepo) -> None:
    """tqdm's nose era: tests_*.py with no python_files anywhere; the oracle names it."""
    base.commit({"pkg/tests/tests_old.py": TESTS}, "Add old-style tests")
    base.commit({"pkg/core.py": FIXED, "pkg/tests/tests_old.py": MORE}, "Fix None in total (#3)")
    (task,) = mine(base, "--source", "pkg").tasks
    assert task["source_files"] == ["pkg/core.py"]
    assert task["test_files"] == ["pkg/tests/tests_old.py"]
    assert task["new_tests"] == ["pkg/tests/tests_old.py::test_none"]


def test_test_files_in_bugbout_toml_replace_the_projects_names(
    git_repo: Callable[..., GitRepo], tmp_path: Path
) -> None:
    repo = git_repo()
    repo.commit({"pkg/__init__.py": "", "pkg/core.py": CODE, "checks.py": TESTS}, "Start")
    repo.commit({"pkg/core.py": FIXED, "checks.py": MORE}, "Fix None in total (#3)")
    # Without the setting no test module is found, and the missing tests folder is named.
    unset = invoke(str(repo.path), "--refresh", "--limit", "0", "--source", "pkg")
    assert unset.code == 2 and unset.tasks == []
    assert "bb-mine: project.tests: 'tests' is not a folder at the tip" in unset.stderr
    config = '[project]\nsource = "pkg"\ntest-files = ["checks.py"]\n'
    (task,) = mine(repo, config=config, tmp=tmp_path).tasks
    assert task["new_tests"] == ["checks.py::test_none"]


def test_configured_function_names_are_the_tests(git_repo: Callable[..., GitRepo]) -> None:
    repo = git_repo()
    checks = "def check_total():\n    assert True\n"
    repo.commit(
        {
            "pkg/__init__.py": "", "pkg/core.py": CODE, "tests/test_core.py": checks,
            "pytest.ini": "[pytest]\npython_functions = check_*\n",
        },
        "Start",
    )  # fmt: skip
    more = checks + "\n\ndef check_none():\n    assert True\n\n\ndef test_ignored():\n    pass\n"
    repo.commit({"pkg/core.py": FIXED, "tests/test_core.py": more}, "Fix None in total (#3)")
    (task,) = mine(repo, "--source", "pkg").tasks
    assert task["new_tests"] == ["tests/test_core.py::check_none"]


# -- layouts ---------------------------------------------------------------------------------


def test_source_dot_is_the_whole_tree_without_tests(git_repo: Callable[..., GitRepo]) -> None:
    """black.py at the root: source = "." reaches it; tests and non-Python files stay out."""
    repo = git_repo()
    repo.commit({"black.py": CODE, "tests/test_black.py": TESTS, "README.md": "x"}, "Start")
    repo.commit(
        {"black.py": FIXED, "tests/test_black.py": MORE, "README.md": "y"}, "Fix None in total (#4)"
    )
    (task,) = mine(repo, "--source", ".").tasks
    assert (task["source"], task["source_files"], task["test_files"]) == (
        ".", ["black.py"], ["tests/test_black.py"],
    )  # fmt: skip
    assert task["other_files"] == ["README.md"]
    assert "black.py" in task["reference_patch"] and "README" in task["reference_patch"]


def test_fixes_before_a_move_to_src_are_found_in_the_old_place(
    git_repo: Callable[..., GitRepo],
) -> None:
    """cachetools moved cachetools/ to src/cachetools/; fixes from before count too."""
    repo = git_repo()
    repo.commit({"pkg/__init__.py": "", "pkg/core.py": CODE, "tests/test_core.py": TESTS}, "Start")
    old = repo.commit({"pkg/core.py": FIXED, "tests/test_core.py": MORE}, "Fix None in total (#5)")
    moved = {"src/pkg/__init__.py": "", "src/pkg/core.py": FIXED, "pkg/__init__.py": None}
    repo.commit({**moved, "pkg/core.py": None}, "Move to src layout")
    repo.commit(
        {
            "src/pkg/core.py": FIXED + "\n# fixed\n",
            "tests/test_core.py": MORE + "\n\ndef test_b():\n    pass\n",
        },
        "Fix the comment bug (#6)",
    )
    result = mine(repo, "--source", "src/pkg")
    by_commit = {t["fix_commit"]: t for t in result.tasks}
    assert by_commit[old]["source"] == "pkg"
    assert by_commit[old]["source_files"] == ["pkg/core.py"]
    assert {t["source"] for t in result.tasks} == {"pkg", "src/pkg"}


def test_a_list_of_source_folders(git_repo: Callable[..., GitRepo], tmp_path: Path) -> None:
    repo = git_repo()
    repo.commit(
        {"a/__init__.py": "", "a/core.py": CODE, "b/core.py": CODE, "tests/test_core.py": TESTS},
        "Start",
    )
    repo.commit({"b/core.py": FIXED, "tests/test_core.py": MORE}, "Fix None in b (#7)")
    (task,) = mine(repo, config='[project]\nsource = ["a", "b"]\n', tmp=tmp_path).tasks
    assert (task["source"], task["source_files"]) == ("b", ["b/core.py"])


def test_only_python_modules_count_toward_max_source_files(base: GitRepo) -> None:
    base.commit(
        {
            "pkg/core.py": FIXED, "pkg/core.pyi": "def total(xs: list) -> int: ...\n",
            "pkg/data.json": "{}", "tests/test_core.py": MORE,
        },
        "Fix None in total (#3)",
    )  # fmt: skip
    (task,) = mine(base, "--source", "pkg", "--max-source-files", "1").tasks
    assert task["source_files"] == ["pkg/core.py"]
    assert task["other_files"] == ["pkg/core.pyi", "pkg/data.json"]


# -- fix signals -------------------------------------------------------------------------------


def test_a_closing_keyword_in_the_body_is_a_fix_signal(base: GitRepo) -> None:
    base.commit(
        {"pkg/core.py": FIXED, "tests/test_core.py": MORE}, "#994: Skip None values\n\nFix #994"
    )
    (task,) = mine(base, "--source", "pkg").tasks
    assert task["fix_signals"] == ["closing-keyword"]
    assert task["category"] == "unknown"


def test_a_merge_speaks_with_its_pull_requests_title_body_and_branch(base: GitRepo) -> None:
    base.branch("fix/sliced-negative-n")
    base.commit({"pkg/core.py": FIXED, "tests/test_core.py": MORE}, "Skip None values")
    base.switch("main")
    sha = base.merge(
        "fix/sliced-negative-n",
        "Merge pull request #12 from someone/fix/sliced-negative-n\n\nSkip None in total()",
    )
    (task,) = mine(base, "--source", "pkg").tasks
    assert task["fix_commit"] == sha
    assert (task["title"], task["branch"]) == ("Skip None in total()", "fix/sliced-negative-n")
    assert task["fix_signals"] == ["branch"]
    assert task["category"] == "bug"


def test_without_require_fix_signal_any_issue_linked_change_is_taken(
    base: GitRepo, tmp_path: Path
) -> None:
    base.commit({"pkg/core.py": FIXED, "tests/test_core.py": MORE}, "Skip None values (#8)")
    assert [s["reason"] for s in mine(base, "--source", "pkg", "--explain").skips] == [
        "not-a-fix", "not-a-fix",
    ]  # fmt: skip
    config = '[project]\nsource = "pkg"\n[tasks]\nrequire-fix-signal = false\n'
    (task,) = mine(base, config=config, tmp=tmp_path).tasks
    assert task["fix_signals"] == []


def test_an_issue_only_mentioned_is_not_claimed(base: GitRepo) -> None:
    """black 836acad863, "Improve AST safety check (#4290)", says "Fixes #4288, regressed
    by #4270": it claims #4290 and #4288, not #4270, whose own fix stays a task."""
    first = base.commit(
        {"pkg/core.py": FIXED, "tests/test_core.py": MORE}, "Fix None in total (#4270)"
    )
    later = base.commit(
        {"pkg/core.py": FIXED + "\n", "tests/test_core.py": MORE + "\n\ndef test_b():\n    pass\n"},
        "Improve the total check (#4290)\n\nFixes #4288, regressed by #4270",
    )
    result = mine(base, "--source", "pkg")
    assert [t["fix_commit"] for t in result.tasks] == [later, first]
    again = base.commit(
        {"pkg/core.py": FIXED.replace("x is not None", "x is not None and x == x"),
         "tests/test_core.py": MORE + "\n\ndef test_b():\n    pass\n"
         + "\n\ndef test_c():\n    assert total([]) == 0\n"},
        "Fix the total check again\n\nFixes #4270",
    )  # fmt: skip
    result = mine(base, "--source", "pkg")
    assert [t["fix_commit"] for t in result.tasks] == [again, later]
    (skip,) = [s for s in result.skips if s["reason"] == "duplicate-issue"]
    assert (skip["commit"], skip["detail"]["issue"]) == (first, "#4270")


# -- categories ----------------------------------------------------------------------------------


def test_a_feature_named_fix_is_left_out_by_default(base: GitRepo, tmp_path: Path) -> None:
    """cachetools' "Fix #N: Add TLRU cache implementation"."""
    base.commit({"pkg/core.py": FIXED, "tests/test_core.py": MORE}, "Fix #9: Add TLRU cache")
    result = mine(base, "--source", "pkg")
    assert result.tasks == []
    (skip,) = result.skips
    assert (skip["reason"], skip["detail"]) == ("category", {"category": "feature"})
    config = '[project]\nsource = "pkg"\n[tasks]\ncategories = ["bug", "feature"]\n'
    (task,) = mine(base, config=config, tmp=tmp_path).tasks
    assert task["category"] == "feature"


@pytest.mark.parametrize(
    ("title", "kind"),
    [
        ("Fix #9: Add TLRU cache", "feature"),
        ("Add TLRU cache (fixes #12)", "feature"),
        ("feat(cli): add --header", "feature"),
        # pyjwt's scoped titles: the scope hides neither a feature nor a fix
        ("api_jwk: Add PyJWKSet.__getitem__ (#725)", "feature"),
        # structlog's: a scope of two words, and a deprecation
        ("native loggers: add is_enabled_for & get_effective_level (#689)", "feature"),
        ("Deprecate structlog.threadlocal (#409)", "feature"),
        ("Windows paths: fix the separator (#5)", "bug"),
        ("Fix a crash in docs: add the missing guard (#6)", "bug"),
        # click's: a feature closing an issue, and a fix from a fix branch worded "allow"
        ("Make it possible to define aliases. This fixes #420", "feature"),
        ("Issue #535: Bash completion for click.Choice()", "unknown"),
        ("Issue #536: Add bash completion for choices", "feature"),
        ("fix: close the response on HTTPError (#880)", "bug"),
        # pyjwt 88a9fc56bd, a security fix: "Added" and "fixes" both, so the oracle decides
        ("Added some fixes related to algorithm and key choice", "unknown"),
        ("Fix the total (#3)", "bug"),
        ("#994: Skip None", "unknown"),
    ],
)
def test_the_category_a_title_reads_as(title: str, kind: str) -> None:
    assert category(title, []) == kind


def test_a_fix_branch_makes_feature_wording_unknown() -> None:
    """click deb1f0e1d7, "allow empty str input in prompt() ..." merged from
    fix/allow-empty-when-confirmation-required: a real bug."""
    title = "allow empty str input in prompt() when confirmation is required"
    assert (category(title, []), category(title, ["branch"])) == ("feature", "unknown")


# -- tests that change ---------------------------------------------------------------------------


def test_a_new_assertion_in_an_existing_test_counts_by_default(
    base: GitRepo, tmp_path: Path
) -> None:
    base.commit({"pkg/core.py": FIXED, "tests/test_core.py": ASSERTED}, "Fix None in total (#3)")
    (task,) = mine(base, "--source", "pkg").tasks
    assert task["new_tests"] == task["changed_tests"] == ["tests/test_core.py::test_total"]
    for rule in ("cases", "functions"):
        config = f'[project]\nsource = "pkg"\n[tasks]\nnew-tests = "{rule}"\n'
        result = mine(base, config=config, tmp=tmp_path)
        assert [s["reason"] for s in result.skips] == ["no-test-added"], rule


SKIPPED_CLASS = (
    "import pytest\nfrom pkg.core import total\n\n\nclass TestPSS:\n"
    '    @pytest.mark.skipif(True, reason="no test vectors")\n'
    "    def test_none(self):\n        assert total([1, None]) == 1\n\n"
    + "".join(f"    def test_{n}(self):\n        assert total([{n}]) == {n}\n\n" for n in range(12))
)


@pytest.mark.parametrize(
    ("renamed", "mark"),
    [
        (False, ""),
        (True, ""),
        (True, "    @pytest.mark.skipif(not HAS_CRYPTO, reason='no crypto')\n"),
    ],
    ids=["unskipped", "renamed", "renamed-conditional"],
)
def test_a_test_that_loses_its_skip_mark_is_changed(
    base: GitRepo, renamed: bool, mark: str
) -> None:
    """pyjwt 151761decc: the fix turns a test's skipif(True) into the skipif(not
    has_crypto) of its neighbours, and renames its class."""
    base.commit({"tests/test_pss.py": SKIPPED_CLASS}, "Add PSS tests")
    unskipped = SKIPPED_CLASS.replace(
        '    @pytest.mark.skipif(True, reason="no test vectors")\n', mark
    )
    if renamed:
        unskipped = unskipped.replace("class TestPSS:", "class TestRSAPSS:")
    base.commit({"pkg/core.py": FIXED, "tests/test_pss.py": unskipped}, "Fix None in total (#3)")
    (task,) = mine(base, "--source", "pkg").tasks
    owner = "TestRSAPSS" if renamed else "TestPSS"
    assert task["changed_tests"] == [f"tests/test_pss.py::{owner}::test_none"]
    assert task["new_tests"] == task["changed_tests"]


def test_a_test_that_gains_a_skip_mark_is_not_changed(base: GitRepo) -> None:
    unskipped = SKIPPED_CLASS.replace(
        '    @pytest.mark.skipif(True, reason="no test vectors")\n', ""
    )
    base.commit({"tests/test_pss.py": unskipped}, "Add PSS tests")
    base.commit(
        {"pkg/core.py": FIXED, "tests/test_pss.py": SKIPPED_CLASS}, "Fix None in total (#3)"
    )
    result = mine(base, "--source", "pkg")
    assert [s["reason"] for s in result.skips] == ["no-test-added"]


def test_a_new_parametrize_case_is_a_case_not_a_change(base: GitRepo, tmp_path: Path) -> None:
    cases = (
        "import pytest\nfrom pkg.core import total\n\n\n"
        "@pytest.mark.parametrize('xs', [[1]])\ndef test_total(xs):\n    assert total(xs)\n"
    )
    base.commit({"tests/test_core.py": cases}, "Use cases")
    base.commit(
        {"pkg/core.py": FIXED, "tests/test_core.py": cases.replace("[[1]]", "[[1], [1, None]]")},
        "Fix None in total (#3)",
    )
    config = '[project]\nsource = "pkg"\n[tasks]\nnew-tests = "cases"\n'
    (task,) = mine(base, config=config, tmp=tmp_path).tasks
    assert task["new_tests"] == ["tests/test_core.py::test_total[1-None]"]
    assert "changed_tests" not in task


# -- the user's picks ----------------------------------------------------------------------------


def test_exclude_and_include_by_sha_or_task_id(base: GitRepo, tmp_path: Path) -> None:
    fix = base.commit({"pkg/core.py": FIXED, "tests/test_core.py": MORE}, "Fix None (#3)")
    plain = base.commit(
        {"pkg/core.py": FIXED + "\n", "tests/test_core.py": MORE + "\n\ndef test_c():\n    pass\n"},
        "Tidy total\n\nA list holding None made the total fail with a TypeError.",
    )
    task_id = f"{base.path.name}-{fix[:10]}"
    config = (
        f'[project]\nsource = "pkg"\n[tasks]\nexclude = ["{task_id}"]\ninclude = ["{plain[:8]}"]\n'
    )
    result = mine(base, config=config, tmp=tmp_path)
    (task,) = result.tasks
    assert task["fix_commit"] == plain
    assert task["fix_signals"] == ["included"]
    assert [(s["commit"], s["reason"]) for s in result.skips] == [(fix, "excluded")]


def test_an_included_commit_is_not_remembered_as_a_fix(base: GitRepo, tmp_path: Path) -> None:
    """The mining cache keeps what a commit says; include is decided afresh on every run."""
    plain = base.commit({"pkg/core.py": FIXED, "tests/test_core.py": MORE}, "Tidy the total (#4)")
    config = tmp_path / "bugbout.toml"
    config.write_text(f'[project]\nsource = "pkg"\n[tasks]\ninclude = ["{plain}"]\n')
    first = invoke(str(base.path), "--config", str(config), "--limit", "0")
    assert [t["fix_commit"] for t in first.tasks] == [plain]
    config.write_text('[project]\nsource = "pkg"\n')
    again = invoke(str(base.path), "--config", str(config), "--limit", "0", "--explain")
    assert again.tasks == []
    assert [s["reason"] for s in again.skips if s["commit"] == plain] == ["not-a-fix"]


# -- intent: branch paths, conventional types, bodies that describe wrong behaviour ---------


def test_a_fix_word_anywhere_in_a_branch_path_is_a_fix_signal(base: GitRepo) -> None:
    """A merge from someone/agent/fix-empty-input was not-a-fix: only a leading fix/ counted."""
    base.branch("agent/fix-empty-input")
    base.commit({"pkg/core.py": FIXED, "tests/test_core.py": MORE}, "Skip None values")
    base.switch("main")
    base.merge(
        "agent/fix-empty-input",
        "Merge pull request #31 from someone/agent/fix-empty-input\n\nSkip None in total()",
    )
    (task,) = mine(base, "--source", "pkg").tasks
    assert (task["branch"], task["fix_signals"], task["category"]) == (
        "agent/fix-empty-input", ["branch"], "bug",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("branch", "fix"),
    [
        ("agent/fix-empty-input", True),
        ("fix/sliced-negative-n", True),
        ("bugfix-42", True),
        ("dana/hotfix_none", True),
        ("prefix-cache", False),
        ("debug-logging", False),
        ("feature/add-ordinals", False),
    ],
)
def test_fix_branches(branch: str, fix: bool) -> None:
    from bb_mine.intent import fix_branch

    assert fix_branch(branch) is fix


def test_an_add_title_from_a_branch_naming_only_an_issue_is_a_feature() -> None:
    """humanize 4bef4f2: "Merge pull request #207 from mondeja/fix-203", titled "Add gender
    support for ordinals": fix-203 says no more than "Fixes #203", so the feature wording
    decides (it was unknown); a branch that says what it fixes still makes it unknown."""
    title = "Add gender support for ordinals"
    assert category(title, ["branch"], branch="fix-203") == "feature"
    assert category(title, ["branch"], branch="fix/issue-203") == "feature"
    assert category(title, ["branch"], branch="fix/ordinal-gender") == "unknown"
    assert category("Ordinals in Russian (#207)", ["branch"], branch="fix-203") == "unknown"


TENACITY_REFACTOR = """\
refactor: flatten chained | and & into single retry_any/retry_all (#609)

When composing multiple retry conditions like `a | b | c`, the
operators now flatten into `retry_any(a, b, c)` instead of nesting
`retry_any(retry_any(a, b), c)`. This reduces call stack depth
when debugging complex retry conditions.

Flattening is done in __ror__/__rand__ (where containers are created)
and in retry_any.__ror__/retry_all.__rand__ (to extend existing
containers). Async versions get the same treatment.

Fixes #476


Change-Id: I3a58c9dfeed2309427e65a1c79cb9ac252db0c2a
"""

TENACITY_EMPTY_MESSAGE = """\
Accept empty message in retry_if_exception_message (#651)

retry_if_exception_message validated its message/match arguments with
truthiness checks (if message and match, if not message and not match).
An empty string is a valid message target — it matches exceptions whose
str() is empty, e.g. a bare RuntimeError() — but 'not message' is True
for '', so retry_if_exception_message(message='') wrongly raised
TypeError('missing 1 required argument'). _check had the same problem:
'if self.message:' skipped the empty-message branch.

Replace the truthiness guards with 'is None' checks so an empty message
is accepted and matched. This makes every message matchable, not every
message except the empty one.
"""


def test_a_refactor_that_closes_an_issue_is_not_a_fix(base: GitRepo) -> None:
    """tenacity 44eaefb became a task: its closing keyword made it a fix, and its tests
    check the conditions' internal structure."""
    base.commit({"pkg/core.py": FIXED, "tests/test_core.py": MORE}, TENACITY_REFACTOR)
    result = mine(base, "--source", "pkg", "--explain")
    assert result.tasks == []
    assert next(s["reason"] for s in result.skips) == "not-a-fix"


@pytest.mark.parametrize(
    ("message", "signals"),
    [
        (TENACITY_REFACTOR, []),
        ("chore(deps): bump click (#3)\n\nFixes #2", []),
        ("docs: fix the README example (#4)", []),
        ("test: cover the empty case (#5)\n\nCloses #5", []),
        ("style!: reformat (#6)\n\nFixes #6", []),
        ("perf: cache the pattern (#7)\n\nFixes #7", []),
        # a body that names a bug keeps its signals
        (
            "refactor: split the parser (#8)\n\nIt crashed on empty input. Fixes #8",
            ["closing-keyword", "body"],
        ),
        ("fix: close the response (#880)", ["title"]),
    ],
)
def test_conventional_types_that_are_no_fix(message: str, signals: list[str]) -> None:
    from bb_mine.rules import change_text, fix_signals

    assert fix_signals(message, change_text(message, False), False) == signals


def test_a_body_describing_wrong_behaviour_is_a_fix_signal(base: GitRepo) -> None:
    """tenacity 40fad18 "Accept empty message ..." (a regression test added, the body saying
    "wrongly raised TypeError") was not-a-fix."""
    base.commit({"pkg/core.py": FIXED, "tests/test_core.py": MORE}, TENACITY_EMPTY_MESSAGE)
    (task,) = mine(base, "--source", "pkg").tasks
    assert (task["fix_signals"], task["category"]) == (["body"], "bug")


@pytest.mark.parametrize(
    ("body", "signal"),
    [
        ("so f(message='') wrongly raised TypeError.", True),
        ("The suffix was incorrectly assigned.", True),
        ("It raised KeyError instead of returning None.", True),
        ("It crashes on an empty list.", True),
        ("A regression from 2.1.", True),
        ("New regression tests cover it.", False),
        ("Makes the output prettier. Fixes #3", False),
    ],
)
def test_wrong_behaviour_in_a_body(body: str, signal: bool) -> None:
    from bb_mine.intent import describes_wrong_behaviour

    assert describes_wrong_behaviour(body) is signal


def test_add_titles_are_features_unless_a_fix_signal_says_otherwise() -> None:
    assert category("Add a TLRU cache (#12)", ["closing-keyword"]) == "feature"
    assert category("Add a guard for empty input (#12)", ["body"]) == "unknown"
    assert category("Accept empty message in retry_if_exception_message (#651)", ["body"]) == "bug"


MIXIN_BEFORE = """\
import unittest

from pkg.core import total


class TotalChecks:
    def test_total(self):
        assert total([1, 2]) == 3


class TestLists(TotalChecks, unittest.TestCase):
    pass


class TestTuples(TotalChecks, unittest.TestCase):
    def setUp(self):
        self.kind = tuple
"""
MIXIN_AFTER = MIXIN_BEFORE.replace(
    "        assert total([1, 2]) == 3\n",
    "        assert total([1, 2]) == 3\n\n    def test_none(self):\n        assert total([1, None]) == 1\n",
)


def test_a_test_added_to_a_mixin_is_new_in_each_collectable_subclass(
    git_repo: Callable[..., GitRepo],
) -> None:
    """A test method added to a mixin that only its TestCase subclasses make collectable
    was no-test-added."""
    repo = git_repo()
    repo.commit(
        {"pkg/__init__.py": "", "pkg/core.py": CODE, "tests/test_core.py": MIXIN_BEFORE}, "Start"
    )
    repo.commit({"pkg/core.py": FIXED, "tests/test_core.py": MIXIN_AFTER}, "Fix None in total (#3)")
    (task,) = mine(repo, "--source", "pkg").tasks
    assert task["new_tests"] == [
        "tests/test_core.py::TestLists::test_none",
        "tests/test_core.py::TestTuples::test_none",
    ]


def test_inherited_tests_follow_pytest() -> None:
    from bb_mine.tests_added import collect

    source = b"""\
import unittest


class Base(unittest.TestCase):
    def test_a(self):
        pass


class Middle(Base):
    def test_a(self):
        pass

    def test_b(self):
        pass


class TestOff(Middle):
    __test__ = False


class TestPlain:
    def test_c(self):
        pass


class TestMore(TestPlain):
    pass


class Helper:
    def test_d(self):
        pass
"""
    assert sorted(collect(source)) == [
        "Base::test_a", "Middle::test_a", "Middle::test_b",
        "TestMore::test_c", "TestPlain::test_c",
    ]  # fmt: skip


def test_humanizes_add_from_fix_203_is_a_feature(base: GitRepo) -> None:
    """humanize 4bef4f2: "Merge pull request #207 from mondeja/fix-203" / "Add gender support
    for ordinals" was unknown, so a task: a feature, left out by the default categories."""
    base.branch("fix-203")
    base.commit({"pkg/core.py": FIXED, "tests/test_core.py": MORE}, "Add gender support")
    base.switch("main")
    base.merge(
        "fix-203",
        "Merge pull request #207 from mondeja/fix-203\n\nAdd gender support for ordinals",
    )
    result = mine(base, "--source", "pkg")
    assert result.tasks == []
    (skip,) = [s for s in result.skips if s["reason"] == "category"]
    assert skip["detail"]["category"] == "feature"


@pytest.mark.parametrize(
    "odd", ["tests/test_caf\udce9.py", "src/pkg/caf\udce9.py"], ids=["test", "source"]
)
def test_a_fix_with_a_file_name_that_is_not_utf8_is_recorded(
    git_repo: Callable[..., GitRepo], odd: str
) -> None:
    """No record can name the file, so the fix is an unreadable skip; the rest is mined."""
    import orjson
    from bb_mine.mine import MineSettings, mine

    repo = git_repo("oddname")
    repo.commit(
        {
            "src/pkg/__init__.py": "",
            "src/pkg/m.py": "def f():\n    return 1\n",
            "tests/test_m.py": "from pkg.m import f\n\n\ndef test_f():\n    assert f() == 1\n",
        },
        "Start",
    )
    (repo.path / odd).write_bytes(b"def test_g():\n    assert 2 == 2\n")
    repo.commit({"src/pkg/m.py": "def f():\n    return 2\n"}, "Fix f's number (#3)")
    records = list(mine(repo.path, MineSettings(limit=0, use_cache=False, jobs=1)))
    assert [orjson.loads(orjson.dumps(r))["kind"] for r in records] == ["skip", "summary"]
    assert records[0]["reason"] == "unreadable"
    assert records[0]["message"].endswith("\\351.py\": the file's name is not UTF-8")
