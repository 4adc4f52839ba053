"""Connecting to a Ray cluster, for :mod:`bb_core.executors.ray_executor`.

:func:`connect` joins the cluster at an address (``auto``, ``host:port``,
``ray://host:port``) or starts a Ray of this machine alone; an address nothing listens at,
or one that is not an address, is one line at once rather than minutes of Ray's retries.
:func:`session` keeps one connection for several executors (a whole bout).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from bb_core.errors import BbError, UsageError

#: What a missing ``ray`` package says.
INSTALL_HINT = "the ray executor needs the ray package: pip install 'bugbout[ray]'"

#: The namespace of bugbout's named actors.
NAMESPACE = "bugbout"


class RayMissing(UsageError):
    """``--executor ray`` without the ``ray`` package."""


#: Ray starts its workers through ``uv run`` when the driver was started by ``uv run``;
#: that re-syncs the project's environment without the extras the driver has (``ray``
#: among them) and the workers die at start, leaving every unit waiting. A node's workers
#: use the Python the node was started with.
UV_HOOK = "RAY_ENABLE_UV_RUN_RUNTIME_ENV"


def import_ray() -> Any:
    """The ``ray`` module, or :class:`RayMissing` saying how to install it."""
    os.environ.setdefault(UV_HOOK, "0")
    try:
        import ray
    except ImportError as exc:
        raise RayMissing(INSTALL_HINT) from exc
    return ray


def connect(ray: Any, address: str | None) -> bool:
    """Connect this process to the cluster at *address* (a local Ray when None); True when
    this call connected it (and so :meth:`RayExecutor.close` disconnects)."""
    if ray.is_initialized():
        return False
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    given: dict[str, Any] = {
        "namespace": NAMESPACE,
        "log_to_driver": False,
        "configure_logging": False,
    }
    if address is None:  # a Ray of this machine alone, on the loopback interface
        given |= {"include_dashboard": False, "_node_ip_address": "127.0.0.1"}
    else:
        reachable(address)
        given["address"] = address
    for attempt in (1, 2, 3):
        try:
            ray.init(**given)
            return True
        except ConnectionError as exc:
            if address is not None:
                raise UsageError(f"cannot reach the Ray cluster at {address}: {exc}") from exc
            failure: Exception = exc  # a Ray started here whose GCS answered too late
        except Exception as exc:
            failure = exc
        # A Ray of this machine whose node missed Ray's fixed wait to register (a loaded
        # machine) is started again, twice at most; anything else is said in one line.
        ray.shutdown()
        if address is not None or attempt == 3:
            where = f"join the Ray cluster at {address}" if address else "start a Ray here"
            raise BbError(f"could not {where}: {_first_line(failure)}") from failure
    return True


def malformed(address: str) -> bool:
    """Whether *address* is none of ``auto``, ``ray://host:port`` and ``host:port``."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    return address != "auto" and (not host or not port.isdigit())


def reachable(address: str, timeout: float = 10) -> None:
    """Stop with one line when nothing listens at *address* (``host:port``,
    ``ray://host:port``), rather than letting Ray retry for minutes; ``auto`` is Ray's."""
    if address == "auto":
        return
    where = address.removeprefix("ray://")
    host, _, port = where.rpartition(":")
    if not host or not port.isdigit():
        raise UsageError(f"--ray-address {address}: expected auto, ray://host:port or host:port")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as exc:
        raise UsageError(f"cannot reach the Ray cluster at {address}: {exc}") from exc


@contextmanager
def session(address: str | None) -> Iterator[None]:
    """This process connected to the cluster at *address* while the block runs, so the
    executors made in it share one connection (and one local Ray, when none is given)."""
    ray = import_ray()
    owned = connect(ray, address)
    try:
        yield
    finally:
        if owned:
            ray.shutdown()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[-1] if text else type(exc).__name__
