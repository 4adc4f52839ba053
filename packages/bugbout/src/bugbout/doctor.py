"""``bugbout doctor``: is this machine and this bugbout.toml ready for a bout?

Each check gives one :class:`Check`: ok, a warning, or a problem with its fix. A problem
is *blocking* when a bout could not give a result without fixing it. Nothing here asks
an agent anything: agents are checked by their executable, started inside the race's
sandbox with a harmless invocation (:mod:`bugbout.agentstart`), their version against
the one bugbout was tested with, a dry run of the adapter's exact command line that makes no
model call (:mod:`bugbout.agentcheck`) and, where the CLI can tell without a model call,
their login.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from bb_core.agents import CodingAgent, agent_from_config
from bb_core.config import Config
from bb_core.config.limits import run_limit
from bb_core.envs import AnyEnv, ensure_env, find_uv
from bb_core.envs.tasks import follows_history
from bb_core.errors import BbError
from bb_core.git import open_repo
from bb_core.sandbox import Sandbox, get_sandbox
from bb_core.store import home_dir
from bb_core.testrun import runner_for
from bb_core.testrun.causes import cause, setting_hint

from bugbout.agentcheck import Finding, check_version, dry_run
from bugbout.agentstart import Started, start_check
from bugbout.checks import OK, PROBLEM, WARNING, Check, ok, problem, skipped
from bugbout.detect import MINORS, python_available


class Doctor:
    """Runs the checks for one configuration, each after what it depends on."""

    def __init__(self, config: Config, *, config_problem: BbError | None = None) -> None:
        self.config = config
        self.config_problem = config_problem
        self.head: str | None = None
        self.sandbox: Sandbox | None = None
        self.env: AnyEnv | None = None

    def checks(self) -> Iterator[Check]:
        """Every check in turn; without a bugbout.toml that loads, only those that need none."""
        config = self.check_config()
        yield config
        if config.status != OK:
            why = "needs a bugbout.toml that loads"
            yield skipped("git", why)
            yield self.check_uv()
            yield skipped("python", why)
            yield self.check_sandbox()
            yield from (skipped(name, why) for name in ("agents", "environment", "suite"))
            return
        yield self.check_repository()
        if self.config.project.node:
            from bugbout.nodecheck import check_node, check_package_manager

            yield check_node(self.local())
            yield check_package_manager(self.local())
        else:
            yield self.check_uv()
            yield self.check_python()
        yield self.check_sandbox()
        yield from self.check_agents()
        yield self.check_environment()
        yield self.check_suite()

    # -- the checks ------------------------------------------------------------------

    def check_config(self) -> Check:
        if self.config_problem is not None:
            fix = self.config_problem.hint or "correct the file; see docs/configuration.md"
            return problem("config", self.config_problem.message, fix)
        if self.config.path is None:
            return problem(
                "config",
                f"no bugbout.toml in {self.config.root}",
                "write one with `bugbout init`, or name it with --config",
            )
        return ok(
            "config",
            f"{self.config.path}: {_count(len(self.config.contestants), 'contestant')}, "
            f"{_count(len(self.config.examiners), 'examiner')}",
        )

    def check_repository(self) -> Check:
        location = self.config.repository_path()
        project = self.config.project
        try:
            with open_repo(location) as repo:
                branch = repo.default_branch()
                head = repo.resolve(branch)
                sources = project.source if isinstance(project.source, list) else [project.source]
                missing = [
                    f"{key} {folder}"
                    for key, folder in [*(("source", s) for s in sources), ("tests", project.tests)]
                    if folder and folder != "." and not repo.exists(head, folder)
                ]
        except BbError as exc:
            return problem(
                "git", exc.message, exc.hint or "check [project] repository in bugbout.toml"
            )
        self.head = head
        cli = shutil.which("git")
        where = f"{location}: {branch} at {head[:10]}"
        if missing:
            return problem(
                "git",
                f"{where}, but {' and '.join(missing)} is not a folder there",
                "check [project] source and tests (paths inside the repository)",
            )
        note = "" if cli else " (no git command on PATH; bugbout does not need one)"
        return ok("git", where + note)

    def local(self) -> Path:
        """The repository's folder here (the configuration's for a git URL)."""
        root = self.config.repository_path()
        return root if isinstance(root, Path) else self.config.root

    def check_uv(self) -> Check:
        uv = find_uv()
        if uv is None:
            if self.config.project.interpreter:
                return ok("uv", "not on PATH, and not needed: [project] interpreter is set")
            return problem(
                "uv",
                "uv is neither on PATH nor in ~/.local/bin; bugbout builds the test environment with it",
                "install it (`pip install uv`, or see https://docs.astral.sh/uv/), "
                'or set [project] interpreter = "/path/to/python" (with pytest)',
            )
        version = _first_line([uv, "--version"]) or "version unknown"
        if shutil.which("uv") is None:
            return ok(
                "uv",
                f"{version} ({uv}; not on PATH, used from there - "
                f"add {os.path.dirname(uv)} to PATH to run it yourself)",
            )
        return ok("uv", f"{version} ({uv})")

    def check_python(self) -> Check:
        project = self.config.project
        if project.interpreter:
            return ok("python", f"[project] interpreter = {project.interpreter} (checked below)")
        version = project.python
        if find_uv() is None:
            return skipped("python", f"Python {version} is looked up with uv, which is missing")
        if python_available(version):
            found = _first_line(
                [find_uv() or "uv", "python", "find", "--no-project", version],
                env={**os.environ, "UV_PYTHON_DOWNLOADS": "never"},
            )
            return ok("python", f"Python {version}: {found}")
        here = [f"3.{m}" for m in MINORS if python_available(f"3.{m}")]
        fix = f"install Python {version} (e.g. `uv python install {version}`)"
        if here:
            fix += f", or set [project] python to one installed here ({', '.join(here)})"
        fix += ", or set [project] interpreter"
        return problem(
            "python", f"Python {version} is not installed here (uv will not download it)", fix
        )

    def check_sandbox(self) -> Check:
        kind = self.config.run.sandbox
        try:
            sandbox = get_sandbox(kind)
        except BbError as exc:
            return problem(
                "sandbox",
                f"{kind}: {exc.message}",
                exc.hint or 'set [run] sandbox = "none" to run unconfined',
            )
        self.sandbox = sandbox
        if sandbox.name == "none":
            return problem(
                "sandbox",
                "none: agents and tests run unconfined",
                'set [run] sandbox = "auto" to confine them',
                blocking=False,
            )
        return ok("sandbox", sandbox.describe())

    def check_agents(self) -> Iterator[Check]:
        entries = self.config.agents
        if not entries:
            yield problem(
                "agents",
                "no [[contestants]] or [[examiners]] in bugbout.toml",
                "uncomment a [[contestants]] block (`bugbout init` writes one per agent CLI,"
                " commented out when the CLI is not on PATH) or add any command line as a"
                " `command` agent (see docs/agents.md)",
            )
            return
        for entry in entries:
            yield self.check_agent(entry)

    def check_agent(self, entry: Any) -> Check:
        name = f"agent {entry.name}"
        try:
            agent = agent_from_config(entry)
        except BbError as exc:
            return problem(name, exc.message, exc.hint or "correct its entry in bugbout.toml")
        command = agent.command()
        found = shutil.which(command) if command else None
        if found is None:
            how = agent.install
            fix = f"install it (`{how}`)" if how else "install it or correct its command"
            return problem(
                name,
                f"`{command or agent.executable}` is not on PATH",
                f"{fix}, or remove {entry.name} from bugbout.toml",
            )
        for what, how in agent.requirements(os.environ.get("PATH")):
            return problem(name, f"{found}: {what}", how)
        if self.sandbox is not None:  # started where the race starts it, confined
            try:
                started = start_check(agent, self.sandbox, entry=entry.origin or name)
            except Exception as exc:  # an adapter's own invocation must not stop the doctor
                started = Started(WARNING, f"it could not be started to check it ({exc})")
            if started.status == PROBLEM:
                return problem(name, started.detail, started.fix)
            checked = self._login(name, agent, found)
            slow = started.status == WARNING and checked.status == OK
            return replace(
                checked,
                status=WARNING if slow else checked.status,
                detail=f"{checked.detail}; {started.detail}",
            )
        return self._login(name, agent, found)

    def _login(self, name: str, agent: CodingAgent, found: str) -> Check:
        try:
            version = agent.version()
            status = agent.login_status()
        except Exception as exc:  # an adapter's own check must not stop the doctor
            return problem(
                name, f"{found}: its login cannot be checked ({exc})", None, blocking=False
            )
        detail = f"{agent.harness} agent, {found}" + (f" ({version})" if version else "")
        try:
            tried = dry_run(agent)
        except Exception as exc:  # an adapter's own check must not stop the doctor
            tried = Finding("warning", f"its dry run could not be made ({exc})")
        if tried is not None and tried.status == "problem":
            how = agent.install or ""
            pin = f" (`{how}@{agent.tested_version}`)" if how and agent.tested_version else ""
            return problem(name, f"{detail}: {tried.detail}", f"install the tested version{pin}")
        newer = check_version(agent, version)
        notes = [n.detail for n in (newer, tried) if n is not None and n.status == "warning"]
        if tried is not None and tried.status == "ok":
            detail += f"; {tried.detail}"
        if status is not None and status.lower().startswith("not "):
            return problem(name, f"{detail}: {status}", f"log in to {agent.harness} as it says")
        if status is not None:
            detail += f"; {status}"
        if notes:
            return Check(name, WARNING, f"{detail}; " + "; ".join(notes))
        return ok(name, detail)

    def check_environment(self) -> Check:
        root = self.config.repository_path()
        local = root if isinstance(root, Path) else self.config.root
        project = self.config.project
        try:
            env = ensure_env(project, local)
        except BbError as exc:
            if not project.node and not project.interpreter and find_uv() is None:
                return skipped("environment", "it is built with uv, which is missing")
            log = getattr(exc, "log", None)
            builder = "the install's" if project.node else "uv's"
            fix = exc.hint or (f"read {builder} log: {log}" if log else None)
            return problem("environment", exc.message, fix)
        self.env = env
        versions = ", ".join(f"{k} {v}" for k, v in sorted(env.versions.items()))
        where = env.root or getattr(env, "python", None)
        detail = f"{versions} ({where})"
        if follows_history(self.config.project):
            detail += "; " + self.history_census(local)
        return ok("environment", detail)

    def history_census(self, local: Path) -> str:
        """How many environments ``environments = "history"`` builds for the tasks mined
        from the configured repository (mined as ``bugbout run`` mines them; the mining
        cache makes this cheap after the first time), and how many exist already."""
        from bb_core.envs.tasks import census
        from bb_mine.mine import MineSettings, mine

        try:
            options = MineSettings.from_config(self.config)
            location = str(self.config.repository_path())
            bases = [
                str(record.get("base_commit"))
                for record in mine(location, options)
                if record.get("kind") == "task"
            ]
            with open_repo(location) as repo:
                found = census(self.config.project, local, repo, bases)
        except BbError as exc:
            return f'environments = "history": cannot count the environments ({exc.message})'
        if not bases:
            return 'environments = "history": no task was mined, so none is needed yet'
        need = "needs" if len(bases) == 1 else "need"
        return (
            f'environments = "history": the {_count(len(bases), "mined task")} {need} '
            + found.line().removeprefix("test environments: ")
        )

    def check_suite(self) -> Check:
        missing = [
            what
            for what, have in (
                ("the repository", self.head),
                ("a working sandbox", self.sandbox),
                ("the test environment", self.env),
            )
            if not have
        ]
        if missing:
            return skipped("suite", f"needs {' and '.join(missing)}")
        assert self.head is not None and self.sandbox is not None and self.env is not None
        tests = self.config.project.tests
        location = self.config.repository_path()
        scratch = Path(tempfile.mkdtemp(prefix="doctor-", dir=home_dir("doctor")))
        try:
            with open_repo(location) as repo:
                checkout = repo.materialize(self.head, scratch / "checkout")
            run = runner_for(self.env).collect(
                checkout,
                self.env,
                [tests],
                sandbox=self.sandbox,
                timeout=run_limit(self.config.run.test_timeout),
                test_timeout=self.config.run.test_timeout,
                log_path=scratch / "collect.log",
            )
            log = _keep_log(scratch / "collect.log")
        except BbError as exc:
            return problem("suite", f"cannot collect the tests at HEAD: {exc.message}", exc.hint)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        at = f"at HEAD ({self.head[:10]})"
        if run.collection_errors:
            first = run.collection_errors[0]
            more = len(run.collection_errors) - 1
            detail = f"{first} does not collect {at}: {cause(first)}"
            if more:
                detail += f" (and {more} more)"
            return problem("suite", detail, f"{setting_hint(cause(first))}; log: {log}")
        if run.timed_out or run.problem:
            why = "timed out" if run.timed_out else run.problem
            return problem("suite", f"collecting the tests {at} failed: {why}", f"log: {log}")
        if not run.outcomes:
            return problem(
                "suite",
                f"no tests collect under {tests} {at}",
                "check [project] tests and test-files"
                if self.config.project.node
                else "check [project] tests, and that test files are named test_*.py",
            )
        return ok("suite", f"{len(run.outcomes)} tests in {tests} collect {at}")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _keep_log(path: Path) -> Path:
    """Move a collection log out of the scratch folder so it outlives it."""
    kept = home_dir("logs", "doctor") / "collect.log"
    try:
        shutil.copyfile(path, kept)
    except OSError:
        return path
    return kept


def _first_line(argv: list[str], env: dict[str, str] | None = None) -> str | None:
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=30, env=env, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = (done.stdout or done.stderr).strip().splitlines()
    return lines[0].strip() if lines and done.returncode == 0 else None
