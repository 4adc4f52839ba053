"""Cross-examine every patch with every author's tests.

``run_xexam(inputs, config, settings)`` is the whole stage (:class:`XexamStage`, run by
:func:`bb_core.stage.run_stage` on any executor); ``bb_core.stage.run_one(XexamStage(config),
task)`` cross-examines one task here.
"""

from bb_core import package_version

__version__ = package_version("bb-xexam")

from bb_xexam.settings import XexamSettings
from bb_xexam.stage import XexamStage, run_xexam
from bb_xexam.work import XexamWork

__all__ = ["XexamSettings", "XexamStage", "XexamWork", "run_xexam"]
