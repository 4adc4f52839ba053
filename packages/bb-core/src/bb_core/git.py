"""Read git repositories with dulwich: history, changes, blobs, trees and diffs.

Never the git command line. A repository is opened from a local path, or cloned from a URL
(``file://`` included) into a bare mirror under ``BUGBOUT_HOME/repos`` that later opens
bring up to date. Everything here reads; nothing writes to the user's repository.

Open repositories with ``with open_repo(...) as repo:`` (or call :meth:`Repo.close`):
dulwich keeps pack files open, and a repository left open prints noise on stderr when the
interpreter shuts down.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import stat
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from dulwich.errors import NotGitRepository
from dulwich.objects import Blob, Tree
from dulwich.objects import Commit as DulwichCommit
from dulwich.patch import write_object_diff
from dulwich.repo import Repo as DulwichRepo

from bb_core.errors import GitError
from bb_core.store import cache_key, home_dir

_URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://|^[\w.-]+@[\w.-]+:")
_HEX40 = re.compile(r"^[0-9a-f]{40}$")

#: Change types, as :attr:`Change.type` spells them.
ADD, MODIFY, DELETE, RENAME = "add", "modify", "delete", "rename"


@dataclass(frozen=True, slots=True)
class Commit:
    """One commit as the miners see it; ``date`` is the committer date (when it landed)."""

    sha: str
    parents: tuple[str, ...]
    title: str
    message: str
    date: datetime
    author: str
    author_date: datetime

    @property
    def is_merge(self) -> bool:
        return len(self.parents) > 1


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


def open_repo(path_or_url: str | os.PathLike[str]) -> Repo:
    """Open a repository by local path, or clone/refresh a URL's mirror in BUGBOUT_HOME."""
    location = os.fspath(path_or_url)
    if is_url(location):
        return _open_mirror(location)
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


def _open_mirror(url: str) -> Repo:
    from dulwich import porcelain
    from dulwich.client import get_transport_and_path

    dest = home_dir("repos") / cache_key("mirror", url)
    sink = io.BytesIO()
    try:
        if (dest / "HEAD").exists():
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
        raise GitError(f"{url}: cannot clone: {exc}") from exc
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
        self.location = location
        self.name = name
        self.path = Path(inner.path)

    # -- lifetime -------------------------------------------------------------------------

    def close(self) -> None:
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

    def commit(self, sha: str) -> Commit:
        return _to_commit(self._commit_object(sha))

    def _commit_object(self, sha: str) -> DulwichCommit:
        try:
            obj = self._store[sha.encode()]
        except KeyError as exc:
            raise GitError(f"{self.location}: unknown commit {sha}") from exc
        if not isinstance(obj, DulwichCommit):
            raise GitError(f"{self.location}: {sha} is not a commit")
        return obj

    def first_parent(self, branch: str | None = None) -> Iterator[Commit]:
        """The first-parent history of *branch* (default branch when None), newest first."""
        start = self.branch_head(branch if branch is not None else self.default_branch())
        sha: bytes | None = start.encode()
        store = self._store
        while sha is not None:
            obj = store[sha]
            assert isinstance(obj, DulwichCommit)
            yield _to_commit(obj)
            sha = obj.parents[0] if obj.parents else None

    # -- trees ----------------------------------------------------------------------------

    def _tree_of(self, sha: str | None) -> bytes | None:
        if sha is None:
            return None
        return self._commit_object(sha).tree

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
            obj = self._store[current]
            assert isinstance(obj, Tree)
            try:
                mode, current = obj[part.encode()]
            except KeyError:
                return None
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

    def read_blob(self, sha: str, path: str) -> bytes | None:
        """The contents of *path* at commit *sha*, or None when it is absent or a folder."""
        entry = self._entry(self._tree_of(sha), _norm(path))
        if entry is None or entry[0] == 0o160000 or stat.S_ISDIR(entry[0]):
            return None
        obj = self._store[entry[1]]
        return obj.as_raw_string() if isinstance(obj, Blob) else None

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
        tree = self._store[sha]
        assert isinstance(tree, Tree)
        for item in tree.iteritems():
            name = item.path.decode("utf-8", "surrogateescape")
            yield from self._walk((item.mode, item.sha), f"{prefix}/{name}" if prefix else name)

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
            for name in sorted(old_items.keys() | new_items.keys()):
                child = f"{path}/{name}" if path else name
                self._diff(old_items.get(name), new_items.get(name), child, out)
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
        tree = self._store[entry[1]]
        assert isinstance(tree, Tree)
        return {
            item.path.decode("utf-8", "surrogateescape"): (item.mode, item.sha)
            for item in tree.iteritems()
        }

    def diff(self, sha_a: str | None, sha_b: str, paths: Sequence[str] | None = None) -> str:
        """A git-format unified diff from *sha_a* (None: empty tree) to *sha_b*.

        Renames are written as a deletion and an addition, so any patch tool applies it.
        """
        changes = self.changes(sha_b, sha_a, paths)
        return self.diff_changes(changes)

    def diff_changes(self, changes: Iterable[Change]) -> str:
        """The git-format diff of *changes* (as :meth:`changes` returns them)."""
        buffer = io.BytesIO()
        for change in changes:
            parts: list[Change] = (
                [
                    Change(
                        change.old_path or change.path,
                        None,
                        DELETE,
                        change.old_mode,
                        None,
                        change.old_sha,
                        None,
                    ),
                    Change(change.path, None, ADD, None, change.new_mode, None, change.new_sha),
                ]
                if change.type == RENAME
                else [change]
            )
            for part in parts:
                old_file = (
                    (part.path.encode(), part.old_mode, part.old_sha.encode())
                    if part.old_sha
                    else (None, None, None)
                )
                new_file = (
                    (part.path.encode(), part.new_mode, part.new_sha.encode())
                    if part.new_sha
                    else (None, None, None)
                )
                write_object_diff(buffer, self._store, old_file, new_file)  # type: ignore[arg-type]
        return buffer.getvalue().decode("utf-8", "surrogateescape")

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
            blob = self._store[obj_sha]
            data = blob.as_raw_string()
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


def _to_commit(obj: DulwichCommit) -> Commit:
    encoding = (obj.encoding or b"utf-8").decode("ascii", "replace")
    try:
        message = obj.message.decode(encoding, "replace")
    except LookupError:
        message = obj.message.decode("utf-8", "replace")
    stripped = message.strip()
    title = stripped.splitlines()[0].strip() if stripped else ""
    return Commit(
        sha=obj.id.decode(),
        parents=tuple(p.decode() for p in obj.parents),
        title=title,
        message=message,
        date=_when(obj.commit_time, obj.commit_timezone),
        author=obj.author.decode("utf-8", "replace"),
        author_date=_when(obj.author_time, obj.author_timezone),
    )


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
    deleted: dict[str, list[int]] = {}
    for index, change in enumerate(changes):
        if change.type == DELETE and change.old_sha:
            deleted.setdefault(change.old_sha, []).append(index)
    if not deleted:
        return changes
    drop: set[int] = set()
    result: list[Change] = []
    for change in changes:
        if change.type == ADD and change.new_sha in deleted and deleted[change.new_sha]:
            index = deleted[change.new_sha].pop(0)
            old = changes[index]
            drop.add(index)
            result.append(
                Change(
                    change.path,
                    old.path,
                    RENAME,
                    old.old_mode,
                    change.new_mode,
                    old.old_sha,
                    change.new_sha,
                )
            )
        else:
            result.append(change)
    dropped = {id(changes[i]) for i in drop}
    return [c for c in result if id(c) not in dropped]
