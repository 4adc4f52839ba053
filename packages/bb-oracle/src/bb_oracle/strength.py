"""How strong a task's oracle is: what its tests would notice if the fix were different.

Measured on the *after* side (the fix's tree), once the oracle's lists are known:

- **changed-line coverage**: FAIL_TO_PASS runs under coverage.py (from a read-only folder in
  BUGBOUT_HOME bound into the sandbox, never installed into the project's environment);
  the share of the reference patch's added or changed executable lines they execute, and
  the lines they do not;
- **mutation score**: at most ``max_mutants`` mutants of those lines
  (:mod:`bb_oracle.mutants`) and every hunk of the reference patch reverted alone, each run
  against the task's test modules; a mutant is killed when a FAIL_TO_PASS or PASS_TO_PASS
  test does not pass (or the run hits its limit); the survivors are described;
- **hunks no test needs**: a hunk whose revert leaves every FAIL_TO_PASS test passing. A
  hunk that changes no code - only blank lines, comments, docstrings or imports of names
  nothing reads, so that its revert parses to the same syntax tree less those - is not
  reverted: no test could need it.

A task whose score or coverage is under its threshold, or that has a hunk no test needs, is
flagged ``weak-oracle``. Every run is the stage's usual sandboxed runner, with bytecode
writing off so an edited file is never answered by a stale ``.pyc``.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import os
import posixpath
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import coverage
from bb_core.envs import TestEnv
from bb_core.lang import is_js_source
from bb_core.patch import FilePatch, Hunk, PatchError, parse_patch
from bb_core.records import kinds
from bb_core.store import home_dir
from bb_core.testrun import TestRun

from bb_oracle.mutants import Mutant, Operator, mutants, pick
from bb_oracle.mutants_js import mutants as js_mutants
from bb_oracle.strength_node import node_coverage, tally
from bb_oracle.strength_node import same_code as js_same_code

FLAG: Literal["weak-oracle"] = "weak-oracle"
PROBE = Path(__file__).parent / "probe"
#: Bumped when the probe or the way strength is measured changes (part of the cache key).
FORMAT = 2


@dataclass(frozen=True)
class Thresholds:
    max_mutants: int = 20
    min_mutation_score: float = 0.5
    min_coverage: float = 0.8


@dataclass
class _Change:
    """One file of the reference patch on the after side: its hunks and added lines."""

    path: str
    hunks: list[Hunk]
    added: list[int]


def changes(reference_patch: str) -> list[_Change]:
    """The text files the reference patch leaves in place, with their added line numbers."""
    try:
        files = parse_patch(reference_patch) if reference_patch.strip() else []
    except PatchError:
        return []
    found: list[_Change] = []
    for item in files:
        if item.new_path is None or item.binary is not None or not item.hunks:
            continue
        found.append(_Change(item.new_path, list(item.hunks), _added(item)))
    return found


def _added(item: FilePatch) -> list[int]:
    lines: list[int] = []
    for hunk in item.hunks:
        number = hunk.new_start
        for sign, _ in hunk.lines:
            if sign == "+":
                lines.append(number)
            if sign in " +":
                number += 1
    return lines


def revert_hunk(source: str, hunk: Hunk) -> str | None:
    """*source* (the after side) with *hunk* undone alone; None when it does not match."""
    lines = source.splitlines(keepends=True)
    new = [text for sign, text in hunk.lines if sign in " +"]
    old = [text for sign, text in hunk.lines if sign in " -"]
    start = hunk.new_start if hunk.new_len == 0 else hunk.new_start - 1
    if [_strip(x) for x in lines[start : start + len(new)]] != [_strip(x) for x in new]:
        return None
    return "".join(lines[:start] + old + lines[start + len(new) :])


def same_code(one: str, two: str) -> bool:
    """Whether two Python sources differ only in layout, comments, docstrings or imports
    of names neither uses (attrs' removal of an unused ``from typing import ClassVar``)."""
    try:
        trees = ast.parse(one), ast.parse(two)
    except (SyntaxError, ValueError):
        return False
    used = _used_names(trees[0]) | _used_names(trees[1])
    return _code(trees[0], used) == _code(trees[1], used)


def _used_names(tree: ast.AST) -> set[str]:
    """Every name *tree* reads, and every string it holds (``__all__``, annotations)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.update(node.value.replace(".", " ").replace("[", " ").split())
    return found


def _code(tree: ast.Module, used: set[str]) -> str:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list):
            kept = [n for n in body if not _unused_import(n, used)]
            if len(kept) != len(body):
                node.body = kept or [ast.Pass()]  # type: ignore[attr-defined]
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            value = first.value if isinstance(first, ast.Expr) else None
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                node.body = node.body[1:] or [ast.Pass()]
    return ast.dump(tree)


def _unused_import(node: ast.AST, used: set[str]) -> bool:
    """An import binding only names that are never read (``*`` imports count as read)."""
    if not isinstance(node, ast.Import | ast.ImportFrom):
        return False
    names = [alias.asname or alias.name.split(".")[0] for alias in node.names]
    return "*" not in names and not any(name in used for name in names)


def _strip(line: str) -> str:
    return line.rstrip("\r\n")


def probe_dir() -> Path:
    """A read-only folder holding only coverage.py and the probe plugin, made once."""
    name = f"coverage-{coverage.__version__}-{FORMAT}"
    tools = home_dir("tools")
    target = tools / name
    if (target / "bugbout_coverage.py").exists():
        return target
    building = tools / f".{name}.{os.getpid()}"
    shutil.rmtree(building, ignore_errors=True)
    shutil.copytree(
        Path(coverage.__file__).parent,
        building / "coverage",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    shutil.copy2(PROBE / "bugbout_coverage.py", building / "bugbout_coverage.py")
    try:
        os.rename(building, target)
    except OSError:  # another process made it first
        shutil.rmtree(building, ignore_errors=True)
    return target


@dataclass
class StrengthRun:
    """Everything one measurement needs; :meth:`measure` does it in an after-side checkout."""

    folder: Path
    env: TestEnv
    modules: Sequence[str]
    fail_to_pass: Sequence[str]
    pass_to_pass: Sequence[str]
    run: Callable[..., TestRun]  # the stage's runner with the sandbox and limits bound
    logs: Path
    thresholds: Thresholds
    runs: int = 0

    def measure(self, reference_patch: str) -> kinds.OracleStrength:
        started = time.monotonic()
        files = changes(reference_patch)
        node = self.node
        if node:  # a node project's (bb_oracle.strength_node): V8's coverage, node's mutants
            quiet = self.env
            cover = node_coverage(self.folder, [(c.path, c.added) for c in files], self._v8)
        else:
            quiet = dataclasses.replace(
                self.env, env={**self.env.env, "PYTHONDONTWRITEBYTECODE": "1"}
            )
            cover = self._coverage(files, quiet)
        candidates: list[Mutant] = []
        for change in files:
            mutate = js_mutants if node else mutants
            if is_js_source(change.path) if node else change.path.endswith(".py"):
                source = self._read(change.path)
                if source is not None:
                    candidates += mutate(change.path, source, change.added)
        chosen = pick(candidates, self.thresholds.max_mutants)
        killed = 0
        survivors: list[kinds.OracleStrengthMutationSurvivor] = []
        for n, mutant in enumerate(chosen, 1):
            outcome = self._try(mutant.path, mutant.source, quiet, f"mutant-{n}")
            if outcome["killed"]:
                killed += 1
            else:
                survivors.append(
                    _survivor(mutant.path, mutant.line, mutant.operator, mutant.change)
                )
        hunks_total = 0
        untested: list[kinds.OracleStrengthHunksUntested] = []
        for change in files:
            source = self._read(change.path)
            if source is None:
                continue
            for index, hunk in enumerate(change.hunks, 1):
                reverted = revert_hunk(source, hunk)
                if reverted is None or (
                    js_same_code(change.path, reverted, source)
                    if node and is_js_source(change.path)
                    else same_code(reverted, source)
                ):
                    continue  # does not match, or changes no code: nothing a test could need
                hunks_total += 1
                outcome = self._try(change.path, reverted, quiet, f"hunk-{change.path}-{index}")
                if outcome["killed"]:
                    killed += 1
                else:
                    survivors.append(
                        _survivor(
                            change.path,
                            hunk.new_start,
                            "reverted hunk",
                            f"'{hunk.header}' reverted",
                        )
                    )
                if outcome["f2p_pass"]:
                    last = hunk.new_start + max(hunk.new_len, 1) - 1
                    untested.append(
                        {"file": change.path, "hunk": hunk.header, "lines": [hunk.new_start, last]}
                    )
        total = len(chosen) + hunks_total
        mutation: kinds.OracleStrengthMutation = {
            "candidates": len(candidates),
            "mutants": total,
            "killed": killed,
            "score": round(killed / total, 3) if total else None,
            "survivors": survivors,
        }
        strength: kinds.OracleStrength = {
            "coverage": cover,
            "mutation": mutation,
            "hunks": {"total": hunks_total, "untested": untested},
            "thresholds": {
                "max_mutants": self.thresholds.max_mutants,
                "min_mutation_score": self.thresholds.min_mutation_score,
                "min_coverage": self.thresholds.min_coverage,
            },
            # Set just below, here for their place in the record.
            "weak": False,
            "flag": FLAG,
            "reasons": [],
        }
        reasons = weaknesses(strength, self.thresholds)
        strength["weak"] = bool(reasons)
        if not reasons:
            del strength["flag"]
        strength["reasons"] = reasons
        strength["test_runs"] = self.runs
        strength["duration"] = round(time.monotonic() - started, 3)
        return strength

    # -- the runs ----------------------------------------------------------------------

    @property
    def node(self) -> bool:
        """Whether the project is a node one (its environment's runner is not pytest)."""
        return getattr(self.env, "runner", "pytest") != "pytest"

    def _v8(self, out: Path) -> TestRun:
        """FAIL_TO_PASS once, the runner writing the lines it executed to *out*."""
        self.runs += 1
        ids = list(self.fail_to_pass)
        log = self.logs / "strength-coverage.log"
        return self.run(self.folder, self.env, ids, nodeids=ids, log_path=log, coverage=str(out))

    def _read(self, path: str) -> str | None:
        try:
            return (self.folder / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def _coverage(self, files: Sequence[_Change], env: TestEnv) -> kinds.OracleStrengthCoverage:
        targets = [c for c in files if c.path.endswith(".py") and c.added]
        if not targets:
            return {"changed_lines": 0, "covered": 0, "share": None, "uncovered": []}
        tools = probe_dir()
        out = self.folder / ".bugbout-coverage.json"
        names = {str((self.folder / c.path).resolve()): c for c in targets}
        probed = dataclasses.replace(
            env,
            env={
                **env.env,
                "BUGBOUT_COVERAGE_OUT": str(out),
                "BUGBOUT_COVERAGE_FILES": os.pathsep.join(names),
            },
        )
        self.runs += 1
        run = self.run(
            self.folder,
            probed,
            list(self.fail_to_pass),
            nodeids=list(self.fail_to_pass),
            log_path=self.logs / "strength-coverage.log",
            extra_args=("-p", "bugbout_coverage"),
            readable=[tools],
            pythonpath=[*env.pythonpath, str(tools)],
        )
        try:
            measured = json.loads(out.read_bytes())
        except (OSError, ValueError):
            return {
                "changed_lines": 0,
                "covered": 0,
                "share": None,
                "uncovered": [],
                "error": f"coverage wrote no result (log: {run.log})",
            }
        finally:
            out.unlink(missing_ok=True)
        entries = {name: measured.get(name) or {} for name in names}
        return tally(
            (
                change.path,
                change.added,
                set(entries[name].get("statements", [])),
                set(entries[name].get("executed", [])),
            )
            for name, change in names.items()
        )

    def _try(self, path: str, source: str, env: TestEnv, label: str) -> dict[str, bool]:
        """Run the task's modules with *path* holding *source*; put the file back after."""
        target = self.folder / path
        original = target.read_bytes()
        safe = label.replace("/", "_")
        try:
            target.write_text(source, encoding="utf-8")
            self.runs += 1
            run = self.run(
                self.folder,
                env,
                list(self.modules),
                log_path=self.logs / f"strength-{safe}.log",
                extra_args=() if self.node else ("-x",),
                # No canaries: their must-fail test would stop a -x run, and the tree holds
                # only the maintainers' fix and bugbout's own mutant, no agent's code.
                canaries=False,
            )
        finally:
            target.write_bytes(original)
        outcomes = run.outcomes
        wanted = [*self.fail_to_pass, *self.pass_to_pass]
        broken = run.timed_out or any(outcomes.get(t) != "passed" for t in wanted)
        f2p_pass = not run.timed_out and all(outcomes.get(t) == "passed" for t in self.fail_to_pass)
        return {"killed": broken, "f2p_pass": f2p_pass}


def _survivor(
    path: str, line: int, operator: Operator, change: str
) -> kinds.OracleStrengthMutationSurvivor:
    return {
        "file": path,
        "line": line,
        "operator": operator,
        "change": change,
        "description": f"{posixpath.basename(path)}:{line}: {change}",
    }


def weaknesses(strength: Mapping[str, Any], thresholds: Thresholds) -> list[str]:
    """Why an oracle is weak, in words; empty when it is not."""
    reasons: list[str] = []
    score = strength["mutation"]["score"]
    if score is not None and score < thresholds.min_mutation_score:
        reasons.append(f"mutation score {score:.2f} is under {thresholds.min_mutation_score:.2f}")
    share = strength["coverage"]["share"]
    if share is not None and share < thresholds.min_coverage:
        reasons.append(
            f"FAIL_TO_PASS covers {share:.0%} of the changed lines, under "
            f"{thresholds.min_coverage:.0%}"
        )
    untested = strength["hunks"]["untested"]
    if untested:
        reasons.append(f"{len(untested)} hunk(s) of the fix no FAIL_TO_PASS test needs")
    return reasons
