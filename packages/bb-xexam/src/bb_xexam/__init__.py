"""Cross-examine every patch with every author's tests.

:data:`SPEC` declares the stage; ``bb_core.stage_spec.run(SPEC, inputs, settings,
config=config)`` is the whole of it (:class:`XexamStage`, its units on any executor); ``bb_core.stage.run_one(XexamStage(config),
task)`` cross-examines one task here.
"""

from bb_core import package_version

__version__ = package_version("bb-xexam")

from bb_xexam.settings import XexamSettings
from bb_xexam.spec import SPEC
from bb_xexam.stage import XexamStage
from bb_xexam.work import XexamWork

__all__ = ["SPEC", "XexamSettings", "XexamStage", "XexamWork"]
