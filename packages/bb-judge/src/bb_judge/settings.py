"""What a run of bb-judge may vary (``[judge]``, ``[run]``, ``[project] pytest-args`` and
the options)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bb_core.config import Config
from bb_core.config.limits import TestLimits
from bb_core.errors import UsageError

from bb_judge.policies import POLICIES


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
        return {
            **super().config_values(config),
            "policy": config.judge.policy,
            "pytest_args": tuple(config.project.pytest_args),
            "run_suite": config.judge.run_suite,
            "suspicious": config.judge.suspicious,
        }

    @property
    def score_limits(self) -> list[Any]:
        """The settings a score's outcome depends on, as its cache key holds them."""
        return [self.sandbox, self.test_timeout, self.run_limit, list(self.pytest_args)]
