"""What every stage that runs tests needs, opened once and shared.

- :mod:`~bb_core.bench.workbench`: the :class:`~bb_core.bench.workbench.Workbench` - a
  task's repository, its test environment, the sandbox;
- :mod:`~bb_core.bench.portable`: a workbench packed on the driver and unpacked on
  another machine.
"""
