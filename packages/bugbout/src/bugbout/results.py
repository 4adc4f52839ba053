"""What ``bugbout run`` keeps in ``.bugbout/``, and which of it is current.

Each stage's whole output stream is one JSON-lines file, written atomically when the
stage finishes, so any of them can be fed to the next tool by hand:

==================  ==============================================================
``tasks.jsonl``     bb-mine: task lines, skip lines and the closing summary
``oracles.jsonl``   bb-oracle: the tasks with their ground truth (or skip lines)
``attempts.jsonl``  bb-race: the tasks with their attempts
``matrices.jsonl``  bb-xexam: the tasks with their cross-examination matrix
``verdicts.jsonl``  bb-judge: the tasks with verdict and scores - what reports read
``scores.jsonl``    every patch's score as a ``score`` line (cut from verdicts.jsonl)
``report.md``       the report of the last whole run, as Markdown
``report.json``     the same report as one ``report`` record
``run.json``        which of the files above the last run finished, and when
==================  ==============================================================

The stages keep their own stores beside these: ``attempts/`` (one file per agent per
task, written the moment an attempt ends), ``matrices/`` (one matrix per task) and
``cache/`` (oracles and scores), which is what makes a second run cheap.
"""

from __future__ import annotations

import time
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from bb_core import store
from bb_core.records.kinds import JSONObject
from bb_core.store import Store, read_json, write_json

#: The stages of a run, in order, with the file each one's output stream goes to.
STREAMS: tuple[tuple[str, str], ...] = (
    ("mine", "tasks.jsonl"),
    ("oracle", "oracles.jsonl"),
    ("race", "attempts.jsonl"),
    ("xexam", "matrices.jsonl"),
    ("judge", "verdicts.jsonl"),
)
STAGES = (*(stage for stage, _ in STREAMS), "report")
MANIFEST = "run.json"


@dataclass(frozen=True)
class Results:
    """The ``.bugbout/`` folder of one project (beside its bugbout.toml); *streams* are
    the stages of its runs with their files, in order (a custom stage's among them)."""

    root: Path
    streams: tuple[tuple[str, str], ...] = STREAMS

    @classmethod
    def of(cls, project_dir: Path, streams: tuple[tuple[str, str], ...] = STREAMS) -> Results:
        return cls(Store(project_dir).root, streams)

    @property
    def stages(self) -> tuple[str, ...]:
        """Every stage of a run, in order, the report last."""
        return (*(stage for stage, _ in self.streams), "report")

    def ensure(self) -> Path:
        Store(self.root.parent).ensure()
        return self.root

    def stream(self, stage: str) -> Path:
        """The file that holds *stage*'s output stream."""
        for name, file in self.streams:
            if name == stage:
                return self.root / file
        raise KeyError(stage)

    @property
    def scores(self) -> Path:
        return self.root / "scores.jsonl"

    @property
    def report_md(self) -> Path:
        return self.root / "report.md"

    @property
    def report_json(self) -> Path:
        return self.root / "report.json"

    @property
    def attempts(self) -> Path:
        return self.root / "attempts"

    @property
    def manifest(self) -> Path:
        return self.root / MANIFEST

    # -- which stages the last run finished ------------------------------------------------

    def finished(self) -> list[str]:
        """The stages the last run finished, in order (their files are current)."""
        data = read_json(self.manifest)
        stages = data.get("stages") if isinstance(data, dict) else None
        if not isinstance(stages, dict):
            return []
        done = []
        for stage in self.stages:
            if stage not in stages:
                break
            if stage != "report" and not self.stream(stage).is_file():
                break
            done.append(stage)
        return done

    def latest(self) -> Path | None:
        """The furthest current stream: what a report of the last run reads.

        Without a manifest (results copied by hand), the furthest stream that exists.
        """
        finished = [s for s in self.finished() if s != "report"]
        if finished:
            return self.stream(finished[-1])
        if read_json(self.manifest) is not None:
            return None
        existing = [self.root / file for _, file in self.streams if (self.root / file).is_file()]
        return existing[-1] if existing else None

    def record(self, stage: str, digest: str | None = None) -> None:
        """Note that *stage* finished writing a stream whose content has *digest*.

        When the content changed, every later stage's file is stale and forgotten; when
        it is the same as before, what later stages wrote from it stays current.
        """
        data = read_json(self.manifest)
        if not isinstance(data, dict) or not isinstance(data.get("stages"), dict):
            data = {"stages": {}}
        stages: JSONObject = data["stages"]
        before = stages.get(stage)
        same = isinstance(before, dict) and digest is not None and before.get("digest") == digest
        if not same:
            for later in self.stages[self.stages.index(stage) + 1 :]:
                stages.pop(later, None)
        entry: JSONObject = {"finished": _now()}
        if digest is not None:
            entry["digest"] = digest
        stages[stage] = entry
        write_json(self.manifest, data)


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def atomic_output(path: Path) -> AbstractContextManager[IO[bytes]]:
    """A binary file that replaces *path* only when the block finishes without error.

    Readers see the old file or the new one, whole; a stage killed while writing leaves
    the old file (and a temporary file that the next write of *path* sweeps away).
    """
    return store.atomic_output(path, sweep=True)
