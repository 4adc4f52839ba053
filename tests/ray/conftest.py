"""The Ray tests: skipped where the ray extra is missing, except in CI, which installs it.

Whether ray is installed is asked without importing it: every pytest-xdist worker
collects this folder, and importing ray takes seconds."""

from __future__ import annotations

import importlib.util
import os

if importlib.util.find_spec("ray") is None:
    if os.environ.get("CI"):
        raise ImportError("the ray extra is not installed (uv sync --all-packages --all-extras)")
    collect_ignore_glob = ["test_*.py"]
