"""Compute FAIL_TO_PASS and PASS_TO_PASS ground truth from the maintainers' tests.

``run_oracle(inputs, config, settings)`` is the whole stage; :class:`Oracle` handles one
task at a time (``Oracle(config).handle(task)`` returns the task with ``oracle`` added,
or the ``skip`` line that replaces it).
"""

from bb_core import package_version

from bb_oracle.oracle import REASONS, Oracle, Settings, Skip, Stats, run_oracle

__version__ = package_version("bb-oracle")

__all__ = ["REASONS", "Oracle", "Settings", "Skip", "Stats", "run_oracle"]
