"""What one attempt may leave: the bytes of its patch and the disk it uses.

``[run] max-patch-bytes`` and ``max-attempt-disk`` (see docs/configuration.md). An
attempt over either is recorded ``crashed`` with the reason and an ``over-cap:`` flag,
and its patch is not kept: a patch of hundreds of megabytes would be copied into every
later stage. A running agent whose disk use passes the cap is stopped.
"""

from __future__ import annotations

from typing import Any

from bb_core.records.vocabulary import CRASHED, FLAG_OVER_CAP

#: How often a running agent's disk use is measured.
DISK_POLL = 5.0
#: Default caps: the bytes of one attempt's patch, and the disk it may leave.
MAX_PATCH_BYTES = 8 * 1024 * 1024
MAX_DISK_BYTES = 2 * 1024 * 1024 * 1024


def size_text(count: int) -> str:
    return f"{count / (1024 * 1024):.0f} MB" if count >= 1024 * 1024 else f"{count} bytes"


def enforce_caps(record: dict[str, Any], *, patch_cap: int, disk_cap: int, left: int) -> None:
    """Over a cap, *record* becomes ``crashed`` with the reason and an ``over-cap`` flag,
    without its patch. *left*: the bytes the attempt left on disk."""
    size = len(str(record.get("patch", "")).encode())
    reasons = []
    if size > patch_cap:
        reasons.append(
            f"its patch is {size_text(size)}, over run.max-patch-bytes ({size_text(patch_cap)})"
        )
        record["flags"].append(f"{FLAG_OVER_CAP}:patch {size} bytes")
    if disk_cap and left > disk_cap:
        reasons.append(
            f"it left {size_text(left)} on disk, over run.max-attempt-disk ({size_text(disk_cap)})"
        )
        record["flags"].append(f"{FLAG_OVER_CAP}:disk {left} bytes")
    if not reasons:
        return
    record.update(
        status=CRASHED,
        patch="",
        source_patch="",
        test_patch="",
        test_files=[],
        tests=[],
        error="not kept: " + "; ".join(reasons),
    )
