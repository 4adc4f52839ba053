"""Shared kernel of bugbout: records and schemas, config, git, sandbox, test runs, environments, store."""

from importlib.metadata import PackageNotFoundError, version


def package_version(distribution: str) -> str:
    """The installed version of *distribution* (one of bugbout's packages).

    Every package carries the workspace's one version, set in each pyproject.toml by
    ``scripts/set_version.py`` (a test keeps them equal); code reads it from the installed
    metadata rather than writing it again.
    """
    try:
        return version(distribution)
    except PackageNotFoundError:  # running from a source tree nobody installed
        return "0+unknown"


__version__ = package_version("bb-core")
