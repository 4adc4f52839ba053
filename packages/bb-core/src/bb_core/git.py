"""Read git repositories with dulwich: history, changes, blobs, trees and diffs.

Never the git command line. A repository is opened from a local path, or cloned from a URL
(``file://`` included) into a bare mirror under ``BUGBOUT_HOME/repos`` that later opens
bring up to date. Everything here reads; nothing writes to the user's repository.

Open repositories with ``with open_repo(...) as repo:`` (or call :meth:`Repo.close`):
dulwich keeps pack files open, and a repository left open prints noise on stderr when the
interpreter shuts down. A :class:`Repo` keeps caches (trees, resolved deltas) and is not
thread-safe: give each thread its own, or share one behind a lock.
"""

from __future__ import annotations

import binascii
import io
import os
import re
import shutil
import stat
import zlib
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from dulwich.errors import NotGitRepository
from dulwich.objects import Blob, Tree, parse_tree
from dulwich.objects import Commit as DulwichCommit
from dulwich.pack import apply_delta
from dulwich.repo import Repo as DulwichRepo

from bb_core.errors import GitError
from bb_core.packs import PackFile
from bb_core.patch import Side, pair_renames, write_file_diff
from bb_core.store import cache_key, home_dir

_URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://|^[\w.-]+@[\w.-]+:")
_HEX40 = re.compile(r"^[0-9a-f]{40}$")
#: URLs whose mirror was cloned or fetched by this process: later opens reuse it as is.
_FETCHED: set[str] = set()
#: How many parsed trees a repository keeps in memory.
_TREE_CACHE = 4096
#: What makes the pack reader hand over to dulwich's general lookup: another dulwich, a
#: thin pack, a pack it cannot map or an entry it cannot read.
_FAST_PATH_ERRORS = (
    AttributeError,
    TypeError,
    ValueError,
    AssertionError,
    KeyError,
    OSError,
    zlib.error,
)
#: Resolved delta bases kept per repository, and the largest object worth keeping.
_RESOLVED_CACHE = 4096
_RESOLVED_MAX_BYTES = 1 << 20
#: Recently read file contents kept per repository (a fix's files are read for its tests,
#: its patches and its names; configuration files are read for every fix).
_BLOB_CACHE = 64

#: Change types, as :attr:`Change.type` spells them.
ADD, MODIFY, DELETE, RENAME = "add", "modify", "delete", "rename"


@dataclass(frozen=True, slots=True)
class Commit:
    """One commit as the miners see it; ``date`` is the committer date (when it landed).

    ``timestamp`` is that date in seconds. The dates and the author are read from the
    signature lines when asked for: a walk over a long history needs only the seconds.
    """

    sha: str
    parents: tuple[str, ...]
    title: str
    message: str
    timestamp: int
    author_line: bytes = field(repr=False)
    committer_line: bytes = field(repr=False)

    @property
    def is_merge(self) -> bool:
        return len(self.parents) > 1

    @property
    def date(self) -> datetime:
        return _signature(self.committer_line or self.author_line)[1]

    @property
    def author(self) -> str:
        return _signature(self.author_line)[0]

    @property
    def author_date(self) -> datetime:
        return _signature(self.author_line)[1]


@dataclass(frozen=True, slots=True)
class Change:
    """A path that differs between two commits. ``old_path`` is set for renames only."""

    path: str
    old_path: str | None
    type: str
    old_mode: int | None = None
    new_mode: int | None = None
    old_sha: str | None = None
    new_sha: str | None = None


def is_url(location: str) -> bool:
    """True for ``scheme://...`` and ``user@host:path`` locations."""
    return bool(_URL.match(location))


def open_repo(path_or_url: str | os.PathLike[str], *, refresh: bool = False) -> Repo:
    """Open a repository by local path, or a URL's mirror in BUGBOUT_HOME.

    A URL is cloned (bare) the first time, and fetched the first time each process opens
    it, so one run sees one state of the remote; *refresh* fetches again regardless.
    """
    location = os.fspath(path_or_url)
    if is_url(location):
        return _open_mirror(location, refresh=refresh)
    path = Path(location).expanduser()
    if not path.exists():
        raise GitError(f"{location}: no such directory")
    try:
        inner = DulwichRepo.discover(str(path))
    except NotGitRepository as exc:
        raise GitError(f"{location}: not a git repository") from exc
    return Repo(inner, location=location, name=_repo_name(Path(inner.path).resolve().name))


def _repo_name(text: str) -> str:
    name = text.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    if name.endswith(".git"):
        name = name[: -len(".git")]
    name = re.sub(r"[^A-Za-z0-9_.-]", "-", name)
    return name or "repo"


_UNRESOLVED = re.compile(
    r"Failed to resolve '([^']+)'|getaddrinfo failed|Name or service not known"
)
_HOST = re.compile(r"host='([^']+)'")


def network_problem(exc: BaseException) -> str:
    """What went wrong reaching a remote, in words: the HTTP client's own message (a
    retry pool, a wrapped resolver error) names the host and the cause in one long line."""
    text = str(exc)
    host = _HOST.search(text)
    where = host[1] if host else "the server"
    unresolved = _UNRESOLVED.search(text)
    if unresolved:
        name = unresolved[1] or where
        return f"cannot reach {name}: the name does not resolve (no network, or no DNS)"
    for needle, said in (
        ("Connection refused", "the connection was refused"),
        ("timed out", "the connection timed out"),
        ("Network is unreachable", "the network is unreachable"),
        ("CERTIFICATE_VERIFY_FAILED", "its TLS certificate is not trusted here"),
    ):
        if needle in text:
            return f"cannot reach {where}: {said}"
    return text if len(text) <= 300 else text[:299] + "\u2026"


def _open_mirror(url: str, *, refresh: bool = False) -> Repo:
    from dulwich import porcelain
    from dulwich.client import get_transport_and_path

    dest = home_dir("repos") / cache_key("mirror", url)
    sink = io.BytesIO()
    try:
        if (dest / "HEAD").exists() and url in _FETCHED and not refresh:
            inner = DulwichRepo(str(dest))  # brought up to date earlier in this process
        elif (dest / "HEAD").exists():
            inner = DulwichRepo(str(dest))
            try:
                client, remote_path = get_transport_and_path(url)
                result = client.fetch(remote_path, inner, progress=lambda data: None)
                _mirror_refs(inner, result.refs, getattr(result, "symrefs", {}) or {})
            except BaseException:
                inner.close()
                raise
        else:
            dest.parent.mkdir(parents=True, exist_ok=True)
            partial = dest.with_name(dest.name + ".partial")
            shutil.rmtree(partial, ignore_errors=True)
            try:
                cloned = porcelain.clone(url, str(partial), bare=True, errstream=sink)
                cloned.close()
            except BaseException:
                shutil.rmtree(partial, ignore_errors=True)
                raise
            os.replace(partial, dest)
            inner = DulwichRepo(str(dest))
    except GitError:
        raise
    except Exception as exc:  # dulwich raises many kinds for an unreachable remote
        raise GitError(f"{url}: cannot clone: {network_problem(exc)}") from exc
    _FETCHED.add(url)
    return Repo(inner, location=url, name=_repo_name(url))


def _mirror_refs(inner: Any, refs: Mapping[Any, Any], symrefs: Mapping[Any, Any]) -> None:
    """Make the mirror's branches and HEAD match the remote after a fetch."""
    for ref, sha in refs.items():
        if ref.startswith((b"refs/heads/", b"refs/tags/")) and sha in inner.object_store:
            inner.refs[ref] = sha
    head = symrefs.get(b"HEAD")
    if head:
        inner.refs.set_symbolic_ref(b"HEAD", head)


class Repo:
    """A dulwich repository with the few reads bugbout needs. Close it when done."""

    def __init__(self, inner: DulwichRepo, *, location: str, name: str) -> None:
        self._repo = inner
        # dulwich's NewTypes for object ids and ref names add nothing over bytes here.
        self._store: Any = inner.object_store
        self._refs: Any = inner.refs
        self._packs: list[Any] = list(inner.object_store.packs)
        self._pack_files: list[PackFile] | None = None  # mapped on first read
        self._fast = True
        self._commit_trees: dict[str, bytes] = {}
        self._resolved: OrderedDict[tuple[int, int], tuple[int, bytes]] = OrderedDict()
        self._trees: OrderedDict[bytes, dict[str, tuple[int, bytes]]] = OrderedDict()
        self._blobs: OrderedDict[bytes, bytes] = OrderedDict()
        self.location = location
        self.name = name
        self.path = Path(inner.path)

    # -- lifetime -------------------------------------------------------------------------

    def close(self) -> None:
        for pack_file in self._pack_files or ():
            pack_file.close()
        self._pack_files = None
        self._repo.close()

    def __enter__(self) -> Repo:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- refs -----------------------------------------------------------------------------

    def is_empty(self) -> bool:
        """True when no branch has a commit yet."""
        return not any(ref.startswith(b"refs/heads/") for ref in self._refs.allkeys())

    def branches(self) -> list[str]:
        prefix = b"refs/heads/"
        return sorted(
            r[len(prefix) :].decode() for r in self._refs.allkeys() if r.startswith(prefix)
        )

    def default_branch(self) -> str:
        """The branch HEAD points to, else ``main`` or ``master`` when present."""
        try:
            target = self._refs.get_symrefs().get(b"HEAD")
        except Exception:  # a broken HEAD file is the same as none
            target = None
        if target and target.startswith(b"refs/heads/"):
            name = target[len(b"refs/heads/") :].decode()
            if name in self.branches() or not self.branches():
                return name
        for name in ("main", "master"):
            if name in self.branches():
                return name
        if self.is_empty():
            raise GitError(f"{self.location}: empty repository (no commits)")
        raise GitError(f"{self.location}: cannot tell the default branch; name one")

    def resolve(self, ref: str) -> str:
        """The commit sha that *ref* (branch, tag, sha or short sha, HEAD) names."""
        refs = self._refs
        candidates = (
            [ref]
            if ref.startswith("refs/")
            else [
                f"refs/heads/{ref}",
                f"refs/tags/{ref}",
                f"refs/remotes/origin/{ref}",
                ref,
            ]
        )
        for name in candidates:
            key = name.encode()
            try:
                if key in refs:
                    return self._peel(refs[key])
            except KeyError:
                continue
        lowered = ref.lower()
        if _HEX40.match(lowered) and lowered.encode() in self._store:
            return self._peel(lowered.encode())
        if re.fullmatch(r"[0-9a-f]{4,39}", lowered):
            from dulwich.objectspec import parse_commit

            try:
                return parse_commit(self._repo, lowered.encode()).id.decode()
            except (KeyError, ValueError) as exc:
                raise GitError(f"{self.location}: unknown revision {ref!r}") from exc
        if ref in self.branches() or f"refs/heads/{ref}" in candidates:
            raise GitError(f"{self.location}: unknown branch {ref!r}")
        raise GitError(f"{self.location}: unknown revision {ref!r}")

    def _peel(self, sha: bytes) -> str:
        obj = self._store[sha]
        while not isinstance(obj, DulwichCommit):
            target = getattr(obj, "object", None)
            if target is None:
                raise GitError(f"{self.location}: {sha.decode()} is not a commit")
            obj = self._store[target[1]]
        return obj.id.decode()

    def branch_head(self, name: str) -> str:
        """The commit at the tip of branch *name* (a tag or a commit also do)."""
        for ref in (f"refs/heads/{name}", f"refs/remotes/origin/{name}"):
            if ref.encode() in self._refs:
                return self._peel(self._refs[ref.encode()])
        try:
            return self.resolve(name)
        except GitError:
            known = ", ".join(self.branches()) or "none"
            raise GitError(
                f"{self.location}: unknown branch {name!r} (branches: {known})"
            ) from None

    def remote_url(self, name: str = "origin") -> str | None:
        """The URL of remote *name*, when the repository has one."""
        try:
            value = self._repo.get_config().get((b"remote", name.encode()), b"url")
        except KeyError:
            return None
        return value.decode("utf-8", "replace") if value else None

    def has_branch(self, name: str) -> bool:
        return f"refs/heads/{name}".encode() in self._refs

    # -- history --------------------------------------------------------------------------

    def _raw(self, sha: bytes) -> tuple[int, bytes]:
        """(type number, content) of object *sha* (hex); KeyError when it is absent.

        Objects in packs are inflated straight from the mapped pack file at the pack
        index's offset, and deltas are resolved with their bases kept, so the next version
        of a tree or file (usually a delta on the same chain) costs one delta, not the
        whole chain. Loose objects, and anything this path does not know, take dulwich's
        general lookup.
        """
        if self._fast:
            try:
                if self._pack_files is None:
                    self._pack_files = [PackFile(pack) for pack in self._packs]
                binsha = binascii.unhexlify(sha)
                for index, pack_file in enumerate(self._pack_files):
                    try:
                        offset = pack_file.offset(binsha)
                    except KeyError:
                        continue
                    return self._resolve(index, pack_file, offset)
            except _FAST_PATH_ERRORS:
                self._fast = False  # another dulwich, or a thin pack: the general path works
        kind, raw = self._store.get_raw(sha)
        return kind, raw

    def _resolve(self, index: int, pack_file: PackFile, offset: int) -> tuple[int, bytes]:
        """The object at *offset* in *pack_file*, its delta chain applied."""
        chain: list[tuple[int, bytes]] = []
        resolved = self._resolved
        while True:
            hit = resolved.get((index, offset))
            if hit is not None:
                resolved.move_to_end((index, offset))
                kind, data = hit
                break
            kind, base, data = pack_file.entry(offset)
            if base is None:
                if chain:
                    self._keep(index, offset, kind, data)
                break
            chain.append((offset, data))
            offset = base if isinstance(base, int) else pack_file.offset(base)
        while chain:
            offset, delta = chain.pop()
            data = b"".join(apply_delta(data, delta))
            self._keep(index, offset, kind, data)
        return kind, data

    def _keep(self, index: int, offset: int, kind: int, data: bytes) -> None:
        if len(data) > _RESOLVED_MAX_BYTES:
            return
        self._resolved[(index, offset)] = (kind, data)
        if len(self._resolved) > _RESOLVED_CACHE:
            self._resolved.popitem(last=False)

    def _commit_raw(self, sha: str) -> bytes:
        try:
            kind, raw = self._raw(sha.encode())
        except KeyError as exc:
            raise GitError(f"{self.location}: unknown commit {sha}") from exc
        if kind != DulwichCommit.type_num:
            raise GitError(f"{self.location}: {sha} is not a commit")
        return raw

    def commit(self, sha: str) -> Commit:
        raw = self._commit_raw(sha)
        if raw.startswith(b"tree "):
            self._remember_tree(sha, raw[5:45])
        return _parse_commit(sha, raw)

    def first_parent(self, branch: str | None = None) -> Iterator[Commit]:
        """The first-parent history of *branch* (default branch when None), newest first."""
        sha: str | None = self.branch_head(branch if branch is not None else self.default_branch())
        while sha is not None:
            commit = self.commit(sha)
            yield commit
            sha = commit.parents[0] if commit.parents else None

    # -- trees ----------------------------------------------------------------------------

    def _tree_of(self, sha: str | None) -> bytes | None:
        if sha is None:
            return None
        tree = self._commit_trees.get(sha)
        if tree is None:
            raw = self._commit_raw(sha)
            if not raw.startswith(b"tree "):
                raise GitError(f"{self.location}: commit {sha} has no tree")
            tree = raw[5:45]
            self._remember_tree(sha, tree)
        return tree

    def _remember_tree(self, sha: str, tree: bytes) -> None:
        if len(self._commit_trees) >= _TREE_CACHE:
            self._commit_trees.clear()
        self._commit_trees[sha] = tree

    def _items(self, sha: bytes) -> dict[str, tuple[int, bytes]]:
        """The entries of tree *sha*: name -> (mode, sha); recently read trees are kept."""
        cached = self._trees.get(sha)
        if cached is not None:
            self._trees.move_to_end(sha)
            return cached
        kind, raw = self._raw(sha)
        if kind != Tree.type_num:
            raise GitError(f"{self.location}: {sha.decode()} is not a tree")
        items = {
            name.decode("utf-8", "surrogateescape"): (mode, entry_sha)
            for name, mode, entry_sha in _parse_tree(raw)
        }
        self._trees[sha] = items
        if len(self._trees) > _TREE_CACHE:
            self._trees.popitem(last=False)
        return items

    def read_object(self, sha: str | None) -> bytes | None:
        """The contents of blob *sha*, or None for None."""
        if sha is None:
            return None
        key = sha.encode()
        blobs = self._blobs
        raw = blobs.get(key)
        if raw is not None:
            blobs.move_to_end(key)
            return raw
        kind, raw = self._raw(key)
        if kind != Blob.type_num:
            return None
        if len(raw) <= _RESOLVED_MAX_BYTES:
            blobs[key] = raw
            if len(blobs) > _BLOB_CACHE:
                blobs.popitem(last=False)
        return raw

    def _entry(self, tree: bytes | None, path: str) -> tuple[int, bytes] | None:
        """(mode, sha) of *path* inside *tree*, or None; ``""`` is the tree itself."""
        if tree is None:
            return None
        if not path:
            return stat.S_IFDIR, tree
        current = tree
        mode = stat.S_IFDIR
        for part in path.split("/"):
            if not stat.S_ISDIR(mode):
                return None
            found = self._items(current).get(part)
            if found is None:
                return None
            mode, current = found
        return mode, current

    def exists(self, sha: str, path: str) -> bool:
        return self._entry(self._tree_of(sha), _norm(path)) is not None

    def is_dir(self, sha: str, path: str) -> bool:
        entry = self._entry(self._tree_of(sha), _norm(path))
        return entry is not None and stat.S_ISDIR(entry[0])

    def subfolders(self, sha: str, path: str = "") -> list[str]:
        """Names of the folders directly inside *path* at commit *sha*."""
        entry = self._entry(self._tree_of(sha), _norm(path))
        if entry is None or not stat.S_ISDIR(entry[0]):
            return []
        return sorted(
            name for name, (mode, _sha) in self._children(entry).items() if stat.S_ISDIR(mode)
        )

    def blob_id(self, sha: str, path: str) -> str | None:
        """The object id of file *path* at commit *sha*, or None when it is absent or a
        folder: a cheap way to tell whether a file changed between commits."""
        entry = self._entry(self._tree_of(sha), _norm(path))
        if entry is None or entry[0] == 0o160000 or stat.S_ISDIR(entry[0]):
            return None
        return entry[1].decode()

    def read_blob(self, sha: str, path: str) -> bytes | None:
        """The contents of *path* at commit *sha*, or None when it is absent or a folder."""
        entry = self._entry(self._tree_of(sha), _norm(path))
        if entry is None or entry[0] == 0o160000 or stat.S_ISDIR(entry[0]):
            return None
        return self.read_object(entry[1].decode())

    def list_files(self, sha: str, path: str = "") -> list[str]:
        """Every file path under *path* (a folder or a file) at commit *sha*."""
        norm = _norm(path)
        entry = self._entry(self._tree_of(sha), norm)
        if entry is None:
            return []
        return [p for p, _mode, _sha in self._walk(entry, norm)]

    def _walk(self, entry: tuple[int, bytes], prefix: str) -> Iterator[tuple[str, int, bytes]]:
        mode, sha = entry
        if not stat.S_ISDIR(mode):
            yield prefix, mode, sha
            return
        for name, child in self._items(sha).items():
            yield from self._walk(child, f"{prefix}/{name}" if prefix else name)

    # -- changes and diffs ----------------------------------------------------------------

    def changes(
        self, sha: str, parent_sha: str | None, paths: Sequence[str] | None = None
    ) -> list[Change]:
        """What changed from *parent_sha* (None: the empty tree) to *sha*.

        *paths* limits the comparison to those folders or files: subtrees that are the same
        on both sides are never opened, which is what makes mining long histories fast.
        """
        old_tree, new_tree = self._tree_of(parent_sha), self._tree_of(sha)
        out: list[Change] = []
        for prefix in _roots(paths):
            self._diff(self._entry(old_tree, prefix), self._entry(new_tree, prefix), prefix, out)
        return _pair_renames(out)

    def _diff(
        self,
        old: tuple[int, bytes] | None,
        new: tuple[int, bytes] | None,
        path: str,
        out: list[Change],
    ) -> None:
        if old == new:
            return
        old_dir = old is not None and stat.S_ISDIR(old[0])
        new_dir = new is not None and stat.S_ISDIR(new[0])
        if old_dir or new_dir:
            old_items = self._children(old) if old_dir else {}
            new_items = self._children(new) if new_dir else {}
            if old is not None and not old_dir:
                out.append(Change(path, None, DELETE, old[0], None, old[1].decode(), None))
            differ = {name for name, _entry in old_items.items() ^ new_items.items()}
            for name in sorted(differ):  # the names whose entries are not the same
                before, after = old_items.get(name), new_items.get(name)
                self._diff(before, after, f"{path}/{name}" if path else name, out)
            if new is not None and not new_dir:
                out.append(Change(path, None, ADD, None, new[0], None, new[1].decode()))
            return
        if old is None:
            assert new is not None
            out.append(Change(path, None, ADD, None, new[0], None, new[1].decode()))
        elif new is None:
            out.append(Change(path, None, DELETE, old[0], None, old[1].decode(), None))
        else:
            out.append(Change(path, None, MODIFY, old[0], new[0], old[1].decode(), new[1].decode()))

    def _children(self, entry: tuple[int, bytes] | None) -> dict[str, tuple[int, bytes]]:
        assert entry is not None
        return self._items(entry[1])

    def diff(self, sha_a: str | None, sha_b: str, paths: Sequence[str] | None = None) -> str:
        """A git-format unified diff from *sha_a* (None: empty tree) to *sha_b*.

        Renames are written as a deletion and an addition, so any patch tool applies it.
        """
        changes = self.changes(sha_b, sha_a, paths)
        return self.diff_changes(changes)

    def diff_changes(self, changes: Iterable[Change]) -> str:
        """The git-format diff of *changes* (as :meth:`changes` returns them), in path order."""
        sides: list[tuple[str, int | None, str | None, int | None, str | None]] = []
        for c in changes:
            if c.type == RENAME:  # a deletion and an addition, each at its own path's place
                sides.append((c.old_path or c.path, c.old_mode, c.old_sha, None, None))
                sides.append((c.path, None, None, c.new_mode, c.new_sha))
            else:
                sides.append((c.path, c.old_mode, c.old_sha, c.new_mode, c.new_sha))
        out = [self._file_diff(*side) for side in sorted(sides, key=lambda side: side[0])]
        return b"".join(out).decode("utf-8", "surrogateescape")

    def _file_diff(
        self,
        path: str,
        old_mode: int | None,
        old_sha: str | None,
        new_mode: int | None,
        new_sha: str | None,
    ) -> bytes:
        old = new = None
        if old_sha is not None and old_mode is not None:
            old = Side(path, f"{old_mode:o}", self._content(old_mode, old_sha), old_sha)
        if new_sha is not None and new_mode is not None:
            new = Side(path, f"{new_mode:o}", self._content(new_mode, new_sha), new_sha)
        return write_file_diff(old, new, full_index=False, binary_literals=False)

    def _content(self, mode: int | None, sha: str | None) -> bytes:
        if sha is None:
            return b""
        if mode == 0o160000:
            return b"Subproject commit " + sha.encode() + b"\n"
        return self.read_object(sha) or b""

    # -- checkouts ------------------------------------------------------------------------

    def materialize(
        self,
        sha: str,
        dest: str | os.PathLike[str],
        *,
        exclude: Iterable[str] = (),
        overlay: Mapping[str, bytes] | None = None,
    ) -> Path:
        """Write commit *sha*'s tree into *dest*: files with their modes, symlinks, no ``.git``.

        *exclude* holds repo-relative paths or folder prefixes to leave out; *overlay* files
        are written on top afterwards. Submodules become empty folders.
        """
        root = Path(dest)
        root.mkdir(parents=True, exist_ok=True)
        skip = [_norm(p) for p in exclude if _norm(p)]
        tree = self._tree_of(sha)
        assert tree is not None
        for path, mode, obj_sha in self._walk((stat.S_IFDIR, tree), ""):
            if _excluded(path, skip) or not _safe_path(path):
                continue
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            if mode == 0o160000:
                target.mkdir(exist_ok=True)
                continue
            data = self.read_object(obj_sha.decode()) or b""
            if stat.S_ISLNK(mode):
                if target.is_symlink() or target.exists():
                    target.unlink()
                os.symlink(data.decode("utf-8", "surrogateescape"), target)
                continue
            if target.is_symlink():
                target.unlink()
            target.write_bytes(data)
            target.chmod(0o755 if mode & 0o111 else 0o644)
        for rel, data in (overlay or {}).items():
            norm = _norm(rel)
            if not _safe_path(norm):
                raise GitError(f"refusing to write {rel!r} outside the checkout")
            target = root / norm
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.is_symlink():
                target.unlink()
            target.write_bytes(data)
        return root


def _parse_tree(raw: bytes) -> list[tuple[bytes, int, bytes]]:
    """(name, mode, hex sha) of each entry of a raw tree object."""
    parse: Any = parse_tree  # its signature changed when dulwich learnt SHA-256
    try:
        return list(parse(raw, 20))
    except TypeError:  # an older dulwich takes no hash length
        return list(parse(raw))


def _parse_commit(sha: str, raw: bytes) -> Commit:
    """A commit from its raw object text (headers, a blank line, the message)."""
    header, _, body = raw.partition(b"\n\n")
    parents: list[str] = []
    author = committer = b""
    encoding = "utf-8"
    for line in header.split(b"\n"):
        tag, _, value = line.partition(b" ")
        if tag == b"parent" and value:
            parents.append(value[:40].decode("ascii"))
        elif tag == b"author":
            author = value
        elif tag == b"committer":
            committer = value
        elif tag == b"encoding":
            encoding = value.decode("ascii", "replace").strip()
    try:
        message = body.decode(encoding, "replace")
    except LookupError:
        message = body.decode("utf-8", "replace")
    stripped = message.strip()
    # The first line as splitlines() sees it; a long message is not split whole.
    title = stripped.partition("\n")[0].splitlines()[0].strip() if stripped else ""
    return Commit(
        sha, tuple(parents), title, message, _seconds(committer or author), author, committer
    )


def _seconds(value: bytes) -> int:
    """The time of a signature line in seconds: what :func:`_signature` reads, without
    building a date (0 when it cannot be read, as the date is then the epoch)."""
    parts = value.rsplit(b" ", 2)
    try:
        seconds = int(parts[1])
        zone = parts[2]
        int(zone[-4:-2]), int(zone[-2:])
    except (IndexError, ValueError):
        return 0
    return seconds


def _signature(value: bytes) -> tuple[str, datetime]:
    """``Name <email> 1700000000 +0100`` -> ("Name <email>", aware datetime)."""
    parts = value.rsplit(b" ", 2)
    try:
        seconds = int(parts[1])
        zone = parts[2]
        sign = -1 if zone.startswith(b"-") else 1
        offset = sign * (int(zone[-4:-2]) * 3600 + int(zone[-2:]) * 60)
        who = parts[0]
    except (IndexError, ValueError):
        return value.decode("utf-8", "replace"), datetime.fromtimestamp(0, UTC)
    return who.decode("utf-8", "replace"), _when(seconds, offset)


def _when(seconds: int, offset: int) -> datetime:
    return datetime.fromtimestamp(seconds, timezone(timedelta(seconds=offset)))


def _norm(path: str) -> str:
    text = str(path).replace("\\", "/").strip("/")
    while text.startswith("./"):
        text = text[2:]
    return "" if text == "." else text


def _roots(paths: Sequence[str] | None) -> list[str]:
    """The distinct subtrees to compare; a path inside another requested one is dropped."""
    if paths is None:
        return [""]
    normed = sorted({_norm(p) for p in paths})
    if "" in normed:
        return [""]
    roots: list[str] = []
    for path in normed:
        if not any(path == r or path.startswith(r + "/") for r in roots):
            roots.append(path)
    return roots


def _excluded(path: str, prefixes: Sequence[str]) -> bool:
    return any(path == p or path.startswith(p + "/") for p in prefixes)


def _safe_path(path: str) -> bool:
    parts = path.split("/")
    return bool(path) and not any(p in ("", ".", "..", ".git") for p in parts)


def _pair_renames(changes: list[Change]) -> list[Change]:
    """Turn a deletion and an addition of the same blob into one rename."""
    gone = {c.path: c for c in changes if c.type == DELETE and c.old_sha}
    came = [(c.path, c.new_sha) for c in changes if c.type == ADD and c.new_sha]
    pairs = {
        new: gone[old] for old, new in pair_renames([(p, c.old_sha) for p, c in gone.items()], came)
    }
    paired = {old.path for old in pairs.values()}
    return [
        Change(
            c.path,
            pairs[c.path].path,
            RENAME,
            pairs[c.path].old_mode,
            c.new_mode,
            pairs[c.path].old_sha,
            c.new_sha,
        )
        if c.type == ADD and c.path in pairs
        else c
        for c in changes
        if not (c.type == DELETE and c.path in paired)
    ]
