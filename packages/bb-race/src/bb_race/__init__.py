"""Race coding agents on each task in sandboxed, history-free checkouts."""

from bb_core import package_version

__version__ = package_version("bb-race")
