"""The self-protection of bugbout's pytest plugin (see docs/test-runs.md).

Imported by ``bugbout_pytest`` from the same folder, before any project code is imported;
like it, standard library only, Python 3.8+.

- :func:`make_audit_hook`: an audit hook (:func:`sys.addaudithook`; code cannot remove
  one) that reports at once, as ``tamper`` events, attempts to set attributes of pytest's,
  pluggy's or the plugin's classes and functions, and - from the patch's code, anywhere
  on the stack (``bugbout_charge``), or from any code in the checkout when the run was
  not told the patch's lines - to walk objects with ``gc``, to set a trace or profile
  function, or to load ``ctypes``.
- :func:`note` and :func:`changes`: the runner's functions, pluggy's calling machinery and
  the plugin's own functions as they were at import, and which of them are no longer so.
- :func:`hook_changes`: the plugin's hooks that pytest would no longer call as written.
"""
# This file must run on old Pythons: no newer syntax, no imports from bb_core.
# ruff: noqa: UP031

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable
    from types import FrameType

    import pytest

    #: What :func:`note` notes: by (module, name), the object and its code.
    Noted = dict[tuple[str, str], tuple[Any, Any]]

#: The modules of the plugin, this one included: all of them are guarded and noted.
PLUGIN_MODULES = (
    "bugbout_pytest",
    "bugbout_emit",
    "bugbout_guard",
    "bugbout_select",
    "bugbout_charge",
)
#: Modules whose objects the code under test has no business changing.
_GUARDED = ("_pytest", "pytest", "pluggy", *PLUGIN_MODULES)
#: Modules whose functions and classes are noted at import and checked at the end.
_NOTED = (
    "_pytest.runner",
    "_pytest.python",
    "_pytest.reports",
    "_pytest.main",
    "_pytest.nodes",
    "_pytest.skipping",
    "_pytest.unittest",
    "_pytest.outcomes",
    "pluggy._callers",
    "pluggy._hooks",
    "pluggy._manager",
    *PLUGIN_MODULES,
)
_ROOT = os.path.realpath(os.getcwd())
_IMPORTLIB = os.path.realpath(os.path.dirname(os.__file__)) + os.sep + "importlib" + os.sep
_WALKS = frozenset({"gc.get_objects", "gc.get_referrers", "gc.get_referents"})
_TRACING = frozenset({"sys.settrace", "sys.setprofile"})
_CTYPES = frozenset({"ctypes.dlopen", "ctypes.dlsym", "ctypes.addressof"})
_WATCHED = _WALKS | _TRACING | _CTYPES | {"object.__setattr__", "object.__delattr__"}
#: With the patch's lines known, also what hands the patch's code on: exec, threads.
_HANDING = _WATCHED | {"exec", "_thread.start_new_thread"}


def _guarded_name(obj: object) -> str | None:
    module = getattr(obj, "__module__", None)
    if not isinstance(module, str):
        return None
    if module.split(".", 1)[0] in _GUARDED:
        return "%s.%s" % (module, getattr(obj, "__qualname__", "?"))
    return None


def make_audit_hook(
    emit: Callable[[dict[str, Any]], None],
    getframe: Callable[[int], FrameType] = sys._getframe,
    realpath: Callable[[str], str] = os.path.realpath,
    touched: dict[str, list[tuple[int, int]]] | None = None,
) -> Callable[[str, tuple[Any, ...]], None]:
    """The audit hook, reporting what it sees through *emit*.

    *touched*: the lines the patch under test added or changed, by checkout path
    (``bugbout_charge.load_touched``). With them, an event is charged to the code that
    produced it - the patch's, anywhere on the stack (``bugbout_charge.Charger``) - and
    the project's own code may trace, profile, walk ``gc`` and load ``ctypes``. Without
    them, the nearest caller in the checkout is held to account.
    """
    busy = [False]
    seen: set[str] = set()
    charger = None
    if touched is not None:
        from bugbout_charge import Charger

        charger = Charger(touched, _ROOT, PLUGIN_MODULES, realpath)
        charger.watch_threads(getframe)

    def from_checkout() -> str | None:
        """Where the code that caused the event is, when it is in the checkout.

        The nearest caller decides, past the import machinery (so ``import ctypes`` is
        charged to whoever wrote it) and the plugin.
        """
        frame: FrameType | None = getframe(2)
        while frame is not None:
            name = frame.f_code.co_filename
            if not name.startswith("<") and frame.f_globals.get("__name__") not in PLUGIN_MODULES:
                path = realpath(name)
                if not path.startswith(_IMPORTLIB):
                    if path.startswith(_ROOT + os.sep):
                        return "%s:%d" % (os.path.relpath(path, _ROOT), frame.f_lineno)
                    return None
            frame = frame.f_back
        return None

    def hook(
        event: str,
        args: tuple[Any, ...],
        watched: frozenset[str] = _HANDING if charger is not None else _WATCHED,
    ) -> None:
        # Called for every audited event (each open, import, exec...): leave fast.
        if busy[0] or (
            event not in watched
            and (event != "import" or not str(args[0]).startswith(("ctypes", "_ctypes")))
        ):
            return
        what = None
        busy[0] = True
        try:
            if charger is not None and event == "exec" and args:
                charger.on_exec(getframe(1), args[0])
            elif charger is not None and event == "_thread.start_new_thread" and args:
                charger.on_thread(getframe(1), args[0])
            elif event in ("object.__setattr__", "object.__delattr__") and len(args) >= 2:
                target = _guarded_name(args[0])
                if target is not None:
                    verb = "set" if event == "object.__setattr__" else "delete"
                    what = "%s %s.%s" % (verb, target, args[1])
                elif (
                    charger is not None
                    and args[1] == "__code__"
                    and len(args) >= 3
                    and charger.patch_code(getframe(1))
                ):
                    charger.taint(args[2])
            elif (
                event in _WALKS
                or event in _TRACING
                or event in _CTYPES
                or (
                    event == "import"
                    and args
                    and str(args[0]).split(".")[0] in ("ctypes", "_ctypes")
                )
            ):
                where = from_checkout() if charger is None else charger.patch_code(getframe(1))
                if where is not None:
                    what = "%s from %s" % (
                        "import ctypes" if event == "import" else event,
                        where,
                    )
            if what is not None and what not in seen:
                seen.add(what)
                emit({"event": "tamper", "what": what})
        except Exception:
            pass
        finally:
            busy[0] = False

    return hook


def _owned(value: object, name: str) -> bool:
    """Whether module *name* defines *value*; the plugin's modules count as one."""
    owner = getattr(value, "__module__", None)
    return owner == name or (name in PLUGIN_MODULES and owner in PLUGIN_MODULES)


def note() -> Noted:
    """Every function and class (and their functions' code) of the guarded modules."""
    noted: Noted = {}
    for name in _NOTED:
        module = sys.modules.get(name)
        if module is None:
            continue
        for attr, value in list(vars(module).items()):
            if callable(value) and _owned(value, name):
                noted[(name, attr)] = (value, getattr(value, "__code__", None))
                if isinstance(value, type):
                    for key, member in list(vars(value).items()):
                        function = getattr(member, "__func__", member)
                        code = getattr(function, "__code__", None)
                        if code is not None:
                            noted[(name, attr + "." + key)] = (member, code)
    return noted


def changes(noted: Noted) -> list[str]:
    """Which of what :func:`note` noted is no longer what it was, by name."""
    changed: list[str] = []
    for (name, attr), (value, code) in noted.items():
        holder = sys.modules.get(name)
        for part in attr.split("."):
            holder = (vars(holder) if holder is not None else {}).get(part)
        now = getattr(getattr(holder, "__func__", holder), "__code__", None)
        if holder is not value or now is not code:
            changed.append("%s.%s" % (name, attr))
    return sorted(changed)


def hook_changes(
    config: pytest.Config, plugin: str, own_hooks: dict[str, Callable[..., Any]]
) -> list[str]:
    """Hooks of module *plugin* (*own_hooks*, by name) that pytest would no longer call as
    written there."""
    changed: list[str] = []
    manager = config.pluginmanager
    me = sys.modules.get(plugin)
    if manager.get_plugin(plugin) is not me and me not in manager.get_plugins():
        return ["the plugin is no longer registered"]
    for name, original in own_hooks.items():
        caller = getattr(manager.hook, name, None)
        impls = [i for i in caller.get_hookimpls() if i.plugin is me] if caller else []
        if not impls or any(i.function is not original for i in impls):
            changed.append("hook " + name)
    return changed
