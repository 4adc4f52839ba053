"""Mine graded bug-fix tasks from a repository's first-parent history."""

from bb_core import package_version

__version__ = package_version("bb-mine")
