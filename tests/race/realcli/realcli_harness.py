"""The real-CLI suite's harness: the pinned CLIs, and a race of one of them against
a stand-in of its vendor's API, through the real ``bb-race`` and ``bb-judge``.

The CLIs are installed by ``scripts/realcli.sh`` (``npm ci`` from this folder's lockfile
and a virtual environment for mini-swe-agent, in a cache folder kept between runs).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from support.tomlw import toml_value
from vendors import Standin, Step

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
SUMMARY = "Made camel_case lowercase the first word and added a regression test."
REGRESSION_TEST = """\
from textkit.cases import camel_case


def test_camel_case_first_word_is_lowercase():
    assert camel_case("User Name") == "userName"
"""
NETWORK_PROBE = (
    # (the shell puts the words together, so only its output holds them whole)
    "curl -sS -m 5 -o /dev/null https://example.com/ && echo NETWORK-'OPEN' "
    "|| echo NETWORK-'REFUSED'"
)

#: Three reaches for the answer, each stopped (the checkout has no history, the sandbox
#: no network and a fresh home), each followed by a word that says so.
REACH = (
    "git log --oneline -3 || echo NO-'HISTORY'; "
    "python3 -m pip download --no-deps --retries 0 --timeout 3 -d /tmp/dl textkit "
    "|| echo NO-'PACKAGE'; cat ~/.ssh/id_rsa || echo NO-'KEYS'"
)


#: Agent type -> its CLI's npm package or PyPI distribution.
PACKAGES = {
    "codex": "@openai/codex",
    "claude-code": "@anthropic-ai/claude-code",
    "gemini-cli": "@google/gemini-cli",
    "mini-swe-agent": "mini-swe-agent",
}


@dataclass(frozen=True)
class Clis:
    """Where the CLIs of one set of pins are (the folder scripts/realcli.sh prints)."""

    cache: Path

    def version(self, harness: str) -> str:
        """The installed release of *harness*'s CLI, from its package's own metadata."""
        if harness == "mini-swe-agent":
            [meta] = (self.cache / "mini").glob(
                "lib/python*/site-packages/mini_swe_agent-*.dist-info"
            )
            return meta.name.removeprefix("mini_swe_agent-").removesuffix(".dist-info")
        package = self.cache / "npm" / "node_modules" / PACKAGES[harness] / "package.json"
        return str(json.loads(package.read_text())["version"])

    def bin_dir(self, harness: str) -> Path:
        if harness == "mini-swe-agent":
            return self.cache / "mini" / "bin"
        return self.cache / "npm" / "node_modules" / ".bin"

    def path(self, harness: str, rest: str) -> str:
        """PATH for running *harness*: its CLI first, and the cache's node when the
        machine's own is too old."""
        node = self.cache / "node-bin"
        dirs = [self.bin_dir(harness), *([node] if node.exists() else [])]
        return os.pathsep.join([*map(str, dirs), rest])


def script(fixed: str, outside: Path, host_tmp: Path, harness: str) -> list[Step]:
    """The model's plan: look, read, edit, test, reach out, write outside, finish."""
    steps = [
        Step("list", "src/textkit", name="list"),
        Step("read", "src/textkit/cases.py", name="read"),
        Step("write", "src/textkit/cases.py", fixed, name="edit"),
        Step("write", "tests/test_regression_realcli.py", REGRESSION_TEST, name="add-test"),
        Step("shell", "{TEST}", name="test"),
        Step("shell", NETWORK_PROBE, name="network"),
        # Reaching for the answer: the history, the project's own package, the user's keys.
        Step("shell", REACH, name="reach"),
        Step(
            "shell",
            f"echo escaped > {outside}/marker && echo OUTSIDE-'WRITTEN' || echo OUTSIDE-'REFUSED'",
            name="outside",
        ),
        Step(
            "shell",
            f"echo escaped > {host_tmp} && echo TMP-'WRITTEN' || echo TMP-'REFUSED'",
            name="host-tmp",
        ),
        # A file in the host's /tmp, which bugbout's sandbox replaces with the attempt's
        # own: readable only by an agent process that is not in it.
        Step("shell", f"cat {host_tmp}.visible || echo HOST-TMP-'HIDDEN'", name="host-tmp-read"),
    ]
    if harness in ("claude-code", "gemini-cli"):
        # The CLI's own file tool, outside the checkout: refused by its permissions.
        steps.append(
            Step("write", f"{outside}/written-by-tool.txt", "escaped\n", name="tool-outside")
        )
    if harness == "mini-swe-agent":
        # An answer without a tool call, which mini-swe-agent reports back as an error.
        steps.append(Step("malformed", "I think I am done.", name="malformed"))
    steps.append(Step("final", SUMMARY, name="final"))
    return steps


@dataclass
class RealRace:
    root: Path
    standin: Standin
    outside: Path
    host_tmp: Path
    race: subprocess.CompletedProcess[str]
    judged: list[dict[str, Any]]

    @property
    def attempt(self) -> dict[str, Any]:
        [line] = [json.loads(x) for x in self.race.stdout.splitlines() if '"kind":"task"' in x]
        [attempt] = line["attempts"]
        return attempt

    def log(self, name: str) -> str:
        path = Path(self.attempt["logdir"]) / name
        return path.read_text(errors="replace") if path.exists() else ""

    def why(self) -> str:
        return (
            f"bb-race stderr:\n{self.race.stderr[-3000:]}\nattempt: "
            f"{json.dumps({k: v for k, v in self.attempt.items() if k != 'patch'})[:3000]}\n"
            f"stdout.log:\n{self.log('stdout.log')[-3000:]}\n"
            f"stderr.log:\n{self.log('stderr.log')[-3000:]}"
        )


def race_real(
    root: Path,
    demo_tasks: Any,
    clis: Clis,
    contestant: dict[str, Any],
    *,
    mode: str = "script",
    env: dict[str, str] | None = None,
    bugbout_home: Path | None = None,
    timeout: int = 240,
) -> RealRace:
    """Race one real CLI on the demo's camel_case task against its vendor's stand-in,
    then score the attempt with bb-judge."""
    import expected
    from bb_core.git import open_repo

    [task] = demo_tasks.pick("User Name")
    with open_repo(demo_tasks.repo) as repo:
        fixed = repo.read_blob(task["fix_commit"], "src/textkit/cases.py")
    assert fixed is not None
    fact = next(t for t in expected.GENUINE if t.key == "camel-first-word")
    task = {
        **task,
        "oracle": {
            "kind": "oracle", "v": 1, "fail_to_pass": list(fact.fail_to_pass),
            "pass_to_pass": list(fact.pass_to_pass), "flaky": list(fact.flaky),
            "broken_after": [], "runs": [],
        },
    }  # fmt: skip
    root.mkdir(parents=True, exist_ok=True)
    outside = root / "outside"
    outside.mkdir()
    host_tmp = Path("/tmp") / f"bugbout-realcli-{uuid.uuid4().hex[:12]}"
    visible = Path(f"{host_tmp}.visible")
    visible.write_text("HOST-TMP-VISIBLE\n")
    standin = Standin(script(fixed.decode(), outside, host_tmp, contestant["agent"]), mode=mode)
    with standin:
        entry = {k: v.replace("{URL}", standin.url) if isinstance(v, str) else v
                 for k, v in contestant.items()}  # fmt: skip
        (root / "bugbout.toml").write_text(
            "[project]\n"
            f'source = "{expected.SOURCE}"\ntests = "{expected.TESTS}"\n'
            f"repository = {toml_value(str(demo_tasks.repo))}\n"
            f"interpreter = {toml_value(sys.executable)}\n\n"
            f"[run]\ntimeout = {timeout}\n\n"
            "[[contestants]]\n" + "".join(f"{k} = {toml_value(v)}\n" for k, v in entry.items())
        )
        tasks = root / "tasks.jsonl"
        tasks.write_text(json.dumps(task) + "\n")
        environ = {k: v for k, v in os.environ.items() if not k.startswith("BUGBOUT_RUN")}
        for name in (
            "CODEX_HOME",
            "GEMINI_CLI_HOME",
            "MSWEA_GLOBAL_CONFIG_DIR",
            "CLAUDE_CONFIG_DIR",
        ):
            environ.pop(name, None)
        environ["HOME"] = str(root / "user-home")
        (root / "user-home").mkdir()
        environ["BUGBOUT_HOME"] = str(bugbout_home or root / "bb-home")
        environ["PATH"] = clis.path(contestant["agent"], environ["PATH"])
        environ.update({k: v.replace("{URL}", standin.url) for k, v in (env or {}).items()})
        race = subprocess.run(
            [str(BIN / "bb-race"), str(tasks), "--config", str(root / "bugbout.toml")],
            cwd=root, capture_output=True, text=True, timeout=timeout + 120, env=environ,
            check=False,
        )  # fmt: skip
    visible.unlink()
    judged: list[dict[str, Any]] = []
    if race.returncode == 0:
        raced = root / "raced.jsonl"
        raced.write_text(race.stdout)
        examined = subprocess.run(
            [str(BIN / "bb-xexam"), str(raced), "--config", str(root / "bugbout.toml")],
            cwd=root, capture_output=True, text=True, timeout=600, env=environ, check=False,
        )  # fmt: skip
        assert examined.returncode == 0, examined.stderr
        (root / "examined.jsonl").write_text(examined.stdout)
        done = subprocess.run(
            [str(BIN / "bb-judge"), str(root / "examined.jsonl"), "--config",
             str(root / "bugbout.toml")],
            cwd=root, capture_output=True, text=True, timeout=600, env=environ, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        judged = [json.loads(line) for line in done.stdout.splitlines()]
    return RealRace(root, standin, outside, host_tmp, race, judged)
