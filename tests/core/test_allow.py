"""The allow-list: which host folders a confined command sees, in the real bubblewrap."""

from __future__ import annotations

import ast
import os
import shutil
import sys
from pathlib import Path

import pytest
from bb_core.sandbox import Confinement, get_sandbox, program_roots, run_confined, too_wide

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")


def _exe(path: Path, text: str = "#!/bin/sh\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


def test_program_roots_follow_links_and_shebangs_to_the_installs(tmp_path: Path) -> None:
    # A node CLI installed with npm: bin/cli -> ../lib/node_modules/cli/bin/cli.js, run by
    # a node that lives in its own install elsewhere.
    node = _exe(tmp_path / "nodejs" / "bin" / "node")
    script = _exe(
        tmp_path / "npm" / "lib" / "node_modules" / "cli" / "bin" / "cli.js", f"#!{node}\n"
    )
    link = tmp_path / "npm" / "bin" / "cli"
    link.parent.mkdir(parents=True)
    link.symlink_to(os.path.relpath(script, link.parent))
    roots = program_roots([str(link)])
    assert tmp_path / "npm" in roots  # the prefix above bin/ and lib/node_modules
    assert tmp_path / "nodejs" in roots  # the interpreter's install, from the #! line
    # pyenv's shims: the shim folder's parent, which holds the versions.
    shim = _exe(tmp_path / "pyenv" / "shims" / "python")
    assert program_roots([str(shim)]) == [tmp_path / "pyenv"]


def test_the_running_interpreter_is_found_with_its_base_install() -> None:
    roots = [str(p) for p in program_roots([sys.executable])]
    assert any(Path(sys.executable).resolve().is_relative_to(r) for r in roots)


def test_too_wide_folders_are_narrowed(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    assert too_wide("/") and too_wide(str(Path.home())) and too_wide(str(repo))
    tool = _exe(repo / "tool")  # a program at the top of a repository: only itself
    assert program_roots([str(tool)]) == [tool]


@needs_bwrap
def test_inside_credentials_are_blank_and_the_home_is_private(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    code = (
        "import os, pwd, pathlib\n"
        "print(pwd.getpwuid(os.getuid()).pw_dir)\n"
        "print(len(pathlib.Path('/etc/shadow').read_bytes()) if os.path.exists('/etc/shadow') else 0)\n"
        "print(sorted(os.listdir('/')))\n"
        "print(open('/proc/1/cmdline').read().replace(chr(0), ' '))\n"
    )
    out = tmp_path / "out.log"
    done = run_confined(
        [sys.executable, "-c", code],
        sandbox=get_sandbox("bubblewrap"),
        confinement=Confinement(writable=[tmp_path / "w"], home=home),
        cwd=home,
        env=None,
        timeout=30,
        stdout_path=out,
        stderr_path=out,
    )
    lines = out.read_text().splitlines()
    assert done.exit_code == 0, lines
    assert lines[0] == str(home)
    assert lines[1] == "0"
    system = {"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "proc", "dev"}
    installs = {Path(p).parts[1] for p in (sys.executable, os.path.realpath(sys.executable))}
    allowed = system | installs | {"tmp", "var", "home", tmp_path.parts[1]}
    assert set(ast.literal_eval(lines[2])) <= allowed  # no /run (sockets), /srv, /mnt, /root...
    assert "--bind" not in lines[3] and str(home) not in lines[3]
    # The command is no part of bwrap's line either: only the fixed trampoline is.
    assert sys.executable not in lines[3] and "-c" in lines[3].split()
    words = lines[3].split()
    assert (
        Path(words[0]).name == "bwrap" and words[1] == "--args" and words[3:5] == ["--", "/bin/sh"]
    )


def test_files_the_command_line_names_are_shown_by_their_folder(tmp_path: Path) -> None:
    wrapper = _exe(tmp_path / "tools" / "wrap.py", "print(1)\n")
    inner = _exe(tmp_path / "agents" / "agent.py", "print(2)\n")
    prompt = f"Fix it.\nSee {inner} for details."  # a whole prompt is never a path
    roots = program_roots([sys.executable, str(wrapper), str(inner), prompt])
    assert tmp_path / "tools" in roots and tmp_path / "agents" in roots
    secret = tmp_path / "repo" / "notes.txt"
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    secret.write_text("x")
    # A file at the top of a repository is shown alone, never the repository.
    assert program_roots([sys.executable, "-c", "1", str(secret)])[-1] == secret


@needs_bwrap
def test_proc_names_only_what_is_bound(tmp_path: Path) -> None:
    """/proc/1/cmdline names no host path at all; /proc/self/mountinfo names each bound
    folder (its mount point and its root) and nothing else of the host: not the
    repository beside the checkout, not another attempt, not the folder that holds them."""
    home = tmp_path / "bugbout-home"
    mine, other = home / "work" / "aaaa" / "work", home / "work" / "bbbb" / "work"
    repo = tmp_path / "repo"
    for folder in (mine, other, repo / ".git"):
        folder.mkdir(parents=True)
    code = (
        "print(open('/proc/1/cmdline').read().replace(chr(0), ' '))\n"
        "print(open('/proc/self/mountinfo').read())\n"
    )
    out = tmp_path / "out.log"
    done = run_confined(
        [sys.executable, "-c", code],
        sandbox=get_sandbox("bubblewrap"),
        confinement=Confinement(writable=[mine]),
        cwd=mine,
        env=None,
        timeout=30,
        stdout_path=out,
        stderr_path=out,
    )
    cmdline, *mountinfo = out.read_text().splitlines()
    assert done.exit_code == 0, cmdline
    assert str(tmp_path) not in cmdline and sys.executable not in cmdline
    assert not any(word.startswith("/") for word in cmdline.split()[1:4])
    shown = {p for line in mountinfo if line for p in line.split()[3:5]}
    assert str(mine) in shown  # the checkout is named: its root and its mount point
    roots = {str(mine), *map(str, program_roots([sys.executable]))}
    for path in shown:
        assert str(repo) not in path and str(other) not in path
        if path.startswith(str(tmp_path)):
            assert any(path == r or path.startswith(r + "/") for r in roots), path
