"""Patches as git writes them: made by comparing two trees on disk, applied exactly.

:func:`diff_trees` compares a pristine base tree with the tree an agent left behind and
writes a git-style unified diff (``git diff --binary --full-index -M`` format): added,
deleted and renamed files (a rename is a deleted and an added file with identical
content), mode changes, symlinks (their target, never followed) and binary files (git's
``GIT binary patch`` literals, zlib + base85). :func:`apply_patch` applies such a patch -
or any git patch with exact hunks and literal binaries - to a tree, exactly: a hunk whose
context does not match where it says raises :class:`PatchError`, and nothing is written
unless every file applies. :func:`split_patch` cuts a patch into its source and test
parts with unidiff.
"""

from __future__ import annotations

import base64
import difflib
import fnmatch
import hashlib
import os
import re
import stat
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import unidiff

from bb_core.errors import BbError
from bb_core.paths import under

MODE_FILE = "100644"
MODE_EXEC = "100755"
MODE_LINK = "120000"
NULL_SHA = "0" * 40
CONTEXT = 3

#: Names (matched against every path component) left out of both trees: caches that
#: running Python and its tools leaves behind, and any ``.git``.
DEFAULT_IGNORE = (
    ".git",
    "__pycache__",
    "*.pyc",
    "*.pyo",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".hypothesis",
    ".tox",
    ".nox",
    ".coverage",
    "*.egg-info",
)

#: Files larger than this are not put in a patch; they are flagged instead.
MAX_FILE_BYTES = 8 * 1024 * 1024

_NO_NEWLINE = "\\ No newline at end of file"
_B85 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~"


class PatchError(BbError):
    """A patch that cannot be read, or that does not apply exactly to a tree."""


# -- reading a tree ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Entry:
    """One file of a tree: its git mode and its bytes (for a symlink, its target)."""

    mode: str
    data: bytes

    @property
    def is_link(self) -> bool:
        return self.mode == MODE_LINK


@dataclass
class Tree:
    """The files of a directory by relative POSIX path, and what was odd about them."""

    entries: dict[str, Entry] = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)


def _ignored(name: str, ignore: tuple[str, ...]) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in ignore)


def read_tree(root: Path, *, ignore: tuple[str, ...] = DEFAULT_IGNORE) -> Tree:
    """Every file and symlink under *root*, never following a symlink.

    A symlink whose target lies outside *root* is kept (as a link) and flagged
    ``symlink-outside:<path> -> <target>``; special files, unreadable and oversized files
    are left out and flagged.
    """
    tree = Tree()
    root = Path(root)

    def walk(folder: Path, prefix: str) -> None:
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            tree.flags.append(f"unreadable:{prefix.rstrip('/') or '.'}: {exc.strerror}")
            return
        for item in entries:
            if _ignored(item.name, ignore):
                continue
            rel = prefix + item.name
            try:
                info = item.stat(follow_symlinks=False)
            except OSError as exc:
                tree.flags.append(f"unreadable:{rel}: {exc.strerror}")
                continue
            if stat.S_ISLNK(info.st_mode):
                target = os.readlink(item.path)
                tree.entries[rel] = Entry(MODE_LINK, os.fsencode(target))
                if link_leaves_tree(rel, target):
                    tree.flags.append(f"symlink-outside:{rel} -> {target}")
            elif stat.S_ISDIR(info.st_mode):
                walk(Path(item.path), rel + "/")
            elif stat.S_ISREG(info.st_mode):
                if info.st_size > MAX_FILE_BYTES:
                    tree.flags.append(f"oversized:{rel} ({info.st_size} bytes)")
                    continue
                try:
                    data = Path(item.path).read_bytes()
                except OSError as exc:
                    tree.flags.append(f"unreadable:{rel}: {exc.strerror}")
                    continue
                mode = MODE_EXEC if info.st_mode & 0o111 else MODE_FILE
                tree.entries[rel] = Entry(mode, data)
            else:
                tree.flags.append(f"special-file:{rel}")

    walk(root, "")
    return tree


def link_leaves_tree(rel: str, target: str) -> bool:
    """Whether a symlink at *rel* pointing at *target* resolves outside its tree."""
    if os.path.isabs(target):
        return True
    joined = os.path.normpath(os.path.join(os.path.dirname(rel), target))
    return joined == ".." or joined.startswith("../")


# -- writing a diff ------------------------------------------------------------------


def blob_sha(data: bytes) -> str:
    """The git blob id of *data*."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def _quote(name: str) -> str:
    """A path as git writes it in a diff: C-quoted when it holds special characters."""
    if not any(c in '"\\' or ord(c) < 0x20 or ord(c) == 0x7F for c in name):
        return name
    escapes = {"\t": "\\t", "\n": "\\n", '"': '\\"', "\\": "\\\\", "\a": "\\a",
               "\b": "\\b", "\f": "\\f", "\r": "\\r", "\v": "\\v"}  # fmt: skip
    out = []
    for c in name:
        if c in escapes:
            out.append(escapes[c])
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            out.append(f"\\{ord(c):03o}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def _file_header(marker: str, name: str | None, prefix: str) -> str:
    if name is None:
        return f"{marker} /dev/null\n"
    quoted = _quote(prefix + name)
    # git ends the name with a tab when it holds a space, so patch(1) reads it whole.
    tab = "\t" if " " in name and quoted[0] != '"' else ""
    return f"{marker} {quoted}{tab}\n"


def _text(entry: Entry | None) -> str | None:
    """The entry's content as text, or None when it must travel as binary."""
    if entry is None:
        return ""
    if b"\0" in entry.data:
        return None
    try:
        return entry.data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def split_lines(text: str) -> list[str]:
    """Lines of *text*, each with its ``\\n``; only ``\\n`` ends a line (``\\r`` is content)."""
    if not text:
        return []
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _range(start: int, stop: int) -> str:
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start + (1 if length else 0)},{length}"


def _emit(prefix: str, line: str) -> str:
    if line.endswith("\n"):
        return prefix + line
    return f"{prefix}{line}\n{_NO_NEWLINE}\n"


def _hunks(old: str, new: str) -> str:
    a, b = split_lines(old), split_lines(new)
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    out: list[str] = []
    for group in matcher.get_grouped_opcodes(CONTEXT):
        first, last = group[0], group[-1]
        out.append(f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(_emit(" ", line) for line in a[i1:i2])
                continue
            out.extend(_emit("-", line) for line in a[i1:i2])
            out.extend(_emit("+", line) for line in b[j1:j2])
    return "".join(out)


def _encode_literal(data: bytes) -> str:
    packed = zlib.compress(data, 9)
    lines = [f"literal {len(data)}\n"]
    for at in range(0, len(packed), 52):
        chunk = packed[at : at + 52]
        size = len(chunk)
        code = chr(ord("A") + size - 1) if size <= 26 else chr(ord("a") + size - 27)
        lines.append(code + base64.b85encode(chunk, pad=True).decode() + "\n")
    return "".join(lines) + "\n"


def _section(
    old_path: str | None, new_path: str | None, old: Entry | None, new: Entry | None
) -> str:
    a_name = old_path if old_path is not None else new_path
    b_name = new_path if new_path is not None else old_path
    assert a_name is not None and b_name is not None
    head = [f"diff --git {_quote('a/' + a_name)} {_quote('b/' + b_name)}\n"]
    if old is None and new is not None:
        head.append(f"new file mode {new.mode}\n")
    elif new is None and old is not None:
        head.append(f"deleted file mode {old.mode}\n")
    elif old is not None and new is not None and old.mode != new.mode:
        head += [f"old mode {old.mode}\n", f"new mode {new.mode}\n"]
    if old_path is not None and new_path is not None and old_path != new_path:
        head += ["similarity index 100%\n", f"rename from {_quote(old_path)}\n",
                 f"rename to {_quote(new_path)}\n"]  # fmt: skip
    old_data = old.data if old is not None else b""
    new_data = new.data if new is not None else b""
    if old is not None and new is not None and old_data == new_data:
        return "".join(head)
    index = f"index {blob_sha(old_data) if old else NULL_SHA}..{blob_sha(new_data) if new else NULL_SHA}"
    if old is not None and new is not None and old.mode == new.mode:
        index += f" {old.mode}"
    head.append(index + "\n")
    old_text, new_text = _text(old), _text(new)
    if old_text is None or new_text is None:
        head.append("GIT binary patch\n")
        head.append(_encode_literal(new_data))
        head.append(_encode_literal(old_data))
        return "".join(head)
    if not old_data and not new_data:
        return "".join(head)
    head.append(_file_header("---", old_path if old is not None else None, "a/"))
    head.append(_file_header("+++", new_path if new is not None else None, "b/"))
    head.append(_hunks(old_text, new_text))
    return "".join(head)


def _pair_renames(
    added: list[str], deleted: list[str], base: Tree, work: Tree
) -> list[tuple[str, str]]:
    """(old, new) pairs of a deleted and an added file with identical, non-empty content."""
    by_content: dict[tuple[bool, bytes], list[str]] = {}
    for path in deleted:
        entry = base.entries[path]
        if entry.data:
            by_content.setdefault((entry.is_link, entry.data), []).append(path)
    pairs = []
    for path in added:
        entry = work.entries[path]
        candidates = by_content.get((entry.is_link, entry.data))
        if not candidates:
            continue
        name = PurePosixPath(path).name
        same_name = [c for c in candidates if PurePosixPath(c).name == name]
        old = (same_name or candidates)[0]
        candidates.remove(old)
        pairs.append((old, path))
    return pairs


@dataclass
class TreeDiff:
    """What changed between two trees: the patch, the paths it touches, and flags."""

    patch: str
    changed: list[str]
    flags: list[str]


def compare_trees(
    base_dir: Path,
    work_dir: Path,
    *,
    ignore: tuple[str, ...] = DEFAULT_IGNORE,
    leave_out: Callable[[str], bool] | None = None,
) -> TreeDiff:
    """The git-style diff from *base_dir* to *work_dir*, with the work tree's flags.

    A file that is new in *work_dir* and for which *leave_out* says True (a file the base
    tree's ``.gitignore`` ignores, see :class:`bb_core.ignores.GitIgnores`) is no part of
    the diff; a file the base tree has always is, whatever the rules say, as in git.
    """
    base = read_tree(Path(base_dir), ignore=ignore)
    work = read_tree(Path(work_dir), ignore=ignore)
    deleted = sorted(set(base.entries) - set(work.entries))
    added = sorted(set(work.entries) - set(base.entries))
    if leave_out is not None:
        added = [path for path in added if not leave_out(path)]
    sections: list[tuple[str, str]] = []
    for old, new in _pair_renames(added, deleted, base, work):
        added.remove(new)
        deleted.remove(old)
        sections.append((new, _section(old, new, base.entries[old], work.entries[new])))
    for path in sorted(set(base.entries) & set(work.entries)):
        before, after = base.entries[path], work.entries[path]
        if before == after:
            continue
        if before.is_link != after.is_link:
            # git writes a change of type as a deletion followed by a creation.
            sections.append((path, _section(path, None, before, None)))
            sections.append((path + "\0", _section(None, path, None, after)))
        else:
            sections.append((path, _section(path, path, before, after)))
    sections += [(path, _section(path, None, base.entries[path], None)) for path in deleted]
    sections += [(path, _section(None, path, None, work.entries[path])) for path in added]
    sections.sort(key=lambda item: item[0])
    patch = "".join(text for _, text in sections)
    return TreeDiff(patch=patch, changed=files_in_patch(patch), flags=work.flags)


def diff_trees(base_dir: Path, work_dir: Path) -> str:
    """The git-style unified diff that turns *base_dir* into *work_dir*."""
    return compare_trees(base_dir, work_dir).patch


# -- reading a diff ------------------------------------------------------------------


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
        item.text = "\n".join(lines[start:at]) + "\n"
        files.append(item)
    return files


def files_in_patch(patch: str) -> list[str]:
    """Every path a patch touches (both names of a rename), in patch order."""
    seen: dict[str, None] = {}
    for item in parse_patch(patch):
        for path in item.paths:
            seen.setdefault(path, None)
    return list(seen)


# -- splitting ----------------------------------------------------------------------

#: File names that are tests or test configuration wherever they are.
TEST_FILE_PATTERNS = ("test_*.py", "*_test.py", "conftest.py", "pytest.ini", "tox.ini")


def is_test_path(path: str, tests_dir: str) -> bool:
    """Whether *path* is a test file or test configuration of a project."""
    parts = PurePosixPath(path).parts
    tests_parts = PurePosixPath(tests_dir).parts if tests_dir not in ("", ".") else ()
    if tests_parts and parts[: len(tests_parts)] == tests_parts:
        return True
    name = PurePosixPath(path).name
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in TEST_FILE_PATTERNS)


def _section_texts(patch: str) -> list[str]:
    """The raw text of each ``diff --git`` section, exactly as written."""
    starts = [m.start() for m in re.finditer(r"(?m)^diff --git ", patch)]
    return [patch[a:b] for a, b in zip(starts, [*starts[1:], len(patch)], strict=True)]


def split_patch(patch: str, source_dir: str, tests_dir: str) -> tuple[str, str]:
    """*patch* cut into ``(source_patch, test_patch)``.

    The test part holds every file under *tests_dir* and every test module or test
    configuration elsewhere (``test_*.py``, ``*_test.py``, ``conftest.py``, ``pytest.ini``,
    ``tox.ini``); the source part holds the other files under *source_dir*. Files that are
    neither (docs, packaging) are in neither part. A rename belongs to the test part if
    either of its names does.
    """
    if not patch.strip():
        return "", ""
    try:
        parsed = unidiff.PatchSet(patch)
    except unidiff.UnidiffParseError as exc:
        raise PatchError(f"cannot read the patch: {exc}") from exc
    raw = _section_texts(patch)
    if len(raw) != len(parsed):
        raise PatchError("cannot split a patch that is not in git's format")
    source: list[str] = []
    tests: list[str] = []
    for text, item in zip(raw, parsed, strict=True):
        names = {_strip_prefix(item.source_file), _strip_prefix(item.target_file)} - {None}
        if not names:
            names = {item.path}
        if any(is_test_path(str(n), tests_dir) for n in names):
            tests.append(text)
        elif all(under(str(n), source_dir) for n in names):
            source.append(text)
    return "".join(source), "".join(tests)


# -- applying ------------------------------------------------------------------------


def _check_path(path: str) -> str:
    pure = PurePosixPath(path)
    if not path or pure.is_absolute() or any(p in ("..", ".git", "") for p in pure.parts):
        raise PatchError(f"refusing to apply a patch to an unsafe path: {path!r}")
    return path


class _Overlay:
    """The destination tree with the changes planned so far laid over it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.planned: dict[str, Entry | None] = {}

    def _check_parents(self, path: str) -> None:
        for parent in reversed(PurePosixPath(path).parents[:-1]):
            name = str(parent)
            if name in self.planned:
                entry = self.planned[name]
                if entry is not None:
                    raise PatchError(f"{path}: its folder {name} is a file in the patch")
                continue
            on_disk = self.root / name
            if on_disk.is_symlink():
                raise PatchError(f"{path}: refusing to apply through the symlink {name}")
            if on_disk.exists() and not on_disk.is_dir():
                raise PatchError(f"{path}: its folder {name} is a file in {self.root}")

    def read(self, path: str) -> Entry | None:
        if path in self.planned:
            return self.planned[path]
        self._check_parents(path)
        target = self.root / path
        try:
            info = target.lstat()
        except (FileNotFoundError, NotADirectoryError):
            return None
        if stat.S_ISLNK(info.st_mode):
            return Entry(MODE_LINK, os.fsencode(os.readlink(target)))
        if stat.S_ISDIR(info.st_mode):
            raise PatchError(f"{path}: is a folder in {self.root}")
        if not stat.S_ISREG(info.st_mode):
            raise PatchError(f"{path}: not a regular file in {self.root}")
        return Entry(MODE_EXEC if info.st_mode & 0o111 else MODE_FILE, target.read_bytes())

    def plan(self, path: str, entry: Entry | None) -> None:
        self._check_parents(path)
        self.planned[path] = entry


def _apply_hunks(path: str, old: bytes, hunks: list[Hunk]) -> bytes:
    try:
        lines = split_lines(old.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise PatchError(f"{path}: a text patch for a file that is not UTF-8 text") from exc
    out: list[str] = []
    at = 0
    for hunk in hunks:
        before = [text for tag, text in hunk.lines if tag in " -"]
        after = [text for tag, text in hunk.lines if tag in " +"]
        start = hunk.old_start - 1 if hunk.old_len else hunk.old_start
        if start < at or lines[start : start + len(before)] != before:
            raise PatchError(f"{path}: hunk {hunk.header} does not apply exactly")
        out.extend(lines[at:start])
        out.extend(after)
        at = start + len(before)
    out.extend(lines[at:])
    return "".join(out).encode("utf-8")


def _check_base(item: FilePatch, path: str, old: Entry) -> None:
    """Refuse when *old* is not the file the patch was made on (by its blob id)."""
    sha = item.old_sha
    if sha and len(sha) == 40 and sha != NULL_SHA and blob_sha(old.data) != sha:
        raise PatchError(f"{path}: the file differs from the one the patch was made on")


def _new_entry(item: FilePatch, old: Entry | None) -> Entry:
    path = item.path
    if old is not None:
        _check_base(item, path, old)
    if item.binary is not None:
        data = item.binary
    elif item.hunks:
        data = _apply_hunks(path, old.data if old else b"", item.hunks)
    else:
        data = old.data if old else b""
    mode = item.new_mode or (old.mode if old else MODE_FILE)
    return Entry(mode, data)


def _remove(root: Path, path: str) -> None:
    target = root / path
    if target.is_symlink() or target.exists():
        target.unlink()
    parent = target.parent
    while parent != root and parent.is_dir() and not any(parent.iterdir()):
        parent.rmdir()
        parent = parent.parent


def _write(root: Path, path: str, entry: Entry) -> None:
    target = root / path
    if target.is_symlink() or target.is_file():
        target.unlink()
    target.parent.mkdir(parents=True, exist_ok=True)
    if entry.is_link:
        os.symlink(os.fsdecode(entry.data), target)
        return
    target.write_bytes(entry.data)
    target.chmod(0o755 if entry.mode == MODE_EXEC else 0o644)


def _plan(item: FilePatch, overlay: _Overlay, wanted: dict[str, bool]) -> None:
    root = overlay.root
    old = overlay.read(item.old_path) if item.old_path is not None else None
    if item.old_path is not None and old is None and wanted[item.old_path]:
        raise PatchError(f"{item.old_path}: not in {root}, so the patch cannot apply")
    if item.new_path is None:
        assert item.old_path is not None
        if wanted[item.old_path] and old is not None:
            _check_base(item, item.old_path, old)
            if item.hunks and _apply_hunks(item.old_path, old.data, item.hunks):
                raise PatchError(f"{item.old_path}: the deletion does not remove the whole file")
            overlay.plan(item.old_path, None)
        return
    renamed = item.old_path is not None and item.old_path != item.new_path
    if renamed and wanted[str(item.old_path)]:
        overlay.plan(str(item.old_path), None)
    if not wanted[item.new_path]:
        return
    if item.old_path is None and overlay.read(item.new_path) is not None:
        raise PatchError(f"{item.new_path}: already exists in {root}")
    if old is None and item.old_path is not None:
        old = overlay.read(item.old_path)  # a rename whose old name is dropped
    overlay.plan(item.new_path, _new_entry(item, old))


def apply_patch(
    patch: str, dest: Path, *, include: Callable[[str], bool] | None = None
) -> tuple[list[str], list[str]]:
    """Apply *patch* to the tree at *dest*; return ``(applied_paths, dropped_paths)``.

    *include* decides per path (each name of a rename on its own) whether a change is
    applied; the others are dropped. Every hunk must match exactly where it says, and a
    file's recorded blob id must match; otherwise :class:`PatchError` is raised and
    nothing is written. Paths that leave the tree, enter ``.git`` or pass through a
    symlink are refused.
    """
    root = Path(dest)
    overlay = _Overlay(root)
    applied: dict[str, None] = {}
    dropped: dict[str, None] = {}
    for item in parse_patch(patch):
        wanted = {_check_path(p): include is None or include(p) for p in item.paths}
        _plan(item, overlay, wanted)
        for path, keep in wanted.items():
            (applied if keep else dropped).setdefault(path, None)
    for path, entry in overlay.planned.items():
        if entry is None:
            _remove(root, path)
    for path, entry in overlay.planned.items():
        if entry is not None:
            _write(root, path, entry)
    return list(applied), list(dropped)
