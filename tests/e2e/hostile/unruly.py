"""An unruly agent: it fixes nothing and tries one of the odd or greedy things an agent
can do to a checkout or a machine, named by its first argument.

- ``odd-name``: a module whose name is not UTF-8 (Latin-1 ``é``), made from bytes;
- ``deep``: a folder 1,500 levels deep with a module at the bottom;
- ``escape``: ``z/a/b/L -> ../../..`` (the checkout's root), then every module of the
  package replaced by a link through it: ``../../z/a/b/L/../outside.py`` reads as inside
  the checkout and resolves to its parent;
- ``alloc``: 4 GiB of memory, touched;
- ``fork``: 200 processes at once;
- ``bigfile``: one file of 256 MiB.

Whatever it tries, it says so on stdout first, so its log shows how far it got.
"""

from __future__ import annotations

import os
import sys
import time

PACKAGE = b"src/textkit"


def odd_name() -> None:
    with open(os.path.join(PACKAGE, b"caf\xe9.py"), "wb") as handle:
        handle.write(b"ANSWER = 42\n")


def deep() -> None:
    folder = b"."
    for _ in range(1500):
        folder = os.path.join(folder, b"d")
        os.mkdir(folder)
    with open(os.path.join(folder, b"bottom.py"), "wb") as handle:
        handle.write(b"DEPTH = 1500\n")


def escape() -> None:
    os.makedirs("z/a/b")
    os.symlink("../../..", "z/a/b/L")
    for module in os.listdir("src/textkit"):
        if module.endswith(".py") and module != "__init__.py":
            os.unlink(os.path.join("src/textkit", module))
            os.symlink("../../z/a/b/L/../outside.py", os.path.join("src/textkit", module))


def alloc() -> None:
    block = bytearray(4 * 1024**3)
    for at in range(0, len(block), 4096):
        block[at] = 1
    print("allocated 4 GiB", flush=True)


def fork() -> None:
    children = []
    for _ in range(200):
        pid = os.fork()
        if pid == 0:
            time.sleep(5)
            os._exit(0)
        children.append(pid)
    print(f"forked {len(children)}", flush=True)
    for pid in children:
        os.waitpid(pid, 0)


def bigfile() -> None:
    chunk = b"x" * (1024 * 1024)
    with open("huge.bin", "wb") as handle:
        for _ in range(256):
            handle.write(chunk)
    print("wrote 256 MiB", flush=True)


MODES = {
    "odd-name": odd_name, "deep": deep, "escape": escape, "alloc": alloc, "fork": fork,
    "bigfile": bigfile,
}  # fmt: skip

if __name__ == "__main__":
    mode = sys.argv[1]
    sys.stdin.read()
    print(f"unruly: {mode}", flush=True)
    MODES[mode]()
    print(f"unruly: {mode} done", flush=True)
