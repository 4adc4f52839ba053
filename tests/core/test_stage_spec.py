"""Every tool's stage is one StageSpec, published through ``bugbout.stages``; one ``run``
drives any of them and answers the same way; one ``stage_command`` makes every command."""

from __future__ import annotations

import importlib
import io
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import click
import pytest
from bb_core.config import Config, load_config
from bb_core.executors.units import Executor, ExecutorSettings, LocalExecutor, Unit, Work
from bb_core.records import Writer
from bb_core.stage_spec import BUILT_IN, Command, Ran, StageSpec, installed, run

TOOLS = {"mine": "bb_mine", "oracle": "bb_oracle", "race": "bb_race", "xexam": "bb_xexam",
         "judge": "bb_judge"}  # fmt: skip


def test_every_built_in_stage_is_published() -> None:
    found = installed()
    assert set(BUILT_IN) <= set(found)
    for name, package in TOOLS.items():
        spec = found[name]
        assert spec is importlib.import_module(f"{package}.spec").SPEC
        assert spec.prog == f"bb-{name}"


@pytest.mark.parametrize("name", list(TOOLS))
def test_every_command_is_made_of_its_spec(name: str) -> None:
    main = importlib.import_module(f"{TOOLS[name]}.cli").main
    assert isinstance(main, click.Command)
    spec = installed()[name]
    assert main.help is not None and main.help.startswith(spec.command.help.split("\n")[0])
    names = [param.name for param in main.params]
    assert names[-2:] == ["debug", "version"]
    assert ("inputs" in names) == (spec.reads is not None)


class Doubler:
    """A stage of two units per task, whose lines say what the units made."""

    prog = "doubler"
    kinds = frozenset({"task"})
    requires: str | None = None
    expected = ""

    def __init__(self) -> None:
        self.landed: list[str] = []
        self.read: int | None = None

    def start(self, executor: Executor) -> Work:
        return lambda unit: f"{unit.payload}!"

    def units(self, record: Mapping[str, Any]) -> Sequence[Unit]:
        return [Unit(f"{record['id']} {n}", n) for n in (1, 2)]

    def land(self, unit: Unit, result: Any) -> None:
        self.landed.append(unit.key)

    def combine(self, record: Any, results: Mapping[str, Any]) -> list[Any]:
        return [{**record, "title": " ".join(results[k] for k in sorted(results))}]

    def close(self) -> None:
        pass

    def before(self, lines: Sequence[Any]) -> None:
        self.read = len(lines)

    def closing(self) -> str:
        return f"{len(self.landed)} units"

    def counts(self) -> dict[str, int]:
        return {"units": len(self.landed)}


class Settings:
    @classmethod
    def from_config(cls, config: Config, **overrides: Any) -> Settings:
        return cls()


def spec(**fields: Any) -> StageSpec[Any]:
    return StageSpec(
        name="doubler", prog="doubler", stream="doubled.jsonl", reads="task",
        writes=("task",), settings=Settings,
        command=Command("Double.", (), lambda config, given: Settings()),
        make=lambda config, settings, store: Doubler(), **fields,
    )  # fmt: skip


@pytest.fixture
def tasks(tmp_path: Path) -> Path:
    example = Path(__file__).resolve().parents[2] / "schemas/examples/task/valid/examples.jsonl"
    task = json.loads(example.read_text().splitlines()[0])
    path = tmp_path / "tasks.jsonl"
    path.write_text("".join(json.dumps({**task, "id": f"t-{n}"}) + "\n" for n in (1, 2)))
    return path


@pytest.mark.parametrize("executor", [None, ExecutorSettings(jobs=2), LocalExecutor(2)])
def test_run_answers_alike_on_any_executor(executor: Any, tasks: Path, tmp_path: Path) -> None:
    out = io.BytesIO()
    stage = Doubler()
    ran = run(spec(), [str(tasks)], Settings(), executor, None, Writer(out),
              config=load_config(), stage=stage)  # fmt: skip
    assert ran == Ran(2, "4 units", {"units": 4})
    written = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [(t["id"], t["title"]) for t in written] == [("t-1", "1! 2!"), ("t-2", "1! 2!")]
    assert stage.read is None  # a stage that does not read its whole input first
    if isinstance(executor, LocalExecutor):
        executor.close()


def test_a_stage_reading_its_whole_input_is_given_it_first(tasks: Path) -> None:
    stage = Doubler()
    run(spec(whole_input=True), [str(tasks)], Settings(), writer=Writer(io.BytesIO()),
        config=load_config(), stage=stage)  # fmt: skip
    assert stage.read == 2


def test_the_width_makes_the_executor(tasks: Path) -> None:
    seen: list[int] = []

    def width(chosen: ExecutorSettings, settings: Any) -> ExecutorSettings:
        seen.append(chosen.jobs)
        return chosen

    run(spec(width=width), [str(tasks)], Settings(), ExecutorSettings(jobs=3),
        writer=Writer(io.BytesIO()), config=load_config())  # fmt: skip
    assert seen == [3]
