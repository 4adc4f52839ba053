"""File names as an agent may spell them: any bytes but ``/`` and NUL.

bugbout keeps a path as a string whose bytes that are not UTF-8 are surrogate-escaped
(``os.fsdecode``), so the file system gets back exactly the bytes it gave. Such a string
cannot go into a JSON record; :func:`shown_name` is the form records carry instead: git's
quoted form (``"caf\\351.py"``, as ``git diff --name-only`` prints it), for a name that is
not UTF-8 or holds a control character, else the name itself.
"""

from __future__ import annotations

from bb_core.patch.write import quote_path
from bb_core.records.vocabulary import FLAG_ODD_FILE_NAME


def odd_name(path: str) -> bool:
    """Whether *path* holds bytes that are not UTF-8 (surrogate-escaped)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def shown_name(path: str) -> str:
    """*path* as a record shows it: git's quoted form when it is not UTF-8 or holds a
    control character, else unchanged."""
    if odd_name(path) or any(ord(c) < 0x20 or ord(c) == 0x7F for c in path):
        return quote_path(path).decode("ascii")
    return path


def odd_name_flags(paths: list[str]) -> list[str]:
    """``odd-file-name:<quoted name>`` for each path that is not UTF-8."""
    return [f"{FLAG_ODD_FILE_NAME}:{shown_name(p)}" for p in paths if odd_name(p)]
