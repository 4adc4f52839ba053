"""What a run of bb-judge may vary (``[judge]``, ``[run]``, ``[project] pytest-args`` and
the options)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bb_core.config import Config, Fail, Section, section_fields
from bb_core.config.limits import TestLimits
from bb_core.errors import UsageError

from bb_judge.policies import POLICIES


@dataclass(frozen=True)
class JudgeConfig:
    """``[judge]``: how one patch per task is picked."""

    policy: str = "majority"
    run_suite: bool = True
    #: ``exclude``: a resolved patch with a suspicious finding is counted apart and never
    #: picked; ``count``: it counts as resolved (for a team that has reviewed them).
    suspicious: str = "exclude"
    #: ``first``: each contestant's first sample is its only candidate; ``all``: every
    #: sample is cross-examined (bb-xexam reads it) and may be picked.
    samples: str = "first"


def read_judge(table: Mapping[str, Any], root: Path, fail: Fail) -> JudgeConfig:
    """The ``[judge]`` *table* (checked against the schema) as a :class:`JudgeConfig`."""
    return JudgeConfig(**section_fields(JudgeConfig, table))


#: bb-judge's section of bugbout.toml (bb-xexam reads its ``run-suite`` and ``samples`` too).
JUDGE = Section("judge", read_judge)


@dataclass(frozen=True)
class JudgeSettings(TestLimits):
    """How patches are picked and scored; the scoring fields (all but ``policy``,
    ``score`` and ``use_cache``) are in every score's cache key."""

    #: How a patch is approved (``[judge] policy``, ``--policy``).
    policy: str = "majority"
    #: Score every patch with the hidden tests (``--no-score`` turns it off).
    score: bool = True
    #: [project] pytest-args: the environment passes them to pytest; here for the cache key.
    pytest_args: tuple[str, ...] = ()
    use_cache: bool = True
    #: [judge] run-suite: every resolved patch also runs the whole suite at base.
    run_suite: bool = True
    #: [judge] suspicious: ``exclude`` (a suspicious patch is counted apart, never picked)
    #: or ``count`` (it counts as resolved).
    suspicious: str = "exclude"

    def __post_init__(self) -> None:
        if self.policy not in POLICIES:
            raise UsageError(f"unknown policy {self.policy!r} (known: {', '.join(POLICIES)})")
        if self.suspicious not in ("exclude", "count"):
            raise UsageError(f"unknown [judge] suspicious {self.suspicious!r} (exclude or count)")

    @classmethod
    def config_values(cls, config: Config) -> dict[str, Any]:
        """``[run]`` of *config*, ``[project] pytest-args`` and ``[judge]``."""
        section = config.section("judge", JudgeConfig)
        return {
            **super().config_values(config),
            "policy": section.policy,
            "pytest_args": tuple(config.project.pytest_args),
            "run_suite": section.run_suite,
            "suspicious": section.suspicious,
        }

    @property
    def score_limits(self) -> list[Any]:
        """The settings a score's outcome depends on, as its cache key holds them."""
        return [self.sandbox, self.test_timeout, self.run_limit, list(self.pytest_args)]
