"""Reading the plugin's report: authenticated lines, folded into what one process said."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from bb_core.records import kinds


class ReportReader:
    """The plugin's report of one pytest process, read incrementally."""

    def __init__(self, path: Path, key: bytes | None = None) -> None:
        self.path = path
        self.key = key
        self.offset = 0
        self.pending = b""
        self.events: list[kinds.JSONObject] = []
        self.garbled = 0
        #: Lines that do not authenticate under the run's key, or are out of sequence.
        self.forged = 0

    def _authentic(self, line: bytes, event: kinds.JSONObject) -> bool:
        """Whether *line* was written by the plugin's emitter: its MAC and its place."""
        if self.key is None:
            return True
        tail = b',"mac":"'
        at = line.rfind(tail)
        mac = line[at + len(tail) : -2] if at > 0 and line.endswith(b'"}') else b""
        body = line[:at] + b"}"
        expected = hmac.new(self.key, body, hashlib.sha256).hexdigest()[:32].encode()
        if not mac or not hmac.compare_digest(mac, expected):
            return False
        return event.get("n") == len(self.events) + 1

    def read(self) -> list[kinds.JSONObject]:
        """Events written since the last call."""
        try:
            with open(self.path, "rb") as handle:
                handle.seek(self.offset)
                chunk = handle.read()
        except OSError:
            return []
        self.offset += len(chunk)
        data = self.pending + chunk
        lines = data.split(b"\n")
        self.pending = lines.pop()
        new: list[kinds.JSONObject] = []
        for line in lines:
            if not line.strip():
                continue
            try:
                event = orjson.loads(line)
            except orjson.JSONDecodeError:
                self.garbled += 1
                continue
            if not (isinstance(event, dict) and isinstance(event.get("event"), str)):
                self.garbled += 1
            elif not self._authentic(line.strip(), event):
                self.forged += 1
            else:
                new.append(event)
                self.events.append(event)
        return new

    @property
    def truncated(self) -> bool:
        return bool(self.pending.strip())


@dataclass
class ReportedTest:
    phases: dict[str, kinds.JSONObject] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        return "teardown" in self.phases

    def outcome(self) -> kinds.Outcome:
        phases = self.phases
        if any(p.get("timeout") for p in phases.values()):
            return "failed"
        setup = phases.get("setup", {}).get("outcome")
        call = phases.get("call", {}).get("outcome")
        teardown = phases.get("teardown", {}).get("outcome")
        if setup == "failed":
            return "error"
        if setup == "skipped":
            return "skipped"
        if call == "failed":
            return "failed"
        if teardown == "failed":
            return "error"
        if call in ("passed", "skipped"):
            return "passed" if call == "passed" else "skipped"
        return "error"

    def message(self) -> str:
        return "\n".join(p["message"] for p in self.phases.values() if p.get("message"))


@dataclass
class ProcessReport:
    """What one pytest process reported."""

    tests: dict[str, ReportedTest] = field(default_factory=dict)
    collected: list[str] | None = None
    collectors: dict[str, kinds.JSONObject] = field(default_factory=dict)
    finish: int | None = None
    session: bool = False
    internal_error: str | None = None
    #: What the plugin's audit hook saw, and what its end-of-session check found changed.
    tamper: list[str] = field(default_factory=list)
    integrity: list[str] | None = None
    current: str | None = None  # the test (or module, while collecting) running now
    current_kind: str = "test"
    since: float = 0.0  # when bugbout saw the current budget start

    def feed(self, events: list[kinds.JSONObject], now: float) -> None:
        for event in events:
            kind = event["event"]
            nodeid = event.get("nodeid")
            if kind == "session":
                self.session = True
            elif kind == "phase" and isinstance(nodeid, str):
                when = event.get("when")
                if when == "collect":
                    self.current, self.current_kind, self.since = nodeid, "collect", now
                elif when in ("setup", "teardown") or self.current != nodeid:
                    self.current, self.current_kind, self.since = nodeid, "test", now
            elif kind == "report" and isinstance(nodeid, str):
                test = self.tests.setdefault(nodeid, ReportedTest())
                test.phases[str(event.get("when"))] = event
                if event.get("when") == "teardown" and self.current == nodeid:
                    self.current = None
            elif kind == "collect" and isinstance(nodeid, str):
                self.collectors[nodeid] = event
                if self.current == nodeid:
                    self.current = None
            elif kind == "collected":
                ids = event.get("nodeids")
                self.collected = [str(i) for i in ids] if isinstance(ids, list) else []
                if self.current_kind == "collect":
                    self.current = None
            elif kind == "finish":
                self.finish = int(event.get("exitstatus", -1))
            elif kind == "internalerror":
                self.internal_error = str(event.get("message", ""))
            elif kind == "tamper":
                self.tamper.append(str(event.get("what", "")))
            elif kind == "integrity":
                changed = event.get("changed")
                self.integrity = [str(c) for c in changed] if isinstance(changed, list) else ["?"]

    def done(self) -> dict[str, ReportedTest]:
        return {nodeid: test for nodeid, test in self.tests.items() if test.complete}


def covering(nodeid: str, collectors: Mapping[str, kinds.JSONObject]) -> kinds.JSONObject | None:
    """The failed or skipped collector that *nodeid* lies under, if any."""
    for prefix, event in collectors.items():
        under = (prefix + "::", prefix + "/", prefix + " > ")  # pytest's ids, the node runners'
        if prefix == "" or nodeid == prefix or nodeid.startswith(under):
            return event
    return None


def tampering(attempt: ProcessReport, report: ReportReader) -> list[str]:
    """Evidence, in one pytest process's report, that something changed how tests ran."""
    evidence = [f"the plugin saw: {what}" for what in attempt.tamper]
    if report.forged:
        evidence.append(f"{report.forged} report line(s) were not written by the plugin")
    if attempt.integrity:
        evidence.append("changed at the end of the session: " + ", ".join(attempt.integrity))
    elif attempt.finish is not None and attempt.integrity is None:
        evidence.append("the report finished without the plugin's integrity check")
    return evidence


def inconsistency(attempt: ProcessReport, report: ReportReader, exit_code: int) -> str | None:
    """Why a pytest process that ended on its own cannot be trusted, or None."""
    if not attempt.session and not report.events:
        return f"pytest exited with status {exit_code} and wrote no report"
    if report.garbled or report.truncated:
        return "the report is garbled or cut short"
    if attempt.internal_error is not None:
        return f"pytest hit an internal error: {attempt.internal_error.splitlines()[-1:]}"
    if attempt.finish is None:
        return f"pytest exited with status {exit_code} before finishing its report"
    if attempt.finish != exit_code:
        return f"pytest reported exit status {attempt.finish} but exited with {exit_code}"
    outcomes = [test.outcome() for test in attempt.tests.values()]
    broken = any(o in ("failed", "error") for o in outcomes) or any(
        event.get("outcome") == "failed" for event in attempt.collectors.values()
    )
    incomplete = any(not test.complete for test in attempt.tests.values())
    if incomplete:
        return "the report holds a test that never finished"
    if exit_code == 0 and broken:
        return "pytest exited with status 0 although tests failed"
    if exit_code == 1 and not broken:
        return "pytest exited with status 1 but reported no failure"
    if exit_code == 5 and attempt.collected:
        return "pytest exited with status 5 (no tests) but collected tests"
    if exit_code not in (0, 1, 5):
        return f"pytest exited with status {exit_code}"
    return None
