"""Package code that attacks the run from inside is caught: the run is void, with evidence.

Each attack of :mod:`attacks` goes into the package's ``__init__.py``; the tests import the
package, one of them fails on the (buggy) code. Without the defences every test would be
reported passed; with them the run is void, every test ``error``, ``tampered`` says why.
"""

from __future__ import annotations

from pathlib import Path

import attacks
import pytest
from bb_core.canaries import place
from bb_core.envs import TestEnv
from bb_core.sandbox import Sandbox
from test_testrun import make_project, run

CODE = "def double(x):\n    return x + 1\n"
TESTS = {
    "tests/test_double.py": """
        from pkg.core import double

        def test_two(): assert double(1) == 2
        def test_four(): assert double(2) == 4
    """,
}
IDS = ["tests/test_double.py::test_two", "tests/test_double.py::test_four"]


def project(root: Path, init: str) -> Path:
    return make_project(
        root / "repo", {"src/pkg/__init__.py": init, "src/pkg/core.py": CODE, **TESTS}
    ).parent


def test_an_honest_run_is_not_void(
    tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox
) -> None:
    result = run(project(tmp_path, ""), host_env, bwrap_sandbox)
    assert result.tampered == [] and result.problem is None
    assert result.outcomes == {
        "tests/test_double.py::test_two": "passed",
        "tests/test_double.py::test_four": "failed",
    }
    # The canary module is gone again, and none of its tests reached the caller.
    assert sorted(p.name for p in (tmp_path / "repo" / "tests").glob("*.py")) == ["test_double.py"]


@pytest.mark.parametrize("attack", sorted(attacks.PACKAGE_TAMPERERS))
def test_package_code_that_fakes_passes_voids_the_run(
    attack: str, tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox
) -> None:
    result = run(
        project(tmp_path, attacks.PACKAGE_TAMPERERS[attack]), host_env, bwrap_sandbox,
        nodeids=IDS,
    )  # fmt: skip
    assert result.tampered, result
    assert result.problem is not None and result.problem.startswith("the run was tampered")
    assert result.outcomes == dict.fromkeys(IDS, "error")
    assert "tampered" in result.record()


def test_the_evidence_names_what_each_attack_did(
    tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox
) -> None:
    found = {}
    for attack in ("runtest-noop", "gc-hookwrapper", "wrap-emitter", "forged-report"):
        result = run(
            project(tmp_path / attack, attacks.PACKAGE_TAMPERERS[attack]), host_env, bwrap_sandbox
        )
        found[attack] = " | ".join(result.tampered)
    assert "_pytest.python.Function.runtest" in found["runtest-noop"]
    assert "must fail but was reported passed" in found["runtest-noop"]
    assert "gc.get_objects from src/pkg/__init__.py" in found["gc-hookwrapper"]
    assert "bugbout_pytest._emit" in found["wrap-emitter"]
    assert "not written by the plugin" in found["forged-report"]


def test_canaries_look_like_their_neighbours(tmp_path: Path) -> None:
    folder = tmp_path / "tests"
    folder.mkdir()
    (folder / "wrapping_test.py").write_text("")
    (folder / "slugs_test.py").write_text("")
    first, second = place(tmp_path, ["tests"]), place(tmp_path, ["tests"])
    assert first.targets[0].endswith("_test.py") and first.targets[0].startswith("tests/")
    assert first.targets != second.targets
    assert first.must_fail != second.must_fail
    assert first.files[0].stat().st_mtime_ns == (folder / "slugs_test.py").stat().st_mtime_ns
    source = first.files[0].read_text()
    assert source.count("def test_") == 2 and "bugbout" not in source.lower()
    first.remove()
    second.remove()
    assert sorted(p.name for p in folder.iterdir()) == ["slugs_test.py", "wrapping_test.py"]
