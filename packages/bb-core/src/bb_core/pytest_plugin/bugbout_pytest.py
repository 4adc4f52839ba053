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
``BUGBOUT_SELECTION``
    A JSON file ``{"select": [...], "deselect": [...], "ignore": [...]}``. ``select``:
    node ids or their prefixes (a module, a class, a test without its parameters); only
    tests they cover run - so a node id that does not exist is simply never reported,
    where pytest would refuse to run anything. ``deselect``: exact node ids to leave
    out; ``ignore``: modules not to collect - bugbout's way to re-run what is left after
    a test hung.
"""
# This file must run on old Pythons: no newer syntax, no imports from bb_core.
# ruff: noqa: UP031

import json
import os
import signal
import time

import pytest

_ENV_REPORT = "BUGBOUT_REPORT_FD"
_ENV_TIMEOUT = "BUGBOUT_TEST_TIMEOUT"
_ENV_SELECTION = "BUGBOUT_SELECTION"
_MESSAGE_LIMIT = 4000


class BugboutTimeout(BaseException):
    """Raised in a test that ran past its time limit.

    A BaseException, so that ``except Exception`` in the code under test cannot
    swallow it; pytest still reports it as the test's failure.
    """


def _pop_int(name):
    value = os.environ.pop(name, "")
    try:
        return int(value)
    except ValueError:
        return None


def _pop_float(name):
    value = os.environ.pop(name, "")
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if seconds > 0 else None


_fd = _pop_int(_ENV_REPORT)
_timeout = _pop_float(_ENV_TIMEOUT)
_selection_path = os.environ.pop(_ENV_SELECTION, "")
if _fd is not None:
    try:
        os.set_inheritable(_fd, False)
    except OSError:
        _fd = None
_can_alarm = _timeout is not None and hasattr(signal, "setitimer")


def _emit(record):
    if _fd is None:
        return
    data = (json.dumps(record, separators=(",", ":")) + "\n").encode("utf-8", "replace")
    try:
        while data:
            written = os.write(_fd, data)
            data = data[written:]
    except OSError:
        pass


def _text(longrepr):
    if longrepr is None:
        return ""
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return "%s:%s: %s" % longrepr
    text = str(longrepr)
    if len(text) > _MESSAGE_LIMIT:
        text = "...\n" + text[-_MESSAGE_LIMIT:]
    return text


# --- the time limit ---------------------------------------------------------------------

_state: dict = {"nodeid": None, "when": None, "deadline": None, "fired": None, "previous": None}


def _on_alarm(signum, frame):
    _state["fired"] = (_state["nodeid"], _state["when"])
    raise BugboutTimeout(
        "bugbout: %s timed out after %gs (test-timeout)" % (_state["when"] or "test", _timeout)
    )


def _arm(nodeid, when, seconds):
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


def _disarm():
    if not _can_alarm:
        return
    try:
        signal.setitimer(signal.ITIMER_REAL, 0)
        if _state["previous"] is not None:
            signal.signal(signal.SIGALRM, _state["previous"])
    except ValueError:
        pass
    _state["previous"] = None


def _phase(item, when):
    _emit({"event": "phase", "nodeid": item.nodeid, "when": when})
    if _timeout is None:
        _state["nodeid"], _state["when"] = item.nodeid, when
        return
    now = time.monotonic()
    if when == "setup" or _state["deadline"] is None or when == "teardown":
        _state["deadline"] = now + _timeout
    _arm(item.nodeid, when, _state["deadline"] - now)


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_setup(item):
    _phase(item, "setup")
    try:
        yield
    finally:
        _disarm()


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_call(item):
    _phase(item, "call")
    try:
        yield
    finally:
        _disarm()


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_teardown(item, nextitem):
    _phase(item, "teardown")
    try:
        yield
    finally:
        _disarm()


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_make_collect_report(collector):
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


def pytest_configure(config):
    _emit(
        {
            "event": "session",
            "pytest": pytest.__version__,
            "pid": os.getpid(),
            "timeout": _timeout,
            "alarm": _can_alarm,
        }
    )


def _load_selection():
    if not _selection_path:
        return None, set(), set()
    try:
        with open(_selection_path) as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None, set(), set()
    select = data.get("select")
    return (
        None if select is None else tuple(select),
        set(data.get("deselect") or ()),
        set(data.get("ignore") or ()),
    )


_select, _deselect_ids, _ignore_modules = _load_selection()


def _selected(nodeid):
    if _select is None:
        return True
    for prefix in _select:
        if prefix in ("", ".") or nodeid == prefix:
            return True
        if nodeid.startswith(prefix) and nodeid[len(prefix)] in ":[/":
            return True
    return False


def pytest_ignore_collect(collection_path, config):
    if not _ignore_modules:
        return None
    try:
        relative = os.path.relpath(str(collection_path), str(config.rootpath))
    except ValueError:
        return None
    if relative.replace(os.sep, "/") in _ignore_modules:
        return True
    return None


def pytest_collection_modifyitems(session, config, items):
    if _select is None and not _deselect_ids:
        return
    keep, dropped = [], []
    for item in items:
        if item.nodeid in _deselect_ids or not _selected(item.nodeid):
            dropped.append(item)
        else:
            keep.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session):
    _emit({"event": "collected", "nodeids": [item.nodeid for item in session.items]})


def pytest_collectreport(report):
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


def pytest_runtest_logreport(report):
    fired = _state["fired"]
    record = {
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


def pytest_runtest_logfinish(nodeid, location):
    _state["fired"] = None
    _state["deadline"] = None


def pytest_internalerror(excrepr, excinfo):
    _emit({"event": "internalerror", "message": _text(excrepr)})


@pytest.hookimpl(hookwrapper=True, trylast=True)
def pytest_sessionfinish(session, exitstatus):
    yield
    _emit({"event": "finish", "exitstatus": int(session.exitstatus)})
