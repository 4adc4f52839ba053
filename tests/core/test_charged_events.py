"""Run-time evidence is charged to the code that produced it.

The project here has a module the patch never touches (``src/pkg/tracer.py``) that traces,
profiles, walks ``gc``, loads ``ctypes`` and runs decoded code named after a standard-library
file - plainly, through a computed name, and through ``exec``. A run told the patch's lines
(``touched``) takes none of that as tampering. The same calls from the patch's own lines - or
from code the patch decoded and handed to the project to call later, from a thread the patch
started, from a function the patch built around a file it was not compiled from or ran
with globals of its own - void the run, with the evidence. A run not told the patch's
lines holds the whole checkout to account.
"""

from __future__ import annotations

import base64
import subprocess
import textwrap
from pathlib import Path

import pytest
from bb_core.envs import TestEnv
from bb_core.sandbox import Sandbox
from bb_core.testrun import TestRun, run_pytest
from bb_core.testrun.touched import WHOLE, environment_value, merged, touched_lines, whole_files

SET_TRACE = base64.b64encode(b"import sys\nsys.settrace(None)\n").decode()
HOOK = base64.b64encode(b"def hook():\n    import sys\n    sys.settrace(None)\n").decode()

TRACER = f"""
import base64
import json.decoder
import sys

CALLBACKS = []
_SETTER = "set" + "trace"


def plain():
    sys.settrace(None)


def computed():
    getattr(sys, _SETTER)(None)


def decoded():
    blob = base64.b64decode("{SET_TRACE}")
    exec(compile(blob, json.decoder.__file__, "exec"), {{}})


def decoded_function():
    space = {{}}
    exec(compile(base64.b64decode("{HOOK}"), json.decoder.__file__, "exec"), space)
    space["hook"]()


def profile_and_load():
    sys.setprofile(None)
    import ctypes
    import gc

    gc.get_objects()
    return ctypes


def run_callbacks():
    for callback in CALLBACKS:
        callback()
"""

BASE = {
    "src/pkg/__init__.py": "",
    "src/pkg/core.py": "def double(x):\n    return x + 1\n",
    "src/pkg/tracer.py": TRACER,
    "tests/test_double.py": """
        from pkg import core, tracer


        def test_two():
            tracer.plain()
            tracer.computed()
            tracer.decoded()
            tracer.decoded_function()
            tracer.profile_and_load()
            tracer.run_callbacks()
            assert core.double(1) == 2


        def test_four():
            assert core.double(2) == 4
    """,
}
IDS = ["tests/test_double.py::test_two", "tests/test_double.py::test_four"]

FIX = "def double(x):\n    return x * 2\n"
#: The fixed core.py, with something more the patch does: each is the patch's own doing.
HOSTILE = {
    "plain": "import sys\n\n\ndef double(x):\n    sys.settrace(None)\n    return x * 2\n",
    "computed-name": (
        "import sys\n\n\ndef double(x):\n    vars(sys)['set' + 'trace'](None)\n    return x * 2\n"
    ),
    "decoded-stdlib-name": (
        "import base64\nimport json.decoder\n\n\ndef double(x):\n"
        f"    blob = base64.b64decode('{SET_TRACE}')\n"
        "    exec(compile(blob, json.decoder.__file__, 'exec'), {})\n    return x * 2\n"
    ),
    "decoded-callback": (
        "import base64\nimport json.decoder\n\nfrom pkg import tracer\n\n_space = {}\n"
        f"exec(compile(base64.b64decode('{HOOK}'), json.decoder.__file__, 'exec'), _space)\n"
        "tracer.CALLBACKS.append(_space['hook'])\n\n\ndef double(x):\n    return x * 2\n"
    ),
    "thread": (
        "import threading\n\nfrom pkg import tracer\n\n_t = threading.Thread(target=tracer.plain)\n"
        "_t.start()\n_t.join()\n\n\ndef double(x):\n    return x * 2\n"
    ),
    "stdlib-wrapper": (
        "import trace\n\n\ndef double(x):\n    trace.Trace(count=1, trace=0).runfunc(int, 0)\n"
        "    return x * 2\n"
    ),
    "foreign-globals": (
        "import sys\nimport types\n\nfrom pkg import tracer\n\n"
        "tracer.CALLBACKS.append(types.FunctionType(tracer.plain.__code__, globals()))\n\n\n"
        "def double(x):\n    return x * 2\n"
    ),
    "borrowed-file": (
        "import types\n\nfrom pkg import tracer\n\n"
        "_code = compile('def hook():\\n    import sys\\n    sys.settrace(None)\\n', "
        "tracer.__file__, 'exec')\n"
        "tracer.CALLBACKS.append(types.FunctionType(_code.co_consts[0], vars(tracer)))\n\n\n"
        "def double(x):\n    return x * 2\n"
    ),
}
#: What each hostile patch's evidence says.
EVIDENCE = {
    "plain": "sys.settrace from src/pkg/core.py:5",
    "computed-name": "sys.settrace from src/pkg/core.py:5",
    "decoded-stdlib-name": "sys.settrace from code the patch ran (",
    "decoded-callback": "sys.settrace from code the patch ran",
    "thread": "sys.settrace from a thread the patch started",
    "stdlib-wrapper": "sys.settrace from src/pkg/core.py:5",
    "foreign-globals": "sys.settrace from code claiming src/pkg/tracer.py run as src/pkg/core.py",
    "borrowed-file": "sys.settrace from code claiming src/pkg/tracer.py:1, which does not define hook",
}


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=root, check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip


def patched(root: Path, core: str | None) -> tuple[Path, str]:
    """The project with *core* as its core.py (None: unchanged), and the patch."""
    repo = root / "repo"
    for name, text in BASE.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "base")
    if core is not None:
        (repo / "src/pkg/core.py").write_text(core)
    return repo, _git(repo, "diff")


def run(root: Path, repo: Path, env: TestEnv, sandbox: Sandbox, **options: object) -> TestRun:
    return run_pytest(
        repo, env, ["tests"], sandbox=sandbox, timeout=60, test_timeout=10,
        log_path=root / "logs" / "run.log", nodeids=IDS, **options,  # type: ignore[arg-type]
    )  # fmt: skip


def test_the_project_may_trace_profile_and_load_ctypes(
    tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox
) -> None:
    repo, patch = patched(tmp_path, FIX)
    touched = touched_lines(patch)
    assert touched == {"src/pkg/core.py": [(2, 2)]}
    result = run(tmp_path, repo, host_env, bwrap_sandbox, touched=touched)
    assert result.tampered == [] and result.problem is None, result.tampered
    assert result.outcomes == dict.fromkeys(IDS, "passed")
    # As in cross-examination, where the tests are the author's own files too: a test
    # that calls the project's tracer is only its caller.
    authored = merged(touched, whole_files(["tests/test_double.py"]))
    again = run(tmp_path / "again", repo, host_env, bwrap_sandbox, touched=authored)
    assert again.tampered == [] and again.outcomes == dict.fromkeys(IDS, "passed")


def test_a_patch_line_that_calls_the_project_tracer_is_only_its_caller(
    tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox
) -> None:
    """An honest fix of a tracer runs on the stack of every trace it makes: the lines
    decide at the nearest frame past the standard library, here the project's own."""
    fix = "from pkg import tracer\n\n\ndef double(x):\n    tracer.plain()\n    return x * 2\n"
    repo, patch = patched(tmp_path, fix)
    result = run(tmp_path, repo, host_env, bwrap_sandbox, touched=touched_lines(patch))
    assert result.tampered == [], result.tampered
    assert result.outcomes == dict.fromkeys(IDS, "passed")


def test_in_the_oracle_nothing_is_the_patch(
    tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox
) -> None:
    repo, _ = patched(tmp_path, None)
    result = run(tmp_path, repo, host_env, bwrap_sandbox, touched={})
    assert result.tampered == [], result.tampered
    assert result.outcomes == {IDS[0]: "passed", IDS[1]: "failed"}


def test_a_run_not_told_the_patch_holds_the_whole_checkout_to_account(
    tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox
) -> None:
    repo, _ = patched(tmp_path, FIX)
    result = run(tmp_path, repo, host_env, bwrap_sandbox)
    assert result.outcomes == dict.fromkeys(IDS, "error")
    assert any("sys.settrace from src/pkg/tracer.py:" in e for e in result.tampered)


@pytest.mark.parametrize("attack", sorted(HOSTILE))
def test_the_patch_tracing_is_tamper_evidence_whatever_the_route(
    attack: str, tmp_path: Path, host_env: TestEnv, bwrap_sandbox: Sandbox
) -> None:
    repo, patch = patched(tmp_path, HOSTILE[attack])
    result = run(tmp_path, repo, host_env, bwrap_sandbox, touched=touched_lines(patch))
    assert result.outcomes == dict.fromkeys(IDS, "error"), result.tampered
    found = " | ".join(result.tampered)
    assert EVIDENCE[attack] in found, found
    # The project's own tracing is never what is charged.
    assert "tracer.py:" not in found.replace("claiming src/pkg/tracer.py:1", "")


def test_touched_lines_of_a_patch() -> None:
    patch = (
        "diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n@@ -1,4 +1,5 @@\n a\n-b\n+B\n+C\n c\n d\n"
        "diff --git a/new.py b/new.py\nnew file mode 100644\n--- /dev/null\n+++ b/new.py\n"
        "@@ -0,0 +1 @@\n+x = 1\n"
        "diff --git a/gone.py b/gone.py\ndeleted file mode 100644\n--- a/gone.py\n+++ /dev/null\n"
        "@@ -1 +0,0 @@\n-y = 2\n"
    )
    assert touched_lines(patch) == {"m.py": [(2, 3)], "new.py": [WHOLE, (1, 1)]}
    assert touched_lines(patch, include=["m.py"]) == {"m.py": [(2, 3)]}
    binary = "diff --git a/m.pyc b/m.pyc\nnew file mode 100644\nBinary files differ\n"
    assert touched_lines(binary) is None
    assert merged(touched_lines(patch), whole_files(["t.py"]))["t.py"] == [WHOLE]  # type: ignore[index]
    assert merged(None, {}) is None
    many = {f"f{i}.py": [(n, n) for n in range(1, 400, 2)] for i in range(200)}
    handed = environment_value(many)
    assert handed is not None and '"f7.py":[[1,1073741824]]' in handed
    assert environment_value({f"{'d/' * 200}{i}.py": [WHOLE] for i in range(400)}) is None
