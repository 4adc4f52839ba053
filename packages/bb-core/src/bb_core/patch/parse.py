"""The one reader of git-format patches: file sections, hunks, modes, renames, binaries.

:func:`parse_patch` reads what ``git diff`` writes (and what :mod:`bb_core.patch.write`
writes): ``diff --git`` sections with their mode, rename, copy and ``index`` lines, C-quoted
names, ``@@`` hunks with ``\\ No newline at end of file``, and ``GIT binary patch``
literals. A binary change given only as ``Binary files ... differ`` or as a ``delta`` is
refused (:class:`PatchError`): it cannot be applied. Every stage reads patches here.
"""

from __future__ import annotations

import base64
import zlib
from dataclasses import dataclass, field

from bb_core.patch.model import PatchError


@dataclass
class Hunk:
    old_start: int
    old_len: int
    new_start: int
    new_len: int
    lines: list[tuple[str, str]]  # (" " | "-" | "+", text with its newline when it had one)

    @property
    def header(self) -> str:
        return f"@@ -{self.old_start},{self.old_len} +{self.new_start},{self.new_len} @@"


@dataclass
class FilePatch:
    """One file's section of a patch."""

    old_path: str | None = None
    new_path: str | None = None
    old_mode: str | None = None
    new_mode: str | None = None
    old_sha: str | None = None
    new_sha: str | None = None
    hunks: list[Hunk] = field(default_factory=list)
    binary: bytes | None = None  # the new content, from a literal binary hunk
    text: str = ""  # the section as written

    @property
    def path(self) -> str:
        found = self.new_path if self.new_path is not None else self.old_path
        assert found is not None
        return found

    @property
    def paths(self) -> list[str]:
        names = [p for p in (self.old_path, self.new_path) if p is not None]
        return list(dict.fromkeys(names))


def _unquote(name: str) -> str:
    if not (name.startswith('"') and name.endswith('"') and len(name) >= 2):
        return name
    body = name[1:-1]
    simple = {"t": "\t", "n": "\n", '"': '"', "\\": "\\", "a": "\a", "b": "\b",
              "f": "\f", "r": "\r", "v": "\v"}  # fmt: skip
    out = bytearray()
    at = 0
    while at < len(body):
        c = body[at]
        if c == "\\" and at + 1 < len(body):
            nxt = body[at + 1]
            if nxt in simple:
                out += simple[nxt].encode()
                at += 2
                continue
            if nxt in "01234567":
                out.append(int(body[at + 1 : at + 4], 8))
                at += 4
                continue
        out += c.encode()
        at += 1
    return out.decode("utf-8", errors="surrogateescape")


def _strip_prefix(name: str) -> str | None:
    """A name from a ``---``/``+++``/``diff --git`` line without its ``a/``/``b/``."""
    name = name.rstrip("\t")
    name = _unquote(name) if name.startswith('"') else name.split("\t")[0]
    if name == "/dev/null":
        return None
    if name.startswith(("a/", "b/")):
        return name[2:]
    return name


def _git_line_paths(rest: str) -> tuple[str | None, str | None]:
    """The two names of a ``diff --git`` line (used when no other line names the file)."""
    if rest.startswith('"') or rest.endswith('"'):
        if rest.startswith('"'):
            end = 1
            while end < len(rest) and not (rest[end] == '"' and rest[end - 1] != "\\"):
                end += 1
            return _strip_prefix(rest[: end + 1]), _strip_prefix(rest[end + 2 :])
        split = rest.index(' "')
        return _strip_prefix(rest[:split]), _strip_prefix(rest[split + 1 :])
    # Unquoted, both names are the same path, so the line splits in the middle.
    size = (len(rest) - 5) // 2
    first, second = rest[: size + 2], rest[size + 3 :]
    if rest[size + 2 : size + 3] == " " and first[2:] == second[2:]:
        return first[2:], second[2:]
    raise PatchError(f"cannot read the file names of: diff --git {rest}")


def _decode_literal(lines: list[str], at: int, where: str) -> tuple[bytes, int]:
    """The content of the ``literal N`` hunk at *lines[at]*, and the index after it."""
    kind, _, size_text = lines[at].partition(" ") if at < len(lines) else ("", "", "")
    if kind != "literal":
        raise PatchError(f"{where}: only literal binary hunks can be applied, not {kind!r}")
    size = int(size_text)
    packed = bytearray()
    at += 1
    while at < len(lines) and lines[at]:
        line = lines[at]
        code = line[0]
        count = ord(code) - ord("A") + 1 if "A" <= code <= "Z" else ord(code) - ord("a") + 27
        try:
            packed += base64.b85decode(line[1:])[:count]
        except ValueError as exc:
            raise PatchError(f"{where}: corrupt binary hunk: {exc}") from exc
        at += 1
    try:
        data = zlib.decompress(bytes(packed))
    except zlib.error as exc:
        raise PatchError(f"{where}: corrupt binary hunk: {exc}") from exc
    if len(data) != size:
        raise PatchError(f"{where}: binary hunk holds {len(data)} bytes, expected {size}")
    return data, at + 1


def _parse_hunk(lines: list[str], at: int, where: str) -> tuple[Hunk, int]:
    header = lines[at]
    try:
        ranges = header.split("@@")[1].split()
        old_start, _, old_len = ranges[0][1:].partition(",")
        new_start, _, new_len = ranges[1][1:].partition(",")
        hunk = Hunk(int(old_start), int(old_len or 1), int(new_start), int(new_len or 1), [])
    except (IndexError, ValueError) as exc:
        raise PatchError(f"{where}: bad hunk header {header!r}") from exc
    old_left, new_left = hunk.old_len, hunk.new_len
    at += 1
    while at < len(lines):
        line = lines[at]
        if line.startswith("\\"):
            # "\ No newline at end of file" belongs to the line before it.
            if hunk.lines:
                tag, text = hunk.lines[-1]
                hunk.lines[-1] = (tag, text.removesuffix("\n"))
            at += 1
            continue
        if old_left <= 0 and new_left <= 0:
            break
        tag = line[0] if line else " "  # some tools strip a blank context line's space
        if tag not in " +-":
            break
        hunk.lines.append((tag, line[1:] + "\n"))
        old_left -= tag in " -"
        new_left -= tag in " +"
        at += 1
    if old_left > 0 or new_left > 0:
        raise PatchError(f"{where}: hunk {header} ends early")
    return hunk, at


_HEADERS_END = ("diff --git ", "@@ ", "GIT binary patch", "Binary files ")


def parse_patch(patch: str) -> list[FilePatch]:
    """The file sections of a git-style patch, in order."""
    lines = patch.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    files: list[FilePatch] = []
    starts: list[int] = []
    at = 0
    while at < len(lines):
        if not lines[at].startswith("diff --git "):
            at += 1
            continue
        start = at
        item = FilePatch()
        git_names = lines[at][len("diff --git ") :]
        where = f"patch line {at + 1}"
        new_file = deleted = False
        renamed: dict[str, str] = {}
        headers: dict[str, str | None] = {}
        at += 1
        while at < len(lines) and not lines[at].startswith(_HEADERS_END):
            line = lines[at]
            key, _, value = line.partition(" ")
            if line.startswith("new file mode "):
                new_file, item.new_mode = True, line.rsplit(" ", 1)[1]
            elif line.startswith("deleted file mode "):
                deleted, item.old_mode = True, line.rsplit(" ", 1)[1]
            elif line.startswith("old mode "):
                item.old_mode = value.split()[-1]
            elif line.startswith("new mode "):
                item.new_mode = value.split()[-1]
            elif line.startswith(("rename from ", "copy from ", "rename to ", "copy to ")):
                renamed[line.split(" ")[1]] = _unquote(line.split(" ", 2)[2])
            elif key == "index":
                fields = value.split()
                if ".." in fields[0]:
                    item.old_sha, item.new_sha = fields[0].split("..", 1)
                if len(fields) > 1:
                    item.old_mode = item.old_mode or fields[1]
                    item.new_mode = item.new_mode or fields[1]
            elif line.startswith(("--- ", "+++ ")):
                headers[line[:3]] = _strip_prefix(line[4:])
            at += 1
        if at < len(lines) and lines[at].startswith("Binary files "):
            raise PatchError(f"{where}: a binary change without its content cannot be applied")
        if at < len(lines) and lines[at] == "GIT binary patch":
            item.binary, at = _decode_literal(lines, at + 1, where)
            # The reverse hunk (for git apply -R) may follow; it is not needed here.
            if at < len(lines) and lines[at].startswith(("literal ", "delta ")):
                while at < len(lines) and lines[at]:
                    at += 1
                at += 1
        while at < len(lines) and lines[at].startswith("@@ "):
            hunk, at = _parse_hunk(lines, at, where)
            item.hunks.append(hunk)

        old = renamed.get("from") or headers.get("---")
        new = renamed.get("to") or headers.get("+++")
        if (old is None and not new_file) or (new is None and not deleted):
            line_old, line_new = _git_line_paths(git_names)
            old = old or line_old
            new = new or line_new
        item.old_path = None if new_file else old
        item.new_path = None if deleted else new
        if item.old_path is None and item.new_path is None:
            raise PatchError(f"{where}: a file section that names no file")
        files.append(item)
        starts.append(start)
    # A section's text runs to the next section (or the end), exactly as written.
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    ends = [*starts[1:], len(lines)][: len(starts)]
    for item, first, last in zip(files, starts, ends, strict=True):
        item.text = patch[offsets[first] : min(offsets[last], len(patch))]
    return files


def files_in_patch(patch: str) -> list[str]:
    """Every path a patch touches (both names of a rename), in patch order."""
    seen: dict[str, None] = {}
    for item in parse_patch(patch):
        for path in item.paths:
            seen.setdefault(path, None)
    return list(seen)


def lines_changed(patch: str) -> int:
    """Lines added plus lines removed by *patch*'s hunks (0 for an empty patch)."""
    return sum(
        sum(1 for tag, _ in hunk.lines if tag != " ")
        for item in parse_patch(patch)
        for hunk in item.hunks
    )
