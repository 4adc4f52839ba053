"""``bugbout tasks --explain <sha>``: every rule's verdict for one commit."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from bugbout.cli import main
from build_demo import GitRepo
from click.testing import CliRunner

CODE = "def total(xs):\n    return sum(xs)\n"
TESTS = "def test_total():\n    assert True\n"


def _explain(repo: GitRepo, tmp_path: Path, ref: str, tasks: str = "") -> tuple[int, str]:
    config = tmp_path / "bugbout.toml"
    config.write_text(f'[project]\nrepository = "{repo.path}"\nsource = "pkg"\n[tasks]\n{tasks}')
    # Not a terminal and no COLUMNS: each rule's row on one line, however long.
    result = CliRunner(env={"COLUMNS": None}).invoke(
        main, ["tasks", "--config", str(config), "--explain", ref], catch_exceptions=False
    )
    return result.exit_code, result.stdout + result.stderr


def _rows(text: str) -> dict[str, str]:
    """rule -> "verdict | why", from the table's columns (two spaces or more apart)."""
    rows = {}
    for line in text.splitlines()[2:]:
        rule, *rest = re.split(r"\s{2,}", line.strip())
        rows[rule] = " | ".join(rest)
    return rows


def test_a_task_passes_every_rule(git_repo: Callable[..., GitRepo], tmp_path: Path) -> None:
    repo = git_repo()
    repo.commit({"pkg/core.py": CODE, "tests/test_core.py": TESTS}, "Start")
    fix = repo.commit(
        {"pkg/core.py": CODE + "\n", "tests/test_core.py": TESTS + "\n\ndef test_b():\n    pass\n"},
        "Fix the total (#3)",
    )
    code, text = _explain(repo, tmp_path, fix[:8])
    assert code == 0, text
    rows = _rows(text)
    assert rows["first-parent history"].startswith("passes")
    assert rows["not-a-fix"] == "passes | fix signals: title"
    assert rows["no-issue-reference"] == "passes | #3"
    assert rows["too-many-source-files"] == "passes | pkg/core.py"
    assert rows["no-test-added"] == "passes | tests/test_core.py::test_b"
    assert rows["category"] == "passes | bug"
    assert rows["no-statement"] == "passes | from the commit"
    assert rows["duplicate-issue"].startswith("passes | no newer task claims its issues; a run")


def test_a_duplicate_is_told_as_a_run_tells_it(
    git_repo: Callable[..., GitRepo], tmp_path: Path
) -> None:
    """click 19fd4d6e18: --explain passed every rule of a commit the run left out."""
    repo = git_repo()
    repo.commit({"pkg/core.py": CODE, "tests/test_core.py": TESTS}, "Start")
    old = repo.commit(
        {"pkg/core.py": CODE + "\n", "tests/test_core.py": TESTS + "\n\ndef test_b():\n    pass\n"},
        "Fix the total (#3)",
    )
    repo.commit(
        {"pkg/core.py": CODE + "\n\n", "tests/test_core.py": TESTS + "\n\ndef test_b():\n    pass\n"
         + "\n\ndef test_c():\n    assert 1\n"},
        "Fix the total once more (#3)",
    )  # fmt: skip
    rows = _rows(_explain(repo, tmp_path, old, "limit = 0\n")[1])
    assert rows["no-statement"].startswith("passes")
    assert rows["duplicate-issue"].startswith(
        "leaves it out | names the same issue as the newer task "
    )


def test_with_an_issues_export_the_category_is_the_runs(
    git_repo: Callable[..., GitRepo], tmp_path: Path
) -> None:
    """A run with an export decides the category once the labels are read; so does
    --explain, instead of passing a change the run leaves out."""
    repo = git_repo()
    repo.commit({"pkg/core.py": CODE, "tests/test_core.py": TESTS}, "Start")
    fix = repo.commit(
        {"pkg/core.py": CODE + "\n", "tests/test_core.py": TESTS + "\n\ndef test_b():\n    pass\n"},
        "Fix #9: Add a TLRU cache",
    )
    export = tmp_path / "issues.jsonl"
    export.write_text("")
    rows = _rows(_explain(repo, tmp_path, fix, f'issues = "{export}"\n')[1])
    assert rows["category"] == (
        "leaves it out | the change reads like a feature and no label on its linked issues"
        " says otherwise, not one of tasks.categories (bug, unknown)"
    )
    assert rows["no-statement"].startswith("not reached")


def test_the_first_failing_rule_and_those_after_it(
    git_repo: Callable[..., GitRepo], tmp_path: Path
) -> None:
    repo = git_repo()
    repo.commit({"pkg/core.py": CODE, "tests/test_core.py": TESTS}, "Start")
    fix = repo.commit({"pkg/core.py": CODE + "\n"}, "Fix the total (#3)")
    rows = _rows(_explain(repo, tmp_path, fix)[1])
    assert rows["no-test-added"].startswith("leaves it out")
    assert rows["category"] == "not reached"
    rows = _rows(_explain(repo, tmp_path, fix, f'exclude = ["{fix}"]\n')[1])
    assert rows["excluded"] == "leaves it out | tasks.exclude names this commit"
    assert rows["not-a-fix"] == "not reached"


def test_an_unknown_commit_is_one_line_and_exit_2(
    git_repo: Callable[..., GitRepo], tmp_path: Path
) -> None:
    repo = git_repo()
    repo.commit({"pkg/core.py": CODE}, "Start")
    code, text = _explain(repo, tmp_path, "deadbeef")
    assert code == 2
    assert text.strip().endswith(f"--explain: 'deadbeef' is not a commit of {repo.path}")


def test_a_fix_without_a_symptom_shows_what_was_dropped(
    git_repo: Callable[..., GitRepo], tmp_path: Path
) -> None:
    """A commit message that only tells the change: no-statement, with each dropped
    sentence under the verdict; keep-thin-statements keeps it, flagged statement-thin."""
    repo = git_repo()
    repo.commit({"pkg/core.py": CODE, "tests/test_core.py": TESTS}, "Start")
    fixed = CODE.replace("sum(xs)", "sum(x for x in xs if x is not None)")
    fix = repo.commit(
        {"pkg/core.py": fixed, "tests/test_core.py": TESTS + "\n\ndef test_b():\n    pass\n"},
        "Fix total (#3)\n\nFix by summing x for x in xs if x is not None.\n\n"
        "New regression tests have been added to tests/test_core.py.",
    )
    code, out = _explain(repo, tmp_path, fix)
    assert code == 0, out
    assert "no-statement" in out and "keeps a symptom" in out
    dropped = [line for line in out.splitlines() if "dropped" in line]
    assert len(dropped) == 2
    assert "Fix by summing" in dropped[0] and "tests/test_core.py" in dropped[1]
    code, out = _explain(repo, tmp_path, fix, "keep-thin-statements = true\n")
    assert code == 0, out
    assert "statement-thin" in _rows(out)["no-statement"]
