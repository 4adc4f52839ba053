"""Package code that attacks the run from inside is caught: the run is void, with evidence.

Each attack of :mod:`attacks` goes into the package's ``__init__.py``; the tests import the
package, one of them fails on the (buggy) code. Without the defences every test would be
reported passed; with them the run is void, every test ``error``, ``tampered`` says why.
"""

from __future__ import annotations

import os
from pathlib import Path

import attacks
import pytest
from bb_core.envs import TestEnv
from bb_core.sandbox import Sandbox
from bb_core.tamper.canaries import place
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


#: Package code that makes the plugin's selection leave out the failing test: through the
#: name the plugin took from ``bugbout_select``, and in ``bugbout_select`` itself.
DESELECT_FAILING = """
import sys as _sys
_plugin = _sys.modules.get("bugbout_pytest")
if _plugin is not None:
    _plugin._selected_by = lambda nodeid, select: not nodeid.endswith("test_four")
    _sys.modules["bugbout_select"].selected = _plugin._selected_by
"""


def test_what_the_plugin_takes_from_its_other_modules_is_guarded_too(
    tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox
) -> None:
    result = run(project(tmp_path, DESELECT_FAILING), host_env, bwrap_sandbox, nodeids=IDS)
    assert result.problem is not None and result.problem.startswith("the run was tampered")
    found = " | ".join(result.tampered)
    assert "bugbout_pytest._selected_by" in found and "bugbout_select.selected" in found, found
    assert result.outcomes == dict.fromkeys(IDS, "error")


def test_canaries_go_inside_real_modules_and_look_like_their_neighbours(tmp_path: Path) -> None:
    """Code that spares files the base tree did not have cannot spare the canaries: they
    are written into a real test module, named from its tests' words, and the module gets
    its exact bytes and times back afterwards."""
    folder = tmp_path / "tests"
    folder.mkdir()
    texts = {
        "wrapping_test.py": "def test_wrap_long_lines():\n    assert 1\n",
        "slugs_test.py": "def test_slug_keeps_digits():\n    assert 1\n",
    }
    for name, text in texts.items():
        (folder / name).write_text(text)
        os.utime(folder / name, ns=(1_000_000_000, 2_000_000_000))
    first, second = place(tmp_path, ["tests"]), place(tmp_path, ["tests"])
    assert first.files == [] and first.targets == []  # no new file
    module = first.must_fail[0].split("::")[0]
    assert module in ("tests/wrapping_test.py", "tests/slugs_test.py")
    assert first.must_pass[0].startswith(module + "::test_")
    assert first.must_fail != second.must_fail
    source = (tmp_path / module).read_text()
    assert source.startswith(texts[module.split("/")[1]])  # real tests keep their lines
    assert (
        first.must_fail[0].split("::")[1] in source and first.must_pass[0].split("::")[1] in source
    )
    assert "bugbout" not in source.lower() and "canary" not in source.lower()
    assert (tmp_path / module).stat().st_mtime_ns == 2_000_000_000
    second.remove()
    first.remove()
    for name, text in texts.items():
        assert (folder / name).read_text() == text
        assert (folder / name).stat().st_mtime_ns == 2_000_000_000
    assert sorted(p.name for p in folder.iterdir()) == ["slugs_test.py", "wrapping_test.py"]


def test_a_folder_without_test_modules_gets_a_canary_module_named_like_its_neighbours(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "tests"
    (folder / "deep").mkdir(parents=True)
    (folder / "deep" / "test_wrapping.py").write_text("")
    first = place(tmp_path, ["tests"])
    assert first.targets[0].startswith("tests/test_") and first.targets[0].endswith(".py")
    assert first.rewritten == {}
    first.remove()
    assert sorted(p.name for p in folder.iterdir()) == ["deep"]


TRIPLE = {
    "tests/test_triple.py": "from pkg.core import triple\n\ndef test_three(): assert triple(1) == 3\n"
}


def test_a_suppressed_report_is_caught_by_the_collection_pass_and_the_canaries_inside(
    tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox
) -> None:
    """Failing tests of one module run but are never reported: the audit hook sees
    nothing; the collection pass disagrees, and the must-fail canary written into that
    very module is never reported either."""
    root = project(tmp_path, attacks.REPORT_FORGERS["suppress-in-module"])
    result = run(root, host_env, bwrap_sandbox, nodeids=IDS)
    assert result.outcomes == dict.fromkeys(IDS, "error")
    first, *rest = result.tampered
    # The never-reported tests in name order: the module's failing one and the must-fail
    # canary beside it, whose name is drawn for the run.
    assert first.startswith("collected but never reported: ")
    assert "tests/test_double.py::test_four" in first.split(": ", 1)[1].split(", ")
    assert rest and all(
        line.startswith("canary tests/test_double.py::test_") and line.endswith("never reported")
        for line in rest
    ), result.tampered
    log = result.log.read_text()
    assert "void run: collected but never reported" in log


def test_reports_invented_for_tests_that_do_not_collect_are_caught(
    tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox
) -> None:
    """A module that cannot import (its name is missing on this code) would be ``error``;
    passing reports forged for its tests through pytest's own hook - each in its place,
    each authenticated - are reported but never found by the collection pass."""
    root = project(tmp_path, attacks.REPORT_FORGERS["invent-reports"])
    make_project(root / "repo", TRIPLE)
    wanted = [*IDS, "tests/test_triple.py::test_three"]
    result = run(root, host_env, bwrap_sandbox, nodeids=wanted)
    assert result.outcomes == dict.fromkeys(wanted, "error")
    assert any(
        line.startswith("reported but not found by the collection pass: ")
        and "tests/test_triple.py::test_three" in line
        for line in result.tampered
    ), result.tampered
    # Without the attack the module's test is an error and nothing is void.
    honest = project(tmp_path / "honest", "")
    make_project(honest / "repo", TRIPLE)
    clean = run(honest, host_env, bwrap_sandbox, nodeids=wanted)
    assert clean.tampered == [] and clean.outcomes["tests/test_triple.py::test_three"] == "error"


def test_a_report_out_of_its_place_is_seen_by_the_plugin(
    tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox
) -> None:
    """The invented reports without the plugin's note of the running test set to match."""
    code = attacks.REPORT_FORGERS["invent-reports"].replace(
        "state.update(nodeid=forged, when=when)", "pass"
    )
    root = project(tmp_path, code)
    make_project(root / "repo", TRIPLE)
    result = run(root, host_env, bwrap_sandbox)
    assert any(
        "a report for tests/test_triple.py::test_three arrived while" in line
        for line in result.tampered
    ), result.tampered


def test_ids_that_differ_between_collections_void_the_run_and_are_named(
    tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox
) -> None:
    """Ids drawn at random cannot be checked: the evidence names them. Ids built from a
    set come out the same in the pass and the run (a fork shares the hash seed)."""
    files = {
        "tests/test_ids.py": """
            import os, pytest

            @pytest.mark.parametrize("word", {"alpha", "beta", "gamma", "delta"})
            def test_from_a_set(word): assert word

            @pytest.mark.parametrize("pid", [os.getpid()])
            def test_drawn(pid): assert pid
        """,
    }
    steady = make_project(
        tmp_path / "steady" / "repo",
        {
            **files,
            "tests/test_ids.py": files["tests/test_ids.py"].split('@pytest.mark.parametrize("pid"')[
                0
            ],
        },
    ).parent
    assert run(steady, host_env, bwrap_sandbox).tampered == []
    drawn = make_project(tmp_path / "drawn" / "repo", files).parent
    result = run(drawn, host_env, bwrap_sandbox)
    assert result.problem is not None and result.problem.startswith("the run was tampered")
    assert any("test_drawn[" in line for line in result.tampered), result.tampered
