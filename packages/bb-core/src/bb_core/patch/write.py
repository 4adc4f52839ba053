"""One file's section of a git diff, byte for byte as ``git diff`` writes it.

:func:`write_file_diff` is the only writer of diff sections: the reference patches that
mining takes from a repository's history (``git diff --no-renames``: abbreviated blob ids,
binary files noted as ``Binary files ... differ``) and the patches made by comparing two
trees on disk (``git diff --binary --full-index -M``: full blob ids, binary files as
``GIT binary patch`` literals, exact renames) both come from it. Paths are quoted as git
quotes them (``core.quotePath``: control characters, ``"``, ``\\`` and every byte above
0x7F), and a ``---``/``+++`` name holding a space ends with a tab, as in git.

Binary literals are always whole (``literal``), never git's ``delta``: for a changed
binary file whose delta would be smaller, ``git diff --binary`` writes a delta where this
writes a literal; both apply to the same result.
"""

from __future__ import annotations

import base64
import zlib
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from bb_core.patch.lines import unified_hunks
from bb_core.patch.model import NULL_SHA, blob_sha

#: How many leading bytes git looks at for a NUL when it decides a file is binary.
FIRST_FEW_BYTES = 8000

_ESCAPES = {0x07: b"a", 0x08: b"b", 0x09: b"t", 0x0A: b"n", 0x0B: b"v", 0x0C: b"f",
            0x0D: b"r", 0x22: b'"', 0x5C: b"\\"}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Side:
    """One side of a file's change: its path, git mode (``"100644"``), bytes and blob id.

    *sha* is the blob id as the repository knows it (a submodule's commit, for one);
    when None it is computed from *data*.
    """

    path: str
    mode: str
    data: bytes
    sha: str | None = None

    @property
    def blob(self) -> str:
        return self.sha if self.sha is not None else blob_sha(self.data)


def quote_path(name: str) -> bytes:
    """*name* as git writes it in a diff: C-quoted when it holds a byte git escapes."""
    raw = name.encode("utf-8", "surrogateescape")
    if not any(byte < 0x20 or byte >= 0x7F or byte in (0x22, 0x5C) for byte in raw):
        return raw
    out = bytearray(b'"')
    for byte in raw:
        if byte in _ESCAPES:
            out += b"\\" + _ESCAPES[byte]
        elif byte < 0x20 or byte >= 0x7F:
            out += b"\\%03o" % byte
        else:
            out.append(byte)
    out += b'"'
    return bytes(out)


def is_binary(data: bytes) -> bool:
    """Whether git treats *data* as binary: a NUL among its first 8000 bytes."""
    return b"\0" in data[:FIRST_FEW_BYTES]


def _travels_as_binary(data: bytes) -> bool:
    """Whether *data* must go as a binary literal in a patch kept as UTF-8 text."""
    if b"\0" in data:
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def encode_literal(data: bytes) -> bytes:
    """A ``literal N`` hunk of a ``GIT binary patch``: zlib, then base85 in 52-byte lines.

    Compressed at zlib's level 1, git's own (``core.compression`` unset), so the bytes
    are the ones ``git diff --binary`` writes.
    """
    packed = zlib.compress(data, 1)
    out = [b"literal %d\n" % len(data)]
    for at in range(0, len(packed), 52):
        chunk = packed[at : at + 52]
        size = len(chunk)
        code = ord("A") + size - 1 if size <= 26 else ord("a") + size - 27
        out.append(bytes([code]) + base64.b85encode(chunk, pad=True) + b"\n")
    out.append(b"\n")
    return b"".join(out)


def _kind(mode: str) -> int:
    """The type bits of a git mode: file, symlink or submodule."""
    return int(mode, 8) & 0o170000


def _label(prefix: str, side: Side | None) -> bytes:
    return b"/dev/null" if side is None else quote_path(prefix + side.path)


def write_file_diff(
    old: Side | None,
    new: Side | None,
    *,
    full_index: bool = True,
    binary_literals: bool = True,
) -> bytes:
    """The ``diff --git`` section that turns *old* into *new* (None: the file is absent).

    *full_index* writes 40-character blob ids (``--full-index``), else 7 (git's short
    ids). With *binary_literals* a binary change travels as ``GIT binary patch`` literals
    (``--binary``), and so does any content that is not UTF-8, so the patch is UTF-8
    text; without, git's ``Binary files ... differ`` note stands for it. Two sides with
    different paths are a rename and must hold the same content (an exact rename); two
    of different types (a file and a symlink) are written as a deletion and a creation.
    """
    if old is None:
        if new is None:
            raise ValueError("a file diff needs at least one side")
        a_name = b_name = new.path
    else:
        a_name, b_name = old.path, (new or old).path
    if old is not None and new is not None and _kind(old.mode) != _kind(new.mode):
        # git writes a change of type (a file become a symlink) as a deletion and a creation.
        options = {"full_index": full_index, "binary_literals": binary_literals}
        return write_file_diff(old, None, **options) + write_file_diff(None, new, **options)
    out = [b"diff --git " + quote_path("a/" + a_name) + b" " + quote_path("b/" + b_name) + b"\n"]
    if old is None and new is not None:
        out.append(b"new file mode %s\n" % new.mode.encode())
    elif new is None and old is not None:
        out.append(b"deleted file mode %s\n" % old.mode.encode())
    elif old is not None and new is not None and old.mode != new.mode:
        out.append(b"old mode %s\nnew mode %s\n" % (old.mode.encode(), new.mode.encode()))
    if old is not None and new is not None and old.path != new.path:
        if old.data != new.data:
            raise ValueError(f"{old.path} -> {new.path}: only exact renames are written")
        out.append(b"similarity index 100%\n")
        out.append(b"rename from " + quote_path(old.path) + b"\n")
        out.append(b"rename to " + quote_path(new.path) + b"\n")
    old_data = old.data if old is not None else b""
    new_data = new.data if new is not None else b""
    if old is not None and new is not None and old_data == new_data:
        return b"".join(out)  # a change of mode or name only
    width = 40 if full_index else 7
    old_id = (old.blob if old is not None else NULL_SHA)[:width]
    new_id = (new.blob if new is not None else NULL_SHA)[:width]
    index = b"index %s..%s" % (old_id.encode(), new_id.encode())
    if old is not None and new is not None and old.mode == new.mode:
        index += b" " + old.mode.encode()
    out.append(index + b"\n")
    old_label, new_label = _label("a/", old), _label("b/", new)
    binary = is_binary(old_data) or is_binary(new_data)
    if binary_literals and not binary:
        binary = _travels_as_binary(old_data) or _travels_as_binary(new_data)
    if binary and binary_literals:
        out += [b"GIT binary patch\n", encode_literal(new_data), encode_literal(old_data)]
    elif binary:
        out.append(b"Binary files " + old_label + b" and " + new_label + b" differ\n")
    elif old_data or new_data:
        out.append(b"--- " + old_label + (b"\t" if b" " in old_label else b"") + b"\n")
        out.append(b"+++ " + new_label + (b"\t" if b" " in new_label else b"") + b"\n")
        out.extend(unified_hunks(old_data, new_data))
    return b"".join(out)


def pair_renames(
    deleted: Sequence[tuple[str, Hashable]], added: Sequence[tuple[str, Hashable]]
) -> list[tuple[str, str]]:
    """``(old, new)`` pairs of a deleted and an added path with the same content key.

    Each item is ``(path, key)``; a key identifies content (a blob id, or the bytes).
    Each added path, in order, takes a deleted one of its key, preferring one with the
    same file name (as git's exact rename detection does), else the first.
    """
    by_key: dict[Hashable, list[str]] = {}
    for path, key in deleted:
        by_key.setdefault(key, []).append(path)
    pairs = []
    for path, key in added:
        candidates = by_key.get(key)
        if not candidates:
            continue
        name = PurePosixPath(path).name
        same_name = [c for c in candidates if PurePosixPath(c).name == name]
        old = (same_name or candidates)[0]
        candidates.remove(old)
        pairs.append((old, path))
    return pairs
