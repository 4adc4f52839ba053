"""What a run of bb-oracle may vary (``[oracle]``, ``[run]`` and the options)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bb_core.config import Config, Fail, Section, section_fields
from bb_core.config.limits import TestLimits
from bb_core.envs import TestEnv

from bb_oracle.strength import FORMAT as STRENGTH_FORMAT
from bb_oracle.strength import Thresholds


@dataclass(frozen=True)
class OracleConfig:
    """``[oracle]``: how strong each task's oracle is measured to be."""

    strength: bool = True
    max_mutants: int = 20
    min_mutation_score: float = 0.5
    min_coverage: float = 0.8


def read_oracle(table: Mapping[str, Any], root: Path, fail: Fail) -> OracleConfig:
    """The ``[oracle]`` *table* (checked against the schema) as an :class:`OracleConfig`."""
    return OracleConfig(**section_fields(OracleConfig, table))


#: bb-oracle's section of bugbout.toml.
ORACLE = Section("oracle", read_oracle)


@dataclass(frozen=True)
class OracleSettings(TestLimits):
    """What a run of the oracle may vary; every field but ``use_cache`` is in the cache key."""

    repeat: int = 2
    #: Arguments added after the project's own ``[project] pytest-args``.
    pytest_args: tuple[str, ...] = ()
    use_cache: bool = True
    #: Measure the oracle's strength (``[oracle]`` of bugbout.toml, ``--strength``).
    strength: bool = True
    max_mutants: int = 20
    min_mutation_score: float = 0.5
    min_coverage: float = 0.8

    @classmethod
    def config_values(cls, config: Config) -> dict[str, Any]:
        values = super().config_values(config)
        section = config.section("oracle", OracleConfig)
        values.update(
            strength=section.strength,
            max_mutants=section.max_mutants,
            min_mutation_score=section.min_mutation_score,
            min_coverage=section.min_coverage,
        )
        return values

    @property
    def thresholds(self) -> Thresholds:
        return Thresholds(self.max_mutants, self.min_mutation_score, self.min_coverage)

    def arguments(self, sandbox_name: str, env: TestEnv) -> dict[str, Any]:
        """Everything besides the task and the environment's key that a result depends on."""
        strength = (
            {"format": STRENGTH_FORMAT, **dataclasses.asdict(self.thresholds)}
            if self.strength
            else None
        )
        runner_args = getattr(env, "runner_args", None)
        if runner_args is not None:  # a node project's (NodeEnv): its runner, its arguments
            return {
                "strength": strength,
                "repeat": self.repeat,
                "test_timeout": self.test_timeout,
                "run_timeout": self.run_limit,
                "runner": getattr(env, "runner", ""),
                "runner_args": [*runner_args, *self.pytest_args],
                "env": dict(sorted(env.env.items())),
                "sandbox": sandbox_name,
            }
        return {
            "strength": strength,
            "repeat": self.repeat,
            "test_timeout": self.test_timeout,
            "run_timeout": self.run_limit,
            "pytest_args": [*env.pytest_args, *self.pytest_args],
            "env": dict(sorted(env.env.items())),
            "pythonpath": list(env.pythonpath),
            "sandbox": sandbox_name,
        }
