"""`bugbout doctor` on the demo: all well, then with uv missing, an agent's executable
missing and a sandbox that cannot start - one line per check, exit 1 when one blocks."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from bb_core.config import load_config
from bb_core.errors import SandboxUnavailable
from bb_core.sandbox import explain_bwrap_failure
from bugbout.doctor import Doctor
from build_demo import DemoPaths

BUGBOUT = Path(sys.executable).parent / "bugbout"


def path_without(name: str, farm: Path) -> str:
    """PATH with every folder that holds *name* replaced by a copy (of symlinks) without it."""
    folders = []
    for index, folder in enumerate(os.environ["PATH"].split(os.pathsep)):
        if not (Path(folder) / name).exists():
            folders.append(folder)
            continue
        copy = farm / f"{index}"
        copy.mkdir(parents=True, exist_ok=True)
        for entry in Path(folder).iterdir():
            if entry.name != name:
                (copy / entry.name).symlink_to(entry)
        folders.append(str(copy))
    return os.pathsep.join(folders)


def doctor(
    project: DemoPaths, path: str | None = None, home: Path | None = None
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if path is not None:
        env["PATH"] = path
    if home is not None:
        env["HOME"] = str(home)
    return subprocess.run(
        [str(BUGBOUT), "doctor", "--config", str(project.config)],
        cwd=project.root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def lines_by_check(stdout: str) -> dict[str, str]:
    """``{check name: whole line}`` for each check line."""
    found = {}
    for line in stdout.splitlines():
        status, _, rest = line.partition(" ")
        if status in ("ok", "warning", "problem", "skipped"):
            found[rest.strip().split(":")[0]] = line
    return found


def add_to_config(project: DemoPaths, text: str, *, after: str | None = None) -> None:
    config = project.config.read_text()
    if after is None:
        config += text
    else:
        config = config.replace(after, after + text, 1)
    project.config.write_text(config)


@pytest.mark.slow
def test_doctor_finds_the_demo_ready(demo_project: DemoPaths) -> None:
    done = doctor(demo_project)
    assert done.returncode == 0, done.stdout + done.stderr
    checks = lines_by_check(done.stdout)
    assert all(line.startswith("ok ") for line in checks.values()), done.stdout
    for name in ("config", "git", "uv", "python", "sandbox", "environment", "suite"):
        assert name in checks
    assert "agent careful" in checks and "agent examiner" in checks
    assert " tests in tests collect at HEAD" in checks["suite"]
    assert done.stdout.splitlines()[-1] == "ready for a bout: `bugbout run`"
    assert done.stderr == ""


@pytest.mark.slow
def test_doctor_without_uv(demo_project: DemoPaths, tmp_path: Path) -> None:
    done = doctor(demo_project, path_without("uv", tmp_path / "farm"), home=tmp_path / "home")
    assert done.returncode == 1, done.stdout
    checks = lines_by_check(done.stdout)
    assert checks["uv"].startswith("problem  uv: uv is neither on PATH nor in ~/.local/bin")
    assert "; fix: install it (`pip install uv`" in checks["uv"]
    assert checks["python"].startswith("skipped ")
    assert checks["sandbox"].startswith("ok ")
    assert done.stdout.splitlines()[-1].startswith("1 blocking problem")


@pytest.mark.parametrize(
    ("entry", "name", "said", "fix"),
    [
        (
            'agent = "command"\nname = "ghost"\ncommand = ["no-such-agent-cli", "{prompt_file}"]\n',
            "ghost",
            "`no-such-agent-cli` is not on PATH",
            "install it or correct its command, or remove ghost from bugbout.toml",
        ),
        (
            'agent = "codex"\nmodel = "gpt-5"\n',
            "codex/gpt-5",
            "`codex` is not on PATH",
            "install it (`npm install -g @openai/codex`), or remove codex/gpt-5 from bugbout.toml",
        ),
    ],
    ids=["command", "codex"],
)
def test_doctor_with_a_missing_agent(
    demo_project: DemoPaths, tmp_path: Path, entry: str, name: str, said: str, fix: str
) -> None:
    add_to_config(demo_project, f"\n[[contestants]]\n{entry}")
    done = doctor(demo_project, path_without("codex", tmp_path / "farm"))
    assert done.returncode == 1, done.stdout
    checks = lines_by_check(done.stdout)
    assert checks[f"agent {name}"] == f"problem  agent {name}: {said}; fix: {fix}"
    assert checks["agent careful"].startswith("ok ")
    assert done.stdout.splitlines()[-1].startswith("1 blocking problem")


FAILING_BWRAP = "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n"


@pytest.mark.parametrize("bwrap", ["absent", "failing"])
def test_doctor_with_a_broken_sandbox(demo_project: DemoPaths, tmp_path: Path, bwrap: str) -> None:
    add_to_config(demo_project, 'sandbox = "bubblewrap"\n', after="[run]\n")
    path = path_without("bwrap", tmp_path / "farm")
    if bwrap == "failing":
        fake = tmp_path / "fake"
        fake.mkdir()
        (fake / "bwrap").write_text(FAILING_BWRAP)
        (fake / "bwrap").chmod(0o755)
        path = f"{fake}{os.pathsep}{path}"
    done = doctor(demo_project, path)
    assert done.returncode == 1, done.stdout
    checks = lines_by_check(done.stdout)
    line = checks["sandbox"]
    assert line.startswith("problem  sandbox: bubblewrap: ")
    assert "; fix: " in line and 'sandbox = "none"' in line.split("; fix: ", 1)[1]
    if bwrap == "absent":
        assert "bubblewrap (bwrap) is not installed" in line
        assert "apt-get install bubblewrap" in line
    else:
        assert "setting up uid map: Permission denied" in line
    assert checks["suite"] == "skipped  suite: not checked: needs a working sandbox"


def test_doctor_gives_the_apparmor_fix_when_apparmor_blocks_bubblewrap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, demo_build: DemoPaths
) -> None:
    proc_sys = tmp_path / "proc-sys"
    (proc_sys / "kernel").mkdir(parents=True)
    (proc_sys / "kernel" / "apparmor_restrict_unprivileged_userns").write_text("1\n")
    said, fix = explain_bwrap_failure("bwrap: setting up uid map: Permission denied", proc_sys)

    def unavailable(kind: str = "auto") -> None:
        raise SandboxUnavailable(said, hint=fix)

    monkeypatch.setattr("bugbout.doctor.get_sandbox", unavailable)
    check = Doctor(load_config(demo_build.config)).check_sandbox()
    assert check.blocking and check.line().count("\n") == 0
    assert "AppArmor restricts unprivileged user namespaces" in check.detail
    assert "sudo sysctl kernel.apparmor_restrict_unprivileged_userns=0" in (check.fix or "")


def test_doctor_reports_a_bad_config_and_carries_on(tmp_path: Path) -> None:
    config = tmp_path / "bugbout.toml"
    config.write_text('[project]\nsource = "src/x"\n[run]\ntimeout = "soon"\n')
    done = subprocess.run(
        [str(BUGBOUT), "doctor", "--config", str(config)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 1
    checks = lines_by_check(done.stdout)
    assert checks["config"].startswith(f"problem  config: {config}: run.timeout: ")
    assert checks["uv"].startswith("ok ") and checks["sandbox"].startswith("ok ")
    for name in ("git", "python", "agents", "environment", "suite"):
        assert checks[name] == f"skipped  {name}: not checked: needs a bugbout.toml that loads"


@pytest.mark.slow
def test_doctor_finds_uv_where_setup_put_it(demo_project: DemoPaths, tmp_path: Path) -> None:
    """scripts/setup.sh installs uv with pip --user, into ~/.local/bin, which a fresh
    shell may not have on PATH yet."""
    real = shutil.which("uv")
    assert real is not None
    home = tmp_path / "home"
    (home / ".local" / "bin").mkdir(parents=True)
    (home / ".local" / "bin" / "uv").symlink_to(real)
    done = doctor(demo_project, path_without("uv", tmp_path / "farm"), home=home)
    checks = lines_by_check(done.stdout)
    assert checks["uv"].startswith("ok       uv: uv "), checks["uv"]
    assert f"({home}/.local/bin/uv; not on PATH, used from there" in checks["uv"]
    assert checks["python"].startswith("ok "), checks["python"]


@pytest.mark.skipif(not Path("/usr/bin/bwrap").exists(), reason="needs bubblewrap")
def test_doctor_shows_what_an_attempt_and_a_test_run_see(demo_project: DemoPaths) -> None:
    add_to_config(
        demo_project,
        '\n[[contestants]]\nagent = "command"\nname = "online"\n'
        f'command = ["{sys.executable}", "-c", "1"]\nnetwork = ["api.example.com"]\n',
    )
    done = subprocess.run(
        [str(BUGBOUT), "doctor", "--config", str(demo_project.config), "--show-confinement"],
        cwd=demo_project.root, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = done.stdout
    sections = out.split("\nattempt of ")
    careful = next(s for s in sections if s.startswith("careful:"))
    assert "HOME BUGBOUT_HOME/work/<attempt id>/home" in careful
    assert "/etc/passwd: one user, home BUGBOUT_HOME/work/<attempt id>/home" in careful
    assert "network: none" in careful and "shadow" in careful
    online = next(s for s in sections if s.startswith("online:"))
    assert "only api.example.com" in online
    test_run = out.split("a test run (oracle, cross-examination, scoring):")[1]
    assert "HOME /home/sandbox: private, in memory" in test_run
    assert "<the checkout under test>" in test_run
    # Neither view holds the user's repository or its records.
    assert str(demo_project.repo) not in out and ".bugbout" not in out


@pytest.mark.slow
def test_doctor_counts_the_environments_history_needs(demo_project: DemoPaths) -> None:
    """As the dry run does: one per distinct set of declarations at the tasks' bases."""
    import json

    from bb_core.envs.declarations import declared_at
    from bb_core.git import open_repo

    add_to_config(demo_project, 'environments = "history"\n', after="[project]\n")
    done = doctor(demo_project)
    assert done.returncode == 0, done.stdout + done.stderr
    line = lines_by_check(done.stdout)["environment"]
    assert line.startswith("ok ")
    # The tasks a run mines, and what their base commits declare.
    mined = subprocess.run(
        [str(BUGBOUT.with_name("bb-mine")), "--config", str(demo_project.config)],
        cwd=demo_project.root, capture_output=True, text=True, timeout=600, check=True,
    )  # fmt: skip
    tasks = [r for r in map(json.loads, mined.stdout.splitlines()) if r["kind"] == "task"]
    with open_repo(demo_project.root / "repo") as repo:
        distinct = {tuple(declared_at(repo, t["base_commit"])) for t in tasks}
    assert len(tasks) > 1
    counted = f"the {len(tasks)} mined tasks need {len(distinct)} distinct environment"
    assert f'; environments = "history": {counted}' in line, line
    assert " built, 0 failed before, " in line and " to build)" in line


@pytest.mark.slow
def test_doctor_without_agents_says_how_to_add_one(demo_project: DemoPaths) -> None:
    """No agents: the fix is to uncomment a block `bugbout init` wrote, or to add a command
    agent; not to run `bugbout init` again, which found none."""
    config = demo_project.config.read_text()
    demo_project.config.write_text(config.split("[[contestants]]", 1)[0])
    done = doctor(demo_project)
    assert done.returncode == 1, done.stdout
    line = lines_by_check(done.stdout)["agents"]
    assert line.startswith("problem  agents: no [[contestants]] or [[examiners]] in bugbout.toml")
    assert "uncomment a [[contestants]] block" in line and "`command` agent" in line
    assert "run `bugbout init`" not in line
