"""Version managers' shims inside the sandbox: a real pyenv shim fails there exactly as
the race's attempts did (status 127, ``.../pyenv/libexec/pyenv: No such file or
directory``), and runs once followed to its real executable; asdf's and volta's shims
are recognised and followed through their own ``which``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from bb_core.sandbox import Confinement, Sandbox, program_roots, run_confined
from bb_core.sandbox.shims import ShimError, follow, follow_argv, shim_of

PYENV = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
SHIMS = PYENV / "shims"
needs_pyenv = pytest.mark.skipif(
    not (SHIMS / "python3").is_file(), reason="needs pyenv with a python3 shim"
)


def confined(sandbox: Sandbox, argv: list[str], tmp_path: Path, **extra: object) -> tuple[int, str]:
    log = tmp_path / "out.log"
    done = run_confined(
        argv,
        sandbox=sandbox,
        confinement=Confinement(writable=[tmp_path], **extra),  # type: ignore[arg-type]
        cwd=tmp_path,
        env={"PATH": f"{SHIMS}:/usr/bin:/bin", "HOME": str(tmp_path)},
        timeout=60,
        stdout_path=log,
        stderr_path=log,
    )
    return done.exit_code, log.read_text()


@needs_pyenv
def test_a_pyenv_shim_fails_in_the_sandbox_until_it_is_followed(
    bwrap_sandbox: Sandbox, tmp_path: Path
) -> None:
    shim = str(SHIMS / "python3")
    # What the race gave the shim before: its own folder, not pyenv's scripts.
    status, said = confined(bwrap_sandbox, [shim, "-c", "print('ran')"], tmp_path, readable=[SHIMS])
    assert status == 127, said
    assert f"{PYENV}/libexec/pyenv: No such file or directory" in said
    followed = follow_argv([shim, "-c", "print('ran')"], cwd=tmp_path)
    assert followed[0].startswith(f"{PYENV}/versions/") and followed[1:] == ["-c", "print('ran')"]
    status, said = confined(bwrap_sandbox, followed, tmp_path)
    assert (status, said) == (0, "ran\n")
    # The shim's real install folder is what the sandbox shows for it.
    [root] = program_roots([shim])
    assert Path(followed[0]).resolve().is_relative_to(root)


@needs_pyenv
def test_a_shim_for_a_version_not_installed_says_what_pyenv_says(tmp_path: Path) -> None:
    def unresolved(shim: Path) -> bool:
        try:
            follow(str(shim), cwd=tmp_path)
        except ShimError:
            return True
        return False

    # A python3.N shim of an installed version that is not the one pyenv picks here.
    candidates = [SHIMS / f"python3.{minor}" for minor in range(6, 15)]
    shim = next((str(c) for c in candidates if c.exists() and unresolved(c)), None)
    if shim is None:
        pytest.skip("every python3.N shim resolves here")
    with pytest.raises(ShimError) as raised:
        follow(shim, cwd=tmp_path)
    assert raised.value.manager == "pyenv" and raised.value.root == str(PYENV)
    assert f"is a pyenv shim, and `pyenv which {Path(shim).name}` finds no executable" in str(
        raised.value
    )
    assert follow_argv([shim, "-V"], cwd=tmp_path) == [shim, "-V"]  # left to fail as it would


def test_ordinary_programs_are_left_alone(tmp_path: Path) -> None:
    assert shim_of("/bin/sh") is None
    assert follow("/bin/sh") == "/bin/sh"
    assert follow_argv(["env", "A=1", "no-such-program-anywhere", "-x"]) == [
        "env", "A=1", "no-such-program-anywhere", "-x",
    ]  # fmt: skip


def _script(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


def test_asdf_and_volta_shims_are_followed_through_their_own_which(tmp_path: Path) -> None:
    real = _script(tmp_path / "installs" / "nodejs" / "22.1.0" / "bin" / "node", "#!/bin/sh\n")
    asdf = _script(
        tmp_path / ".asdf" / "bin" / "asdf",
        f'#!/bin/sh\n[ "$1 $2" = "which node" ] && echo {real} && exit 0\nexit 1\n',
    )
    shim = _script(
        tmp_path / ".asdf" / "shims" / "node",
        f'#!/usr/bin/env bash\n# asdf-plugin: nodejs 22.1.0\nexec {asdf} exec "node" "$@"\n',
    )
    found = shim_of(str(shim))
    assert found is not None and found.manager == "asdf"
    assert follow(str(shim)) == str(real)

    volta_bin = tmp_path / ".volta" / "bin"
    _script(volta_bin / "volta-shim", "#!/bin/sh\nexit 1\n")
    _script(volta_bin / "volta", f'#!/bin/sh\n[ "$1" = which ] && echo {real}\n')
    (volta_bin / "node").symlink_to(volta_bin / "volta-shim")
    found = shim_of(str(volta_bin / "node"))
    assert found is not None and found.manager == "volta"
    assert follow_argv([str(volta_bin / "node"), "-e", "0"]) == [str(real), "-e", "0"]
