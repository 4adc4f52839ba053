"""bugbout's pytest plugin: a structured report of every test, and a time limit per test.

Loaded with ``-p bugbout_pytest`` from a folder bugbout puts on PYTHONPATH; the test
environment does not have bugbout installed, so this module uses the standard library
and pytest only, and runs on Python 3.8+ and pytest 7+.

Settings arrive in environment variables, which are removed as soon as the plugin is
imported, so the code under test does not see them:

``BUGBOUT_REPORT_FD``
    A file descriptor, opened by bugbout, to write the report to: one JSON object per
    line (events ``session``, ``collect``, ``collected``, ``phase``, ``report``,
    ``finish``). Outcomes are taken from this report, never from the terminal output.
``BUGBOUT_TEST_TIMEOUT``
    Seconds each test may take: setup and call share this budget, teardown has its own.
    When it runs out, SIGALRM raises :class:`BugboutTimeout` inside the test, which then
    fails alone with a clear message. Collecting one module has the same limit.
``BUGBOUT_REPORT_KEY``
    A hex key: every report line carries ``n`` (its place in the report) and ``mac``
    (an HMAC-SHA256 of the line under this key), so a line written to the descriptor
    by anything but this plugin's emitter does not authenticate.
``BUGBOUT_COLLECT_FD``
    Another file descriptor: right before collecting, the plugin forks a collection
    pass - a child that collects exactly what the run will, runs no test, reports its
    ``collected`` ids (and its own ``tamper`` and ``integrity`` events) there, with its
    own ``n`` sequence under the same key, and exits; the run goes on once it has.
    bugbout compares the two (see ``bb_core.testrun.crosscheck``).
``BUGBOUT_TOUCHED``
    A JSON object ``{"files": {path: [[first, last], ...]}}``: the lines the patch under
    test added or changed, by checkout path. Audited events (tracing, ``gc`` walks,
    ``ctypes``) are then charged to the patch's code only, wherever it is on the stack;
    without it, to any code of the checkout (see ``bugbout_charge``).
``BUGBOUT_SELECTION``
    A JSON file ``{"select": [...], "deselect": [...], "ignore": [...]}``. ``select``:
    node ids or their prefixes (a module, a class, a test without its parameters); only
    tests they cover run - so a node id that does not exist is simply never reported,
    where pytest would refuse to run anything. ``deselect``: exact node ids to leave
    out; ``ignore``: modules not to collect - bugbout's way to re-run what is left after
    a test hung.

Self-protection (see docs/test-runs.md and ``bugbout_guard``): before any project code is
imported, the plugin installs an audit hook that reports, as ``tamper`` events, attempts to
change pytest, pluggy or the plugin, and - from the patch's code (``bugbout_charge``;
any code of the checkout when ``BUGBOUT_TOUCHED`` is not given) - to walk objects, trace or
load ``ctypes``. At the end of the session it compares the
runner's functions, pluggy's calling machinery and its own hooks and emitter with the
originals it noted at import, and writes the differences in an ``integrity`` event.

The plugin's other modules sit beside it and are found the same way: ``bugbout_guard``
(self-protection), ``bugbout_charge`` (whose code an event is), ``bugbout_emit`` (the
report's lines) and ``bugbout_select`` (the selection).
"""
# This file must run on old Pythons: no newer syntax, no imports from bb_core.
# ruff: noqa: UP031

from __future__ import annotations

import os
import signal
import sys
import time
import warnings
from typing import TYPE_CHECKING, Any, cast

import pytest
from bugbout_charge import load_touched as _load_touched
from bugbout_emit import make_emitter as _make_emitter
from bugbout_emit import text as _text
from bugbout_guard import changes as _changes
from bugbout_guard import hook_changes as _plugin_hook_changes
from bugbout_guard import make_audit_hook as _make_audit_hook
from bugbout_guard import note as _note
from bugbout_select import load_selection as _load_selection
from bugbout_select import selected as _selected_by

if TYPE_CHECKING:
    from collections.abc import Generator
    from pathlib import Path
    from types import FrameType

_ENV_REPORT = "BUGBOUT_REPORT_FD"
_ENV_TIMEOUT = "BUGBOUT_TEST_TIMEOUT"
_ENV_SELECTION = "BUGBOUT_SELECTION"
_ENV_KEY = "BUGBOUT_REPORT_KEY"
_ENV_COLLECT = "BUGBOUT_COLLECT_FD"
_ENV_TOUCHED = "BUGBOUT_TOUCHED"


class BugboutTimeout(BaseException):
    """Raised in a test that ran past its time limit.

    A BaseException, so that ``except Exception`` in the code under test cannot
    swallow it; pytest still reports it as the test's failure.
    """


def _pop_int(name: str) -> int | None:
    value = os.environ.pop(name, "")
    try:
        return int(value)
    except ValueError:
        return None


def _pop_float(name: str) -> float | None:
    value = os.environ.pop(name, "")
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if seconds > 0 else None


_fd = _pop_int(_ENV_REPORT)
_cfd = _pop_int(_ENV_COLLECT)
_timeout = _pop_float(_ENV_TIMEOUT)
_selection_path = os.environ.pop(_ENV_SELECTION, "")
if _fd is not None:
    try:
        os.set_inheritable(_fd, False)
    except OSError:
        _fd = None
if _cfd is not None:
    try:
        os.set_inheritable(_cfd, False)
    except OSError:
        _cfd = None
_can_alarm = _timeout is not None and hasattr(signal, "setitimer")

_emit, _redirect = _make_emitter(_fd, bytes.fromhex(os.environ.pop(_ENV_KEY, "") or "00"))
del _make_emitter


# Before anything of the checkout is imported (bugbout_guard).
sys.addaudithook(_make_audit_hook(_emit, touched=_load_touched(os.environ.pop(_ENV_TOUCHED, ""))))


# --- the time limit ---------------------------------------------------------------------

_state: dict[str, Any] = {
    "nodeid": None,
    "when": None,
    "deadline": None,
    "fired": None,
    "previous": None,
}


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    _state["fired"] = (_state["nodeid"], _state["when"])
    raise BugboutTimeout(
        "bugbout: %s timed out after %gs (test-timeout)"
        % (_state["when"] or "test", cast(float, _timeout))
    )


def _arm(nodeid: str, when: str, seconds: float) -> None:
    _state["nodeid"] = nodeid
    _state["when"] = when
    if not _can_alarm:
        return
    try:
        _state["previous"] = signal.signal(signal.SIGALRM, _on_alarm)
    except ValueError:  # not the main thread
        _state["previous"] = None
        return
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.01))


def _disarm() -> None:
    if not _can_alarm:
        return
    try:
        signal.setitimer(signal.ITIMER_REAL, 0)
        if _state["previous"] is not None:
            signal.signal(signal.SIGALRM, _state["previous"])
    except ValueError:
        pass
    _state["previous"] = None


def _phase(item: pytest.Item, when: str) -> None:
    _emit({"event": "phase", "nodeid": item.nodeid, "when": when})
    if _timeout is None:
        _state["nodeid"], _state["when"] = item.nodeid, when
        return
    now = time.monotonic()
    if when == "setup" or _state["deadline"] is None or when == "teardown":
        _state["deadline"] = now + _timeout
    _arm(item.nodeid, when, _state["deadline"] - now)


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    _phase(item, "setup")
    try:
        yield
    finally:
        _disarm()


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    _phase(item, "call")
    try:
        yield
    finally:
        _disarm()


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_teardown(
    item: pytest.Item, nextitem: pytest.Item | None
) -> Generator[None, None, None]:
    _phase(item, "teardown")
    try:
        yield
    finally:
        _disarm()


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, None, None]:
    module = isinstance(collector, pytest.Module)
    if module:
        _emit({"event": "phase", "nodeid": collector.nodeid, "when": "collect"})
        if _timeout is not None:
            _arm(collector.nodeid, "collect", _timeout)
    try:
        yield
    finally:
        if module and _timeout is not None:
            _disarm()


# --- the report -------------------------------------------------------------------------


def pytest_configure(config: pytest.Config) -> None:
    _emit(
        {
            "event": "session",
            "pytest": pytest.__version__,
            "pid": os.getpid(),
            "timeout": _timeout,
            "alarm": _can_alarm,
        }
    )


_select, _deselect_ids, _ignore_modules = _load_selection(_selection_path)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if not _ignore_modules:
        return None
    try:
        relative = os.path.relpath(str(collection_path), str(config.rootpath))
    except ValueError:
        return None
    if relative.replace(os.sep, "/") in _ignore_modules:
        return True
    return None


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    if _select is None and not _deselect_ids:
        return
    keep: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        if item.nodeid in _deselect_ids or not _selected_by(item.nodeid, _select):
            dropped.append(item)
        else:
            keep.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


def _collection_pass(session: pytest.Session) -> None:
    """In the forked child: collect, report what was found, exit; never returns."""
    status = 3
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        if _fd is not None:
            os.close(_fd)
        _redirect(_cfd)
        _emit({"event": "session", "pass": "collection", "pid": os.getpid()})
        try:
            session.perform_collect()
            status = 0
        except BaseException:  # an interrupted collection still reports what it saw
            status = 2
        try:
            changed = _changes(_noted) + _hook_changes(session.config)
        except Exception as exc:
            changed = ["integrity check failed: %s" % type(exc).__name__]
        _emit({"event": "integrity", "changed": changed})
        _emit({"event": "finish", "exitstatus": status})
    finally:
        os._exit(status)


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session: pytest.Session) -> None:
    """Fork the collection pass before anything of the checkout is imported, wait for it."""
    if _cfd is None or session.config.option.collectonly:
        return None
    try:
        with warnings.catch_warnings():  # "use of fork() may lead to deadlocks" (3.12+)
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
    except OSError as exc:
        _emit({"event": "tamper", "what": "the collection pass could not start: %s" % exc})
        return None
    if pid == 0:
        _collection_pass(session)
    os.close(_cfd)
    os.waitpid(pid, 0)
    return None


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    _emit({"event": "collected", "nodeids": [item.nodeid for item in session.items]})


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if report.outcome == "passed":
        return
    fired = _state["fired"]
    _emit(
        {
            "event": "collect",
            "nodeid": report.nodeid,
            "outcome": report.outcome,
            "timeout": fired is not None and fired[0] == report.nodeid,
            "message": _text(report.longrepr),
        }
    )


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    fired = _state["fired"]
    if report.nodeid != _state["nodeid"]:
        # pytest reports a test's phases while that test runs; anything else is made up
        _emit(
            {
                "event": "tamper",
                "what": "a report for %s arrived while %s ran"
                % (report.nodeid, _state["nodeid"] or "no test"),
            }
        )
    record: dict[str, Any] = {
        "event": "report",
        "nodeid": report.nodeid,
        "when": report.when,
        "outcome": report.outcome,
        "duration": getattr(report, "duration", 0.0),
        "xfail": hasattr(report, "wasxfail"),
        "timeout": fired is not None and fired == (report.nodeid, report.when),
    }
    if report.outcome != "passed":
        record["message"] = _text(report.longrepr)
    _emit(record)


def pytest_runtest_logfinish(nodeid: str, location: tuple[str, int | None, str]) -> None:
    _state["fired"] = None
    _state["deadline"] = None


def pytest_internalerror(excrepr: object, excinfo: object) -> None:
    _emit({"event": "internalerror", "message": _text(excrepr)})


def _hook_changes(config: pytest.Config) -> list[str]:
    """Hooks of this plugin that pytest would no longer call as written here."""
    return cast("list[str]", _plugin_hook_changes(config, __name__, _own_hooks))


@pytest.hookimpl(hookwrapper=True, trylast=True)
def pytest_sessionfinish(
    session: pytest.Session, exitstatus: int | pytest.ExitCode
) -> Generator[None, None, None]:
    yield
    try:
        changed = _changes(_noted) + _hook_changes(session.config)
    except Exception as exc:  # a broken object graph is itself a finding
        changed = ["integrity check failed: %s" % type(exc).__name__]
    _emit({"event": "integrity", "changed": changed})
    _emit({"event": "finish", "exitstatus": int(session.exitstatus)})


_own_hooks = {
    name: value
    for name, value in list(globals().items())
    if name.startswith("pytest_") and callable(value)
}
_noted = _note()
