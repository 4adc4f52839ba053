"""What each flag means, said where it is shown, and which flags are notes, not alarms.

A flag is a code, then optionally a colon and details (``network-refused:api.example.com:443``).
:func:`explain` gives one sentence for a flag by its longest known prefix; a flag this
module does not know is explained generically, so a flag a stage adds still reads.

One flag is a **note** rather than an alarm: ``leak:matches-reference`` on a patch that
resolved the task. An agent that finds the maintainers' own fix writes the same hunks, and
on a small fix that is what a right answer looks like; the flag asks for a look at the
logs (did it read the answer, or find it?) but is no sign of wrongdoing by itself. On a
patch that did not resolve, the same flag stays an alarm (a copied fix that still fails
says the copy came from somewhere).
"""

from __future__ import annotations

from collections.abc import Iterable

from bb_core.records.vocabulary import RESOLVED

from bb_report.bout import Bout
from bb_report.statuses import EMPTY_STATEMENT, flag_kind, task_attempts

MATCHES_REFERENCE = "leak:matches-reference"

#: Flag codes (or kinds) and what they mean, most specific first.
MEANINGS = {
    MATCHES_REFERENCE: (
        "the patch's source hunks are the maintainers' fix byte for byte; on a resolved "
        "patch that is what a right answer to a small bug looks like (a note: its logs say "
        "whether it found the fix or read it), on any other a sign the fix was copied"
    ),
    "leak:read-git": "its logs show it going into a .git folder, where the fix may be found",
    "leak:git-history": "its logs show it running git log, git show or kin",
    "leak:bugbout-records": "its logs mention bugbout's own records, which hold the answers",
    "leak:other-attempt": "its logs name another attempt's folder",
    "leak": "its logs show it reaching for the answer",
    "refused:write": "the sandbox refused a write outside its folders",
    "refused:network": "the sandbox refused a network connection",
    "refused": "the sandbox refused something it tried",
    "network-refused": "the egress proxy refused a connection to this host",
    "network-not-narrowed": "its network could not be narrowed to the hosts allowed",
    "unconfined": "it ran where the sandbox's guarantees do not hold",
    "limit": "it reached a resource limit ([run] memory, processes or file-size)",
    "over-cap": "its patch or disk use passed the cap, so its patch was not kept",
    "tampered": "the patch changes the tests or the test set-up, not only the code",
    "suspicious": "the patch's code reads as suspicious (the evidence lines are in Tasks)",
    "brittle-tests": "its tests check its own package's bytes, so they judge other patches badly",
    "tried-unread": "its trajectory or log was read only in part for what it tried",
    "secret-in-patch": "the patch holds something that looks like a secret",
    "symlink-outside": "a symbolic link points outside the checkout; kept, never followed",
    "odd-file-name": "a file name that is not UTF-8; never applied",
    "special-file": "a device, pipe or socket in the checkout; never applied",
    "oversized": "a file too large to read whole",
    "unreadable": "a file that could not be read",
    "link-removed": "a link or pipe it left in its logs, removed unread",
    "parse-failed": "its output could not be parsed for tokens or time",
    "reproduce-failed": "its own reproduction step failed",
    "quota-check-failed": "its quota could not be checked",
    "log-check-failed": "its logs could not be searched for leaks",
    "sandbox-failed": "the sandbox could not be set up for it",
    "binary-source": "the patch changes a binary file",
    EMPTY_STATEMENT: "the task's statement is empty, so agents had only the code to go on",
}


def explain(flag: str) -> str:
    """``flag: what it means``, by the flag's longest known prefix."""
    code = flag.split(" ", 1)[0].rstrip(":")
    parts = code.split(":")
    for n in range(len(parts), 0, -1):
        meaning = MEANINGS.get(":".join(parts[:n]))
        if meaning is not None:
            return f"{':'.join(parts[:n])}: {meaning}."
    kind = flag_kind(flag)
    return f"{kind}: raised by a stage; see its logs for what it found."


def flag_notes(flags: Iterable[str]) -> list[str]:
    """One line per distinct flag meaning among *flags*, in the order first seen."""
    seen: dict[str, None] = {}
    for flag in flags:
        seen.setdefault(explain(flag), None)
    return ["Flags: " + " ".join(seen)] if seen else []


def noted(bout: Bout) -> dict[str, list[str]]:
    """Flag kinds whose every occurrence on a task is a note: kind -> ``task agent`` each.

    Today that is ``leak:matches-reference`` on a patch that resolved its task."""
    notes: dict[str, list[str]] = {}
    for task in bout.ordered():
        for view in task_attempts(task):
            for flag in view.flags:
                if flag == MATCHES_REFERENCE and task.category(view.agent) == RESOLVED:
                    notes.setdefault(flag_kind(flag), []).append(f"{task.id} {view.agent}")
    return notes


def note_sentence(kind: str, where: list[str]) -> str:
    """The headline's note for flags that are not alarms."""
    listed = ", ".join(where[:3]) + (f" and {len(where) - 3} more" if len(where) > 3 else "")
    return (
        f"Note: {len(where)} resolved {'patch is' if len(where) == 1 else 'patches are'} the "
        f"maintainers' fix byte for byte ({MATCHES_REFERENCE}: {listed}); on a small fix "
        "that is what a right answer looks like, and the attempt's logs say whether it "
        f"found the fix or read it."
    )
