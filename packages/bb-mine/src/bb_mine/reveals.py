"""What in a statement reveals the reference patch: its files, its private helpers, the
lines it adds, and the phrases that tell where the bug is or what to change."""

from __future__ import annotations

import builtins
import functools
import keyword
import re
from collections.abc import Iterable
from dataclasses import dataclass

#: A word of two characters or more.
WORD = re.compile(r"[A-Za-z0-9_]{2,}")

#: Sentences that locate the fix or tell what to change.
PRESCRIBING = re.compile(
    "|".join(
        [
            r"\b(?:the|this|that|a)\s+(?:bug|problem|issue|error|culprit|fault|regression)"
            r"\s+(?:is|lies|seems\s+to\s+be|must\s+be|comes|appears\s+to\s+be)\s+(?:in|at|inside|within|from)\b",
            r"\b(?:is|are|was|were)\s+caused\s+by\b",
            r"\bthe\s+culprit\s+is\b",
            r"\bchang(?:e|ing)\s+(?!to\b)[^.;]{1,80}?\s+(?:to|into)\b",
            r"\bshould\s+(?:use|call|check|be\s+using|instead|be\s+changed|be\s+replaced)\b",
            r"\b(?:we|you|it|one)\s+(?:should|could|need\s+to|needs\s+to|must|have\s+to|can)"
            r"\s+(?:just\s+|simply\s+)?(?:use|call|replace|change|remove|strip|swap|pass)\b",
            r"\breplac(?:e|es|ed|ing)\b[^.;]{0,80}?\bwith\b",
            r"\b(?:use|using|call|calling|try|just|simply|should|could|must)\b[^.;]{0,80}?\binstead\s+of\b",
            r"\b(?:the|a|one|possible|simple|easy|proper)\s+(?:simple\s+|possible\s+|easy\s+|quick\s+)?fix"
            r"\s+(?:is|would\s+be|could\s+be|might\s+be)\b",
            r"\bfix(?:ed)?\s+(?:it|this|that)\s+by\b",
            # what a change does, as its author describes it: "This adds an explicit
            # close() call ...", "This PR replaces ...", "Also adds a guard ..."
            r"(?:^|[.!?]\s+|\n)\W*(?:this|also|it)\s+(?:adds|introduces|replaces|removes|moves)\b",
            r"\bthis\s+(?:pr|pull\s+request|patch|change|commit|fix|mr)\s+"
            r"(?:adds|introduces|replaces|removes|changes|makes|ensures|moves|uses|modifies"
            r"|updates|rewrites|refactors|switches|reworks)\b",
            # "modifies the logic to ...", "Fix by pointing ...", "fixed by using ..."
            r"\bmodif(?:y|ies|ied|ying)\s+(?:the|its|how|this|that)\b",
            r"\bfix(?:ed|es|ing)?\s+(?:this\s+|it\s+)?by\s+\w+ing\b",
            # what the change's tests are: "New regression tests have been added to ...",
            # "Tests were added ...", "Add a test for ..."
            r"\b(?:new|additional|more)\s+(?:regression\s+|unit\s+)?tests?\s+(?:have|has|were|was|are|is|for|to|cover)\b",
            r"\btests?\s+(?:have|has|were|was)\s+(?:been\s+)?(?:added|updated|extended)\b",
            r"^\W*(?:add|adds|added|adding)\s+(?:a\s+|some\s+|new\s+)?(?:regression\s+|unit\s+)?tests?\b",
        ]
    ),
    re.IGNORECASE,
)


#: A body's sentence that opens with what was done to the code, the author's account of the
#: change: "Add __getstate__/__setstate__ to BaseRetrying ...", "Removed the guard from
#: ...", "Introduce a cache so ...". Not read in a title, which says what was fixed.
CHANGE_ACCOUNT = re.compile(
    r"^\W*(?:add|adds|added|remove|removes|removed|introduce|introduces|introduced|move|moves"
    r"|moved|refactor|refactors|refactored|rewrite|rewrites|rewrote|switch|switches|switched"
    r"|wrap|wraps|wrapped|guard|guards|guarded|extract|extracts|extracted|rename|renames"
    r"|renamed)\b[^.;]{0,120}?\b(?:to|into|in|from|for|so|with|when|before|after|instead)\b",
    re.IGNORECASE,
)

#: A token of code as a statement or a patch line writes it: a name, a number, a string
#: literal (a quote after a letter is an apostrophe: "the copy's"), or one character of
#: punctuation or an operator.
_TOKEN = re.compile(
    r"[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?"
    r"|(?<![A-Za-z0-9])\"[^\"\n]*\"|(?<![A-Za-z0-9])'[^'\n]*'|[^\sA-Za-z0-9_`]"
)
#: Punctuation prose uses too: a sequence of these and plain words is no code.
_PROSE_MARKS = frozenset(".,;:()!?-'\"")
#: Python's keywords and constants.
_KEYWORDS = frozenset(keyword.kwlist)


#: Python's own names (``TypeError``, ``isinstance``): a fix that starts raising one names
#: the behaviour a report expects, not the answer.
_BUILTINS = frozenset(dir(builtins)) | _KEYWORDS


def code_tokens(text: str) -> list[str]:
    """*text* as code tokens (see :data:`_TOKEN`); backticks are left out and a string
    literal is written with double quotes, whichever quotes it had."""
    tokens = []
    for token in _TOKEN.findall(text):
        if len(token) >= 2 and token[0] in "'\"" and token[-1] == token[0]:
            token = '"' + token[1:-1] + '"'
        tokens.append(token)
    return tokens


def code_like(token: str) -> bool:
    """A token prose would not write: a name with an underscore, a digit or a capital
    inside (``pos_num``, ``__getstate__``, ``BaseRetrying``), a string literal, or an
    operator (``%``, ``<=``, ``[``); not a plain word, a number or prose punctuation."""
    first = token[0]
    if first in "\"'":
        return len(token) > 2
    if first.isalpha() or first == "_":
        return (
            "_" in token or any(c.isdigit() for c in token) or any(c.isupper() for c in token[1:])
        )
    if first.isdigit():
        return False
    return token not in _PROSE_MARKS


#: What a line of code defines: ``def NAME``, ``class NAME``, ``self.NAME = ...``.
_DEFINES = re.compile(
    r"^\s*(?:async\s+)?def\s+(\w+)|^\s*class\s+(\w+)|\bself\.(\w+)\s*(?::[^=]*)?=(?!=)"
)


#: What a line of JavaScript or TypeScript defines: ``function NAME``, ``class NAME``,
#: ``const NAME =``, ``this.NAME =``, a method ``NAME(...) {``.
_JS_DEFINES = re.compile(
    r"\bfunction\s*\*?\s*([\w$]+)|\bclass\s+([\w$]+)|\b(?:const|let|var)\s+([\w$]+)\s*[:=]"
    r"|\bthis\.(#?[\w$]+)\s*=(?!=)"
    r"|^\s*(?:(?:async|static|private|public|protected|readonly|get|set|override)\s+)*"
    r"(?!(?:if|for|while|switch|catch|return|function|await|typeof|new)\b)(#?[\w$]+)\s*(?:<[^>]*>)?"
    r"\([^)]*\)\s*(?::[^{=]*)?\{"
)

#: Names every JavaScript program has (``TypeError``, ``Object``): as Python's builtins.
_JS_GLOBALS = frozenset(
    [
        "Array",
        "Object",
        "String",
        "Number",
        "Boolean",
        "Symbol",
        "BigInt",
        "Map",
        "Set",
        "WeakMap",
        "WeakSet",
        "Promise",
        "JSON",
        "Math",
        "Date",
        "RegExp",
        "Error",
        "TypeError",
        "RangeError",
        "SyntaxError",
        "ReferenceError",
        "undefined",
        "null",
        "console",
        "process",
        "globalThis",
        "NaN",
        "Infinity",
        "constructor",
    ]
)


def _code_line(tokens: list[str]) -> bool:
    """A line of code rather than a docstring's or comment's prose: it holds an
    assignment, a call, brackets or a block's colon."""
    return any(t in "=()[]{}:" for t in tokens if len(t) == 1)


def _without_js_comment(line: str) -> str:
    """*line* without its ``//`` comment; a line of a block comment is no code at all."""
    stripped = line.lstrip()
    if stripped.startswith(("/*", "*", "//")):
        return ""
    quote = ""
    for index, char in enumerate(line):
        if quote:
            if char == quote and line[index - 1] != "\\":
                quote = ""
        elif char in "'\"`":
            quote = char
        elif line.startswith("//", index):
            return line[:index]
    return line


def _without_comment(line: str) -> str:
    quote = ""
    for index, char in enumerate(line):
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "#":
            return line[:index]
    return line


@dataclass(frozen=True, slots=True)
class PatchCode:
    """The code of a patch's changed lines, as a statement could quote it: sequences of
    three tokens holding code-like one (``pos_num % 100``), sequences of four tokens of a
    line of code whatever they hold (``if message and match``), and the code-like names the
    added lines define (``def __getstate__``, ``def _check``, ``self._cache = ...``) that
    no removed or unchanged line names: a public class the fix only uses (``TryAgain``)
    is what the user meets, and stays."""

    three: frozenset[tuple[str, ...]] = frozenset()
    four: frozenset[tuple[str, ...]] = frozenset()
    introduced: frozenset[str] = frozenset()

    @classmethod
    def of(
        cls, patch: str, interface: frozenset[str] = frozenset(), *, node: bool = False
    ) -> PatchCode:
        """The code of *patch*'s changed lines. *interface* are the names the fix's tests
        use (:func:`tested_names`): a name the tests call is what the task is graded on,
        so a statement that asks for it (the demo's issue asks for ``split_words(text)``)
        states the requirement, not the answer. A *node* patch (JavaScript, TypeScript)
        has ``//`` comments and its own ways to define a name."""
        uncomment = _without_js_comment if node else _without_comment
        defines = _JS_DEFINES if node else _DEFINES
        builtins_ = _BUILTINS | _JS_GLOBALS if node else _BUILTINS
        three: set[tuple[str, ...]] = set()
        four: set[tuple[str, ...]] = set()
        added: set[str] = set()
        seen: set[str] = set()  # names on removed and unchanged lines
        for line in patch.splitlines():
            if line.startswith(("+++", "---", "@@", "diff ", "index ")):
                continue
            mark, text = line[:1], uncomment(line[1:])
            tokens = code_tokens(text)
            if mark not in "+-":
                seen.update(t for t in tokens if t[0].isalpha() or t[0] == "_")
                continue
            if mark == "-":
                seen.update(t for t in tokens if t[0].isalpha() or t[0] == "_")
            else:
                defined = (next(g for g in m.groups() if g) for m in defines.finditer(text))
                added.update(name for name in defined if code_like(name))
            coded = [code_like(t) and t not in interface for t in tokens]
            for i in range(len(tokens) - 2):
                if coded[i] or coded[i + 1] or coded[i + 2]:
                    three.add(tuple(tokens[i : i + 3]))
            if _code_line(tokens):
                four.update(
                    gram
                    for i in range(len(tokens) - 3)
                    if not interface.intersection(gram := tuple(tokens[i : i + 4]))
                )
        introduced = {t for t in added - seen if t[0].isalpha() or t[0] == "_"}
        return cls(frozenset(three), frozenset(four), frozenset(introduced - builtins_ - interface))

    def __bool__(self) -> bool:
        return bool(self.three or self.four or self.introduced)

    def found_in(self, sentence: str) -> str | None:
        """The code of the patch *sentence* carries, or None. Code quoted in prose
        (``'if self.message:' skipped ...``) is read inside its quotes too."""
        tokens = code_tokens(sentence)
        found = self._found(tokens)
        for token in tokens:
            if found is not None:
                break
            if token[0] == '"' and len(token) > 4:
                found = self._found(code_tokens(token[1:-1]))
        return found

    def _found(self, tokens: list[str]) -> str | None:
        for token in tokens:
            if token in self.introduced:
                return token
        for i in range(len(tokens) - 2):
            gram = tuple(tokens[i : i + 3])
            if gram in self.three:
                return " ".join(gram)
            if i + 4 <= len(tokens) and tuple(tokens[i : i + 4]) in self.four:
                return " ".join(tokens[i : i + 4])
        return None


def tested_names(test_patch: str, *, node: bool = False) -> frozenset[str]:
    """The code-like names the added lines of the fix's *test_patch* use: the interface its
    tests call (``split_words``), comments left out."""
    names: set[str] = set()
    uncomment = _without_js_comment if node else _without_comment
    for line in test_patch.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            names.update(t for t in code_tokens(uncomment(line[1:])) if code_like(t))
    return frozenset(t for t in names if t[0].isalpha() or t[0] == "_")


@dataclass(frozen=True, slots=True)
class FixFacts:
    """What a statement must not reveal about the reference patch."""

    #: Files and modules it modifies, as prose names them.
    places: frozenset[str] = frozenset()
    #: Private helpers it modifies (``_guard``, ``Parser._feed``).
    private: frozenset[str] = frozenset()
    #: The lines it adds, stripped, long enough to be more than punctuation.
    added_lines: frozenset[str] = frozenset()
    #: The code of its changed lines (see :class:`PatchCode`).
    code: PatchCode = PatchCode()

    @classmethod
    def of(
        cls,
        names: Iterable[str] = (),
        patch: str = "",
        tests: Iterable[str] = (),
        test_patch: str = "",
        *,
        node: bool = False,
    ) -> FixFacts:
        """What *patch* reveals, with the *names* it modifies and the fix's *tests* (test
        files, named as a path or a file name); *node* for a JavaScript or TypeScript fix."""
        places: set[str] = set()
        for path in tests:
            places.add(path)
            name = path.rsplit("/", 1)[-1]
            places.add(name)
            if name.endswith(".py") and "_" in name:
                places.add(name[:-3])  # test_utils: a test module's name is a code name
        private: set[str] = set()
        for name in names:
            if not name or len(name) < 2:
                continue
            if "/" in name or name.endswith(".py") or _is_module(name):
                places.add(name)
            else:
                # Anything reached through a private name is private: ``_Base.__get__``
                # names the class ``_Base``; ``Parser._reset`` is also written ``_reset``.
                parts = name.split(".")
                for depth, part in enumerate(parts, 1):
                    if _is_private(part):
                        private.update({name, part, ".".join(parts[:depth])})
                        break
        return cls(
            frozenset(places),
            frozenset(private),
            frozenset(_added_lines(patch)),
            PatchCode.of(patch, tested_names(test_patch, node=node), node=node),
        )


def _is_private(name: str) -> bool:
    last = name.rsplit(".", 1)[-1]
    if last.startswith("#"):  # a JavaScript class's private member
        return True
    return last.startswith("_") and not (last.startswith("__") and last.endswith("__"))


def _is_module(name: str) -> bool:
    """A dotted lower-case name such as ``pkg.reader`` (a class's method is ``Class.meth``)."""
    parts = name.split(".")
    return len(parts) > 1 and all(p.isidentifier() and p == p.lower() for p in parts)


def _added_lines(patch: str) -> set[str]:
    removed: set[str] = set()
    added: set[str] = set()
    for line in patch.splitlines():
        if line.startswith(("+++", "---")):
            continue
        if line.startswith(("+", "-")):
            text = line[1:].strip()
            if len(text) >= 8 and len(WORD.findall(text)) >= 2:
                (added if line[0] == "+" else removed).add(text)
    return added - removed


@functools.lru_cache(maxsize=4096)
def name_matcher(name: str) -> re.Pattern[str]:
    """Mentions of *name* as itself: ``pkg.reader`` but not ``pkg.reader.parse``."""
    escaped = re.escape(name)
    return re.compile(r"(?<![\w./])" + escaped + r"(?![\w/]|\.\w)")
