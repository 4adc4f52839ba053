"""Pick one patch per bug from executed evidence and score every patch with the hidden tests.

:data:`SPEC` declares the stage; ``bb_core.stage_spec.run(SPEC, inputs, settings,
config=config)`` is the whole of it (:class:`JudgeStage`, its units on any executor); :class:`Scorer` scores one task at a time.
"""

from bb_core import package_version

from bb_judge.settings import JudgeSettings
from bb_judge.spec import SPEC
from bb_judge.stage import JudgeStage, Scorer

__version__ = package_version("bb-judge")

__all__ = ["SPEC", "JudgeSettings", "JudgeStage", "Scorer"]
