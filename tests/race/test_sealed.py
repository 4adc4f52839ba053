"""A sealed race: from inside its sandbox an agent finds nothing that holds the answer.

The bout lives outside /tmp - in a folder made under HOME, as a user's repository would -
with its git history, its bugbout.toml and its .bugbout/ records, and BUGBOUT_HOME beside
it holding a cache and another contestant's attempt. The demo's hostile agent, the snoop,
searches the whole file system it can see; what it reports is checked here.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bb_core.envs import TestEnv
from bb_core.sandbox import get_sandbox
from bb_core.testrun import run_pytest

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")

AGENTS = Path(__file__).resolve().parents[2] / "examples" / "demo" / "agents"
BIN = Path(sys.executable).parent
SECRET = "sk-sealed-race-canary-4b1d"


@pytest.fixture
def outside() -> Iterator[Path]:
    """A folder under HOME (not under /tmp unless HOME is), removed afterwards."""
    folder = Path.home() / ".cache" / f"bugbout-sealed-{os.getpid()}-{random.randrange(10**6)}"
    folder.mkdir(parents=True)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _bout(outside: Path, demo_tasks: Any) -> dict[str, Any]:
    repo = outside / "textkit"
    shutil.copytree(demo_tasks.repo, repo, symlinks=True)
    (repo / ".bugbout").mkdir()
    [task] = demo_tasks.pick("User Name")
    tasks = repo / ".bugbout" / "tasks.jsonl"
    tasks.write_text(json.dumps(task) + "\n")
    (repo / "secret.txt").write_text(SECRET)
    home = outside / "bugbout-home"
    (home / "cache").mkdir(parents=True)
    (home / "cache" / "tasks.jsonl").write_text(json.dumps(task) + "\n")
    blocks = [
        '[project]\nsource = "src/textkit"\ntests = "tests"\n'
        f"repository = {json.dumps(str(repo))}\ninterpreter = {json.dumps(sys.executable)}\n",
        "[run]\ntimeout = 120\n",
    ]
    for name in ("snoop", "careful"):
        command = json.dumps([sys.executable, str(AGENTS / f"{name}.py")])
        blocks.append(f'[[contestants]]\nagent = "command"\nname = "{name}"\ncommand = {command}\n')
    (repo / "bugbout.toml").write_text("\n".join(blocks))
    done = subprocess.run(
        [str(BIN / "bb-race"), str(tasks), "--config", str(repo / "bugbout.toml")],
        cwd=repo, capture_output=True, check=False, timeout=300,
        env={**{k: v for k, v in os.environ.items() if not k.startswith("BUGBOUT_RUN")},
             "BUGBOUT_HOME": str(home)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode()
    [line] = [json.loads(x) for x in done.stdout.splitlines() if b'"kind":"task"' in x]
    attempts = {a["agent"]: a for a in line["attempts"]}
    report = json.loads(Path(attempts["snoop"]["logdir"], "stdout.log").read_text())
    return {"repo": repo, "home": home, "task": task, "attempts": attempts, "report": report}


def test_a_snoop_finds_nothing_that_holds_the_answer(outside: Path, demo_tasks: Any) -> None:
    bout = _bout(outside, demo_tasks)
    report, attempts = bout["report"], bout["attempts"]
    mine = Path(attempts["snoop"]["logdir"]).parent
    # The search really ran: it saw the system folders and its own checkout.
    assert {"usr", "etc", "proc", "tmp"} <= set(report["root"])
    assert report["seen"] > 1000 and str(mine / "work") in report["checkout"]
    # No history, no configuration, no records, no keys, no sockets, anywhere it can see.
    for kind in ("git", "config", "ssh", "secrets", "sockets", "abstract_sockets"):
        assert report[kind] == [], (kind, report[kind])
    # (The test environment here is bugbout's own, whose package ships schema examples.)
    records = [p for p in report["jsonl"] if "/site-packages/bb_core/" not in p]
    assert records == []
    # Not another attempt: its own folder is alone under BUGBOUT_HOME/work.
    assert report["beside_me"] == []
    assert not (bout["home"] / "work" / mine.name / "work").exists()  # only logs are left
    # The password database names the private home, never the real one.
    assert report["passwd_home"] == report["home"] == [str(mine / "home")]
    assert report["bugbout_home"] == [""]
    # The sandbox's pid 1 shows no bind, so no folder of the host by its name.
    assert "--bind" not in report["cmdline"][0] and str(bout["repo"]) not in report["cmdline"][0]
    text = json.dumps(report)
    assert str(bout["repo"]) not in text and SECRET not in text
    assert str(Path.home() / ".ssh") not in text
    # The opaque folder names neither the task nor the agent; the honest agent still works.
    assert bout["task"]["id"] not in str(mine) and "snoop" not in str(mine)
    assert attempts["careful"]["status"] == "finished"
    assert attempts["careful"]["source_patch"]
    # What the snoop's log says it went looking for is flagged, beside its score.
    assert {"leak:read-git", "leak:bugbout-records"} <= set(attempts["snoop"]["flags"])
    assert "leak:git-history" in attempts["snoop"]["flags"]
    honest = [f for f in attempts["careful"]["flags"] if f != "leak:matches-reference"]
    assert not any(f.startswith(("leak:", "unconfined")) for f in honest), honest


PROBE = """
import os, pathlib, pwd

def test_probe():
    home = pathlib.Path(os.environ["HOME"])
    found = sorted(str(p) for p in home.rglob("*"))
    passwd = pwd.getpwuid(os.getuid()).pw_dir
    print("PROBE", repr(str(home)), found, passwd, sorted(os.listdir("/")))
    assert found == []
    assert passwd == str(home)
    assert not pathlib.Path({real!r}).exists() or {real!r} == str(home)
"""


def test_a_test_run_sees_an_empty_home(tmp_path: Path, outside: Path) -> None:
    (outside / ".ssh").mkdir()
    (outside / ".ssh" / "id_rsa").write_text(SECRET)
    checkout = tmp_path / "checkout"
    (checkout / "tests").mkdir(parents=True)
    (checkout / "tests" / "test_probe.py").write_text(PROBE.format(real=str(outside)))
    env = TestEnv(python=Path(sys.executable), env={}, key="probe")
    run = run_pytest(
        checkout,
        env,
        ["tests"],
        sandbox=get_sandbox("bubblewrap"),
        timeout=60,
        log_path=tmp_path / "logs" / "run.log",
    )
    log = (tmp_path / "logs" / "run.log").read_text()
    assert run.outcomes == {"tests/test_probe.py::test_probe": "passed"}, log
    assert SECRET not in log


LINKER = """
logs = pathlib.Path.cwd().parent / "logs"
for name in ("stdout.log", "stderr.log"):
    (logs / name).unlink()
    os.symlink(os.environ["HOST_SECRET"], logs / name)
os.mkfifo(logs / "pipe.log")
pathlib.Path("src/textkit/touched.py").write_text("X = 1\\n")
"""


def test_links_an_agent_leaves_in_its_logs_are_never_followed(
    race_project: Any, demo_tasks: Any, race_lib: Any, tmp_path: Path
) -> None:
    secret = tmp_path / "host-only.txt"
    secret.write_text(SECRET)
    project = race_project(
        {"linker": LINKER}, options={"linker": {"env": {"HOST_SECRET": str(secret)}}}
    )
    raced = race_lib(project, project.write_tasks(demo_tasks.pick("User Name")))
    [attempt] = raced.attempts().values()
    assert SECRET not in json.dumps(attempt)
    flags = attempt["flags"]
    assert {"link-removed:logs/stdout.log", "link-removed:logs/pipe.log"} <= set(flags)
    assert attempt["status"] == "finished"
    assert not Path(attempt["logdir"], "stdout.log").is_symlink()


BIG_PATCH = """
pathlib.Path("src/textkit/big.py").write_text("# " + "x" * 20000 + "\\n")
"""
BIG_HOME = """
pathlib.Path(os.environ["HOME"], "junk.bin").write_bytes(os.urandom(400_000))
pathlib.Path("src/textkit/small.py").write_text("X = 1\\n")
"""


def test_an_attempt_over_its_caps_keeps_no_patch(
    race_project: Any, demo_tasks: Any, race_lib: Any
) -> None:
    project = race_project(
        {"big-patch": BIG_PATCH, "big-home": BIG_HOME},
        run={"timeout": 60, "max-patch-bytes": 10_000, "max-attempt-disk": 200_000},
    )
    raced = race_lib(project, project.write_tasks(demo_tasks.pick("User Name")))
    attempts = {key[1]: a for key, a in raced.attempts().items()}
    big = attempts["big-patch"]
    assert (big["status"], big["patch"]) == ("crashed", "")
    assert "run.max-patch-bytes" in big["error"]
    assert any(f.startswith("over-cap:patch ") for f in big["flags"])
    home = attempts["big-home"]
    assert (home["status"], home["patch"]) == ("crashed", "")
    assert "run.max-attempt-disk" in home["error"]
    assert any(f.startswith("over-cap:disk ") for f in home["flags"])
    # The stored records are as small as the lines written; the working files are gone.
    for attempt in attempts.values():
        assert sorted(p.name for p in Path(attempt["logdir"]).parent.iterdir()) == ["logs"]


def test_an_agent_outside_the_sandbox_is_flagged_unconfined(
    race_project: Any, demo_tasks: Any, race_lib: Any
) -> None:
    body = 'pathlib.Path("src/textkit/x.py").write_text("X = 1\\n")\n'
    project = race_project(
        {"inside": body, "outside": body}, options={"outside": {"sandboxed": False}}
    )
    raced = race_lib(project, project.write_tasks(demo_tasks.pick("User Name")))
    flags = {key[1]: a["flags"] for key, a in raced.attempts().items()}
    assert not any(f.startswith("unconfined") for f in flags["inside"])
    assert any(f.startswith("unconfined: the agent runs outside") for f in flags["outside"])
