"""``bugbout init``: write a commented bugbout.toml for the repository it finds.

The file names what was detected (package, tests, Python, agent CLIs on PATH), keeps
every other key as a commented default, and always loads with
:func:`bb_core.config.load_config`.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from bb_core.agents import init_entries
from bb_core.config import FILE_NAME, NODE_TEST_FILES, build
from bb_core.errors import UsageError
from bb_core.store import atomic_write

from bugbout.detect import Layout, detect


def _q(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def _commented(block: str) -> str:
    return "".join(
        line if line.startswith("#") else f"# {line}" for line in block.splitlines(keepends=True)
    )


def config_text(layout: Layout) -> str:
    """The bugbout.toml for *layout*."""
    project = _node_project(layout) if layout.node is not None else _python_project(layout)
    lines = [
        "# bugbout.toml - which coding agent fixes bugs in this codebase?",
        f"# Written by `bugbout init` ({layout.layout} layout). Every key is explained in",
        "# docs/configuration.md; commented keys show their defaults.",
        "",
        *project,
        "",
        "[tasks]",
        "# limit = 20                      # the most tasks, newest first",
        "# max-source-files = 2            # broader fixes are left out",
        '# since = "2024-01-01"',
        '# issues = "issues.jsonl"         # an offline issue export instead of GitHub',
        "",
        "[run]",
        '# sandbox = "auto"                # auto, bubblewrap, seatbelt or none',
        "# timeout = 1800                  # seconds one agent may spend on one task",
        "# test-timeout = 60               # seconds one test may take",
        "# quotas = { codex = 1 }          # runs sharing a quota at once",
        "# max-patch-bytes = 8388608       # an attempt's patch, at most",
        "# max-attempt-disk = 2147483648   # what an attempt may leave on disk, at most",
        "# memory = 8589934592             # memory of one attempt or test run, at most",
        "# processes = 1024                # processes of one attempt or test run, at most",
        "# file-size = 2147483648          # any one file it writes, at most",
        "",
        "[oracle]",
        "# strength = true                 # measure how strong each task's tests are",
        "# max-mutants = 20                # mutants of the fix's changed lines per task",
        "# min-mutation-score = 0.5        # under this, the task is flagged weak-oracle",
        "# min-coverage = 0.8              # changed lines the new tests must execute",
        "",
        "[judge]",
        '# policy = "majority"             # majority, unanimous, strict or cross-vendor',
        "# run-suite = true                # also run the repository's own tests on every patch",
        '# suspicious = "exclude"          # or "count": suspicious patches count as resolved',
        "",
    ]
    found = set(layout.agents)
    blocks = {exe: block for exe, _harness, block in init_entries()}
    if found:
        lines.append("# Agent CLIs found on PATH; each races as one contestant.")
    else:
        lines.append(f"# No agent CLI ({', '.join(blocks)}) was found on PATH;")
        lines.append("# uncomment one, or add any command line as a `command` agent.")
    lines.append("")
    lines += [block for exe, block in blocks.items() if exe in found]
    lines += [_commented(block) for exe, block in blocks.items() if exe not in found]
    lines.append(
        _commented(
            "# Examiners write tests from the issue alone and fix nothing.\n"
            "[[examiners]]\n"
            'agent = "codex"\n'
            'name = "codex-examiner"\n'
            'assignment = "reproduce"          # or "specify"\n'
        )
    )
    return "\n".join(lines)


def _python_project(layout: Layout) -> list[str]:
    """The ``[project]`` table of a Python project."""
    if layout.source is None:
        raise UsageError(
            f"no Python package found in {layout.root} (looked for src/<pkg>/__init__.py "
            "and <pkg>/__init__.py)",
            hint="write bugbout.toml by hand; see docs/configuration.md",
        )
    others = ", ".join(layout.other_sources)
    python_note = (
        f"from requires-python {_q(layout.requires_python)}"
        if layout.requires_python
        else "no requires-python in pyproject.toml"
    )
    if not layout.python_available:
        python_note += "; not installed here: install it or set interpreter"
    tests_note = "" if layout.tests_found else "   # no test folder found: set it"
    return [
        "[project]",
        _source_line(layout, others),
        f"tests = {_q(layout.tests)}{tests_note}",
        'repository = "."',
        f"python = {_q(layout.python)}   # {python_note}",
        _test_dependencies(layout),
        "# pytest-args = []",
        "# env = {}",
        "# install-project = true          # install the project's runtime dependencies",
        '# interpreter = "/usr/bin/python3" # test with this Python instead of building one',
        '# github = "owner/name"           # where issues are read; default: the origin remote',
    ]


def _node_project(layout: Layout) -> list[str]:
    """The ``[project]`` table of a JavaScript or TypeScript project."""
    node = layout.node
    assert node is not None
    runner = (
        f"runner = {_q(node.runner)}   # from {node.runner_from}"
        if node.runner
        else 'runner = "vitest"   # no vitest or jest found in package.json or config files: set it'
    )
    if node.test_files:
        listed = ", ".join(_q(g) for g in node.test_files)
        test_files = f"test-files = [{listed}]   # from {node.test_files_from}"
    else:
        listed = ", ".join(_q(g) for g in NODE_TEST_FILES)
        test_files = f"# test-files = [{listed}]   # the runners' conventions"
    manager = (
        f"# package manager: {node.package_manager} (by {node.lockfile}); "
        "node_modules is installed from it"
        if node.package_manager
        else "# no lockfile found: bugbout installs from a lockfile; commit one"
    )
    wanted = (
        f"# node: {node.node_wanted} (from {node.node_wanted_from}); `bugbout doctor` checks it"
        if node.node_wanted
        else "# node: the project does not say which version (engines.node, .nvmrc)"
    )
    tests_note = "" if layout.tests_found else "   # no test folder: tests beside the source"
    return [
        "[project]",
        f"language = {_q(node.language)}",
        runner,
        f"source = {_q(node.source)}",
        f"tests = {_q(layout.tests)}{tests_note}",
        test_files,
        'repository = "."',
        manager,
        wanted,
        '# environments = "project"        # or "history": one install per lockfile at each base commit',
        "# env = {}",
        '# github = "owner/name"           # where issues are read; default: the origin remote',
    ]


def _source_line(layout: Layout, others: str) -> str:
    """``source = ...``: the package, with the packages it re-exports before it."""
    assert layout.source is not None
    notes = [f"other packages here: {others}"] if others else []
    if not layout.reexported:
        line = f"source = {_q(layout.source)}"
    else:
        listed = ", ".join(_q(s) for s in (*layout.reexported, layout.source))
        line = f"source = [{listed}]"
        notes.insert(0, f"{layout.source} re-exports {', '.join(layout.reexported)}")
    return line + (f"   # {'; '.join(notes)}" if notes else "")


def _test_dependencies(layout: Layout) -> str:
    """The ``test-dependencies`` line: what pyproject.toml gives for the tests, else the
    commented default."""
    if not layout.test_dependencies:
        return '# test-dependencies = ["pytest"]'
    listed = ", ".join(json.dumps(d) for d in layout.test_dependencies)
    return f"test-dependencies = [{listed}]   # from {layout.test_dependencies_from}"


def init(
    path: str | Path = ".", *, force: bool = False, agents_path: str | None = None
) -> tuple[Path, Layout]:
    """Write ``bugbout.toml`` into the repository at *path*; return it and what was found.

    Refuses to replace an existing file unless *force*, and writes nothing outside the
    top folder of a git work tree.
    """
    root = Path(path).expanduser()
    if not root.is_dir():
        raise UsageError(f"{path}: no such folder")
    if not (root / ".git").exists():
        top = next((p for p in root.resolve().parents if (p / ".git").exists()), None)
        where = (
            f"its work tree starts at {top}; run `bugbout init` there"
            if top is not None
            else "bugbout mines a repository's history; run it in a git repository's top folder"
        )
        raise UsageError(
            f"{path}: not the top of a git work tree, so nothing was written ({where})"
        )
    target = root / FILE_NAME
    if target.exists() and not force:
        raise UsageError(f"{target}: already exists; use --force to replace it")
    layout = detect(root, path=agents_path)
    text = config_text(layout)
    build(tomllib.loads(text), path=target, root=root.resolve())  # it must load as written
    atomic_write(target, text)
    if _no_commit(root):
        layout.notes.append(
            "warning: the repository has no commit yet, so there is no history to mine: "
            "commit the project (bugbout mines fixes from its history), then run "
            "`bugbout doctor`"
        )
    return target, layout


def _no_commit(root: Path) -> bool:
    """Whether the repository at *root* has no commit on any branch yet."""
    from bb_core.errors import BbError
    from bb_core.git import open_repo

    try:
        with open_repo(root) as repo:
            return repo.is_empty()
    except BbError:
        return False


def describe(layout: Layout) -> list[str]:
    """What was found, one line each, for stderr."""
    agents = ", ".join(layout.agents) or "none on PATH"
    if layout.node is not None:
        return [*_describe_node(layout, agents), *layout.notes]
    lines = [
        f"package: {', '.join((*layout.reexported, layout.source or 'none found'))} ({layout.layout} layout)",
        f"tests: {layout.tests}" + ("" if layout.tests_found else " (no test folder found)"),
        f"python: {layout.python}" + ("" if layout.python_available else " (not installed here)"),
        f"agents: {agents}",
    ]
    if layout.test_dependencies:
        count = len(layout.test_dependencies)
        lines.append(f"test dependencies: {count} from {layout.test_dependencies_from}")
    if layout.other_sources:
        lines.append(f"other packages: {', '.join(layout.other_sources)}")
    return [*lines, *layout.notes]


def _describe_node(layout: Layout, agents: str) -> list[str]:
    node = layout.node
    assert node is not None
    runner = f"{node.runner} (from {node.runner_from})" if node.runner else "none found (set it)"
    globs = (
        ", ".join(node.test_files) + f" (from {node.test_files_from})" if node.test_files else ""
    )
    return [
        f"language: {node.language}",
        f"runner: {runner}",
        f"source: {node.source}",
        f"tests: {layout.tests}" + ("" if layout.tests_found else " (no test folder found)"),
        *([f"test files: {globs}"] if globs else []),
        "package manager: "
        + (f"{node.package_manager} ({node.lockfile})" if node.package_manager else "no lockfile"),
        f"node: {node.node_wanted} (from {node.node_wanted_from})"
        if node.node_wanted
        else "node: any version (the project does not say)",
        f"agents: {agents}",
    ]
