"""What the tests of every stage share: running the tools, and builds made once per run.

- :mod:`support.tools`: ``run_tool`` (one of the workspace's commands in a subprocess),
  ``tool_env`` and ``lines``.
- :mod:`support.shared`: ``shared_dir``, a folder built once per test run and shared by
  every pytest-xdist worker (a file lock and a marker of completion); read-only for tests.
- :mod:`support.bout`: the demo bout, the six tools piped in a shell over a copy of the
  demo, every stage's output and stderr kept; built once per run through ``shared_dir``.
"""
