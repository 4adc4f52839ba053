"""What a mining run reads from the repository before its walk: the folders it was given,
the name its tasks give the repository, its GitHub name and, when no package folder was
given, the one it can tell."""

from __future__ import annotations

from bb_core.errors import UsageError
from bb_core.git import Repo, is_url

from bb_mine.github import repo_from_remote


def normal_folder(path: str) -> str:
    text = path.replace("\\", "/").strip()
    while text.startswith("./"):
        text = text[2:]
    return text.strip("/") or ""


def identity(repo: Repo) -> str:
    """How tasks name their repository: the URL as given, else the absolute work-tree path."""
    return repo.location if is_url(repo.location) else str(repo.path.resolve())


def github_repo(repo: Repo) -> str | None:
    """``owner/name`` on GitHub: from a cloned URL, else from the origin remote."""
    if is_url(repo.location):
        found = repo_from_remote(repo.location)
        if found:
            return found
    return repo_from_remote(repo.remote_url("origin"))


def guess_source(repo: Repo, head: str, *, node: bool = False) -> str:
    """The package folder when it can be told: the one package under ``src/``, or at the root.
    A node project's is ``src`` when there is one, else the whole tree."""
    if node:
        return "src" if repo.is_dir(head, "src") else ""
    for folder in ("src", ""):
        if folder and not repo.is_dir(head, folder):
            continue
        packages = [
            name
            for name in repo.subfolders(head, folder)
            if name not in ("tests", "test", "docs", "examples", "benchmarks", "scripts")
            and repo.read_blob(
                head, f"{folder}/{name}/__init__.py" if folder else f"{name}/__init__.py"
            )
            is not None
        ]
        if len(packages) == 1:
            return f"{folder}/{packages[0]}" if folder else packages[0]
    raise UsageError(
        "cannot tell which folder holds the package; set project.source in bugbout.toml, "
        "or give it with --source"
    )
