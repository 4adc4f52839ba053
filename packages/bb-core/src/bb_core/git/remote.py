"""Remote repositories: URLs, their bare mirrors under BUGBOUT_HOME, and network errors."""

from __future__ import annotations

import io
import os
import re
import shutil
from collections.abc import Mapping
from typing import Any

from dulwich.repo import Repo as DulwichRepo

from bb_core.errors import GitError
from bb_core.store import cache_key, home_dir

_URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://|^[\w.-]+@[\w.-]+:")
#: URLs whose mirror was cloned or fetched by this process: later opens reuse it as is.
_FETCHED: set[str] = set()


def is_url(location: str) -> bool:
    """True for ``scheme://...`` and ``user@host:path`` locations."""
    return bool(_URL.match(location))


def repo_name(text: str) -> str:
    """A short name for a repository from its path or URL (``black`` for ``.../black.git``)."""
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


def open_mirror(url: str, *, refresh: bool = False) -> DulwichRepo:
    """The bare mirror of *url* in BUGBOUT_HOME: cloned the first time, fetched the first
    time each process opens it (so one run sees one state of the remote), or again on
    *refresh*."""
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
    return inner


def _mirror_refs(inner: Any, refs: Mapping[Any, Any], symrefs: Mapping[Any, Any]) -> None:
    """Make the mirror's branches and HEAD match the remote after a fetch."""
    for ref, sha in refs.items():
        if ref.startswith((b"refs/heads/", b"refs/tags/")) and sha in inner.object_store:
            inner.refs[ref] = sha
    head = symrefs.get(b"HEAD")
    if head:
        inner.refs.set_symbolic_ref(b"HEAD", head)
