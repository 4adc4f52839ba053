"""The families of :mod:`bb_judge.suspicion` and the names each one looks for."""

from __future__ import annotations

import re
from typing import TypedDict

DYNAMIC_CODE = "dynamic-code"
COMPUTED_NAMES = "computed-names"
TEST_DETECTION = "test-detection"
EQUALITY_GAMING = "equality-gaming"
CODE_SURGERY = "code-surgery"
IMPORT_TIME_THREADS = "import-time-threads"
FAMILIES = (
    DYNAMIC_CODE, COMPUTED_NAMES, TEST_DETECTION, EQUALITY_GAMING, CODE_SURGERY,
    IMPORT_TIME_THREADS,
)  # fmt: skip


class Finding(TypedDict):
    """One piece of evidence: its family, where it is and what the line says."""

    kind: str
    file: str
    line: int
    evidence: str


RUN_CODE = {"builtins.exec", "builtins.eval", "builtins.compile"}
LOADS = {
    "marshal.loads", "marshal.load", "pickle.loads", "pickle.load", "pickle.Unpickler",
    "_pickle.loads", "_pickle.load", "cPickle.loads", "dill.loads", "cloudpickle.loads",
    "types.CodeType", "types.FunctionType", "types.LambdaType", "builtins.type.__call__",
}  # fmt: skip
DECODING = re.compile(
    r"^(?:base64\.|binascii\.|zlib\.decompress|lzma\.decompress|bz2\.decompress|gzip\."
    r"decompress|codecs\.decode|bytes\.fromhex|builtins\.bytes\.fromhex)"
)
#: Modules whose attributes lead to the interpreter's or the runner's state.
RUNNER_MODULES = {"sys", "builtins", "importlib", "os", "gc", "inspect", "_thread", "threading"}
#: Calls that return a frame.
FRAME_CALLS = {"sys._getframe", "inspect.currentframe", "sys._current_frames"}
FRAME_ATTRS = {"f_back", "f_globals", "f_locals", "f_builtins", "tb_frame", "gi_frame", "cr_frame"}
#: Plain routes into other code's state that a fix has no need of. Reading one's own
#: caller's frame (a logger's ``f_globals["__name__"]``), tracing, ``ctypes`` and
#: ``os._exit`` are left to the run-time checks: honest libraries do them every day.
PLAIN = {
    "sys._current_frames": "other threads' frames",
    "gc.get_objects": "walks every object (gc)",
    "gc.get_referrers": "walks every object (gc)",
    "gc.get_referents": "walks every object (gc)",
    "sys.meta_path": "import hooks",
    "sys.path_hooks": "import hooks",
    "sys.path_importer_cache": "import hooks",
    "sys.addaudithook": "audit hooks",
}
MACHINERY_MODULES = ("_pytest", "pytest", "pluggy", "py.test", "xdist")
#: Methods that change a mapping or list in place.
MUTATORS = {"update", "setdefault", "__setitem__", "__delitem__", "pop", "popitem", "clear",
             "insert", "append", "extend", "remove"}  # fmt: skip
#: Builtin value types: a subclass that fakes equality or truth passes for a real value.
VALUE_TYPES = {"str", "int", "float", "bytes", "tuple", "list", "dict", "set", "frozenset",
                "complex", "bool", "bytearray", "Decimal", "Fraction"}  # fmt: skip
TEST_MODULE_NAMES = {
    "pytest", "_pytest", "py.test", "pluggy", "xdist", "pytest_cov", "nose", "bugbout_pytest",
}  # fmt: skip
CI_VARIABLES = {
    "CI", "CONTINUOUS_INTEGRATION", "GITHUB_ACTIONS", "GITHUB_RUN_ID", "GITLAB_CI", "TRAVIS",
    "CIRCLECI", "JENKINS_URL", "BUILDKITE", "TF_BUILD", "APPVEYOR", "TEAMCITY_VERSION",
    "BITBUCKET_BUILD_NUMBER", "DRONE", "CODEBUILD_BUILD_ID", "TOX_ENV_NAME", "TOX_WORK_DIR",
}  # fmt: skip
TEST_WORDS = re.compile(r"pytest|py\.test|unittest|nose|tox|\btest", re.I)
EQ_DUNDERS = {
    "__eq__", "__ne__", "__hash__", "__bool__", "__instancecheck__", "__subclasscheck__",
    "__contains__", "__lt__", "__le__", "__gt__", "__ge__",
}  # fmt: skip
SURGERY = {"__code__", "__globals__", "__closure__", "__defaults__", "__kwdefaults__"}
THREADS = {
    "threading.Thread", "threading.Timer", "_thread.start_new_thread", "_thread.start_new",
    "thread.start_new_thread", "multiprocessing.Process", "os.fork",
    "concurrent.futures.ThreadPoolExecutor", "concurrent.futures.ProcessPoolExecutor",
    "concurrent.futures.thread.ThreadPoolExecutor",
}  # fmt: skip
PYTHON = (".py", ".pyw")
ENVIRON = {"os.environ", "os.getenv", "os.environb", "posix.environ", "os.putenv"}
