"""What a run of bb-oracle did, said on stderr at the end."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Stats:
    """What a run of the stage did: tasks seen, answered from cache, pytest runs started."""

    tasks: int = 0
    cached: int = 0
    test_runs: int = 0
    oracles: int = 0
    skips: dict[str, int] = field(default_factory=dict)

    def line(self) -> str:
        skipped = sum(self.skips.values())
        reasons = ", ".join(f"{n} {r}" for r, n in sorted(self.skips.items()))
        text = f"{self.tasks} tasks: {self.oracles} with an oracle, {skipped} skipped"
        if reasons:
            text += f" ({reasons})"
        return f"{text}; {self.test_runs} test runs, {self.cached} from cache"
