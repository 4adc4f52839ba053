"""Cross-examine every patch with every author's tests."""

from bb_core import package_version

__version__ = package_version("bb-xexam")
