"""vitest and jest behind bugbout's test-runner interface (:mod:`bb_core.testrun.runner`).

- ``vitest``, ``jest``: the runners (:class:`~bb_core.testrun.node.vitest.VitestRunner`,
  :class:`~bb_core.testrun.node.jest.JestRunner`): their command lines.
- ``base``: what they share, over ``run``.
- ``run``: :func:`~bb_core.testrun.node.run.run_node`, one confined run watched and assembled
  with the pytest runner's parts.
- ``launch``: the run's environment, confinement, ``node_modules`` and report channel.
- ``targets``: files, folders and test ids turned into the runners' files and name pattern.
- ``report``: the injected reporters' lines folded into outcomes, and when not to trust them.
- ``js/``: the reporters (``vitest-reporter.mjs``, ``jest-reporter.cjs``) and their
  authenticated channel (``channel.cjs``), shipped with bb-core.
"""
