"""The gambler: the careful fixer's fix, or nothing, by a seeded draw per task and sample.

Not in the demo's bugbout.toml (the demo bout's numbers stay as they are); add it as a
contestant with ``samples`` above 1 to see repeated attempts, pass@k and consistency:

    [[contestants]]
    agent = "command"
    name = "gambler"
    command = ["python3", "agents/gambler.py"]
    samples = 3
    env = { GAMBLER_SEED = "7", GAMBLER_ODDS = "0.5" }

Each attempt reads which sample it is from ``BUGBOUT_SAMPLE`` (bb-race sets it) and
fixes the task when ``draw(seed, issue, sample) < odds``: the same seed, task and sample
always make the same choice, so a bout's samples can be worked out in advance.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _demo_agent import Checkout, Task, run
from _tskit import CAREFUL
from careful import (
    camel_first_word,
    hyphenated_words,
    lone_punctuation,
    slug_accents,
    truncation_width,
)

FIXES = {
    11: slug_accents,
    17: truncation_width,
    21: lone_punctuation,
    27: camel_first_word,
    29: hyphenated_words,
    **CAREFUL,
}


def draw(seed: str, issue: int, sample: int) -> float:
    """A number in [0, 1) fixed by *seed*, the task's *issue* and the *sample*."""
    digest = hashlib.sha256(f"{seed}:{issue}:{sample}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def fixes(seed: str, odds: float, issue: int, sample: int) -> bool:
    """Whether the gambler fixes *issue* on its *sample*-th attempt."""
    return draw(seed, issue, sample) < odds


def gamble(task: Task, co: Checkout) -> None:
    seed = os.environ.get("GAMBLER_SEED", "0")
    odds = float(os.environ.get("GAMBLER_ODDS", "0.5"))
    sample = int(os.environ.get("BUGBOUT_SAMPLE", "1"))
    if fixes(seed, odds, task.issue, sample):
        FIXES[task.issue](task, co)
    else:
        print(f"gambler: sample {sample} of issue #{task.issue}: passing this time")


if __name__ == "__main__":
    sys.exit(run("gambler", dict.fromkeys(FIXES, gamble)))
