"""The limits every stage that runs tests shares: which sandbox, and how long a run may take.

:class:`TestLimits` is the base of each such stage's settings (bb-oracle, bb-xexam,
bb-judge): the defaults, the rule for a whole run's limit and the rule that ``[run]`` of
``bugbout.toml`` is read and then overridden by options that were given are kept here once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Self

from bb_core.config import Config

#: The least a whole test run may take when no limit is given, in seconds.
MIN_RUN_LIMIT = 300


def run_limit(test_timeout: int, run_timeout: int | None = None) -> int:
    """Seconds one whole pytest run may take: *run_timeout*, else 10 x *test_timeout*, >= 300."""
    if run_timeout is not None:
        return run_timeout
    return max(MIN_RUN_LIMIT, 10 * test_timeout)


@dataclass(frozen=True)
class TestLimits:
    """Sandbox and time limits of a stage's test runs; stages subclass it with their own fields."""

    __test__ = False  # a test module that imports it must not have pytest collect it

    sandbox: str = "auto"
    #: Seconds one test may take.
    test_timeout: int = 60
    #: Seconds one whole pytest run may take; None: ten times ``test_timeout``, at least 300.
    run_timeout: int | None = None

    @classmethod
    def config_values(cls, config: Config) -> dict[str, Any]:
        """The fields *config* sets; a subclass adds its own to these."""
        return {"sandbox": config.run.sandbox, "test_timeout": config.run.test_timeout}

    @classmethod
    def from_config(cls, config: Config, **overrides: Any) -> Self:
        """The settings *config* gives, with every override that is not None on top."""
        given = {k: v for k, v in overrides.items() if v is not None}
        return cls(**{**cls.config_values(config), **given})

    @property
    def run_limit(self) -> int:
        return run_limit(self.test_timeout, self.run_timeout)
