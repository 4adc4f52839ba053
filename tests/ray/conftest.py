"""The Ray tests: skipped where the ray extra is missing, except in CI, which installs it."""

from __future__ import annotations

import os

try:
    import ray  # noqa: F401
except ImportError:
    if os.environ.get("CI"):
        raise
    collect_ignore_glob = ["test_*.py"]
