"""Fixtures for the real-CLI suite: the pinned CLIs, installed by ``scripts/realcli.sh``.

The harness itself is in ``realcli_harness.py``: test modules import it by that unique
name, since a bare ``conftest`` resolves to whichever conftest was imported first.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from realcli_harness import ROOT, Clis
from support.shared import shared_dir


def install_clis(dest: Path) -> None:
    """Run scripts/realcli.sh (which installs nothing when its cache is ready); keep the
    cache folder it names in *dest*."""
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "realcli.sh")],
        capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        pytest.fail(f"scripts/realcli.sh could not install the CLIs:\n{done.stderr[-3000:]}")
    dest.mkdir(parents=True)
    (dest / "cache").write_text(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="session")
def clis(tmp_path_factory: pytest.TempPathFactory) -> Clis:
    """The pinned CLIs, installed once per run: xdist workers never install side by side."""
    return Clis(Path((shared_dir(tmp_path_factory, "realcli", install_clis) / "cache").read_text()))
