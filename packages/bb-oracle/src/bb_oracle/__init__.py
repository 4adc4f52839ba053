"""Compute FAIL_TO_PASS and PASS_TO_PASS ground truth from the maintainers' tests.

``run_oracle(inputs, config, settings)`` is the whole stage; :class:`Oracle` handles one
task at a time (``Oracle(config).handle(task)`` returns the task with ``oracle`` added,
or the ``skip`` line that replaces it).
"""

from bb_oracle.oracle import REASONS, Oracle, Settings, Skip, Stats, run_oracle

__version__ = "0.1.0"

__all__ = ["REASONS", "Oracle", "Settings", "Skip", "Stats", "run_oracle"]
