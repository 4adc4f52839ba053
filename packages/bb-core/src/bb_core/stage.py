"""The loop every task stage shares: read lines, transform tasks, pass others through.

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
from bb_core.progress import Progress
from bb_core.records import Line, Writer, read_lines

Handler = Callable[[dict[str, Any]], Iterable[dict[str, Any]]]


def run_stage(
    inputs: Sequence[str],
    handle: Handler,
    *,
    kinds: frozenset[str] = frozenset({"task"}),
    jobs: int = 1,
    writer: Writer | None = None,
    progress: Progress | None = None,
) -> int:
    """Feed every line of *kinds* to *handle*, write what it returns; return tasks handled."""
    out = writer or Writer()
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
    return handled
