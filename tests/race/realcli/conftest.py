"""Fixtures for the real-CLI suite: the pinned CLIs, installed by ``scripts/realcli.sh``.

The harness itself is in ``realcli_harness.py``: test modules import it by that unique
name, since a bare ``conftest`` resolves to whichever conftest was imported first.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from realcli_harness import ROOT, Clis


@pytest.fixture(scope="session")
def clis() -> Clis:
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "realcli.sh")],
        capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        pytest.fail(f"scripts/realcli.sh could not install the CLIs:\n{done.stderr[-3000:]}")
    return Clis(Path(done.stdout.strip().splitlines()[-1]))
