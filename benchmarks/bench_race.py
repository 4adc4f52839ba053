"""What bb-race itself costs around the agents: taking a patch, and setting up an attempt.

1. ``diff_trees`` / ``split_patch`` / ``apply_patch`` on a tree of 3,000 files in which
   an agent changed 60, added 15 (5 binary), deleted 10 and renamed 5.
2. The fixed cost of one attempt on the demo - two history-free checkouts, the prompt,
   the sandbox, the patch, the stored record - measured with an agent that does nothing
   (``true``), over several attempts, in bubblewrap when it works here.
"""

from __future__ import annotations

import io
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bb_core.config import load_config
from bb_core.git import open_repo
from bb_core.patch import apply_patch, diff_trees, read_tree, split_patch
from bb_core.records import Writer

ROOT = Path(__file__).resolve().parents[1]
FILES = 3000
ATTEMPTS = 8


def build_tree(root: Path, rng: random.Random) -> None:
    for n in range(FILES):
        folder = "tests" if n % 5 == 0 else f"src/pkg/mod{n % 40}"
        name = f"test_{n}.py" if folder == "tests" else f"file_{n}.py"
        path = root / folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = [f"def f_{n}_{i}(x):\n    return x + {rng.randint(0, 999)}\n" for i in range(30)]
        path.write_text("".join(lines))


def agent_edits(work: Path, rng: random.Random) -> None:
    files = sorted(p for p in work.rglob("*.py"))
    rng.shuffle(files)
    for path in files[:60]:
        lines = path.read_text().splitlines(keepends=True)
        for at in rng.sample(range(len(lines)), 3):
            lines[at] = lines[at].replace("return", "return -")
        path.write_text("".join(lines))
    for path in files[60:70]:
        path.unlink()
    for n, path in enumerate(files[70:75]):
        path.rename(path.with_name(f"renamed_{n}.py"))
    for n in range(10):
        (work / "src/pkg" / f"new_{n}.py").write_text(f"NEW = {n}\n" * 20)
    for n in range(5):
        (work / "src/pkg" / f"blob_{n}.bin").write_bytes(rng.randbytes(20_000))


def bench_patches() -> None:
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        base, work, target = Path(tmp, "base"), Path(tmp, "work"), Path(tmp, "target")
        build_tree(base, rng)
        shutil.copytree(base, work)
        agent_edits(work, rng)
        started = time.perf_counter()
        patch = diff_trees(base, work)
        diffed = time.perf_counter() - started
        started = time.perf_counter()
        source, tests = split_patch(patch, "src/pkg", "tests")
        split = time.perf_counter() - started
        assert source and tests
        shutil.copytree(base, target)
        started = time.perf_counter()
        apply_patch(patch, target)
        applied = time.perf_counter() - started
        assert read_tree(target).entries == read_tree(work).entries
    print(f"tree of {FILES} files, patch of {len(patch) / 1024:.0f} KiB:")
    print(f"  diff_trees   {diffed * 1000:8.0f} ms")
    print(f"  split_patch  {split * 1000:8.0f} ms")
    print(f"  apply_patch  {applied * 1000:8.0f} ms")


def task_line(repo_path: Path, fact: Any) -> dict[str, Any]:
    """A task line for one of the demo's fixes."""
    import expected

    fix = expected.SHAS[fact.title]
    with open_repo(repo_path) as repo:
        base = repo.commit(fix).parents[0]
    return {
        "kind": "task", "v": 1, "id": f"repo-{fix[:10]}", "repository": str(repo_path),
        "base_commit": base, "fix_commit": fix, "title": fact.title,
        "statement": f"{fact.reported_input} goes wrong", "statement_source": "export",
        "source": expected.SOURCE, "tests": expected.TESTS,
        "source_files": list(fact.source_files), "test_files": list(fact.test_files),
        "protected_paths": list(fact.test_files), "reference_patch": "", "test_patch": "",
    }  # fmt: skip


def bench_attempts() -> None:
    sys.path.insert(0, str(ROOT / "examples" / "demo"))
    import expected
    from bb_core.stage_spec import run
    from bb_race.spec import SPEC
    from build_demo import build_demo

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["BUGBOUT_HOME"] = str(Path(tmp) / "home")
        demo = build_demo(Path(tmp) / "demo")
        tasks = Path(tmp) / "tasks.jsonl"
        tasks.write_text(json.dumps(task_line(demo.repo, expected.CAMEL_FIRST_WORD)) + "\n")
        config_text = (
            '[project]\nsource = "src/textkit"\ntests = "tests"\n'
            f'repository = "{demo.repo}"\ninterpreter = "{sys.executable}"\n'
        )
        for n in range(ATTEMPTS):
            config_text += (
                f'\n[[contestants]]\nagent = "command"\nname = "noop-{n}"\ncommand = ["true"]\n'
            )
        (Path(tmp) / "bugbout.toml").write_text(config_text)
        config = load_config(Path(tmp) / "bugbout.toml")
        started = time.perf_counter()
        run(
            SPEC, [str(tasks)], SPEC.settings_of(config), writer=Writer(io.BytesIO()), config=config
        )
        total = time.perf_counter() - started
        durations = []
        for record in Path(tmp, ".bugbout", "attempts").rglob("*.json"):
            durations.append(json.loads(record.read_text())["duration"])
    print(f"{ATTEMPTS} attempts of a do-nothing agent on the demo ({config.run.sandbox} sandbox):")
    print(f"  whole race          {total:8.2f} s ({total / ATTEMPTS * 1000:.0f} ms per attempt)")
    print(f"  agent run (median)  {statistics.median(durations) * 1000:8.0f} ms")


if __name__ == "__main__":
    bench_patches()
    bench_attempts()
