"""What a run of bb-xexam may vary (``[run]``, ``[judge] run-suite`` and the options)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from bb_core.config import Config
from bb_core.config.limits import TestLimits

#: How many authors' runs go at once per ``--jobs``: the local executor is this many
#: times ``--jobs`` wide.
RUNS_AT_ONCE = max(1, min(4, os.cpu_count() or 1))


@dataclass(frozen=True)
class XexamSettings(TestLimits):
    """What the runs depend on besides the task and the environment; all in the cache key
    but ``use_cache``.

    ``run_timeout`` (see :class:`~bb_core.config.limits.TestLimits`) bounds one column's run.
    """

    run_suite: bool = True
    use_cache: bool = True
    #: ``[judge] samples``: ``first`` (each contestant's first sample is its column) or
    #: ``all`` (every further sample is a column too).
    samples: str = "first"

    @classmethod
    def config_values(cls, config: Config) -> dict[str, Any]:
        """``[run]`` of *config*, and ``[judge] run-suite`` and ``samples`` (bb-judge's
        section; on and ``first`` when bb-judge is not installed)."""
        judge = config.sections.get("judge")
        run_suite = getattr(judge, "run_suite", True)
        samples = str(getattr(judge, "samples", "first"))
        return {**super().config_values(config), "run_suite": bool(run_suite), "samples": samples}
