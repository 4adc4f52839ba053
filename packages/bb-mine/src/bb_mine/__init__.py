"""Mine graded bug-fix tasks from a repository's first-parent history."""

from __future__ import annotations


def __getattr__(name: str) -> str:
    if name == "__version__":  # read when asked: the installed metadata is slow to import
        from bb_core import package_version

        return package_version("bb-mine")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
