"""Pick one patch per bug from executed evidence and score every patch with the hidden tests."""

from bb_core import package_version

__version__ = package_version("bb-judge")
