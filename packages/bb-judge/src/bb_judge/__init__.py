"""Pick one patch per bug from executed evidence and score every patch with the hidden tests.

``run_judge(inputs, config)`` is the whole stage (:class:`JudgeStage`, run by
:func:`bb_core.stage.run_stage` on any executor); :class:`Scorer` scores one task at a time.
"""

from bb_core import package_version

from bb_judge.run import run_judge
from bb_judge.settings import JudgeSettings
from bb_judge.stage import JudgeStage, Scorer

__version__ = package_version("bb-judge")

__all__ = ["JudgeSettings", "JudgeStage", "Scorer", "run_judge"]
