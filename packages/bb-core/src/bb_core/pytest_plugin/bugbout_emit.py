"""The lines of bugbout's pytest plugin's report: authenticated, numbered, written whole.

Imported by ``bugbout_pytest`` from the same folder; standard library only, Python 3.8+.
"""
# This file must run on old Pythons: no newer syntax, no imports from bb_core.
# ruff: noqa: UP031

from __future__ import annotations

import hashlib
import hmac
import json
import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    #: Writes one record as a report line.
    Emit = Callable[[Mapping[str, Any]], None]

#: How much of a failure's text a report line keeps (its end).
MESSAGE_LIMIT = 4000


def make_emitter(
    fd: int | None,
    key: bytes,
    write: Callable[[int, bytes], int] = os.write,
    dumps: Callable[..., str] = json.dumps,
    new: Callable[..., hmac.HMAC] = hmac.new,
    sha: Callable[..., Any] = hashlib.sha256,
) -> tuple[Emit, Callable[[int | None], None]]:
    """The one function that writes report lines, and the one that points it at another
    descriptor (the collection pass's); what they need is bound in their closure."""
    counter = [0]
    target = [fd]

    def emit(record: Mapping[str, Any]) -> None:
        fd = target[0]
        if fd is None:
            return
        counter[0] += 1
        record = dict(record, n=counter[0])
        body = dumps(record, separators=(",", ":"), sort_keys=True)
        mac = new(key, body.encode("utf-8", "replace"), sha).hexdigest()[:32]
        data = (body[:-1] + ',"mac":"' + mac + '"}\n').encode("utf-8", "replace")
        try:
            while data:
                written = write(fd, data)
                data = data[written:]
        except OSError:
            pass

    def redirect(fd: int | None) -> None:
        target[0] = fd
        counter[0] = 0

    return emit, redirect


def text(longrepr: object) -> str:
    """A report's *longrepr* as text, its last :data:`MESSAGE_LIMIT` characters at most."""
    if longrepr is None:
        return ""
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return "%s:%s: %s" % longrepr
    out = str(longrepr)
    if len(out) > MESSAGE_LIMIT:
        out = "...\n" + out[-MESSAGE_LIMIT:]
    return out
