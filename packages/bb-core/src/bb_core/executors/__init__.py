"""Where a stage's work units run.

- :mod:`~bb_core.executors.units`: the work unit, its result, and the local executor on
  this process's threads;
- :mod:`~bb_core.executors.lanes`: runs queued per quota;
- :mod:`~bb_core.executors.ray_connect`, :mod:`~bb_core.executors.ray_executor`,
  :mod:`~bb_core.executors.ray_remote`: the Ray executor, its connection to a cluster, and
  what runs on the cluster's nodes.
"""
