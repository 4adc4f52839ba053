"""A few hundred commits of varied history, built with ``git fast-import`` in well under a second.

Long enough for bb-mine to fan candidates out to worker processes, and varied enough that
every skip reason and both kinds of added test occur: fixes that add a test function or a
parametrize case, fixes adding no test, touching too many files or only docs, naming no
issue or an issue already fixed, breaking a test module's syntax, renaming a test module,
and pull requests landed as merge commits.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping
from pathlib import Path

EPOCH = 1_700_000_000
MODULES = 6
TESTS = 4


class _Stream:
    """A fast-import stream on one branch (plus side branches merged back into it)."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {}
        self.chunks: list[bytes] = []
        self.mark = 0
        self.tip = 0  # mark of the main branch's last commit

    def commit(
        self,
        message: str,
        changes: Mapping[str, str | None],
        when: int,
        *,
        ref: str = "refs/heads/main",
        parent: int | None = None,
        merge: int | None = None,
    ) -> int:
        self.mark += 1
        out = [f"commit {ref}\nmark :{self.mark}\n"]
        out.append(f"author Dev <dev@example.com> {when} +0000\n")
        out.append(f"committer Dev <dev@example.com> {when} +0000\n")
        data = message.encode()
        head = "".join(out).encode() + f"data {len(data)}\n".encode() + data + b"\n"
        body = [head]
        base = parent if parent is not None else self.tip
        if base:
            body.append(f"from :{base}\n".encode())
        if merge:
            body.append(f"merge :{merge}\n".encode())
        for path, text in changes.items():
            if text is None:
                self.files.pop(path, None)
                body.append(f"D {path}\n".encode())
                continue
            self.files[path] = text
            blob = text.encode()
            body.append(f"M 100644 inline {path}\ndata {len(blob)}\n".encode() + blob + b"\n")
        body.append(b"\n")
        self.chunks.append(b"".join(body))
        if ref == "refs/heads/main":
            self.tip = self.mark
        return self.mark

    def bytes(self) -> bytes:
        return b"".join(self.chunks) + b"done\n"


def _module(index: int, version: int) -> str:
    return f'"""Module {index}."""\n\n\ndef compute_{index}(value):\n    return value + {version}\n'


def _test_module(index: int) -> str:
    return (
        f"import pytest\n\nfrom pkg.mod_{index} import compute_{index}\n\n\n"
        f'@pytest.mark.parametrize("value", [0])\n'
        f"def test_values_{index}(value):\n    assert compute_{index}(value) >= value\n"
    )


def build_long_history(dest: Path, commits: int = 400) -> tuple[Path, Path]:
    """A repository at ``dest/repo`` and its issue export at ``dest/issues.jsonl``."""
    stream = _Stream()
    initial: dict[str, str | None] = {f"src/pkg/mod_{m}.py": _module(m, 0) for m in range(MODULES)}
    initial["src/pkg/__init__.py"] = ""
    initial |= {f"tests/test_mod_{t}.py": _test_module(t) for t in range(TESTS)}
    initial["tests/conftest.py"] = "import pytest\n"
    initial["docs/index.md"] = "# Docs\n"
    initial["pyproject.toml"] = '[project]\nname = "pkg"\n\n[tool.pytest.ini_options]\n'
    stream.commit("Start the package", initial, EPOCH)
    issues = []
    for n in range(1, commits):
        when = EPOCH + n * 600
        m, t = n % MODULES, n % TESTS
        source = f"src/pkg/mod_{m}.py"
        test = f"tests/test_mod_{t}.py"
        kind = n % 13
        if n % 3:  # two commits in three are routine work
            stream.commit(f"Tune module {m}, step {n}", {source: _module(m, n)}, when)
            continue
        issues.append(
            {
                "number": n,
                "title": f"compute_{m} is wrong",
                "body": f"See {n}.\n\n## Fix\n\nEdit it.\n",
            }
        )
        added = stream.files[test] + f"\n\ndef test_case_{n}():\n    assert compute_{t}({n})\n"
        if kind == 0:  # a new parametrize case
            old = stream.files[test]
            changes = {source: _module(m, n), test: old.replace("[0", f"[{n}, 0", 1)}
            stream.commit(f"Fix compute_{m} for {n} (#{n})", changes, when)
        elif kind == 1:
            stream.commit(f"Fix compute_{m} quietly (#{n})", {source: _module(m, n)}, when)
        elif kind == 2:
            wide = {f"src/pkg/mod_{k}.py": _module(k, n) for k in range(3)}
            stream.commit(f"Fix every module at once (#{n})", wide | {test: added}, when)
        elif kind == 3:
            stream.commit(f"Fix the docs (#{n})", {"docs/index.md": f"# Docs {n}\n"}, when)
        elif kind == 4:
            stream.commit(f"Fix compute_{m} again", {source: _module(m, n), test: added}, when)
        elif kind == 5:
            changes = {source: _module(m, n), test: added}
            stream.commit(f"Fix compute_{m} (#{n - 6})", changes, when)  # an older issue
        elif kind == 6:
            broken = {source: _module(m, n), "tests/test_broken.py": "def test_(:\n"}
            stream.commit(f"Fix compute_{m}, tests later (#{n})", broken, when)
            stream.commit("Repair the broken test module", {"tests/test_broken.py": None}, when)
        elif kind == 7:
            moved = {test: None, f"tests/test_moved_{n}.py": added}
            stream.commit(
                f"Fix compute_{m} and move its tests (#{n})", moved | {source: _module(m, n)}, when
            )
            stream.commit(
                "Put the tests back", {f"tests/test_moved_{n}.py": None, test: added}, when
            )
        elif kind == 8:  # a pull request landed as a merge commit
            side = stream.commit(
                f"Fix compute_{m} on a branch",
                {source: _module(m, n), test: added},
                when,
                ref=f"refs/heads/pr-{n}",
                parent=stream.tip,
            )
            message = f"Merge pull request #{n} from dev/pr-{n}\n\nFix compute_{m} for good\n"
            stream.commit(message, {source: _module(m, n), test: added}, when, merge=side)
        else:
            stream.commit(
                f"Fix compute_{m} off by one (#{n})", {source: _module(m, n), test: added}, when
            )
    repo = dest / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=stream.bytes(), check=True)
    subprocess.run(["git", "checkout", "-q", "main"], cwd=repo, check=True)
    export = dest / "issues.jsonl"
    export.write_text("".join(json.dumps(i) + "\n" for i in issues))
    return repo, export
