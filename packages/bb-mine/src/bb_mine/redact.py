"""Remove from a statement what was written with the fix in hand.

Three rules, applied in this order, each counted in the task's ``redactions``:

``diff_blocks``
    A fenced block marked ``diff``/``patch`` or holding a unified diff, and an unfenced
    unified diff - wherever it stands, so a diff inside a fix section counts here too.
``fix_sections``
    A section under a heading in which the author describes the fix: *Solution*,
    *Proposed fix*, *Changes*, *Implementation*, *Root cause* ... (Markdown ``#``
    headings, setext headings, a line in bold, or a ``Solution:`` label line).
``naming_sentences``
    A sentence of prose naming a function, class, method or file that the reference
    patch modifies. Names that are also plain words (``parse``, ``run``) count only when
    written as code: in backticks, called (``parse(``) or reached through a dot.

Code blocks other than diffs are kept whole: a reproduction or a traceback is the symptom,
not the answer.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

RULES = ("fix_sections", "diff_blocks", "naming_sentences")

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
_HEADING_WORDS = "|".join(re.escape(h) for h in sorted(_FIX_HEADINGS, key=len, reverse=True))
_FIX_HEADING = re.compile(r"^(?:" + _HEADING_WORDS + r")\b[\s:.!?-]*$", re.IGNORECASE)
_FIX_LABEL = re.compile(r"^(?:" + _HEADING_WORDS + r")\s*:", re.IGNORECASE)

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
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`\"'(\[*_])")


@dataclass(slots=True)
class Redacted:
    text: str
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(RULES, 0))


@dataclass(slots=True)
class _Block:
    kind: str  # "prose" or "fence"
    lines: list[str]
    info: str = ""


def redact(text: str, names: Iterable[str] = ()) -> Redacted:
    """*text* without fix sections, diffs and sentences naming any of *names*."""
    result = Redacted(text="")
    blocks = _blocks(text.replace("\r\n", "\n"))
    blocks = _drop_diffs(blocks, result.counts)
    blocks = _drop_fix_sections(blocks, result.counts)
    matchers = _name_matchers(names)
    if matchers:
        blocks = [_drop_naming_sentences(b, matchers, result.counts) for b in blocks]
    result.text = _join(blocks)
    return result


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


# -- rule 1: sections describing the fix ---------------------------------------------------


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


def _drop_fix_sections(blocks: list[_Block], counts: dict[str, int]) -> list[_Block]:
    out: list[_Block] = []
    dropping: int | None = None  # level of the section being dropped
    for block in blocks:
        if block.kind == "fence":
            if dropping is None:
                out.append(block)
            continue
        kept: list[str] = []
        index = 0
        lines = block.lines
        while index < len(lines):
            head = _heading(lines, index)
            if head is not None and dropping is not None and head[0] <= dropping:
                dropping = None  # a heading of the same or a higher level ends the section
            if head is not None and dropping is None and _FIX_HEADING.match(_plain(head[1])):
                dropping = head[0]
                counts["fix_sections"] += 1
            if dropping is None and head is None and _FIX_LABEL.match(_plain(lines[index])):
                # "Solution: change X to Y" - the paragraph it opens is dropped.
                counts["fix_sections"] += 1
                while index < len(lines) and lines[index].strip():
                    index += 1
                continue
            if dropping is None:
                kept.append(lines[index])
            elif head is not None and _is_setext(lines, index):
                index += 1  # skip the underline too
            index += 1
        if kept:
            out.append(_Block("prose", kept))
    return out


def _is_setext(lines: list[str], index: int) -> bool:
    return (
        index + 1 < len(lines)
        and bool(_SETEXT.match(lines[index + 1]))
        and not _ATX.match(lines[index])
    )


def _plain(text: str) -> str:
    return re.sub(r"[*_`]", "", text).strip()


# -- rule 2: diff and patch blocks ---------------------------------------------------------


def _looks_like_diff(lines: list[str]) -> bool:
    body = lines[1:-1]
    has_old = any(line.startswith("--- ") for line in body)
    has_new = any(line.startswith("+++ ") for line in body)
    return any(line.startswith(("diff --git ", "@@ -")) for line in body) or (has_old and has_new)


def _drop_diffs(blocks: list[_Block], counts: dict[str, int]) -> list[_Block]:
    out: list[_Block] = []
    for block in blocks:
        if block.kind == "fence":
            if block.info in ("diff", "patch", "udiff") or _looks_like_diff(block.lines):
                counts["diff_blocks"] += 1
                continue
            out.append(block)
            continue
        kept: list[str] = []
        lines = block.lines
        index = 0
        while index < len(lines):
            if _DIFF_START.match(lines[index]) and _diff_follows(lines, index):
                counts["diff_blocks"] += 1
                index += 1
                while (
                    index < len(lines) and lines[index].strip() and _DIFF_BODY.match(lines[index])
                ):
                    index += 1
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


# -- rule 3: sentences naming what the fix modifies ----------------------------------------


def _is_distinctive(name: str) -> bool:
    """A name no one writes by accident: snake_case, dotted, a path, a digit, Capitalised."""
    return any(ch in name for ch in "_./") or any(ch.isdigit() for ch in name) or name[0].isupper()


def _name_matchers(names: Iterable[str]) -> list[re.Pattern[str]]:
    wanted = sorted({n for n in names if n and len(n) >= 2}, key=len, reverse=True)
    return [_name_matcher(name) for name in wanted]


@functools.lru_cache(maxsize=4096)
def _name_matcher(name: str) -> re.Pattern[str]:
    """What counts as mentioning *name* (the same files and functions recur across fixes)."""
    escaped = re.escape(name)
    bare = r"(?<![\w])" + escaped + r"(?![\w])"
    if _is_distinctive(name):
        return re.compile(bare)
    return re.compile(
        r"`[^`\n]*" + bare + r"[^`\n]*`|" + bare + r"\s*\(|\." + escaped + r"(?![\w])"
    )


def _drop_naming_sentences(
    block: _Block, matchers: list[re.Pattern[str]], counts: dict[str, int]
) -> _Block:
    if block.kind == "fence":
        return block
    out: list[str] = []
    for unit in _units(block.lines):
        text = "\n".join(unit)
        if not any(m.search(text) for m in matchers):
            out.extend(unit)
            continue
        marker = _LIST_ITEM.match(unit[0])
        prefix = marker.group(0) if marker else ""
        body = " ".join(line.strip() for line in unit)
        if prefix:
            body = body[len(prefix.strip()) :].strip()
        sentences = _SENTENCE_END.split(body)
        kept = []
        for sentence in sentences:
            if any(m.search(sentence) for m in matchers):
                counts["naming_sentences"] += 1
            else:
                kept.append(sentence)
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
