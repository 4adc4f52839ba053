"""Remove from a statement what was written with the fix in hand, and keep the problem.

A statement keeps its title, the symptom, the reproduction (calls with their arguments,
inputs and outputs, tracebacks, expected against actual) and the data it affects. Five
rules, applied in this order, remove the answer; every removal is recorded with its rule
and the text removed (kept in the task for review, never shown to an agent):

``diff_blocks``
    A fenced block marked ``diff``/``patch`` or holding a unified diff, and an unfenced
    unified diff - wherever it stands, so a diff inside a fix section counts here too.
``fix_sections``
    A section under a heading in which the author describes the fix: *Solution*,
    *Proposed fix*, *Changes*, *Implementation*, *Root cause* ... (Markdown ``#``
    headings, setext headings, a line in bold, or a ``Solution:`` label line).
``patch_code``
    A code block holding a line the reference patch adds: the fix, written out. A block
    holding the old code (a traceback shows it) is the symptom and stays.
``locating_sentences``
    A sentence of prose naming a file or module the reference patch modifies
    (``src/pkg/reader.py``, ``reader.py``, ``pkg.reader``) or a private helper it
    modifies (``_guard``, ``Parser._feed``). A public function or class it modifies is
    what the user calls, so naming it - ``word_count('') returns 1`` - is kept.
``code_sentences``
    A sentence of prose carrying code of the reference patch's changed lines, in
    backticks or not: three tokens of a changed line with one prose would not write
    (``pos_num % 100``, ``_local.statistics``), four tokens of a changed line of code
    (``if message and match``), or a name the fix introduces (``__getstate__``).
``prescribing_sentences``
    A sentence telling what to change: "the bug is in ...", "change X to Y", "should
    use", "replace ... with", "use X instead of Y", "the fix is ...", and the author's
    account of the change ("This commit modifies ...", "Fix by pointing ...", "Add X to
    Y ...", "New regression tests have been added ...").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from bb_core.records import kinds

from bb_mine.reveals import CHANGE_ACCOUNT, PRESCRIBING, WORD, FixFacts, PatchCode, name_matcher
from bb_mine.rules import CLOSING_TEXT, REF_TEXT

RULES = (
    "diff_blocks",
    "fix_sections",
    "patch_code",
    "locating_sentences",
    "code_sentences",
    "prescribing_sentences",
)

_FIX_HEADINGS = (
    "solution",
    "solutions",
    "proposed solution",
    "suggested solution",
    "possible solution",
    "fix",
    "fixes",
    "the fix",
    "proposed fix",
    "suggested fix",
    "possible fix",
    "how to fix",
    "how i fixed it",
    "changes",
    "changes made",
    "proposed changes",
    "proposed change",
    "summary of changes",
    "what changed",
    "what this pr does",
    "implementation",
    "implementation details",
    "implementation notes",
    "approach",
    "technical details",
    "patch",
    "root cause",
    "cause",
    "resolution",
)
_HEADINGWORDS = "|".join(re.escape(h) for h in sorted(_FIX_HEADINGS, key=len, reverse=True))
_FIX_HEADING = re.compile(r"^(?:" + _HEADINGWORDS + r")\b[\s:.!?-]*$", re.IGNORECASE)
_FIX_LABEL = re.compile(r"^(?:" + _HEADINGWORDS + r")\s*:", re.IGNORECASE)

_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})\s*([\w+-]*)")
_ATX = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_SETEXT = re.compile(r"^\s{0,3}(=+|-+)\s*$")
_BOLD = re.compile(r"^\s*(?:\*\*|__)(.+?)(?:\*\*|__)\s*:?\s*$")
_LABEL_LINE = re.compile(r"^\s*([A-Za-z][A-Za-z ]{1,40}):\s*$")
_DIFF_START = re.compile(r"^(?:diff --git |--- (?:a/|/dev/null)|Index: |@@ -\d)")
_DIFF_BODY = re.compile(
    r"^(?:[ +\-\\]|@@ |diff --git |index |new file mode|deleted file mode|similarity index|rename (?:from|to) |old mode|new mode|$)"
)
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
#: A sentence that only names issues: "fixes #787", "Closes #188,", "Fixes: #676".
_ONLY_REFS = re.compile(
    r"^\W*(?:(?:" + CLOSING_TEXT + r"|see|refs?|related\s+to)\b\W*)?"
    r"(?:" + REF_TEXT + r")(?:[\s,;&]+(?:and\s+)?(?:" + REF_TEXT + r"))*[\W]*$",
    re.IGNORECASE,
)


def only_refs(text: str) -> bool:
    """Whether *text* only names issues or pull requests (with a closing keyword or not)."""
    return bool(_ONLY_REFS.match(text.strip()))


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`\"'(\[*_])")


@dataclass(slots=True)
class Redacted:
    text: str
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(RULES, 0))
    #: Every removal, in order: ``{"rule": ..., "text": ...}``.
    removed: list[kinds.TaskRedacted] = field(default_factory=list)

    def drop(self, rule: str, text: str) -> None:
        self.counts[rule] += 1
        self.removed.append({"rule": rule, "text": text.strip()})


@dataclass(slots=True)
class _Block:
    kind: str  # "prose" or "fence"
    lines: list[str]
    info: str = ""


def redact(
    text: str,
    names: Iterable[str] = (),
    patch: str = "",
    *,
    title: bool = False,
    tests: Iterable[str] = (),
    fix: FixFacts | None = None,
) -> Redacted:
    """*text* without what the rules above remove; *names* are the names the reference
    *patch* modifies (see :func:`bb_mine.symbols.modified_names`), *tests* the fix's test
    files (a sentence naming one locates the fix too); *fix* is what those make, when
    already known. A *title* is one line and opens no section: ``fix: close the response``
    (a conventional commit's title) is not a ``Fix:`` label, and it says what was fixed,
    so it is not read as an account of the change ("Add ... to ...")."""
    if fix is None:
        fix = FixFacts.of(names, patch, tests)
    result = Redacted(text="")
    blocks = _blocks(text.replace("\r\n", "\n"))
    blocks = _drop_diffs(blocks, result)
    if not title:
        blocks = _drop_fix_sections(blocks, result)
    blocks = _drop_patch_code(blocks, fix, result)
    matchers = _Matchers(_matchers(fix), fix.code, title)
    blocks = [_drop_sentences(b, matchers, result) for b in blocks]
    result.text = _join(blocks)
    return result


def sentence_count(text: str, *, items: bool = True) -> int:
    """How many sentences of at least two words *text* has; a code block counts as one,
    and a sentence that only names issues ("fixes #787") does not. Without *items*, list
    items do not count (a squashed commit's list of its commits' titles: "* Add test and
    update changelog")."""
    count = 0
    for block in _blocks(text):
        if block.kind == "fence":
            count += int(any(line.strip() for line in block.lines[1:-1]))
            continue
        for unit in _units(block.lines):
            if not items and _LIST_ITEM.match(unit[0]):
                continue
            body = " ".join(line.strip() for line in unit).strip()
            if not body or _SETEXT.match(body):
                continue
            count += sum(
                1
                for s in _SENTENCE_END.split(body)
                if len(WORD.findall(s)) >= 2 and not only_refs(s)
            )
    return count


# -- blocks -------------------------------------------------------------------------------


def _blocks(text: str) -> list[_Block]:
    """Split into prose runs and fenced code blocks (fences kept with their block)."""
    blocks: list[_Block] = []
    prose: list[str] = []
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        fence = _FENCE.match(line)
        if fence:
            marker = fence.group(1)
            end = index + 1
            while end < len(lines) and not lines[end].strip().startswith(marker[0] * len(marker)):
                end += 1
            if prose:
                blocks.append(_Block("prose", prose))
                prose = []
            blocks.append(_Block("fence", lines[index : end + 1], fence.group(2).lower()))
            index = end + 1
            continue
        prose.append(line)
        index += 1
    if prose:
        blocks.append(_Block("prose", prose))
    return blocks


def _join(blocks: list[_Block]) -> str:
    text = "\n".join(line for block in blocks for line in block.lines)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip()


# -- diff and patch blocks ----------------------------------------------------------------


def _looks_like_diff(lines: list[str]) -> bool:
    body = lines[1:-1]
    has_old = any(line.startswith("--- ") for line in body)
    has_new = any(line.startswith("+++ ") for line in body)
    return any(line.startswith(("diff --git ", "@@ -")) for line in body) or (has_old and has_new)


def _drop_diffs(blocks: list[_Block], result: Redacted) -> list[_Block]:
    out: list[_Block] = []
    for block in blocks:
        if block.kind == "fence":
            if block.info in ("diff", "patch", "udiff") or _looks_like_diff(block.lines):
                result.drop("diff_blocks", "\n".join(block.lines))
                continue
            out.append(block)
            continue
        kept: list[str] = []
        lines = block.lines
        index = 0
        while index < len(lines):
            if _DIFF_START.match(lines[index]) and _diff_follows(lines, index):
                start = index
                index += 1
                while (
                    index < len(lines) and lines[index].strip() and _DIFF_BODY.match(lines[index])
                ):
                    index += 1
                result.drop("diff_blocks", "\n".join(lines[start:index]))
                continue
            kept.append(lines[index])
            index += 1
        if kept:
            out.append(_Block("prose", kept))
    return out


def _diff_follows(lines: list[str], index: int) -> bool:
    window = lines[index : index + 6]
    return any(line.startswith("@@ -") for line in window) or (
        any(line.startswith("--- ") for line in window)
        and any(line.startswith("+++ ") for line in window)
    )


# -- sections describing the fix ----------------------------------------------------------


def _heading(lines: list[str], index: int) -> tuple[int, str] | None:
    """(level, text) when ``lines[index]`` starts a heading; bold and label lines are level 7."""
    line = lines[index]
    atx = _ATX.match(line)
    if atx:
        return len(atx.group(1)), atx.group(2)
    if (
        index + 1 < len(lines)
        and line.strip()
        and _SETEXT.match(lines[index + 1])
        and not _LIST_ITEM.match(line)
    ):
        return (1 if lines[index + 1].strip().startswith("=") else 2), line.strip()
    bold = _BOLD.match(line)
    if bold:
        return 7, bold.group(1).strip().rstrip(":")
    label = _LABEL_LINE.match(line)
    if label:
        return 7, label.group(1).strip()
    return None


def _drop_fix_sections(blocks: list[_Block], result: Redacted) -> list[_Block]:
    out: list[_Block] = []
    dropping: list[str] | None = None  # the lines of the section being dropped
    level = 0
    for block in blocks:
        if block.kind == "fence":
            if dropping is None:
                out.append(block)
            else:
                dropping.extend(block.lines)
            continue
        kept: list[str] = []
        index = 0
        lines = block.lines
        while index < len(lines):
            head = _heading(lines, index)
            if head is not None and dropping is not None and head[0] <= level:
                result.drop("fix_sections", "\n".join(dropping))
                dropping = None  # a heading of the same or a higher level ends the section
            if head is not None and dropping is None and _FIX_HEADING.match(_plain(head[1])):
                dropping, level = [], head[0]
            if (
                dropping is None
                and head is None
                and _FIX_LABEL.match(_plain(lines[index]))
                and not only_refs(_plain(lines[index]))  # "Fixes: #676" names an issue
            ):
                # "Solution: change X to Y" - the paragraph it opens is dropped.
                start = index
                while index < len(lines) and lines[index].strip():
                    index += 1
                result.drop("fix_sections", "\n".join(lines[start:index]))
                continue
            if dropping is None:
                kept.append(lines[index])
            else:
                dropping.append(lines[index])
                if head is not None and _is_setext(lines, index):
                    index += 1  # the underline goes too
                    dropping.append(lines[index])
            index += 1
        if kept:
            out.append(_Block("prose", kept))
    if dropping is not None:
        result.drop("fix_sections", "\n".join(dropping))
    return out


def _is_setext(lines: list[str], index: int) -> bool:
    return (
        index + 1 < len(lines)
        and bool(_SETEXT.match(lines[index + 1]))
        and not _ATX.match(lines[index])
    )


def _plain(text: str) -> str:
    return re.sub(r"[*_`]", "", text).strip()


# -- code that reproduces the fix ---------------------------------------------------------


def _drop_patch_code(blocks: list[_Block], fix: FixFacts, result: Redacted) -> list[_Block]:
    if not fix.added_lines:
        return blocks
    out: list[_Block] = []
    for block in blocks:
        if block.kind == "fence" and any(
            line.strip() in fix.added_lines for line in block.lines[1:-1]
        ):
            result.drop("patch_code", "\n".join(block.lines))
            continue
        out.append(block)
    return out


# -- sentences that locate or prescribe the fix -------------------------------------------


def _matchers(fix: FixFacts) -> list[re.Pattern[str]]:
    wanted = sorted(fix.places | fix.private, key=len, reverse=True)
    return [name_matcher(name) for name in wanted]


@dataclass(frozen=True, slots=True)
class _Matchers:
    names: list[re.Pattern[str]]
    code: PatchCode
    title: bool = False


def _rule_for(sentence: str, matchers: _Matchers) -> str | None:
    if any(m.search(sentence) for m in matchers.names):
        return "locating_sentences"
    if matchers.code and matchers.code.found_in(sentence) is not None:
        return "code_sentences"
    plain = _plain_code(sentence)
    if PRESCRIBING.search(plain) or (not matchers.title and CHANGE_ACCOUNT.search(plain)):
        return "prescribing_sentences"
    return None


def _plain_code(sentence: str) -> str:
    """*sentence* with inline code spans as one placeholder word, so their contents
    (``x.replace(a, b)``) never read as prose."""
    return re.sub(r"`[^`\n]*`", " CODE ", sentence)


_TRACEBACK = re.compile(r"Traceback \(most recent call last\)|^\s*File \"[^\"]+\", line \d+", re.M)


def _drop_sentences(block: _Block, matchers: _Matchers, result: Redacted) -> _Block:
    if block.kind == "fence":
        return block
    out: list[str] = []
    for unit in _units(block.lines):
        text = "\n".join(unit)
        rules = matchers
        if matchers.code and _TRACEBACK.search(text):
            # a traceback written as prose shows the old code: the error, which stays
            rules = _Matchers(matchers.names, PatchCode(), matchers.title)
        if not text.strip() or not _rule_for(text, rules):
            out.extend(unit)
            continue
        marker = _LIST_ITEM.match(unit[0])
        prefix = marker.group(0) if marker else ""
        body = " ".join(line.strip() for line in unit)
        if prefix:
            body = body[len(prefix.strip()) :].strip()
        kept = []
        for sentence in _SENTENCE_END.split(body):
            rule = _rule_for(sentence, rules)
            if rule is None:
                kept.append(sentence)
            else:
                result.drop(rule, sentence)
        if kept:
            out.append(prefix + " ".join(kept))
    return _Block("prose", out)


def _units(lines: list[str]) -> Iterable[list[str]]:
    """Paragraphs and list items, each a unit whose sentences can be split."""
    unit: list[str] = []
    for line in lines:
        if not line.strip():
            if unit:
                yield unit
                unit = []
            yield [line]
            continue
        if _LIST_ITEM.match(line) or _ATX.match(line) or line.lstrip().startswith(("|", ">")):
            if unit:
                yield unit
            unit = [line]
            if not _LIST_ITEM.match(line):
                yield unit
                unit = []
            continue
        unit.append(line)
    if unit:
        yield unit
