"""Shared kernel of bugbout: records and schemas, config, git, sandbox, test runs, environments, store."""

from __future__ import annotations


def package_version(distribution: str) -> str:
    """The installed version of *distribution* (one of bugbout's packages).

    Every package carries the workspace's one version, set in each pyproject.toml by
    ``scripts/set_version.py`` (a test keeps them equal); code reads it from the installed
    metadata rather than writing it again. ``importlib.metadata`` is imported here, when a
    version is asked for: it costs a command's start a tenth of what git log spends on a
    whole history.
    """
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(distribution)
    except PackageNotFoundError:  # running from a source tree nobody installed
        return "0+unknown"


def __getattr__(name: str) -> str:
    if name == "__version__":
        return package_version("bb-core")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
