"""A custom stage of a bout: drop the tasks that carry a label ``[drop-labels]`` names.

Installed as a package (see pyproject.toml beside it), it is found through the
``bugbout.stages`` entry point and runs right after mining (``after="mine"``): ``bugbout
run`` writes its output to ``.bugbout/dropped.jsonl`` and the ground-truth stage reads
that instead of ``tasks.jsonl``. Its settings are its own section of bugbout.toml::

    [drop-labels]
    labels = ["wontfix", "needs-design"]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Self

from bb_core.cli import config_option
from bb_core.config import Config, Fail, Section, section_fields
from bb_core.executors.units import Executor, Unit, Work
from bb_core.records.kinds import Task
from bb_core.stage_cli import stage_command
from bb_core.stage_spec import Command, StageSpec
from bb_core.store import Store


@dataclass(frozen=True)
class DropSettings:
    """``[drop-labels]``: the labels that drop a task (a task's labels are lower-cased)."""

    labels: list[str] = field(default_factory=list)

    @classmethod
    def from_config(cls, config: Config, **overrides: Any) -> Self:
        given = {k: v for k, v in overrides.items() if v is not None}
        return replace(config.section("drop-labels", cls), **given)


def read_section(table: Mapping[str, Any], root: Path, fail: Fail) -> DropSettings:
    return DropSettings(**section_fields(DropSettings, table))


SECTION = Section(
    "drop-labels",
    read_section,
    schema={
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "labels": {
                "type": "array",
                "items": {"type": "string"},
                "default": [],
                "description": "Drop a task that carries any of these labels.",
            }
        },
    },
)


class DropStage:
    """Keeps or drops each task line; needs no work unit."""

    prog = "drop-labels"
    kinds = frozenset({"task"})
    requires: str | None = None
    expected = ""

    def __init__(self, settings: DropSettings) -> None:
        self.drop = {label.lower() for label in settings.labels}
        self.dropped = 0

    def start(self, executor: Executor) -> Work:
        return lambda unit: None

    def units(self, record: Task) -> Sequence[Unit]:
        return []

    def land(self, unit: Unit, result: Any) -> None:
        pass

    def combine(self, record: Task, results: Mapping[str, Any]) -> list[Task]:
        if self.drop & set(record.get("labels", ())):
            self.dropped += 1
            return []
        return [record]

    def close(self) -> None:
        pass

    def closing(self) -> str:
        return f"{self.dropped} dropped"


def make(config: Config, settings: DropSettings, store: Store) -> DropStage:
    return DropStage(settings)


SPEC: StageSpec[DropSettings] = StageSpec(
    name="drop-labels",
    prog="drop-labels",
    stream="dropped.jsonl",
    reads="task",
    writes=("task",),
    settings=DropSettings,
    command=Command(
        "Drop the task lines that carry a label [drop-labels] labels names.",
        (config_option,),
        lambda config, given: DropSettings.from_config(config),
        input_help="Task lines",
        check=lambda config, given: None,
    ),
    make=make,
    after="mine",
    section=SECTION,
)

#: The stage's command, ``drop-labels [FILE|-]...`` (a console script of the package).
main = stage_command(SPEC)
