"""Whose code caused an audited event: the patch's, or the project's (see docs/test-runs.md).

Imported by ``bugbout_guard``; standard library only, Python 3.8+.

A run is handed the lines the patch under test added or changed (``BUGBOUT_TOUCHED``).
An event is the patch's when the nearest frame that caused it, past the standard library
and the import machinery, is running one of those lines; or when any frame of the whole
stack is code that claims a file it was not compiled from, or runs code the patch handed
to ``exec`` or swapped in as a function's ``__code__``; or when it runs in a thread the
patch started. Code the project's own code compiled and ran with ``exec`` is the
project's, whatever file it names. Everything else - the base tree's own files, the
maintainers' fix in the oracle, installed libraries - is the project's behaviour.
"""
# This file must run on old Pythons: no newer syntax, no imports from bb_core.
# ruff: noqa: UP031

from __future__ import annotations

import json
import linecache
import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Container
    from types import CodeType, FrameType

    #: ``{path: [(first, last), ...]}``: the lines a patch added or changed, by file.
    Touched = dict[str, list[tuple[int, int]]]

#: Names the import machinery runs module code under; its ``exec`` is an import.
_IMPORTERS = ("importlib", "_frozen_importlib", "_frozen_importlib_external")
_REWRITE = "_pytest.assertion.rewrite"
_STDLIB = os.path.realpath(os.path.dirname(os.__file__)) + os.sep
_INSTALLED = ("site-packages", "dist-packages")
#: How far past a code object's first line (its decorators) its ``def`` may stand.
_DECORATORS = 40


def load_touched(text: str | None) -> Touched | None:
    """``{path: [(first, last), ...]}`` from ``BUGBOUT_TOUCHED``'s JSON; None when there is
    none (every file of the checkout is then held to account, as the nearest caller)."""
    if not text:
        return None
    try:
        files = json.loads(text)["files"]
        return {str(p): [(int(a), int(b)) for a, b in spans] for p, spans in files.items()}
    except Exception:
        return None


class Charger:
    """Which code of a stack is the patch's (see the module's docstring)."""

    def __init__(
        self,
        touched: Touched,
        root: str,
        plugin_modules: Container[str],
        realpath: Callable[[str], str] = os.path.realpath,
    ) -> None:
        self.touched = touched
        self.root = root + os.sep
        self.plugin_modules = plugin_modules
        self.realpath = realpath
        # Code objects by identity (code compares equal by content, not by file), held so
        # that their ids stay theirs: the patch's (run through exec or __code__), and the
        # project's own generated code (run through exec by code that is not the patch's).
        self.codes: dict[int, CodeType] = {}
        self.vouched: dict[int, CodeType] = {}
        self.defined: dict[
            int, CodeType
        ] = {}  # code objects whose file's source was found to define them
        self.threads: list[Any] = []  # threads the patch started
        self._paths: dict[str, str] = {}

    # -- where a file is -------------------------------------------------------------

    def _real(self, name: str) -> str:
        path = self._paths.get(name)
        if path is None:
            path = self._paths[name] = self.realpath(name)
        return path

    def _relative(self, path: str) -> str | None:
        if path.startswith(self.root):
            return path[len(self.root) :].replace(os.sep, "/")
        return None

    def _touched(self, relative: str, line: int) -> bool:
        return any(first <= line <= last for first, last in self.touched.get(relative, ()))

    def _checked(self, path: str) -> bool:
        """Files whose code objects are checked against their source: the checkout's and
        the standard library's (not installed packages)."""
        return path.startswith(self.root) or self._library(path)

    # -- code that lies about where it comes from --------------------------------------

    def _lie(self, frame: FrameType, path: str) -> str | None:
        """Why *frame*'s code is not what its file says, or None."""
        code = frame.f_code
        if id(code) in self.vouched or not self._checked(path):
            return None
        owner = frame.f_globals.get("__file__")
        sourced = isinstance(owner, str) and owner and not owner.endswith((".pyc", ".pyo"))
        if sourced and isinstance(owner, str) and self._real(owner) != path:
            return "code claiming %s run as %s" % (self._shown(path), self._shown(owner))
        if code.co_name.startswith("<") or id(code) in self.defined:
            return None
        if not self._defines(code):
            return "code claiming %s:%d, which does not define %s" % (
                self._shown(path),
                code.co_firstlineno,
                code.co_name,
            )
        self.defined[id(code)] = code  # its source defines it: checked once
        return None

    def _defines(self, code: CodeType) -> bool:
        """Whether the source at *code*'s first line (past decorators) defines its name
        (a standard library installed without its sources cannot say: it is believed)."""
        if not linecache.getlines(code.co_filename):
            return not self._real(code.co_filename).startswith(self.root)
        name = code.co_name
        heads = ("def " + name, "async def " + name, "class " + name)
        for line in range(code.co_firstlineno, code.co_firstlineno + _DECORATORS):
            text = linecache.getline(code.co_filename, line).strip()
            for head in heads:
                if text.startswith(head) and text[len(head) : len(head) + 1] in ("(", ":", " "):
                    return True
            if text.startswith(("def ", "async def ", "class ")):
                return False
        return False

    def _shown(self, name: str) -> str:
        path = self._real(name)
        relative = self._relative(path)
        return relative if relative is not None else path

    # -- the stack ---------------------------------------------------------------------

    def _library(self, path: str) -> bool:
        """Whether *path* is the standard library's (its installed packages aside)."""
        return path.startswith(_STDLIB) and not any(p in path for p in _INSTALLED)

    def patch_code(self, frame: FrameType | None) -> str | None:
        """Where on the stack from *frame* up the patch's code is, or None.

        Every frame is checked for code the patch ran (``exec``, ``__code__``) and for
        code that lies about its file. The lines decide at the nearest frame past the
        standard library (its wrappers, the import machinery), the plugin and code named
        ``<...>``: when that frame runs a line the patch wrote, the event is the patch's;
        when it is the project's own code or an installed library, it is theirs - a
        patch's line further up the stack is only a caller of theirs, as the honest fix
        of a tracer is of every trace.
        """
        deciding = True
        while frame is not None:
            code = frame.f_code
            if frame.f_globals.get("__name__") in self.plugin_modules:
                frame = frame.f_back
                continue
            if id(code) in self.codes:
                return "code the patch ran (%s:%d)" % (
                    self._shown(code.co_filename) if not code.co_filename.startswith("<")
                    else code.co_filename,
                    frame.f_lineno,
                )  # fmt: skip
            name = code.co_filename
            if not name.startswith("<"):
                path = self._real(name)
                lie = self._lie(frame, path)
                if lie is not None:
                    return lie
                if deciding and not self._library(path):
                    deciding = False
                    relative = self._relative(path)
                    line = frame.f_lineno or 0
                    if relative is not None and self._touched(relative, line):
                        return "%s:%d" % (relative, line)
            frame = frame.f_back
        threading = sys.modules.get("threading")
        if self.threads and threading is not None:
            current = threading.current_thread()
            if any(current is t for t in self.threads):
                return "a thread the patch started"
        return None

    # -- what the patch hands on ---------------------------------------------------------

    def taint(self, code: CodeType, into: dict[int, CodeType] | None = None) -> None:
        """*code* and every code object nested in it: the patch's, wherever it runs (or
        put *into* another set)."""
        into = self.codes if into is None else into
        pending = [code]
        while pending:
            found = pending.pop()
            if id(found) in into:
                continue
            into[id(found)] = found
            pending.extend(c for c in found.co_consts if isinstance(c, type(found)))

    def on_exec(self, frame: FrameType | None, code: object) -> None:
        """``exec`` of *code* called from *frame*: the patch's when its stack is."""
        name = frame.f_globals.get("__name__") if frame is not None else None
        if isinstance(name, str) and (name.startswith(_IMPORTERS) or name == _REWRITE):
            return
        if not isinstance(code, type(self.on_exec.__code__)):
            return
        if self.patch_code(frame):
            self.taint(code)
        elif not code.co_filename.startswith("<"):
            # The project's own generated code: whatever file it names, it is the project's.
            self.taint(code, self.vouched)

    def watch_threads(self, getframe: Callable[[int], FrameType] = sys._getframe) -> None:
        """Note who starts each thread: Python before 3.13 raises no audit event for it,
        so the functions ``threading`` starts threads with are wrapped (before any
        project code is imported)."""
        import _thread
        import threading

        def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
            def start(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
                self.on_thread(getframe(1), function)
                return original(function, *args, **kwargs)

            return start

        for module, name in (
            (threading, "_start_new_thread"),
            (threading, "_start_joinable_thread"),
            (_thread, "start_new_thread"),
            (_thread, "start_joinable_thread"),
        ):
            original = getattr(module, name, None)
            if original is not None:
                setattr(module, name, wrap(original))

    def on_thread(self, frame: FrameType, function: Callable[..., Any]) -> None:
        """A thread started from *frame* to run *function*."""
        if not self.patch_code(frame):
            return
        owner = getattr(function, "__self__", None)
        threading = sys.modules.get("threading")
        if threading is not None and isinstance(owner, threading.Thread):
            self.threads.append(owner)
            return
        code = getattr(getattr(function, "__func__", function), "__code__", None)
        if code is not None:
            self.taint(code)
