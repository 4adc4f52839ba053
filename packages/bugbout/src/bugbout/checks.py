"""One line of ``bugbout doctor``'s answer: a :class:`Check`, ok, a warning, a problem with
its fix, or skipped."""

from __future__ import annotations

from dataclasses import dataclass

from bb_core.records.kinds import JSONObject

OK, WARNING, PROBLEM, SKIPPED = "ok", "warning", "problem", "skipped"


@dataclass(frozen=True)
class Check:
    """One line of the doctor's answer."""

    name: str
    status: str
    detail: str
    fix: str | None = None
    blocking: bool = False

    def record(self) -> JSONObject:
        """The check as ``bugbout doctor --json`` writes it."""
        return {
            "check": self.name,
            "status": self.status,
            "detail": self.detail,
            "fix": self.fix,
            "blocking": self.blocking,
        }

    def line(self) -> str:
        text = f"{self.status:<8} {self.name}: {self.detail}"
        if self.fix:
            text += f"; fix: {self.fix}"
        return text


def ok(name: str, detail: str) -> Check:
    return Check(name, OK, detail)


def problem(name: str, detail: str, fix: str | None, *, blocking: bool = True) -> Check:
    return Check(name, PROBLEM if blocking else WARNING, detail, fix, blocking)


def skipped(name: str, why: str) -> Check:
    return Check(name, SKIPPED, f"not checked: {why}")
