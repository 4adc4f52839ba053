"""Build bugbout's demo: a small git repository with a real fix history, its issues, agents.

    python examples/demo/build_demo.py DEST [--force]

writes

    DEST/repo/          the git repository of ``textkit`` (see history.py), or with
                        ``--lang ts`` of ``tskit``, in TypeScript (tskit_demo/history.py)
    DEST/issues.jsonl   the offline issue export (see issues.py)
    DEST/bugbout.toml   five scripted contestants and one scripted examiner
    DEST/agents/        copies of the scripted agents the config runs, and of the snoop,
                        a hostile agent that searches its sandbox for the answer (add
                        it to bugbout.toml as a contestant to see what it finds)

The repository is built with the git CLI under a fixed identity, fixed dates and no user
or system configuration, so every build on every machine has the same commit shas.

Importable too: ``build_demo(dest) -> DemoPaths``, ``write_config(root)`` (rewrite the
config after moving a built demo) and ``GitRepo`` (deterministic repositories for tests).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:  # run as a script from anywhere, or imported by tests
    sys.path.insert(0, str(HERE))

import history  # noqa: E402
from issues import ISSUES  # noqa: E402
from tskit_demo import history as ts_history  # noqa: E402
from tskit_demo.issues import ISSUES as TS_ISSUES  # noqa: E402

AGENTS_DIR = HERE / "agents"
PERSONAS = ("careful", "shortcut", "tamperer", "breaker", "idler")
EXAMINER = "examiner"
# Two contestants share a vendor, so the cross-vendor policy has something to exclude.
VENDORS = {
    "careful": "acme",
    "shortcut": "acme",
    "tamperer": "globex",
    "breaker": "initech",
    "idler": "umbrella",
    "examiner": "hooli",
}
DEFAULT_DATE = "2024-01-01T00:00:00+00:00"
#: The demo's languages: ``py`` builds textkit (pytest), ``ts`` builds tskit (vitest).
LANGUAGES = ("py", "ts")


@dataclass(frozen=True)
class DemoPaths:
    """Where a built demo lives. Behaves like its root folder as a path, too."""

    root: Path

    @property
    def repo(self) -> Path:
        return self.root / "repo"

    @property
    def config(self) -> Path:
        return self.root / "bugbout.toml"

    @property
    def issues(self) -> Path:
        return self.root / "issues.jsonl"

    @property
    def agents(self) -> Path:
        return self.root / "agents"

    def __fspath__(self) -> str:
        return str(self.root)

    def __truediv__(self, other: str | os.PathLike[str]) -> Path:
        return self.root / other

    def __str__(self) -> str:
        return str(self.root)


def git_env(name: str, email: str, date: str) -> dict[str, str]:
    """An environment in which git ignores every user and system setting."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("GIT_") and key not in ("EMAIL", "GPG_TTY")
    }
    env.update(
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME=name,
        GIT_AUTHOR_EMAIL=email,
        GIT_AUTHOR_DATE=date,
        GIT_COMMITTER_NAME=name,
        GIT_COMMITTER_EMAIL=email,
        GIT_COMMITTER_DATE=date,
        GIT_TERMINAL_PROMPT="0",
        LC_ALL="C",
    )
    return env


class GitRepo:
    """A git repository built commit by commit, reproducibly (same inputs, same shas).

    ``commit`` writes files (``None`` deletes one) and commits them all; ``branch``,
    ``switch`` and ``merge`` (always a merge commit) shape the history. Without an explicit
    ``date``, each commit is one hour after the previous one, starting at ``start``.
    """

    def __init__(
        self,
        path: Path,
        *,
        author: tuple[str, str] = history.MAINTAINER,
        start: str = DEFAULT_DATE,
    ) -> None:
        self.path = Path(path)
        self.author = author
        self._clock = datetime.fromisoformat(start)
        self.path.mkdir(parents=True, exist_ok=True)
        self.git("-c", "init.defaultBranch=main", "init", "-q")
        for key, value in (
            ("commit.gpgsign", "false"),
            ("tag.gpgsign", "false"),
            ("core.autocrlf", "false"),
            ("core.filemode", "true"),
            ("merge.ff", "false"),
        ):
            self.git("config", key, value)

    def git(
        self,
        *args: str,
        date: str | None = None,
        author: tuple[str, str] | None = None,
        stdin: str | None = None,
    ) -> str:
        name, email = author or self.author
        result = subprocess.run(
            ["git", *args],
            cwd=self.path,
            env=git_env(name, email, date or DEFAULT_DATE),
            input=stdin,
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode != 0:
            raise RuntimeError(
                f"git {' '.join(args)} failed ({result.returncode}): {result.stderr.strip()}"
            )
        return result.stdout

    def _next_date(self, date: str | None) -> str:
        if date is not None:
            self._clock = datetime.fromisoformat(date)
            return date
        self._clock += timedelta(hours=1)
        return self._clock.isoformat()

    def write(self, files: Mapping[str, str | bytes | None]) -> None:
        for relpath, content in files.items():
            target = self.path / relpath
            if content is None:
                target.unlink()
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_text(content, encoding="utf-8", newline="\n")

    def commit(
        self,
        files: Mapping[str, str | bytes | None],
        message: str,
        *,
        date: str | None = None,
        author: tuple[str, str] | None = None,
    ) -> str:
        """Write *files* and commit every change in the work tree; returns the new sha."""
        self.write(files)
        self.git("add", "--all")
        stamp = self._next_date(date)
        self.git(
            "commit", "-q", "--allow-empty", "--cleanup=verbatim", "--no-verify", "-F", "-",
            date=stamp, author=author, stdin=_message(message),
        )  # fmt: skip
        return self.sha()

    def branch(self, name: str, start: str = "HEAD") -> None:
        """Create branch *name* at *start* and switch to it."""
        self.git("switch", "-q", "-c", name, start)

    def switch(self, name: str) -> None:
        self.git("switch", "-q", name)

    def merge(
        self,
        branch: str,
        message: str,
        *,
        date: str | None = None,
        author: tuple[str, str] | None = None,
    ) -> str:
        """Merge *branch* into the current branch as a merge commit; returns its sha."""
        stamp = self._next_date(date)
        self.git("merge", "-q", "--no-ff", "--no-commit", branch, date=stamp, author=author)
        self.git(
            "commit", "-q", "--cleanup=verbatim", "--no-verify", "-F", "-",
            date=stamp, author=author, stdin=_message(message),
        )  # fmt: skip
        return self.sha()

    def sha(self, ref: str = "HEAD") -> str:
        return self.git("rev-parse", "--verify", f"{ref}^{{commit}}").strip()


def _message(message: str) -> str:
    return message.rstrip("\n") + "\n"


def _apply(repo: Path, change: history.Write | history.Edit) -> None:
    target = repo / change.path
    if isinstance(change, history.Write):
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(change.text, encoding="utf-8", newline="\n")
        return
    before = target.read_text(encoding="utf-8")
    count = before.count(change.old)
    if count != 1:
        raise RuntimeError(f"{change.path}: edit expects its snippet once, found {count}")
    target.write_text(before.replace(change.old, change.new), encoding="utf-8", newline="\n")


def build_repository(dest: Path, lang: str = "py") -> GitRepo:
    """Replay the steps of *lang*'s history (history.STEPS, tskit_demo/history.STEPS) into a
    new repository at *dest*."""
    steps = ts_history.STEPS if lang == "ts" else history.STEPS
    repo = GitRepo(dest)
    titles: dict[str, str] = {}
    for step in steps:
        if isinstance(step, history.Commit):
            for change in step.changes:
                _apply(dest, change)
            sha = repo.commit({}, step.message, date=step.date, author=step.author)
            titles[step.message.splitlines()[0]] = sha
        elif isinstance(step, history.Branch):
            repo.branch(step.name, titles[step.start])
        elif isinstance(step, history.Switch):
            repo.switch(step.name)
        else:
            repo.merge(step.branch, step.message, date=step.date, author=step.author)
    repo.git("gc", "-q", "--prune=now")
    return repo


def _toml_string(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def language_of(root: Path) -> str:
    """The language of the demo built at *root*: ``ts`` when its repository has a
    package.json, else ``py``."""
    return "ts" if (Path(root) / "repo" / "package.json").is_file() else "py"


PROJECT = {
    "py": (
        "# The demo bout: five scripted contestants and one scripted examiner race on the\n"
        "# textkit repository's past fixes. Built by examples/demo/build_demo.py.\n",
        "[project]\n"
        'source = "src/textkit"\n'
        'tests = "tests"\n'
        'repository = "repo"\n'
        'python = "3.11"\n',
    ),
    "ts": (
        "# The TypeScript demo bout: five scripted contestants and one scripted examiner race\n"
        "# on the tskit repository's past fixes (vitest). Built by examples/demo/build_demo.py\n"
        "# --lang ts.\n",
        "[project]\n"
        'language = "typescript"\n'
        'runner = "vitest"\n'
        'source = "src"\n'
        'tests = "tests"\n'
        'repository = "repo"\n',
    ),
}


def config_text(root: Path, python: str = sys.executable, lang: str | None = None) -> str:
    """bugbout.toml for a demo at *root*: commands use absolute paths, the rest is relative.
    *lang* defaults to the language of the demo built there (:func:`language_of`)."""
    agents = Path(root).resolve() / "agents"

    def agent_block(table: str, name: str, extra: str = "") -> str:
        command = f"[{_toml_string(python)}, {_toml_string(str(agents / f'{name}.py'))}]"
        return (
            f"[[{table}]]\n"
            f'agent = "command"\n'
            f'name = "{name}"\n'
            f'vendor = "{VENDORS[name]}"\n'
            f"command = {command}\n"
            f"{extra}"
        )

    blocks = [
        *PROJECT[lang or language_of(root)],
        '[tasks]\nissues = "issues.jsonl"\n',
        "[run]\ntimeout = 120\n",
        *(agent_block("contestants", name) for name in PERSONAS),
        agent_block("examiners", EXAMINER, 'assignment = "reproduce"\n'),
    ]
    return "\n".join(blocks)


def write_config(root: Path, python: str = sys.executable, lang: str | None = None) -> Path:
    """(Re)write ``root/bugbout.toml`` so its agent commands point into *root*."""
    path = Path(root) / "bugbout.toml"
    path.write_text(config_text(root, python, lang), encoding="utf-8")
    return path


def write_issues(path: Path, lang: str = "py") -> Path:
    issues = TS_ISSUES if lang == "ts" else ISSUES
    lines = (json.dumps(issue, ensure_ascii=False, sort_keys=True) for issue in issues)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def copy_agents(dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    for script in sorted(AGENTS_DIR.glob("*.py")):
        shutil.copyfile(script, dest / script.name)
    return dest


def build_demo(dest: Path, *, force: bool = False, lang: str = "py") -> DemoPaths:
    """Build the whole demo into *dest*, which must be absent or empty unless *force*;
    *lang* ``ts`` builds the TypeScript demo (tskit) instead of textkit."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown demo language {lang!r} (one of {', '.join(LANGUAGES)})")
    dest = Path(dest).resolve()
    if dest.exists() and any(dest.iterdir()):
        if not force:
            raise FileExistsError(f"{dest}: exists and is not empty (use --force to replace it)")
        shutil.rmtree(dest)
    dest.mkdir(parents=True, exist_ok=True)
    paths = DemoPaths(dest)
    build_repository(paths.repo, lang)
    write_issues(paths.issues, lang)
    copy_agents(paths.agents)
    write_config(dest, lang=lang)
    return paths


def build_ts_demo(dest: Path) -> DemoPaths:
    """:func:`build_demo` of the TypeScript demo (for a build made once, as tests do)."""
    return build_demo(dest, lang="ts")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="build_demo.py",
        description="Build bugbout's demo repository, issue export, agents and bugbout.toml.",
    )
    parser.add_argument("dest", type=Path, help="folder to build into (absent or empty)")
    parser.add_argument("--force", action="store_true", help="replace DEST if it has content")
    parser.add_argument(
        "--lang", choices=LANGUAGES, default="py",
        help="py: textkit, a Python package (pytest); ts: tskit, a TypeScript library (vitest)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    try:
        paths = build_demo(args.dest, force=args.force, lang=args.lang)
    except FileExistsError as error:
        print(f"build_demo.py: {error}", file=sys.stderr)
        return 2
    except (OSError, RuntimeError) as error:
        print(f"build_demo.py: {error}", file=sys.stderr)
        return 1
    print(paths.root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
