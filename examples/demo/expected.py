"""What the demo bout must find, for tests to assert.

Every fact here was derived by hand from ``history.py`` (the commits), ``issues.py`` (the
export) and the scripted agents - by reading the code and the tests, never by running
bugbout - so that bugbout's stages can be checked against it. The one exception is
``SHAS``: commit ids cannot be worked out by hand, so they were recorded from a build, and
``tests/demo/test_demo.py`` checks that every build reproduces them.

The first-parent history of ``main``, newest first, and what bb-mine makes of each commit:

    Release 0.2.0                                                     not-a-fix
    Fix snake_case on trailing acronyms, simplify the pattern (#15)   task -> oracle: no-fail-to-pass
    Fix camel_case keeping the first word's capital (#27)             task (camel-first-word)
    Fix title_case lowercasing a small first word (#25)               no-test-added
    Fix TypeError when slugify, truncate or word_count get None (#23) too-many-source-files (3)
    Fix word_count counting lone punctuation as words (#21)           task (lone-punctuation)
    Merge pull request #12 from dana/fix-slug-accents                 task (slug-accents), PR closes #11
    Fix crash in title_case on empty strings                          no-issue-reference
    Fix truncate returning more than width characters (#17)           task (truncation-width)
    Fix snake_case splitting acronyms letter by letter (#15)          duplicate-issue (#15 again, later)
    Fix the slug example in the README (#9)                           no-source-change
    Add camel_case, snake_case and title_case                         not-a-fix (a feature)
    Start textkit: slugs, truncation and word counts                  not-a-fix

Each commit that is left out breaks exactly one of the mining rules, so its reason does
not depend on the order in which a miner checks them.
"""

from __future__ import annotations

from dataclasses import dataclass

REPOSITORY = "repo"  # the repository's folder name inside the built demo
BRANCH = "main"
SOURCE = "src/textkit"
TESTS = "tests"
MAX_SOURCE_FILES = 2  # the default of [tasks] max-source-files


@dataclass(frozen=True)
class Task:
    key: str  # a short stable name for the bug
    title: str  # first line of the fix commit's message (task_title: what a task says)
    refs: tuple[int, ...]  # issue / pull request numbers the commit message names
    issue: int  # the issue whose text is the statement (a PR's closed issue, not the PR)
    function: str  # the function the fix changes; statements name it, redaction removes it
    reported_input: str  # the input the issue reports; agents recognise the task by it
    source_files: tuple[str, ...]
    test_files: tuple[str, ...]
    fail_to_pass: tuple[str, ...]
    pass_to_pass: tuple[str, ...]
    flaky: tuple[str, ...] = ()
    merge: bool = False  # the change landed as a merge commit of a pull request branch
    pull_request: int | None = None
    pr_title: str | None = None  # for a merge: the PR title, the merge message's third line
    import_error_before: bool = False  # a new test module cannot import before the fix
    parametrize_cases_only: bool = False  # its new tests are new cases of an existing list

    @property
    def task_title(self) -> str:
        """The title a task line carries: for a merge, the pull request's title."""
        return self.pr_title if self.merge and self.pr_title else self.title


FLAKY = "tests/test_counting.py::test_word_count_of_scratch_file"
FLAKY_STATE = "tests/.scratch-runs"  # the run counter the flaky test keeps beside itself


def _ids(module: str, *names: str) -> tuple[str, ...]:
    return tuple(f"{module}::{name}" for name in names)


CAMEL_FIRST_WORD = Task(
    key="camel-first-word",
    title="Fix camel_case keeping the first word's capital (#27)",
    refs=(27,),
    issue=27,
    function="camel_case",
    reported_input="User Name",
    source_files=("src/textkit/cases.py",),
    test_files=("tests/test_cases.py",),
    fail_to_pass=_ids(
        "tests/test_cases.py",
        "test_camel_case_lowercases_the_first_word",
        "test_camel_case_lowercases_a_leading_acronym",
    ),
    pass_to_pass=_ids(
        "tests/test_cases.py",
        "test_snake_case_from_camel",
        "test_snake_case_from_pascal",
        "test_snake_case_keeps_snake",
        "test_snake_case_keeps_acronyms_together",
        "test_camel_case_basic",
        "test_camel_case_keeps_inner_capitals",
        "test_camel_case_empty",
        "test_title_case_basic",
        "test_title_case_capitalises_last_word",
        "test_title_case_empty",
    ),
)

LONE_PUNCTUATION = Task(
    key="lone-punctuation",
    title="Fix word_count counting lone punctuation as words (#21)",
    refs=(21,),
    issue=21,
    function="word_count",
    reported_input="wait - what?",
    source_files=("src/textkit/counting.py",),
    test_files=("tests/test_counting.py", "tests/test_tokens.py"),
    fail_to_pass=(
        "tests/test_counting.py::test_word_count_ignores_lone_punctuation",
        *_ids(
            "tests/test_tokens.py",
            "test_split_words_drops_a_lone_dash",
            "test_split_words_drops_other_lone_punctuation",
            "test_split_words_of_nothing",
        ),
    ),
    pass_to_pass=_ids(
        "tests/test_counting.py",
        "test_word_count_basic",
        "test_word_count_empty",
        "test_word_count_whitespace",
        "test_word_count_contractions",
        "test_word_count_sample_text",
        "test_longest_word",
    ),
    flaky=(FLAKY,),
    import_error_before=True,  # tests/test_tokens.py imports split_words, which the fix adds
)

SLUG_ACCENTS = Task(
    key="slug-accents",
    title="Merge pull request #12 from dana/fix-slug-accents",
    refs=(12, 11),
    issue=11,
    function="slugify",
    reported_input="Crème Brûlée",
    source_files=("src/textkit/slugs.py",),
    test_files=("tests/test_slugs.py",),
    fail_to_pass=_ids(
        "tests/test_slugs.py",
        "test_slugify_folds_accents",
        "test_slugify_folds_accents_in_other_words",
    ),
    pass_to_pass=_ids(
        "tests/test_slugs.py",
        "test_slugify_basic",
        "test_slugify_custom_separator",
        "test_slugify_keeps_digits",
        "test_slugify_empty",
    ),
    merge=True,
    pull_request=12,
    pr_title="Fix slugify dropping accented letters",
)

TRUNCATION_WIDTH = Task(
    key="truncation-width",
    title="Fix truncate returning more than width characters (#17)",
    refs=(17,),
    issue=17,
    function="truncate",
    reported_input="abcdefghij",
    source_files=("src/textkit/wrapping.py",),
    test_files=("tests/test_wrapping.py",),
    fail_to_pass=_ids(
        "tests/test_wrapping.py",
        "test_truncate[long-text-default-ellipsis]",
        "test_truncate[long-text-custom-ellipsis]",
    ),
    pass_to_pass=_ids(
        "tests/test_wrapping.py",
        "test_truncate[short-text-unchanged]",
        "test_truncate[exact-width-unchanged]",
        "test_truncate[empty]",
        "test_wrap_breaks_between_words",
        "test_wrap_short_text_is_one_line",
    ),
    parametrize_cases_only=True,
)

# The task bb-mine finds whose new test passes before the fix: bb-oracle skips it.
SNAKE_TRAILING_ACRONYM = Task(
    key="snake-trailing-acronym",
    title="Fix snake_case on trailing acronyms, simplify the pattern (#15)",
    refs=(15,),
    issue=15,
    function="snake_case",
    reported_input="HTTPServer",
    source_files=("src/textkit/cases.py",),
    test_files=("tests/test_cases.py",),
    fail_to_pass=(),
    pass_to_pass=_ids(
        "tests/test_cases.py",
        "test_snake_case_from_camel",
        "test_snake_case_from_pascal",
        "test_snake_case_keeps_snake",
        "test_snake_case_keeps_acronyms_together",
        "test_snake_case_trailing_acronym",
        "test_camel_case_basic",
        "test_camel_case_keeps_inner_capitals",
        "test_camel_case_empty",
        "test_camel_case_lowercases_the_first_word",
        "test_camel_case_lowercases_a_leading_acronym",
        "test_title_case_basic",
        "test_title_case_capitalises_last_word",
        "test_title_case_empty",
    ),
)

# The four tasks that are scored, newest first (bb-mine's order).
GENUINE = (CAMEL_FIRST_WORD, LONE_PUNCTUATION, SLUG_ACCENTS, TRUNCATION_WIDTH)
# Every task bb-mine writes (with the default limit of 20), newest first.
MINED = (SNAKE_TRAILING_ACRONYM, *GENUINE)
BY_KEY = {task.key: task for task in MINED}

# bb-oracle's skip reason for the mined tasks it cannot score.
ORACLE_SKIPS = {SNAKE_TRAILING_ACRONYM.title: "no-fail-to-pass"}

# Every fix-titled first-parent commit bb-mine leaves out, and its skip reason.
SKIPS = {
    "Fix title_case lowercasing a small first word (#25)": "no-test-added",
    "Fix TypeError when slugify, truncate or word_count get None (#23)": "too-many-source-files",
    "Fix crash in title_case on empty strings": "no-issue-reference",
    "Fix snake_case splitting acronyms letter by letter (#15)": "duplicate-issue",
    "Fix the slug example in the README (#9)": "no-source-change",
}
# Commits whose title does not read like a fix (skip lines for them only with --explain).
NOT_A_FIX = (
    "Release 0.2.0",
    "Add camel_case, snake_case and title_case",
    "Start textkit: slugs, truncation and word counts",
)
EXPLAIN_SKIPS = {**SKIPS, **dict.fromkeys(NOT_A_FIX, "not-a-fix")}

# The first-parent history of main, newest first (the branch's own commits are not on it).
FIRST_PARENT = (
    "Release 0.2.0",
    SNAKE_TRAILING_ACRONYM.title,
    CAMEL_FIRST_WORD.title,
    "Fix title_case lowercasing a small first word (#25)",
    "Fix TypeError when slugify, truncate or word_count get None (#23)",
    LONE_PUNCTUATION.title,
    SLUG_ACCENTS.title,
    "Fix crash in title_case on empty strings",
    TRUNCATION_WIDTH.title,
    "Fix snake_case splitting acronyms letter by letter (#15)",
    "Fix the slug example in the README (#9)",
    "Add camel_case, snake_case and title_case",
    "Start textkit: slugs, truncation and word counts",
)
BRANCH_COMMITS = ("Test slugify on more accented words", "Fold accented letters in slugify")
DUPLICATE_ISSUE = 15  # named by two fixes; the newer one is kept

# The closing summary of bb-mine on the demo with default settings.
SUMMARY = {
    "commits": len(FIRST_PARENT),  # commits examined
    "tasks": len(MINED),
    "skips": {
        "no-test-added": 1,
        "too-many-source-files": 1,
        "no-issue-reference": 1,
        "duplicate-issue": 1,
        "no-source-change": 1,
    },
    "not_a_fix": len(NOT_A_FIX),
}


@dataclass(frozen=True)
class Leaks:
    """What redaction must take out of a task's statement (the issue body), and keep."""

    fix_section: str  # the heading of the section describing the fix
    diff_outside_section: bool  # a diff block stands outside that section, on its own
    naming_sentence: str  # a sentence naming the function the fix changes
    keep: str  # the reproducing input, which must survive


LEAKS = {
    "camel-first-word": Leaks(
        "## Solution", True,
        "camel_case() lower-cases nothing; it keeps the first word exactly as given.",
        "User Name",
    ),
    "lone-punctuation": Leaks(
        "## Proposed fix", False,
        "word_count() splits on whitespace and counts whatever comes out.",
        "wait - what?",
    ),
    "slug-accents": Leaks(
        "## Solution", False,
        "The culprit is slugify(), which only keeps the ASCII letters a-z and digits.",
        "Crème Brûlée",
    ),
    "truncation-width": Leaks(
        "## Solution", False,
        "truncate() cuts the text at *width* and only then adds the ellipsis.",
        "abcdefghij",
    ),
    "snake-trailing-acronym": Leaks(
        "## Proposed fix", False,
        "snake_case() puts an underscore before every capital letter.",
        "HTTPServer",
    ),
}  # fmt: skip

# Paths a patch may not change for scoring, besides each task's own test files.
PROTECTED = ("tests/conftest.py", "pyproject.toml")

# The contestants and examiners of the demo's bugbout.toml.
CONTESTANTS = ("careful", "shortcut", "tamperer", "breaker", "idler")
EXAMINERS = ("examiner",)
VENDORS = {
    "careful": "acme",
    "shortcut": "acme",
    "tamperer": "globex",
    "breaker": "initech",
    "idler": "umbrella",
    "examiner": "hooli",
}

# Each contestant's score on each scored task, by the hidden tests (keys: Task.key).
#   careful   the right fix                                   -> resolved
#   shortcut  special-cases the reported input                -> wrong-fix (the other input fails)
#   tamperer  a wrong fix, green only through test/conftest/  -> wrong-fix once those edits are
#             pytest-config edits                                dropped and restored
#   breaker   fixes the bug, breaks covered behaviour         -> fixed-but-broke (a P2P test fails)
#   idler     changes nothing                                 -> no-fix
CATEGORIES = {
    "careful": dict.fromkeys((t.key for t in GENUINE), "resolved"),
    "shortcut": dict.fromkeys((t.key for t in GENUINE), "wrong-fix"),
    "tamperer": dict.fromkeys((t.key for t in GENUINE), "wrong-fix"),
    "breaker": dict.fromkeys((t.key for t in GENUINE), "fixed-but-broke"),
    "idler": dict.fromkeys((t.key for t in GENUINE), "no-fix"),
}

# The pass-to-pass tests each breaker patch fails, per task.
BREAKER_BREAKS = {
    "camel-first-word": ("tests/test_cases.py::test_camel_case_keeps_inner_capitals",),
    "lone-punctuation": ("tests/test_counting.py::test_word_count_contractions",),
    "slug-accents": ("tests/test_slugs.py::test_slugify_custom_separator",),
    "truncation-width": (
        "tests/test_wrapping.py::test_truncate[short-text-unchanged]",
        "tests/test_wrapping.py::test_truncate[exact-width-unchanged]",
        "tests/test_wrapping.py::test_truncate[empty]",
    ),
}
# The fail-to-pass tests the shortcut and tamperer patches leave failing, per task.
SHORTCUT_MISSES = {
    "camel-first-word": ("tests/test_cases.py::test_camel_case_lowercases_a_leading_acronym",),
    "lone-punctuation": (
        "tests/test_counting.py::test_word_count_ignores_lone_punctuation",
        "tests/test_tokens.py::test_split_words_drops_other_lone_punctuation",
    ),
    "slug-accents": ("tests/test_slugs.py::test_slugify_folds_accents_in_other_words",),
    "truncation-width": ("tests/test_wrapping.py::test_truncate[long-text-custom-ellipsis]",),
}
TAMPERER_MISSES = {
    **SHORTCUT_MISSES,
    # \w+ keeps the accents instead of folding them: the reported title fails too
    "slug-accents": SLUG_ACCENTS.fail_to_pass,
    # its split_words keeps "what?" whole, so even the reported sentence's words are wrong
    "lone-punctuation": (
        *SHORTCUT_MISSES["lone-punctuation"],
        "tests/test_tokens.py::test_split_words_drops_a_lone_dash",
    ),
}

# Files each persona's patch touches, per task (issue number in the name where it adds one).
PATCH_FILES = {
    "careful": {t.key: (t.source_files[0], f"tests/test_regression_{t.issue}.py") for t in GENUINE},
    "shortcut": {t.key: (t.source_files[0], f"tests/test_issue_{t.issue}.py") for t in GENUINE},
    "breaker": {t.key: (t.source_files[0], f"tests/test_fix_{t.issue}.py") for t in GENUINE},
    "tamperer": {
        t.key: tuple(sorted({t.source_files[0], t.test_files[0], *PROTECTED})) for t in GENUINE
    },
    "idler": dict.fromkeys((t.key for t in GENUINE), ()),
    "examiner": {t.key: (f"tests/test_repro_{t.issue}.py",) for t in GENUINE},
}

# Recorded from a build (see the module docstring): first line of message -> commit sha.
SHAS: dict[str, str] = {
    "Release 0.2.0": "a2296373d5a978624c8f61177ce9825c76faaa4d",
    "Fix snake_case on trailing acronyms, simplify the pattern (#15)": "6702a1e4b0024ba8e1038f56f704cf47c9b10b29",
    "Fix camel_case keeping the first word's capital (#27)": "59a45472ab34310eb2c848c3d7c3f7722c642159",
    "Fix title_case lowercasing a small first word (#25)": "5aa92cafd7de24e4273c3ef74844f55f7c3a1857",
    "Fix TypeError when slugify, truncate or word_count get None (#23)": "6f1d72b5ba7fba44ac999b8fdaf0467b72dc8135",
    "Fix word_count counting lone punctuation as words (#21)": "3593795a17197b377a561502b8533aab1f603bec",
    "Merge pull request #12 from dana/fix-slug-accents": "71a9d7dfe9e860b255bc36d67562ddcb07821933",
    "Fix crash in title_case on empty strings": "1ed5bbdfcd0a27824259683452ad9aa37319b7f5",
    "Test slugify on more accented words": "86d3bfcbebc9461b5956e8f8cabec36fb0bf1c1f",
    "Fold accented letters in slugify": "091a695382492dff8220be2de24e26a0a619ed13",
    "Fix truncate returning more than width characters (#17)": "2a5927a460f02284108a358bfb02727db2e70789",
    "Fix snake_case splitting acronyms letter by letter (#15)": "1ac33def116ed24a6ef2e4058bc676cfeac2a01e",
    "Fix the slug example in the README (#9)": "d282fcdc8e0183dc156812e2a91c759727d38a01",
    "Add camel_case, snake_case and title_case": "a3e5b8d74b36fec573668b0de0f6a92d23a15f4f",
    "Start textkit: slugs, truncation and word counts": "b9f516ac8e99c963e949be73f73ef3b3489210c0",
}
