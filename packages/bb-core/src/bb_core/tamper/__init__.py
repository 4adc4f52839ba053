"""Tests bugbout adds to a run whose outcome it knows, so a run that was tampered with shows.

- :mod:`~bb_core.tamper.twins`: negative twins, copies of a project's tests with one
  expected value changed, which must fail;
- :mod:`~bb_core.tamper.canaries`: a must-fail and a must-pass test planted in a run's
  modules, and the twins written beside them;
- :mod:`~bb_core.tamper.planting`: writing a test into a module's text;
- :mod:`~bb_core.tamper.node`: the canaries of a vitest or jest run, in their syntax;
- :mod:`~bb_core.tamper.node_twins`: the negative twins of a vitest or jest run's tests.
"""
