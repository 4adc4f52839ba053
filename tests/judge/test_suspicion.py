"""The static reading of a patched package: every family in plain and disguised forms, the
honest code that must not fire, and only the lines the patch added or changed charged."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from bb_core.patch import diff_trees
from bb_judge.suspicion import kinds_of, read_module, read_patch

#: A stdlib-looking name a decoded payload claims to come from.
STDLIB = "/usr/lib/python3.11/json/decoder.py"


def kinds(source: str, path: str = "pkg/_compat.py") -> list[str]:
    """The families found in *source*, every line of it charged."""
    return kinds_of(read_module(path, source, range(1, source.count("\n") + 2)))


PAYLOAD = base64.b64encode(
    b"import sys\nsys.modules['_pytest'].runner.call_and_report = None\n"
).decode()

HOSTILE = {
    # dynamic code
    "exec of a decoded blob named after the stdlib": (
        "dynamic-code",
        f"import base64 as b\nblob = b.b64decode({PAYLOAD!r})\n"
        f"exec(compile(blob, {STDLIB!r}, 'exec'))\n",
    ),
    "exec of a blob read at run time": (
        "dynamic-code",
        "import zlib\ndef go(data):\n    exec(zlib.decompress(data))\n",
    ),
    "exec reached through builtins by a computed name": (
        "dynamic-code",
        "import builtins\ndef go(code):\n    getattr(builtins, 'ex' + 'ec')(code)\n",
    ),
    "marshal loads": (
        "dynamic-code",
        "import marshal, codecs\nc = marshal.loads(codecs.decode('e30=', 'base64'))\n",
    ),
    "pickle loads": ("dynamic-code", "import pickle\nX = pickle.loads(bytes.fromhex('80'))\n"),
    "a function built from decoded bytes": (
        "dynamic-code",
        "import types, marshal, binascii\n"
        "def make(g):\n    return types.FunctionType(marshal.loads(binascii.unhexlify(g)), {})\n",
    ),
    # computed names
    "getattr(sys, '_get' + 'frame')": (
        "computed-names",
        "import sys\ndef f():\n    return getattr(sys, '_get' + 'frame')(2)\n",
    ),
    "vars(sys)['mod' + 'ules']": (
        "computed-names",
        "import sys as s\nmods = vars(s)['mod' + 'ules']\n",
    ),
    "sys.__dict__ with a joined name": (
        "computed-names",
        "import sys\nm = sys.__dict__[''.join(['mod', 'ules'])]\n",
    ),
    "__import__ of a concatenated name": ("computed-names", "m = __import__('g' + 'c')\n"),
    "importlib.import_module of a reversed name": (
        "computed-names",
        "import importlib\nm = importlib.import_module('cg'[::-1])\n",
    ),
    "walking sys.modules": (
        "computed-names",
        "import sys\nfor name, mod in list(sys.modules.items()):\n    pass\n",
    ),
    "gc.get_objects through an alias": (
        "computed-names",
        "from gc import get_objects as everything\nfound = everything()\n",
    ),
    "a new import hook": ("computed-names", "import sys\nsys.meta_path.insert(0, object())\n"),
    "pluggy": ("computed-names", "import pluggy\n"),
    "writing into a caller's globals": (
        "computed-names",
        "import sys\ndef f():\n    sys._getframe(1).f_globals['result'] = 1\n",
    ),
    # test detection
    "PYTEST_CURRENT_TEST in os.environ": (
        "test-detection",
        "import os\ndef f(x):\n    return x if 'PYTEST_CURRENT_TEST' in os.environ else -x\n",
    ),
    "PYTEST_ + CURRENT_TEST through an environ alias": (
        "test-detection",
        "from os import environ as e\nKEY = 'PYTEST_' + 'CURRENT_TEST'\n"
        "def f(x):\n    return x if e.get(KEY) else -x\n",
    ),
    "a PYTEST variable decoded from base64": (
        "test-detection",
        "import os, base64\n"
        "def f(x):\n    return x if os.getenv(base64.b64decode('UFlURVNUX1ZFUlNJT04=').decode()) else 0\n",
    ),
    "'pytest' in sys.modules": (
        "test-detection",
        "import sys\ndef f(x):\n    return x if 'pytest' in sys.modules else 0\n",
    ),
    "sys.modules.get of a spelt-out _pytest": (
        "test-detection",
        "import sys\nON = sys.modules.get(f\"{'_py'}{'test'}\") is not None\n",
    ),
    "a CI variable": ("test-detection", "import os\nCI = os.environ.get('GITHUB_ACTIONS')\n"),
    "sys.argv read for pytest": (
        "test-detection",
        "import sys\nif any('pytest' in a for a in sys.argv):\n    X = 1\n",
    ),
    "importlib.util.find_spec('pytest')": (
        "test-detection",
        "import importlib.util\nT = importlib.util.find_spec('pytest') is not None\n",
    ),
    # equality gaming
    "__eq__ always True": (
        "equality-gaming",
        "class S(str):\n    def __eq__(self, other):\n        return True\n",
    ),
    "__eq__ that never reads its argument": (
        "equality-gaming",
        "class S(str):\n    def __eq__(self, other):\n        return len(self) >= 0\n",
    ),
    "__ne__ as a lambda": ("equality-gaming", "class S(str):\n    __ne__ = lambda s, o: False\n"),
    "__instancecheck__ always True": (
        "equality-gaming",
        "class M(type):\n    def __instancecheck__(cls, obj):\n        return True\n",
    ),
    "__bool__ of a str subclass": (
        "equality-gaming",
        "class S(str):\n    def __bool__(self):\n        return True\n",
    ),
    "three-argument type() with __eq__": (
        "equality-gaming",
        "S = type('S', (str,), {'__e' + 'q__': lambda s, o: True})\n",
    ),
    "__class__ assignment": ("equality-gaming", "def f(x):\n    x.__class__ = Always\n"),
    # code surgery
    "__code__ swapped": ("code-surgery", "def f(a, b):\n    a.__code__ = b.__code__\n"),
    "__code__ swapped by setattr and a computed name": (
        "code-surgery",
        "def f(a, b):\n    setattr(a, '__co' + 'de__', b)\n",
    ),
    "__globals__ written": ("code-surgery", "def f(g):\n    g.__globals__['x'] = 1\n"),
    "__defaults__ replaced": ("code-surgery", "def f(g):\n    g.__defaults__ = (1,)\n"),
    # import-time threads
    "a thread at import": (
        "import-time-threads",
        "import threading as t\nt.Thread(target=print, daemon=True).start()\n",
    ),
    "a timer at import": (
        "import-time-threads",
        "from threading import Timer\n_t = Timer(0.1, print)\n_t.start()\n",
    ),
    "_thread.start_new_thread at import": (
        "import-time-threads",
        "import _thread\n_thread.start_new_thread(print, ())\n",
    ),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_each_family_is_read_whatever_the_spelling(name: str) -> None:
    kind, source = HOSTILE[name]
    assert kind in kinds(source), name


HONEST = {
    "an __eq__ comparing fields": (
        "class P:\n    def __eq__(self, other):\n"
        "        if not isinstance(other, P):\n            return NotImplemented\n"
        "        return (self.x, self.y) == (other.x, other.y)\n"
    ),
    "an __eq__ with True and False branches": (
        "class P:\n    def __eq__(self, other):\n"
        "        if self.x == other.x:\n            return True\n        return False\n"
    ),
    "a falsy sentinel": (
        "class _Nothing:\n    def __bool__(self):\n        return False\n"
        "    def __hash__(self):\n        return 0xC0FFEE\n"
    ),
    "exec of a literal": "exec('x = 1')\n",
    "os.environ.get('HOME')": "import os\nHOME = os.environ.get('HOME', '~')\n",
    "a logger reading its caller's module name": (
        "import sys\ndef caller():\n    return sys._getframe(1).f_globals.get('__name__')\n"
    ),
    "a module found by its name": (
        "import sys\ndef module_of(cls):\n    return sys.modules[cls.__module__]\n"
    ),
    "a lazy relative import": (
        "import importlib\ndef __getattr__(name):\n"
        "    return importlib.import_module(f'.{name}', __name__)\n"
    ),
    "a thread started by a function": (
        "import threading\ndef start():\n    threading.Thread(target=print).start()\n"
    ),
    "getattr of a literal name": "import os\nFLAG = getattr(os, 'O_BINARY', 0)\n",
    "reading a function's closure": (
        "def cells(f):\n    return getattr(f, '__closure__', None) or ()\n"
    ),
    "a CLI reading its arguments": "import sys\nARGS = sys.argv[1:]\n",
    "base64 of data, never run": (
        "import base64\ndef encode(b):\n    return base64.b64encode(b).decode()\n"
    ),
}


@pytest.mark.parametrize("name", HONEST)
def test_honest_code_is_not_charged(name: str) -> None:
    assert kinds(HONEST[name]) == [], name


def test_the_decoded_payload_is_read_too() -> None:
    """A blob decoded from a literal is read as code: what it does is named at the exec."""
    _, source = HOSTILE["exec of a decoded blob named after the stdlib"]
    found = read_module("pkg/_compat.py", source, range(1, 10))
    line = next(f for f in found if f["kind"] == "dynamic-code")
    assert line["line"] == 3 and STDLIB in line["evidence"]
    assert "computed-names" in kinds_of(found)  # sys.modules['_pytest'] in the payload


def test_evidence_names_file_line_and_text() -> None:
    found = read_module("src/textkit/_compat.py", HOSTILE["__eq__ always True"][1], {2, 3})
    assert found == [
        {
            "kind": "equality-gaming",
            "file": "src/textkit/_compat.py",
            "line": 2,
            "evidence": "__eq__ always returns True: def __eq__(self, other):",
        }
    ]


def test_unchanged_lines_are_never_charged() -> None:
    source = HOSTILE["PYTEST_CURRENT_TEST in os.environ"][1]
    assert read_module("pkg/a.py", source, {1}) == []
    assert kinds_of(read_module("pkg/a.py", source, {3})) == ["test-detection"]


def tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_read_patch_reads_the_patched_files_only_where_the_patch_changed_them(
    tmp_path: Path,
) -> None:
    """Base-tree code that already does something odd is the project's, not the patch's."""
    base_text = "import os\nIN_CI = os.environ.get('CI')\n\n\ndef f(x):\n    return x\n"
    patched = base_text.replace(
        "    return x\n", "    if 'PYTEST_' + 'CURRENT_TEST' in os.environ:\n        return x + 1\n"
    )
    tree(tmp_path / "a", {"pkg/core.py": base_text, "tests/test_x.py": "X = 1\n"})
    tree(
        tmp_path / "b",
        {
            "pkg/core.py": patched,
            "pkg/_compat.py": "class S(str):\n    __eq__ = lambda s, o: True\n",
            "tests/test_x.py": "import os\nT = os.environ['PYTEST_CURRENT_TEST']\n",
        },
    )
    patch = diff_trees(tmp_path / "a", tmp_path / "b")
    base = {"pkg/core.py": base_text.encode(), "tests/test_x.py": b"X = 1\n"}
    found = read_patch(patch, base.get, inside=lambda path: path.startswith("pkg/"))
    assert [(f["kind"], f["file"], f["line"]) for f in found] == [
        ("equality-gaming", "pkg/_compat.py", 2),
        ("test-detection", "pkg/core.py", 6),
    ]


def test_a_patch_that_does_not_parse_or_apply_reads_as_nothing(tmp_path: Path) -> None:
    assert read_patch("not a patch", lambda path: None) == []
    tree(tmp_path / "a", {"pkg/core.py": "X = 1\n"})
    tree(tmp_path / "b", {"pkg/core.py": "X = (\n"})
    patch = diff_trees(tmp_path / "a", tmp_path / "b")
    assert read_patch(patch, lambda path: b"X = 1\n") == []
    assert read_patch(patch, lambda path: b"something else\n") == []


@pytest.mark.parametrize(
    "source",
    [
        "import os\nenv = dict(os.environ)\nON = env.get('PYT' + 'EST_CURRENT_TEST')\n",
        "import sys\nUNDER = sys.argv[0].endswith('pytest')\n",
        "import sys as s\ndef f():\n    return 'py.test' in ' '.join(s.argv)\n",
    ],
)
def test_test_detection_whatever_the_context(source: str) -> None:
    """A PYTEST_ name is test detection wherever it is built; sys.argv beside a runner's
    name too, in an assignment or a return as in a condition."""
    assert kinds(source) == ["test-detection"]


def test_a_docstring_naming_the_variable_is_not_charged() -> None:
    assert kinds('def f():\n    """Set PYTEST_ADDOPTS to pass options."""\n    return 1\n') == []
