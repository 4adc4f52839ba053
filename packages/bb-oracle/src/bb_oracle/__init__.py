"""Compute FAIL_TO_PASS and PASS_TO_PASS ground truth from the maintainers' tests.

:data:`SPEC` declares the stage; ``bb_core.stage_spec.run(SPEC, inputs, settings,
config=config)`` is the whole of it (:class:`OracleStage`, its units on any executor);
:class:`Oracle` handles one task at a
time (``Oracle(config).handle(task)`` returns the task with ``oracle`` added, or the
``skip`` line that replaces it).
"""

from bb_core import package_version

from bb_oracle.errors import Skip
from bb_oracle.oracle import REASONS, Oracle
from bb_oracle.settings import OracleSettings
from bb_oracle.spec import SPEC
from bb_oracle.stage import OracleStage
from bb_oracle.stats import Stats

__version__ = package_version("bb-oracle")

__all__ = ["REASONS", "SPEC", "Oracle", "OracleSettings", "OracleStage", "Skip", "Stats"]
