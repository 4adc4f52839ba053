"""The allow-list: exactly which host folders a confined command sees, and how.

A sandbox starts empty. :func:`view_of` lists what is put in: the read-only system
folders, ``/etc`` with its credential files blanked and a password database whose only
user's home is the private one, the install folders of the command's program and of its
interpreter (followed through symlinks and ``#!`` lines, wherever they live), the
caller's readable and writable folders, a private ``/tmp`` and HOME. Nothing else of the
host - its other folders, its home, its sockets - exists inside.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import pwd
import shutil
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bb_core.sandbox.base import SANDBOX_HOME, Confinement
from bb_core.sandbox.shims import ShimError, follow, script_head

#: Read-only system folders (those that exist; a symlink stays a symlink).
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: Entries of /etc that are blanked (an empty file or folder in their place): secrets,
#: and backups of the password database.
ETC_BLANKED = (
    "shadow", "shadow-", "gshadow", "gshadow-", "passwd-", "group-", "subuid", "subuid-",
    "subgid", "subgid-", "ssh", "sudoers", "sudoers.d", "security/opasswd", "ssl/private",
    "krb5.keytab", "docker", "NetworkManager/system-connections", "wpa_supplicant",
    "netrc", ".pwd.lock",
)  # fmt: skip
#: Folders of a home that hold credentials or caches; a program living in one of them
#: is shown by its own folder only, never the whole of it.
HOME_PRIVATE = (".local", ".config", ".cache", ".cargo", ".ssh", ".aws", ".gnupg", ".docker")
#: Interpreters whose first argument is the script they run.
INTERPRETERS = ("python", "node", "bash", "sh", "dash", "zsh", "ruby", "perl", "bun", "deno")
#: Entries that make a folder a repository or bugbout's own, never shown whole.
REPOSITORY_MARKS = (".git", "bugbout.toml", ".bugbout")


@dataclass(frozen=True)
class View:
    """What one confined command sees, as host paths (``inside`` where they differ)."""

    system: tuple[tuple[str, str | None], ...]  # (path, symlink target or None)
    blanked: tuple[str, ...]  # paths under /etc shown empty
    passwd: str  # the host file shown as /etc/passwd
    extra_files: tuple[str, ...]  # single files shown read-only (e.g. resolv.conf's target)
    readable: tuple[str, ...]
    writable: tuple[str, ...]
    home: str  # HOME inside
    home_in_memory: bool
    temp: str | None  # host folder shown as /tmp; None: in memory
    network: bool
    mounts: tuple[tuple[str, str], ...] = ()  # (host folder, where it is shown), read-only


def _real_home() -> str:
    try:
        return os.path.realpath(pwd.getpwuid(os.getuid()).pw_dir)
    except KeyError:
        return os.path.realpath(os.path.expanduser("~"))


def _bugbout_home() -> str:
    from bb_core.store import bugbout_home

    return os.path.realpath(bugbout_home())


def _within(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip("/") + "/")


def _system_path(path: str) -> bool:
    return any(_within(path, top) for top in (*SYSTEM, "/etc", "/proc", "/dev"))


def too_wide(path: str) -> bool:
    """Whether showing *path* whole could show what no command may see: the root, a
    home (the password database's or ``$HOME``) or an ancestor of one, BUGBOUT_HOME or an ancestor, a repository, a home's
    credential folders."""
    homes = {_real_home(), os.path.realpath(os.path.expanduser("~"))}
    if path == "/" or any(_within(home, path) for home in homes):
        return True
    if _within(_bugbout_home(), path):
        return True
    if os.path.dirname(path) in homes and os.path.basename(path) in HOME_PRIVATE:
        return True
    return any(os.path.lexists(os.path.join(path, mark)) for mark in REPOSITORY_MARKS)


def _venv_home(root: str) -> str | None:
    """The ``home`` a virtualenv's ``pyvenv.cfg`` names (its base interpreter's bin)."""
    try:
        lines = Path(root, "pyvenv.cfg").read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    for line in lines:
        key, _, value = line.partition("=")
        if key.strip() == "home" and value.strip():
            return value.strip()
    return None


def _interpreter(path: str) -> str | None:
    """The program a ``#!`` line of the file at *path* names, resolved through PATH."""
    head = script_head(path, 256)
    if head is None:
        return None
    words = head[2:].split(b"\n", 1)[0].decode(errors="replace").split()
    if not words:
        return None
    if os.path.basename(words[0]) == "env":
        words = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        return shutil.which(words[0]) if words else None
    return words[0]


def _install_root(path: str) -> str:
    """The folder an executable at *path* belongs to: a virtualenv, the prefix above its
    ``bin`` (or pyenv's ``shims``), the folder above the outermost ``node_modules``."""
    folder = os.path.dirname(path)
    parts = folder.split("/")
    if "node_modules" in parts:
        return "/".join(parts[: parts.index("node_modules")]) or "/"
    if os.path.basename(folder) in ("bin", "sbin", "shims"):
        return os.path.dirname(folder)
    return folder


def _shown(path: str, candidates: Iterable[str]) -> str | None:
    for candidate in candidates:
        if candidate and not too_wide(candidate):
            return candidate
    return path if os.path.isfile(path) and not too_wide(path) else None


def command_words(argv: Sequence[str]) -> list[str]:
    """*argv* without a leading ``env NAME=value ...``: the program it really runs."""
    words = list(argv)
    if words[:1] == ["env"]:
        words = [w for w in words[1:] if "=" not in w.split("/")[0]] or words
    return words


def _node_modules(path: str) -> str | None:
    """The outermost ``node_modules`` folder holding *path*, if any."""
    parts = path.split("/")
    if "node_modules" not in parts[:-1]:
        return None
    return "/".join(parts[: parts.index("node_modules") + 1])


def program_roots(argv: Sequence[str], *, depth: int = 3) -> list[Path]:
    """The folders (or files) the program of *argv* needs to run: its install folder and
    its interpreter's, through symlinks and ``#!`` lines; for an interpreter, the folder
    of the script it is given. A leading ``env NAME=value ...`` is looked through, and a
    version manager's shim is followed to the executable it starts. For a
    program of an npm package, the whole ``node_modules`` it lives in as well (its native
    binary is in a sibling package, which the program's own folder leaves out). Folders
    that are too wide to show are narrowed."""
    argv = command_words(argv)
    if not argv:
        return []
    first = argv[0] if "/" in argv[0] else shutil.which(argv[0])
    if not first:
        return []
    with contextlib.suppress(ShimError):  # a version manager's shim: what it starts
        first = follow(first)
    shown: list[str] = []
    packages: list[str] = []
    todo = [first]
    for level in range(depth):
        following: list[str] = []
        for found in todo:
            for path in dict.fromkeys([os.path.abspath(found), os.path.realpath(found)]):
                modules = _node_modules(path) if level == 0 else None
                if modules:
                    packages.append(modules)
                if _system_path(path):
                    continue
                root = _install_root(path)
                candidates = [root, os.path.dirname(path)]
                if os.path.isfile(os.path.join(root, "pyvenv.cfg")):
                    base = _venv_home(root)
                    if base:
                        following.append(os.path.join(base, "python3"))
                picked = _shown(path, candidates)
                if picked:
                    shown.append(picked)
            interpreter = _interpreter(os.path.realpath(found))
            if interpreter:
                following.append(interpreter)
        todo = [p for p in following if os.path.exists(p)]
    # The script an interpreter runs, and any other file the command line names by its
    # absolute path (a script a wrapper runs in turn): each file's folder, narrowed.
    files = [_script(argv), *(_named_file(arg) for arg in argv[1:])]
    for path in dict.fromkeys(f for f in files if f):
        picked = _shown(path, [os.path.dirname(path)])
        if picked:
            shown.append(picked)
    return [Path(p) for p in dict.fromkeys([*shown, *packages])]


def _named_file(arg: str) -> str | None:
    """The regular file a whole argument names by its absolute path, if it is one."""
    if not arg.startswith("/") or "\n" in arg or len(arg) > 4096:
        return None
    real = os.path.realpath(arg)
    return real if os.path.isfile(real) and not _system_path(real) else None


def _script(argv: Sequence[str]) -> str | None:
    """The script an interpreter's command line runs (``python -I /x/y.py``), if any."""
    if os.path.basename(argv[0]).rstrip("0123456789.") not in INTERPRETERS:
        return None
    for arg in argv[1:]:
        if arg in ("-c", "-m", "-e", "--eval", "--"):
            return None
        if arg.startswith("-"):
            continue
        real = os.path.realpath(arg)
        return real if arg.startswith("/") and os.path.isfile(real) else None
    return None


@functools.lru_cache(maxsize=1)
def _support_dir() -> str:
    """A private host folder for the files bugbout shows in place of the host's."""
    folder = tempfile.mkdtemp(prefix="bb-sandbox-")
    atexit.register(shutil.rmtree, folder, True)
    Path(folder, "empty").mkdir()
    Path(folder, "empty-file").write_bytes(b"")
    return folder


def empty_dir() -> str:
    return os.path.join(_support_dir(), "empty")


def empty_file() -> str:
    return os.path.join(_support_dir(), "empty-file")


@functools.lru_cache(maxsize=64)
def passwd_file(home: str) -> str:
    """A password database with root, nobody and this user, whose home is *home*."""
    uid, gid = os.getuid(), os.getgid()
    try:
        name = pwd.getpwuid(uid).pw_name
    except KeyError:
        name = "user"
    lines = [f"{name}:x:{uid}:{gid}:{name}:{home}:/bin/sh"]
    if uid != 0:
        lines.insert(0, "root:x:0:0:root:/root:/usr/sbin/nologin")
    lines.append("nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin")
    text = "\n".join(lines) + "\n"
    path = os.path.join(_support_dir(), f"passwd-{abs(hash(home)):x}")
    Path(path).write_text(text, encoding="utf-8")
    return path


def _destinations(paths: Sequence[Path]) -> list[str]:
    """Each existing path at its real location and, when it differs, where it was named."""
    seen: list[str] = []
    for path in paths:
        given = os.path.abspath(os.path.expanduser(str(path)))
        real = os.path.realpath(given)
        if not os.path.exists(real):
            continue
        for where in (real, given):
            if where not in seen:
                seen.append(where)
    return sorted(seen, key=lambda p: (p.count("/"), p))


@functools.lru_cache(maxsize=1)
def _system() -> tuple[tuple[str, str | None], ...]:
    found: list[tuple[str, str | None]] = []
    for path in SYSTEM:
        if os.path.islink(path):
            found.append((path, os.readlink(path)))
        elif os.path.isdir(path):
            found.append((path, None))
    return tuple(found)


@functools.lru_cache(maxsize=1)
def _blanked() -> tuple[str, ...]:
    return tuple(f"/etc/{name}" for name in ETC_BLANKED if os.path.lexists(f"/etc/{name}"))


def view_of(argv: Sequence[str], confinement: Confinement, cwd: Path | None = None) -> View:
    """What *argv* run under *confinement* in *cwd* sees (host paths). The working
    folder is shown read-only when no writable folder holds it."""
    extra: list[str] = []
    if confinement.network and os.path.islink("/etc/resolv.conf"):
        target = os.path.realpath("/etc/resolv.conf")
        if os.path.isfile(target) and not _within(target, "/etc"):
            extra.append(target)
    home = confinement.home
    writable = [*confinement.writable, *([home] if home is not None else [])]
    readable = [*confinement.readable, *program_roots(argv)]
    if cwd is not None and os.path.realpath(cwd) != "/":
        real = os.path.realpath(cwd)
        if not any(_within(real, os.path.realpath(w)) for w in writable):
            readable.append(Path(cwd))
    inside_home = os.path.abspath(str(home)) if home is not None else SANDBOX_HOME
    return View(
        system=_system(),
        blanked=_blanked(),
        passwd=passwd_file(inside_home),
        extra_files=tuple(extra),
        readable=tuple(_destinations(readable)),
        writable=tuple(_destinations(writable)),
        home=inside_home,
        home_in_memory=home is None,
        temp=os.path.realpath(confinement.temp) if confinement.temp is not None else None,
        network=confinement.network,
        mounts=tuple(
            (os.path.realpath(host), os.path.abspath(inside))
            for host, inside in confinement.mounts
            if os.path.isdir(host)
        ),
    )


def describe_view(view: View) -> list[str]:
    """The view as lines a person reads (``bugbout doctor --show-confinement``)."""
    lines = ["read-only:"]
    for path, target in view.system:
        lines.append(f"  {path}" + (f" -> {target}" if target else ""))
    lines.append("  /etc (blanked: " + ", ".join(p[5:] for p in view.blanked) + ")")
    lines.append(f"  /etc/passwd: one user, home {view.home}")
    lines += [f"  {path}" for path in (*view.extra_files, *view.readable)]
    lines += [f"  {inside} (shows {host})" for host, inside in view.mounts]
    lines.append(
        "  /proc (this sandbox's processes only), /dev (null, zero, random, tty, pts, shm)"
    )
    lines.append("writable:")
    lines.append(f"  /tmp, /var/tmp: {view.temp or 'private, in memory, discarded at exit'}")
    lines.append(f"  HOME {view.home}" + (": private, in memory" if view.home_in_memory else ""))
    lines += [f"  {path}" for path in view.writable if path != view.home]
    lines.append(
        "network: "
        + ("the host's" if view.network else "none (own loopback only; no host sockets)")
    )
    return lines
