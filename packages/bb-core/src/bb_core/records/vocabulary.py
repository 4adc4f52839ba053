"""bugbout's shared words, generated from ``schemas/``: do not edit.

``python scripts/kinds_gen.py`` writes this module; a test keeps it in step with the
schemas. For each enum of ``defs.json`` whose words code names (the categories of a
score, the statuses of an attempt, the kinds of flag bugbout's checks write, the names
bugbout reserves): a ``Literal`` alias, a constant per value, and a tuple of the values
in schema order. Code imports these rather than spelling the words.
"""

from typing import Final, Literal

#: How an agent's attempt ended: finished (it left a change), no-change, timed-out, crashed, or
#: quota (stopped on a usage limit).
AttemptStatus = Literal["finished", "no-change", "timed-out", "crashed", "quota"]
FINISHED: Final = "finished"
NO_CHANGE: Final = "no-change"
TIMED_OUT: Final = "timed-out"
CRASHED: Final = "crashed"
QUOTA: Final = "quota"
ATTEMPT_STATUSES: tuple[AttemptStatus, ...] = (FINISHED, NO_CHANGE, TIMED_OUT, CRASHED, QUOTA)


#: The codes of the flags bugbout's own checks write, each the part of a flag before its first
#: colon (leak:read-git is a leak flag). An adapter may add flags of its own, so a flag is any
#: string.
AttemptFlag = Literal[
    "symlink-outside",
    "special-file",
    "oversized",
    "unreadable",
    "secret-in-patch",
    "network-refused",
    "network-not-narrowed",
    "parse-failed",
    "reproduce-failed",
    "quota-check-failed",
    "log-check-failed",
    "tried-unread",
    "link-removed",
    "over-cap",
    "leak",
    "refused",
    "unconfined",
    "sandbox-failed",
    "binary-source",
    "odd-file-name",
    "limit",
]
FLAG_SYMLINK_OUTSIDE: Final = "symlink-outside"
FLAG_SPECIAL_FILE: Final = "special-file"
FLAG_OVERSIZED: Final = "oversized"
FLAG_UNREADABLE: Final = "unreadable"
FLAG_SECRET_IN_PATCH: Final = "secret-in-patch"
FLAG_NETWORK_REFUSED: Final = "network-refused"
FLAG_NETWORK_NOT_NARROWED: Final = "network-not-narrowed"
FLAG_PARSE_FAILED: Final = "parse-failed"
FLAG_REPRODUCE_FAILED: Final = "reproduce-failed"
FLAG_QUOTA_CHECK_FAILED: Final = "quota-check-failed"
FLAG_LOG_CHECK_FAILED: Final = "log-check-failed"
FLAG_TRIED_UNREAD: Final = "tried-unread"
FLAG_LINK_REMOVED: Final = "link-removed"
FLAG_OVER_CAP: Final = "over-cap"
FLAG_LEAK: Final = "leak"
FLAG_REFUSED: Final = "refused"
FLAG_UNCONFINED: Final = "unconfined"
FLAG_SANDBOX_FAILED: Final = "sandbox-failed"
FLAG_BINARY_SOURCE: Final = "binary-source"
FLAG_ODD_FILE_NAME: Final = "odd-file-name"
FLAG_LIMIT: Final = "limit"
ATTEMPT_FLAGS: tuple[AttemptFlag, ...] = (
    FLAG_SYMLINK_OUTSIDE,
    FLAG_SPECIAL_FILE,
    FLAG_OVERSIZED,
    FLAG_UNREADABLE,
    FLAG_SECRET_IN_PATCH,
    FLAG_NETWORK_REFUSED,
    FLAG_NETWORK_NOT_NARROWED,
    FLAG_PARSE_FAILED,
    FLAG_REPRODUCE_FAILED,
    FLAG_QUOTA_CHECK_FAILED,
    FLAG_LOG_CHECK_FAILED,
    FLAG_TRIED_UNREAD,
    FLAG_LINK_REMOVED,
    FLAG_OVER_CAP,
    FLAG_LEAK,
    FLAG_REFUSED,
    FLAG_UNCONFINED,
    FLAG_SANDBOX_FAILED,
    FLAG_BINARY_SOURCE,
    FLAG_ODD_FILE_NAME,
    FLAG_LIMIT,
)


#: How a patch's score came out, best first. resolved-but-breaks-suite and resolved-but-suspicious
#: met the maintainers' tests but are counted apart, never resolved; score-crashed is a score no
#: worker could finish.
Category = Literal[
    "resolved",
    "resolved-but-breaks-suite",
    "resolved-but-suspicious",
    "fixed-but-broke",
    "wrong-fix",
    "no-fix",
    "score-crashed",
]
RESOLVED: Final = "resolved"
RESOLVED_BUT_BREAKS_SUITE: Final = "resolved-but-breaks-suite"
RESOLVED_BUT_SUSPICIOUS: Final = "resolved-but-suspicious"
FIXED_BUT_BROKE: Final = "fixed-but-broke"
WRONG_FIX: Final = "wrong-fix"
NO_FIX: Final = "no-fix"
SCORE_CRASHED: Final = "score-crashed"
CATEGORIES: tuple[Category, ...] = (
    RESOLVED,
    RESOLVED_BUT_BREAKS_SUITE,
    RESOLVED_BUT_SUSPICIOUS,
    FIXED_BUT_BROKE,
    WRONG_FIX,
    NO_FIX,
    SCORE_CRASHED,
)


#: Names bugbout keeps for itself, which no agent may take: reference (the maintainers' fix: its
#: score and its hidden column), pick (the score of the judge's pick) and base (a matrix's column
#: of the unfixed tree).
ReservedName = Literal["reference", "pick", "base"]
REFERENCE: Final = "reference"
PICK: Final = "pick"
BASE: Final = "base"
RESERVED_NAMES: tuple[ReservedName, ...] = (REFERENCE, PICK, BASE)
