"""The loop of a stage whose work is one call per record: read lines, transform, pass on.

Tasks may be handled in parallel (``jobs``), yet the output keeps the input's order. When
a bad line stops the stage, everything read before it is finished and written first, so
nothing already done is lost.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from bb_core.errors import BadRecord
from bb_core.progress import Progress, warn
from bb_core.records import Line, Writer, read_lines

Handler = Callable[[dict[str, Any]], Iterable[dict[str, Any]]]


def run_records(
    inputs: Sequence[str],
    handle: Handler,
    *,
    kinds: frozenset[str] = frozenset({"task"}),
    jobs: int = 1,
    writer: Writer | None = None,
    progress: Progress | None = None,
    requires: str | None = None,
    expected: str = "",
    prog: str = "",
) -> int:
    """Feed every line of *kinds* to *handle*, write what it returns; return tasks handled.

    *requires* names the section a task line must carry for this stage to have anything
    to do (``attempts``, ``matrix``); task lines without it are still handed on, and one
    warning on stderr says how many there were and what the stage *expected*.
    """
    out = writer or Writer()
    lacking: list[str] = []
    pending: deque[Line | Future[list[dict[str, Any]]]] = deque()
    handled = 0

    def flush(limit: int) -> None:
        while len(pending) > limit:
            item = pending.popleft()
            if isinstance(item, Line):
                out.passthrough(item)
                continue
            for record in item.result():
                out.write(record)
            if progress:
                progress.update(advance=1)

    def call(record: dict[str, Any]) -> list[dict[str, Any]]:
        if progress:
            progress.update(current=str(record.get("id", "")))
        return list(handle(record))

    with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="bb-stage") as pool:
        try:
            for line in read_lines(inputs):
                if line.known and line.kind in kinds:
                    if requires and line.kind == "task" and line.record.get(requires) is None:
                        lacking.append(str(line.record.get("id", "")))
                    pending.append(pool.submit(call, line.record))
                    handled += 1
                else:
                    pending.append(line)
                flush(limit=jobs * 2)
        except BadRecord:
            flush(limit=0)
            raise
        flush(limit=0)
    if progress:
        progress.close()
    if lacking:
        shown = ", ".join(lacking[:3]) + (", ..." if len(lacking) > 3 else "")
        noun = "task line carries" if len(lacking) == 1 else "task lines carry"
        warn(
            prog or "bugbout",
            f"{len(lacking)} {noun} no {requires} ({shown}), so there was nothing to do for "
            f"{'it' if len(lacking) == 1 else 'them'}; expected {expected or 'the previous stage'}",
        )
    return handled
