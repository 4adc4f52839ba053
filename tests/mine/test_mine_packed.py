"""Packed histories read straight from the pack file mine exactly like loose objects."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from bb_core.git import open_repo
from bb_core.git import packs as pack_reader
from bb_mine.mine import MineOptions, mine
from long_history import build_long_history


def _git(repo: Path, *args: str, stdin: bytes | None = None) -> None:
    subprocess.run(["git", *args], cwd=repo, input=stdin, check=True, capture_output=True)


@pytest.fixture(scope="session")
def layouts(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Path], Path]:
    """One history stored four ways, each in a folder named ``repo`` (task ids name it)."""
    root = tmp_path_factory.mktemp("layouts")
    built, issues = build_long_history(root / "built")
    out: dict[str, Path] = {}
    for layout in ("fast-import", "offset-deltas", "reference-deltas", "loose"):
        repo = root / layout / "repo"
        shutil.copytree(built, repo)
        out[layout] = repo
    _git(out["offset-deltas"], "repack", "-adf", "--depth=20")
    _git(out["reference-deltas"], "-c", "repack.useDeltaBaseOffset=false", "repack", "-adf")
    loose = out["loose"]
    packs = sorted((loose / ".git" / "objects" / "pack").glob("*.pack"))
    for pack in packs:
        data = pack.read_bytes()
        pack.unlink()
        pack.with_suffix(".idx").unlink()
        _git(loose, "unpack-objects", "-q", stdin=data)
    return out, issues


def _records(repo: Path, issues: Path) -> list[dict[str, Any]]:
    options = MineOptions(
        source="src/pkg", issues=issues, limit=0, explain=True, use_cache=False, jobs=1
    )
    out = list(mine(repo, options))
    for record in out:
        record.pop("repository", None)
        record.pop("elapsed", None)
    return out


@pytest.mark.parametrize("layout", ["fast-import", "offset-deltas", "reference-deltas"])
def test_a_packed_history_mines_like_loose_objects(
    layouts: tuple[dict[str, Path], Path], layout: str
) -> None:
    repos, issues = layouts
    assert list((repos["loose"] / ".git" / "objects" / "pack").glob("*.pack")) == []
    loose = _records(repos["loose"], issues)
    assert sum(r["kind"] == "task" for r in loose) > 50
    assert _records(repos[layout], issues) == loose


@pytest.mark.parametrize("search", ["find", "bisect"])
@pytest.mark.parametrize("layout", ["fast-import", "offset-deltas", "reference-deltas"])
def test_every_packed_object_reads_as_dulwich_reads_it(
    layouts: tuple[dict[str, Path], Path], layout: str, search: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pack reader finds, inflates and resolves every object itself, never falling back,
    whether it searches the index's names with find() or hands long stretches to dulwich."""
    if search == "bisect":
        monkeypatch.setattr(pack_reader, "FIND_SPAN", 0)
    repos, _issues = layouts
    with open_repo(repos[layout]) as repo:
        store = repo._repo.object_store
        shas = list(store)
        assert len(shas) > 1000
        for sha in shas:
            assert repo.objects.raw(sha) == store.get_raw(sha)
        with pytest.raises(KeyError):
            repo.objects.raw(b"0" * 40)
        assert repo.objects.fast, "the pack reader handed over to dulwich"
