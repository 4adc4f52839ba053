"""A repository opened for reading: refs, first-parent history, trees, changes and diffs.

Open repositories with ``with open_repo(...) as repo:`` (or call :meth:`Repo.close`):
dulwich keeps pack files open, and a repository left open prints noise on stderr when the
interpreter shuts down. A :class:`Repo` keeps caches (trees, resolved deltas) and is not
thread-safe: give each thread its own, or share one behind a lock.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from dulwich.errors import NotGitRepository
from dulwich.objects import Commit as DulwichCommit
from dulwich.repo import Repo as DulwichRepo

from bb_core.errors import GitError
from bb_core.git.checkout import materialize
from bb_core.git.diffs import write_diff
from bb_core.git.model import Change, Commit, norm, parse_commit
from bb_core.git.objects import Objects
from bb_core.git.remote import is_url, open_mirror, repo_name
from bb_core.git.trees import tree_changes

_HEX40 = re.compile(r"^[0-9a-f]{40}$")


def open_repo(path_or_url: str | os.PathLike[str], *, refresh: bool = False) -> Repo:
    """Open a repository by local path, or a URL's mirror in BUGBOUT_HOME.

    A URL is cloned (bare) the first time, and fetched the first time each process opens
    it, so one run sees one state of the remote; *refresh* fetches again regardless.
    """
    location = os.fspath(path_or_url)
    if is_url(location):
        return Repo(
            open_mirror(location, refresh=refresh), location=location, name=repo_name(location)
        )
    path = Path(location).expanduser()
    if not path.exists():
        raise GitError(f"{location}: no such directory")
    try:
        inner = DulwichRepo.discover(str(path))
    except NotGitRepository as exc:
        raise GitError(f"{location}: not a git repository") from exc
    return Repo(inner, location=location, name=repo_name(Path(inner.path).resolve().name))


class Repo:
    """A dulwich repository with the few reads bugbout needs. Close it when done."""

    def __init__(self, inner: DulwichRepo, *, location: str, name: str) -> None:
        self._repo = inner
        # dulwich's NewTypes for object ids and ref names add nothing over bytes here.
        self._refs: Any = inner.refs
        self.objects = Objects(inner, location)
        self.location = location
        self.name = name
        self.path = Path(inner.path)

    # -- lifetime -------------------------------------------------------------------------

    def close(self) -> None:
        self.objects.close()
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
            name: str = target[len(b"refs/heads/") :].decode()
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
        if _HEX40.match(lowered) and lowered.encode() in self.objects.store:
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
        obj = self.objects.store[sha]
        while not isinstance(obj, DulwichCommit):
            target = getattr(obj, "object", None)
            if target is None:
                raise GitError(f"{self.location}: {sha.decode()} is not a commit")
            obj = self.objects.store[target[1]]
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

    # -- history --------------------------------------------------------------------------

    def commit(self, sha: str) -> Commit:
        return parse_commit(sha, self.objects.commit_raw(sha))

    def first_parent(self, branch: str | None = None) -> Iterator[Commit]:
        """The first-parent history of *branch* (default branch when None), newest first."""
        sha: str | None = self.branch_head(branch if branch is not None else self.default_branch())
        while sha is not None:
            commit = self.commit(sha)
            yield commit
            sha = commit.parents[0] if commit.parents else None

    # -- trees ----------------------------------------------------------------------------

    def _entry(self, sha: str, path: str) -> tuple[int, bytes] | None:
        return self.objects.entry(self.objects.tree_of(sha), norm(path))

    def read_object(self, sha: str | None) -> bytes | None:
        """The contents of blob *sha*, or None for None."""
        return self.objects.read_object(sha)

    def exists(self, sha: str, path: str) -> bool:
        return self._entry(sha, path) is not None

    def is_dir(self, sha: str, path: str) -> bool:
        entry = self._entry(sha, path)
        return entry is not None and stat.S_ISDIR(entry[0])

    def subfolders(self, sha: str, path: str = "") -> list[str]:
        """Names of the folders directly inside *path* at commit *sha*."""
        entry = self._entry(sha, path)
        if entry is None or not stat.S_ISDIR(entry[0]):
            return []
        items = self.objects.items(entry[1])
        return sorted(name for name, (mode, _sha) in items.items() if stat.S_ISDIR(mode))

    def blob_id(self, sha: str, path: str) -> str | None:
        """The object id of file *path* at commit *sha*, or None when it is absent or a
        folder: a cheap way to tell whether a file changed between commits."""
        entry = self._entry(sha, path)
        if entry is None or entry[0] == 0o160000 or stat.S_ISDIR(entry[0]):
            return None
        return entry[1].decode()

    def root_blob_ids(self, sha: str, names: Sequence[str]) -> tuple[str | None, ...]:
        """:meth:`blob_id` of each of *names*, files at the root, with one tree read."""
        tree = self.objects.tree_of(sha)
        items = self.objects.items(tree) if tree is not None else {}
        found: list[str | None] = []
        for name in names:
            entry = items.get(name)
            usable = entry is not None and entry[0] != 0o160000 and not stat.S_ISDIR(entry[0])
            found.append(entry[1].decode() if entry is not None and usable else None)
        return tuple(found)

    def read_blob(self, sha: str, path: str) -> bytes | None:
        """The contents of *path* at commit *sha*, or None when it is absent or a folder."""
        blob = self.blob_id(sha, path)
        return None if blob is None else self.objects.read_object(blob)

    def list_files(self, sha: str, path: str = "") -> list[str]:
        """Every file path under *path* (a folder or a file) at commit *sha*."""
        normed = norm(path)
        entry = self.objects.entry(self.objects.tree_of(sha), normed)
        if entry is None:
            return []
        return [p for p, _mode, _sha in self.objects.walk(entry, normed)]

    # -- changes and diffs ----------------------------------------------------------------

    def changes(
        self, sha: str, parent_sha: str | None, paths: Sequence[str] | None = None
    ) -> list[Change]:
        """What changed from *parent_sha* (None: the empty tree) to *sha*.

        *paths* limits the comparison to those folders or files: subtrees that are the same
        on both sides are never opened, which is what makes mining long histories fast.
        """
        objects = self.objects
        return tree_changes(objects, objects.tree_of(parent_sha), objects.tree_of(sha), paths)

    def diff(self, sha_a: str | None, sha_b: str, paths: Sequence[str] | None = None) -> str:
        """A git-format unified diff from *sha_a* (None: empty tree) to *sha_b*.

        Renames are written as a deletion and an addition, so any patch tool applies it.
        """
        return self.diff_changes(self.changes(sha_b, sha_a, paths))

    def diff_changes(self, changes: Iterable[Change]) -> str:
        """The git-format diff of *changes* (as :meth:`changes` returns them)."""
        return write_diff(self.objects.read_object, changes)

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
        tree = self.objects.tree_of(sha)
        assert tree is not None
        return materialize(self.objects, tree, dest, exclude=exclude, overlay=overlay)
