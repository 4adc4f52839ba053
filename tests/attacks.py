"""Package code that attacks the test run from inside: one ``__init__.py`` per attack.

Each is what a patch could add to a package's ``__init__.py``; imported while pytest
collects the tests, it tries to make failing tests look passed. Shared by the tests of
test runs, of cross-examination and of scoring.
"""

from __future__ import annotations

#: Function.runtest replaced by a no-op once pytest is loaded: every test "passes".
RUNTEST_NOOP = """
import sys as _sys
if "_pytest.python" in _sys.modules:
    _sys.modules["_pytest.python"].Function.runtest = lambda self: None
"""

#: A makereport hookwrapper registered on the live Config, found with gc.
GC_HOOKWRAPPER = """
import gc as _gc
import sys as _sys
if "_pytest.config" in _sys.modules:
    import pytest as _pytest

    class _Green:
        @_pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_makereport(self, item, call):
            outcome = yield
            report = outcome.get_result()
            if report.failed:
                report.outcome = "passed"
                report.longrepr = None

    for _obj in _gc.get_objects():
        if isinstance(_obj, _sys.modules["_pytest.config"].Config):
            _obj.pluginmanager.register(_Green(), "green")
            break
"""

#: The plugin's emitter wrapped so that failed becomes passed.
WRAP_EMITTER = """
import sys as _sys
_plugin = _sys.modules.get("bugbout_pytest")
if _plugin is not None:
    _original = _plugin._emit

    def _emit(record):
        if record.get("outcome") == "failed":
            record = dict(record, outcome="passed")
            record.pop("message", None)
        _original(record)

    _plugin._emit = _emit
"""

#: A whole report, every test passed, written to the plugin's descriptor; then os._exit(0).
FORGED_REPORT = """
import ast as _ast
import json as _json
import os as _os
import sys as _sys
_plugin = _sys.modules.get("bugbout_pytest")
if _plugin is not None and _plugin._fd is not None:
    _ids = []
    for _dir, _dirs, _files in _os.walk("."):
        for _name in sorted(_files):
            if _name.startswith("test_") and _name.endswith(".py"):
                _path = _os.path.relpath(_os.path.join(_dir, _name)).replace(_os.sep, "/")
                _tree = _ast.parse(open(_path).read())
                _ids += [_path + "::" + _f.name for _f in _tree.body
                         if isinstance(_f, _ast.FunctionDef) and _f.name.startswith("test")]
    _lines = [{"event": "session"}, {"event": "collected", "nodeids": _ids}]
    for _id in _ids:
        for _when in ("setup", "call", "teardown"):
            _lines.append({"event": "report", "nodeid": _id, "when": _when, "outcome": "passed"})
    _lines += [{"event": "integrity", "changed": []}, {"event": "finish", "exitstatus": 0}]
    _os.write(_plugin._fd, "".join(_json.dumps(_l) + "\\n" for _l in _lines).encode())
    _os._exit(0)
"""

#: The same forgery through the plugin's own emitter, so every line authenticates.
FORGED_THROUGH_EMITTER = FORGED_REPORT.replace(
    "    _os.write(_plugin._fd,", "    [_plugin._emit(_l) for _l in _lines[1:]]\n    (_plugin._fd,"
)

#: The live Session found by walking up the stack from the import (no gc, no trace), and
#: a plugin registered on it that runs each test itself and reports it only when it
#: passed: failing tests are never reported. {target} is the module it aims at; empty:
#: every module.
_SUPPRESS = """
import sys as _sys
_frame = _sys._getframe()
while _frame is not None and type(_frame.f_locals.get("self")).__name__ != "Session":
    _frame = _frame.f_back
if _frame is not None:
    _session = _frame.f_locals["self"]

    class _Quiet:
        def pytest_runtest_protocol(self, item, nextitem):
            if "{target}" not in item.nodeid:
                return None
            from _pytest.runner import runtestprotocol
            reports = runtestprotocol(item, nextitem=nextitem, log=False)
            if all(r.passed or r.skipped for r in reports):
                for report in reports:
                    item.ihook.pytest_runtest_logreport(report=report)
            return True

    if not _session.config.pluginmanager.has_plugin("quiet"):
        _session.config.pluginmanager.register(_Quiet(), "quiet")
"""

#: Failing tests' reports suppressed, in every module (canaries included).
SUPPRESS_FAILURES = _SUPPRESS.replace("{target}", "")
#: The same aimed at one module by name, so the canaries beside it report as they should.
SUPPRESS_IN_MODULE = _SUPPRESS.replace("{target}", "test_double.py::")

#: Passing reports invented, through pytest's own hook and the plugin's emitter, for the
#: tests of every test module that failed to import - with the plugin's note of which
#: test is running set to match, so the report is in its place.
INVENT_REPORTS = """
import sys as _sys
_frame = _sys._getframe()
while _frame is not None and type(_frame.f_locals.get("self")).__name__ != "Session":
    _frame = _frame.f_back
if _frame is not None:
    _session = _frame.f_locals["self"]

    class _Inventor:
        done = False

        def pytest_runtest_logfinish(self, nodeid, location):
            import ast, os
            from _pytest.reports import TestReport
            if self.done:
                return
            self.done = True
            loaded = {getattr(m, "__file__", None) for m in list(_sys.modules.values())}
            state = _sys.modules["bugbout_pytest"]._state
            root = str(_session.config.rootpath)
            for folder, _dirs, files in os.walk(root):
                for name in sorted(files):
                    path = os.path.join(folder, name)
                    if not name.startswith("test_") or not name.endswith(".py") or path in loaded:
                        continue
                    module = os.path.relpath(path, root).replace(os.sep, "/")
                    for node in ast.parse(open(path).read()).body:
                        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
                            forged = module + "::" + node.name
                            saved = dict(state)
                            for when in ("setup", "call", "teardown"):
                                state.update(nodeid=forged, when=when)
                                _session.config.hook.pytest_runtest_logreport(
                                    report=TestReport(forged, (module, 0, node.name), {}, "passed", None, when)
                                )
                            state.update(saved)

    if not _session.config.pluginmanager.has_plugin("inventor"):
        _session.config.pluginmanager.register(_Inventor(), "inventor")
"""

#: Attacks on the report itself that only the collection pass sees: by name.
REPORT_FORGERS = {"suppress-in-module": SUPPRESS_IN_MODULE, "invent-reports": INVENT_REPORTS}

PACKAGE_TAMPERERS = {
    "runtest-noop": RUNTEST_NOOP,
    "gc-hookwrapper": GC_HOOKWRAPPER,
    "wrap-emitter": WRAP_EMITTER,
    "forged-report": FORGED_REPORT,
    "forged-through-emitter": FORGED_THROUGH_EMITTER,
    "suppress-failures": SUPPRESS_FAILURES,
}
