"""What the demo bout must find, for tests to assert.

Every fact here was derived by hand from ``history.py`` (the commits), ``issues.py`` (the
export) and the scripted agents - by reading the code and the tests, never by running
bugbout - so that bugbout's stages can be checked against it. The one exception is
``SHAS``: commit ids cannot be worked out by hand, so they were recorded from a build, and
``tests/demo/test_demo.py`` checks that every build reproduces them.

The first-parent history of ``main``, newest first, and what bb-mine makes of each commit:

    Fix hyphenated words counting as two (#29)                        task (hyphenated-words), weak oracle
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

# The weak oracle: the fix changes two lines in two hunks of counting.py - the word pattern
# (hyphens inside words) and longest_word (using split_words) - and its one new test checks
# only the first. bb-oracle flags it weak-oracle: FAIL_TO_PASS covers 1 of the 2 changed
# lines (line 22 uncovered), 3 of 5 mutants are killed (the survivors: longest_word's
# return removed, and its hunk reverted) and that second hunk is untested (WEAK_ORACLE).
HYPHENATED_WORDS = Task(
    key="hyphenated-words",
    title="Fix hyphenated words counting as two (#29)",
    refs=(29,),
    issue=29,
    function="longest_word",
    reported_input="a well-known fact",
    source_files=("src/textkit/counting.py",),
    test_files=("tests/test_tokens.py",),
    fail_to_pass=_ids("tests/test_tokens.py", "test_split_words_keeps_hyphenated_words"),
    pass_to_pass=_ids(
        "tests/test_tokens.py",
        "test_split_words_drops_a_lone_dash",
        "test_split_words_drops_other_lone_punctuation",
        "test_split_words_of_nothing",
    ),
)
WEAK_ORACLE = {
    "task": HYPHENATED_WORDS.key,
    "coverage": (1, 2),  # changed lines FAIL_TO_PASS executes, of the changed lines
    "uncovered": ("src/textkit/counting.py:22",),
    "mutation": (3, 5),  # killed, of the mutants run (operator mutants and reverted hunks)
    "survivors": (
        "counting.py:22: 'return max(split_words(text), key=len...' removed",
        "counting.py:19: '@@ -19,4 +19,4 @@' reverted",
    ),
    "untested_hunks": ("src/textkit/counting.py:19-22",),
}

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

# The five tasks that are scored, newest first (bb-mine's order).
GENUINE = (HYPHENATED_WORDS, CAMEL_FIRST_WORD, LONE_PUNCTUATION, SLUG_ACCENTS, TRUNCATION_WIDTH)
# The four whose every persona has a scripted answer; on the weak-oracle task only careful,
# shortcut and the examiner have one (the others change nothing: no-fix).
EVERY_PERSONA = GENUINE[1:]
# Every task bb-mine writes (with the default limit of 20), newest first.
MINED = (HYPHENATED_WORDS, SNAKE_TRAILING_ACRONYM, *GENUINE[1:])
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
    HYPHENATED_WORDS.title,
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
    locating_sentence: str  # a sentence telling where the bug is
    keep: str  # the reproducing input, which must survive


LEAKS = {
    "camel-first-word": Leaks(
        "## Solution", True,
        "The bug is in camel_case(), which lower-cases nothing and keeps the first word as given.",
        "User Name",
    ),
    "lone-punctuation": Leaks(
        "## Proposed fix", False,
        "The problem is in word_count(), which splits on whitespace and counts whatever comes out.",
        "wait - what?",
    ),
    "slug-accents": Leaks(
        "## Solution", False,
        "The culprit is slugify(), which only keeps the ASCII letters a-z and digits.",
        "Crème Brûlée",
    ),
    "truncation-width": Leaks(
        "## Solution", False,
        "The bug is in truncate(): it cuts the text at *width* and only then adds the ellipsis.",
        "abcdefghij",
    ),
    "snake-trailing-acronym": Leaks(
        "## Proposed fix", False,
        "The bug is in snake_case(), which puts an underscore before every capital letter.",
        "HTTPServer",
    ),
    "hyphenated-words": Leaks(
        "## Proposed fix", False,
        "The culprit is the word pattern, which stops at a hyphen, and longest_word(), which "
        "splits on whitespace instead of using it.",
        "a well-known fact",
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
# On the weak-oracle task (hyphenated-words) the shortcut fixes only the half the report's
# first example shows; the maintainers' one new test checks no more, so it resolves -
# "resolved, diverges on 2 tests" (careful's and the examiner's longest_word tests, which
# pass on the reference and fail on it). The tamperer and the breaker have no scripted
# answer there: they change nothing, no-fix.
WEAK = HYPHENATED_WORDS.key
CATEGORIES = {
    "careful": dict.fromkeys((t.key for t in GENUINE), "resolved"),
    "shortcut": {**dict.fromkeys((t.key for t in GENUINE), "wrong-fix"), WEAK: "resolved"},
    "tamperer": {**dict.fromkeys((t.key for t in GENUINE), "wrong-fix"), WEAK: "no-fix"},
    "breaker": {**dict.fromkeys((t.key for t in GENUINE), "fixed-but-broke"), WEAK: "no-fix"},
    "idler": dict.fromkeys((t.key for t in GENUINE), "no-fix"),
}
# Where each resolved patch parts from the maintainers' fix: (author, test) of every
# bout-written test whose outcome differs between it and the hidden reference column.
DIVERGES = {
    ("shortcut", WEAK): (
        ("careful", "tests/test_regression_29.py::test_longest_word_leaves_punctuation_out"),
        ("examiner", "tests/test_repro_29.py::test_reported_longest_word_has_no_punctuation"),
    ),
}

# The pass-to-pass tests each breaker patch fails, per task.
BREAKER_BREAKS = {
    "hyphenated-words": (),  # it changed nothing
    "camel-first-word": ("tests/test_cases.py::test_camel_case_keeps_inner_capitals",),
    "lone-punctuation": ("tests/test_counting.py::test_word_count_contractions",),
    "slug-accents": ("tests/test_slugs.py::test_slugify_custom_separator",),
    "truncation-width": (
        "tests/test_wrapping.py::test_truncate[short-text-unchanged]",
        "tests/test_wrapping.py::test_truncate[exact-width-unchanged]",
        "tests/test_wrapping.py::test_truncate[empty]",
    ),
}
# The repository tests the breaker's patch fails that the fix leaves alone: tests in modules
# the fix does not touch, there at the base commit, so bb-xexam runs them as the suite while
# the hidden tests above stay hidden. The README's examples run as a doctest (since #9) and
# show a separator (`slugify(..., sep="_")`), short text (`truncate("short", 10)`), a
# contraction (`word_count("don't stop")`) and inner capitals (`camel_case("parse XML
# file")`) - each the behaviour one breaker patch breaks. Every other contestant's patch
# keeps the whole suite passing, on every task.
BREAKER_SUITE_BREAKS = {
    **dict.fromkeys(
        (t.key for t in EVERY_PERSONA), ("tests/test_readme.py::test_readme_examples",)
    ),
    "hyphenated-words": (),  # it changed nothing
}

# The patch bb-judge picks on each scored task under the default policy, `majority`, when
# the cross-examination runs the repository's suite (`[judge] run-suite`, the default).
#
# Who supports whom. Reproductions are other authors' tests that fail on the unfixed tree:
# careful's two (the reported input and another), shortcut's one (the reported input only),
# breaker's two (the reported input and another) and examiner's one (the reported input).
# The tamperer's test is appended to a module the fix hides, so the agent writes it into a
# new file without the import: it fails everywhere, its own patch included - `unconfirmed`,
# evidence for and against nobody. The idler changed nothing: no column, no candidate.
#
# Support (the share of each other author's reproductions a patch passes, averaged):
#
#                       careful  shortcut  tamperer  breaker
#     camel-first-word    1.00     0.50      0.88     1.00   acronym / second input
#     lone-punctuation    1.00     0.50      0.62     1.00   other punctuation / "a — b"
#     slug-accents        1.00     0.50      0.00     0.83   careful's sep="_" test
#     truncation-width    1.00     0.50      0.88     1.00   "~" ellipsis / second input
#
# The shortcut and the tamperer miss the other inputs; the tamperer's slug fix keeps the
# accents and passes nothing. The breaker passes (nearly) everything, but it fails
# BREAKER_SUITE_BREAKS, which passes on the unfixed tree and on all three other patches:
# the quorum holds (3 of 3 keep it), so the break counts and rejects it under every policy.
# careful is then the approved patch with the most support on every task (and it resolves
# on every task, see CATEGORIES).
#
# On the weak-oracle task only careful and shortcut have patches. careful passes every
# other author's reproduction (1.00); shortcut passes careful's hyphen test but not its
# longest_word one, and the examiner's hyphen test but not its longest_word one (0.50):
# careful is picked.
JUDGE_POLICY = "majority"
PICKS = dict.fromkeys((t.key for t in GENUINE), "careful")

# The fail-to-pass tests the shortcut and tamperer patches leave failing, per task.
SHORTCUT_MISSES = {
    "camel-first-word": ("tests/test_cases.py::test_camel_case_lowercases_a_leading_acronym",),
    "lone-punctuation": (
        "tests/test_counting.py::test_word_count_ignores_lone_punctuation",
        "tests/test_tokens.py::test_split_words_drops_other_lone_punctuation",
    ),
    "slug-accents": ("tests/test_slugs.py::test_slugify_folds_accents_in_other_words",),
    "truncation-width": ("tests/test_wrapping.py::test_truncate[long-text-custom-ellipsis]",),
    "hyphenated-words": (),  # the maintainers' test checks only the half it fixed
}
TAMPERER_MISSES = {
    **SHORTCUT_MISSES,
    "hyphenated-words": HYPHENATED_WORDS.fail_to_pass,  # it changed nothing
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
    "breaker": {
        **{t.key: (t.source_files[0], f"tests/test_fix_{t.issue}.py") for t in EVERY_PERSONA},
        WEAK: (),
    },
    "tamperer": {
        **{
            t.key: tuple(sorted({t.source_files[0], t.test_files[0], *PROTECTED}))
            for t in EVERY_PERSONA
        },
        WEAK: (),
    },
    "idler": dict.fromkeys((t.key for t in GENUINE), ()),
    "examiner": {t.key: (f"tests/test_repro_{t.issue}.py",) for t in GENUINE},
}

# Recorded from a build (see the module docstring): first line of message -> commit sha.
SHAS: dict[str, str] = {
    "Fix hyphenated words counting as two (#29)": "61fee25f2b812f8128f47e6d3191f38cc4afaf5a",
    "Release 0.2.0": "27e836fdc38fcd13b7333d3486a028b0e759377b",
    "Fix snake_case on trailing acronyms, simplify the pattern (#15)": "ad72f334159ad0bfccde75fc8d86d598c30a1e94",
    "Fix camel_case keeping the first word's capital (#27)": "6d9178f66cd11e0dd2b4dce4b2b96178b5d4dca2",
    "Fix title_case lowercasing a small first word (#25)": "d1f745f2e57d1a103bc5d343b3de53b0996e4da1",
    "Fix TypeError when slugify, truncate or word_count get None (#23)": "4dfd007d04a90382168a77fe03411ceb5e5eae7e",
    "Fix word_count counting lone punctuation as words (#21)": "3f149369ce52fea37de5dadfca499d6d5e9e3edf",
    "Merge pull request #12 from dana/fix-slug-accents": "9e98465f716ebca4c0120fe38c1fd63165e48ed4",
    "Fix crash in title_case on empty strings": "46c83e6861d0d5da32070167a2fbc69e6d416fd7",
    "Test slugify on more accented words": "859e2f77d63f486235b4c3dac0822864421643b0",
    "Fold accented letters in slugify": "26c15f23e740a03b7c5baaa840f4fa7f9f8f7b1e",
    "Fix truncate returning more than width characters (#17)": "daa81c6cee721b6490d6a8cf76ba5e571cf2db76",
    "Fix snake_case splitting acronyms letter by letter (#15)": "e518d75b0da1a51c7d211e605baaceaaa4fb9aca",
    "Fix the slug example in the README (#9)": "669f464da4d1858b575a701fd0357a1c1d09745d",
    "Add camel_case, snake_case and title_case": "f340a1a29b169e890f166d3198547786a2b2ed5b",
    "Start textkit: slugs, truncation and word counts": "5e281d4a74114002c68a36c919b6d926a1ae3439",
}
