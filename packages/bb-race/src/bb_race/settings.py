"""What a run of bb-race may vary (``[run]`` of bugbout.toml and the options)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bb_core.config import Config
from bb_core.config.limits import TestLimits

from bb_race.caps import MAX_DISK_BYTES, MAX_PATCH_BYTES

if TYPE_CHECKING:
    from bb_core.agents import CodingAgent


@dataclass(frozen=True)
class RaceSettings(TestLimits):
    """Which agents run, which stored attempts run again, and the limits of each attempt.

    ``test_timeout`` and the run limit bound the project's test runs the race makes (an
    examiner's tests on the unfixed tree, the test command's footprint); ``timeout``
    bounds one agent's whole attempt.
    """

    #: The agents to run (``--agent``); none: every configured one.
    only: tuple[str, ...] = ()
    #: Run again the stored attempts that ended ``quota`` or ``crashed``.
    retry_failed: bool = False
    #: Run every attempt again.
    refresh: bool = False
    #: At most this many attempts at once across all quotas (``--jobs``); None: each
    #: quota's own limit.
    jobs: int | None = None
    #: Every contestant attempts each task this many times (``--samples``); None: as
    #: bugbout.toml says (a contestant's ``samples``, else ``[run] samples``).
    samples: int | None = None
    #: Seconds one agent's attempt may take.
    timeout: int = 1800
    #: How many attempts of one quota run at once (``[run] quotas``; one when not given).
    quotas: dict[str, int] = field(default_factory=dict)
    max_patch_bytes: int = MAX_PATCH_BYTES
    max_disk_bytes: int = MAX_DISK_BYTES
    #: The agents to race instead of the configured ones (adapters made in a script);
    #: never shipped to a worker (the race's work carries the agents it runs).
    agents: tuple[CodingAgent, ...] | None = field(default=None, compare=False)

    @classmethod
    def config_values(cls, config: Config) -> dict[str, Any]:
        values = super().config_values(config)
        run = config.run
        values.update(
            timeout=run.timeout,
            quotas=dict(run.quotas),
            max_patch_bytes=run.max_patch_bytes,
            max_disk_bytes=run.max_attempt_disk,
        )
        return values
