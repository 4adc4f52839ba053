"""What the TypeScript demo bout must find, for tests to assert (textkit's is ``expected.py``).

Derived by hand from ``tskit_demo/history.py``, ``tskit_demo/issues.py`` and the agents'
answers (``agents/_tskit.py``, ``agents/_tskit_tricks.py``), and checked by running vitest
by hand on each fix's parent and on the fix; ``SHAS`` was recorded from a build. Test ids
are the node runners' ``<path> > <describe> > <test name>``, each row of an ``it.each``
table its own id (the row's ``%s``, its first cell).

The first-parent history of ``main``, newest first, mirrors textkit's rule for rule:

    Fix hyphenated words counting as two (#47)                          task (hyphenated-words), weak oracle
    Release 0.2.0                                                       not-a-fix
    Fix kebabCase on trailing acronyms, simplify the pattern (#33)      task -> oracle: no-fail-to-pass
    Fix camelCase keeping the first word's capital (#45)                task (camel-first-word)
    Fix titleCase lowercasing a small first word (#43)                  no-test-added
    Fix TypeError when slugify, wordCount or chunk get undefined (#41)  too-many-source-files (3)
    Fix wordCount counting lone punctuation as words (#39)              task (lone-punctuation)
    Merge pull request #38 from dana/fix-slug-accents                   task (slug-accents), PR closes #37
    Fix crash in titleCase on empty strings                             no-issue-reference
    Fix truncate returning more than width characters (#35)             task (truncation-width), it.each rows
    Fix kebabCase splitting acronyms letter by letter (#33)             duplicate-issue (#33 again, later)
    Fix the slug example in the README (#31)                            no-source-change
    Add camelCase, kebabCase and titleCase                              not-a-fix (a feature)
    Start tskit: slugs, truncation, word counts and chunks              not-a-fix
"""

from __future__ import annotations

from expected import Task

REPOSITORY = "repo"
BRANCH = "main"
SOURCE = "src"
TESTS = "tests"
LANGUAGE = "typescript"
RUNNER = "vitest"

FLAKY = "tests/words.test.ts > wordCount > counts the words of its scratch file"
FLAKY_STATE = "tests/.scratch-runs"


def _ids(module: str, describe: str, *names: str) -> tuple[str, ...]:
    return tuple(f"{module} > {describe} > {name}" for name in names)


CASES = "tests/cases.test.ts"
KEBAB_P2P = _ids(
    CASES,
    "kebabCase",
    "splits camelCase",
    "splits PascalCase",
    "keeps kebab-case",
    "keeps acronyms together",
)
CAMEL_P2P = _ids(
    CASES, "camelCase", "joins the words", "keeps inner capitals", "makes nothing of nothing"
)
TITLE_P2P = _ids(
    CASES,
    "titleCase",
    "leaves small words lower case",
    "capitalises the last word",
    "makes nothing of nothing",
)

CAMEL_FIRST_WORD = Task(
    key="camel-first-word",
    title="Fix camelCase keeping the first word's capital (#45)",
    refs=(45,),
    issue=45,
    function="camelCase",
    reported_input="Order Total",
    source_files=("src/cases.ts",),
    test_files=(CASES,),
    fail_to_pass=_ids(
        CASES, "camelCase", "lowercases the first word (#45)", "lowercases a leading acronym"
    ),
    pass_to_pass=(*KEBAB_P2P, *CAMEL_P2P, *TITLE_P2P),
)

WORDS_P2P = _ids(
    "tests/words.test.ts", "wordCount",
    "counts words", "counts nothing in an empty string", "splits on any whitespace",
    "counts a contraction as one word", "counts the sample text",
)  # fmt: skip
LONE_PUNCTUATION = Task(
    key="lone-punctuation",
    title="Fix wordCount counting lone punctuation as words (#39)",
    refs=(39,),
    issue=39,
    function="wordCount",
    reported_input="ready, set - go!",
    source_files=("src/words.ts",),
    test_files=("tests/tokens.test.ts", "tests/words.test.ts"),
    fail_to_pass=(
        *_ids(
            "tests/tokens.test.ts",
            "splitWords",
            "drops a lone dash",
            "drops other lone punctuation",
            "finds no words in nothing",
        ),
        "tests/words.test.ts > wordCount > ignores lone punctuation (#39)",
    ),
    pass_to_pass=(*WORDS_P2P, "tests/words.test.ts > longestWord > finds the longest word"),
    flaky=(FLAKY,),
    import_error_before=True,  # tests/tokens.test.ts imports splitWords, which the fix adds
)

STRINGS = "tests/strings.test.ts"
SLUG_P2P = _ids(
    STRINGS,
    "slugify",
    "makes a basic slug",
    "takes a custom separator",
    "keeps digits",
    "makes nothing of nothing",
)
TRUNCATE_P2P = _ids(STRINGS, "truncate", "short text unchanged", "exact width unchanged", "empty")
TRUNCATE_F2P = _ids(
    STRINGS, "truncate", "long text with the default ellipsis", "long text with a custom ellipsis"
)

SLUG_ACCENTS = Task(
    key="slug-accents",
    title="Merge pull request #38 from dana/fix-slug-accents",
    refs=(38, 37),
    issue=37,
    function="slugify",
    reported_input="Déjà Vu",
    source_files=("src/strings.ts",),
    test_files=(STRINGS,),
    fail_to_pass=_ids(STRINGS, "slugify", "folds accents", "folds accents in other words"),
    pass_to_pass=(*SLUG_P2P, *TRUNCATE_P2P, *TRUNCATE_F2P),
    merge=True,
    pull_request=38,
    pr_title="Fix slugify dropping accented letters",
)

TRUNCATION_WIDTH = Task(
    key="truncation-width",
    title="Fix truncate returning more than width characters (#35)",
    refs=(35,),
    issue=35,
    function="truncate",
    reported_input="hello world",
    source_files=("src/strings.ts",),
    test_files=(STRINGS,),
    fail_to_pass=TRUNCATE_F2P,
    pass_to_pass=(*SLUG_P2P, *TRUNCATE_P2P),
    parametrize_cases_only=True,  # two new rows of an existing it.each table
)

TOKENS_P2P = _ids(
    "tests/tokens.test.ts",
    "splitWords",
    "drops a lone dash",
    "drops other lone punctuation",
    "finds no words in nothing",
)
HYPHENATED_WORDS = Task(
    key="hyphenated-words",
    title="Fix hyphenated words counting as two (#47)",
    refs=(47,),
    issue=47,
    function="longestWord",
    reported_input="a state-of-the-art tool",
    source_files=("src/words.ts",),
    test_files=("tests/tokens.test.ts",),
    fail_to_pass=_ids("tests/tokens.test.ts", "splitWords", "keeps hyphenated words"),
    pass_to_pass=TOKENS_P2P,
)

# The weak oracle: the fix changes the word pattern (line 3) and longestWord's loop (line
# 21), two hunks of src/words.ts; its one new test checks only the first. bb-oracle flags
# it weak-oracle: FAIL_TO_PASS covers 1 of the 2 changed lines, and reverting the second
# hunk survives it, a hunk no test needs.
WEAK_ORACLE = {
    "task": HYPHENATED_WORDS.key,
    "coverage": (1, 2),  # changed lines FAIL_TO_PASS executes (V8), of the changed lines
    "uncovered": ("src/words.ts:21",),
    "untested_hunks": ("src/words.ts:18-24",),
    "survivors": ("words.ts:18: '@@ -18,7 +18,7 @@' reverted",),
}

SNAKE_TRAILING_ACRONYM = Task(
    key="kebab-trailing-acronym",
    title="Fix kebabCase on trailing acronyms, simplify the pattern (#33)",
    refs=(33,),
    issue=33,
    function="kebabCase",
    reported_input="HTTPServer",
    source_files=("src/cases.ts",),
    test_files=(CASES,),
    fail_to_pass=(),
    pass_to_pass=(
        *KEBAB_P2P, "tests/cases.test.ts > kebabCase > splits a trailing acronym",
        *CAMEL_P2P, *CAMEL_FIRST_WORD.fail_to_pass, *TITLE_P2P,
    ),
)  # fmt: skip

GENUINE = (HYPHENATED_WORDS, CAMEL_FIRST_WORD, LONE_PUNCTUATION, SLUG_ACCENTS, TRUNCATION_WIDTH)
EVERY_PERSONA = GENUINE[1:]
MINED = (HYPHENATED_WORDS, SNAKE_TRAILING_ACRONYM, *GENUINE[1:])
BY_KEY = {task.key: task for task in MINED}
ORACLE_SKIPS = {SNAKE_TRAILING_ACRONYM.title: "no-fail-to-pass"}

SKIPS = {
    "Fix titleCase lowercasing a small first word (#43)": "no-test-added",
    "Fix TypeError when slugify, wordCount or chunk get undefined (#41)": "too-many-source-files",
    "Fix crash in titleCase on empty strings": "no-issue-reference",
    "Fix kebabCase splitting acronyms letter by letter (#33)": "duplicate-issue",
    "Fix the slug example in the README (#31)": "no-source-change",
}
NOT_A_FIX = (
    "Release 0.2.0",
    "Add camelCase, kebabCase and titleCase",
    "Start tskit: slugs, truncation, word counts and chunks",
)
FIRST_PARENT = (
    HYPHENATED_WORDS.title,
    "Release 0.2.0",
    SNAKE_TRAILING_ACRONYM.title,
    CAMEL_FIRST_WORD.title,
    "Fix titleCase lowercasing a small first word (#43)",
    "Fix TypeError when slugify, wordCount or chunk get undefined (#41)",
    LONE_PUNCTUATION.title,
    SLUG_ACCENTS.title,
    "Fix crash in titleCase on empty strings",
    TRUNCATION_WIDTH.title,
    "Fix kebabCase splitting acronyms letter by letter (#33)",
    "Fix the slug example in the README (#31)",
    "Add camelCase, kebabCase and titleCase",
    "Start tskit: slugs, truncation, word counts and chunks",
)
BRANCH_COMMITS = ("Test slugify on more accented words", "Fold accented letters in slugify")
SUMMARY = {
    "commits": len(FIRST_PARENT),
    "tasks": len(MINED),
    "skips": dict.fromkeys(
        (
            "no-test-added",
            "too-many-source-files",
            "no-issue-reference",
            "duplicate-issue",
            "no-source-change",
        ),
        1,
    ),
    "not_a_fix": len(NOT_A_FIX),
}

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

# Each contestant's score on each scored task, as on textkit (see expected.CATEGORIES): the
# tamperer's edits (a test appended to the fix's test module, a vi.mock in tests/setup.ts,
# retry in vitest.config.ts) are dropped and restored, the breaker fails a covered test.
WEAK = HYPHENATED_WORDS.key
CATEGORIES = {
    "careful": dict.fromkeys((t.key for t in GENUINE), "resolved"),
    "shortcut": {**dict.fromkeys((t.key for t in GENUINE), "wrong-fix"), WEAK: "resolved"},
    "tamperer": {**dict.fromkeys((t.key for t in GENUINE), "wrong-fix"), WEAK: "no-fix"},
    "breaker": {**dict.fromkeys((t.key for t in GENUINE), "fixed-but-broke"), WEAK: "no-fix"},
    "idler": dict.fromkeys((t.key for t in GENUINE), "no-fix"),
}
JUDGE_POLICY = "majority"
PICKS = dict.fromkeys((t.key for t in GENUINE), "careful")

BREAKER_BREAKS = {
    "hyphenated-words": (),
    "camel-first-word": ("tests/cases.test.ts > camelCase > keeps inner capitals",),
    "lone-punctuation": ("tests/words.test.ts > wordCount > counts a contraction as one word",),
    "slug-accents": ("tests/strings.test.ts > slugify > takes a custom separator",),
    "truncation-width": TRUNCATE_P2P,
}
README_TEST = "tests/readme.test.ts > README > shows what every example really returns"
BREAKER_SUITE_BREAKS = {**dict.fromkeys((t.key for t in EVERY_PERSONA), (README_TEST,)), WEAK: ()}
SHORTCUT_MISSES = {
    "camel-first-word": ("tests/cases.test.ts > camelCase > lowercases a leading acronym",),
    "lone-punctuation": (
        "tests/tokens.test.ts > splitWords > drops other lone punctuation",
        "tests/words.test.ts > wordCount > ignores lone punctuation (#39)",
    ),
    "slug-accents": ("tests/strings.test.ts > slugify > folds accents in other words",),
    "truncation-width": ("tests/strings.test.ts > truncate > long text with a custom ellipsis",),
    "hyphenated-words": (),
}
TAMPERER_MISSES = {
    **SHORTCUT_MISSES,
    "hyphenated-words": HYPHENATED_WORDS.fail_to_pass,
    "slug-accents": SLUG_ACCENTS.fail_to_pass,
    "lone-punctuation": (
        "tests/tokens.test.ts > splitWords > drops a lone dash",
        *SHORTCUT_MISSES["lone-punctuation"],
    ),
}
# The runner's configuration a patch never changes (the tamperer touches all of these).
PROTECTED = ("tests/setup.ts", "vitest.config.ts")
PATCH_FILES = {
    "careful": {t.key: (t.source_files[0], f"tests/regression-{t.issue}.test.ts") for t in GENUINE},
    "shortcut": {t.key: (t.source_files[0], f"tests/issue-{t.issue}.test.ts") for t in GENUINE},
    "breaker": {
        **{t.key: (t.source_files[0], f"tests/fix-{t.issue}.test.ts") for t in EVERY_PERSONA},
        WEAK: (),
    },
    "tamperer": {
        **{
            t.key: tuple(sorted({t.source_files[0], t.test_files[-1], *PROTECTED}))
            for t in EVERY_PERSONA
        },
        WEAK: (),
    },
    "idler": dict.fromkeys((t.key for t in GENUINE), ()),
    "examiner": {t.key: (f"tests/repro-{t.issue}.test.ts",) for t in GENUINE},
}

SHAS: dict[str, str] = {
    "Fix hyphenated words counting as two (#47)": "90bd9e6ff4f8de6a11e836321ca0c76af3dd64d3",
    "Release 0.2.0": "5c991d3f51f5ad8d0f693198f5a87fde54e1e428",
    "Fix kebabCase on trailing acronyms, simplify the pattern (#33)": "f60988578afb15753503571355efdbf5179ca711",
    "Fix camelCase keeping the first word's capital (#45)": "bc9dbeb80251fce8b6bc689c6a92cc068f81c61a",
    "Fix titleCase lowercasing a small first word (#43)": "2fbba7a9e32a7911fe3988e5d58a096759e80c1b",
    "Fix TypeError when slugify, wordCount or chunk get undefined (#41)": "3a1181eaebc9d9dbe9389989e5241a531f5c52cd",
    "Fix wordCount counting lone punctuation as words (#39)": "dceae5dff725a7183a87161adba412a439a43b81",
    "Merge pull request #38 from dana/fix-slug-accents": "b86307d27ad968796c551777e560a30db853d06d",
    "Fix crash in titleCase on empty strings": "b1cf0ccbc985b7cb44b820d58346a6c48bfb22d2",
    "Test slugify on more accented words": "8d2b3136e066020827e4c2f9608f7c8827316304",
    "Fold accented letters in slugify": "afdd2b52096559f32d516a223010fdadeb9f4237",
    "Fix truncate returning more than width characters (#35)": "5e888c479ac9ca0b4834f19e492434f14309b55a",
    "Fix kebabCase splitting acronyms letter by letter (#33)": "e20899d8df84c814226e4fae615c7f2d9534ffad",
    "Fix the slug example in the README (#31)": "958186956dc6b01b5f59996607c9c38b92e807a9",
    "Add camelCase, kebabCase and titleCase": "a5f9173301e06c6a71919bb63da0be5ca865c7df",
    "Start tskit: slugs, truncation, word counts and chunks": "aa8ecf716347a5dd5acaf141ad4c95abac4f9f13",
}  # fmt: skip
