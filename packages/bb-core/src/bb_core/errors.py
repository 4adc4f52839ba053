"""The small tree of errors bugbout raises.

Library code raises these (``raise ... from cause``); only the click layer turns them into
messages and exit statuses. Usage and input errors exit 2, failures while working exit 1.
"""

from __future__ import annotations


class BbError(Exception):
    """Base of every error bugbout reports to a person."""

    exit_code = 1

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        if self.hint:
            return f"{self.message} ({self.hint})"
        return self.message


class UsageError(BbError):
    """The command was called wrongly: a bad option value, a missing file."""

    exit_code = 2


class BadRecord(UsageError):
    """A JSON line that cannot be read or does not match its schema."""

    def __init__(self, source: str, lineno: int, path: str, problem: str) -> None:
        self.source = source
        self.lineno = lineno
        self.path = path
        self.problem = problem
        super().__init__(f"{source}:{lineno}: {path}: {problem}")


class ConfigError(UsageError):
    """bugbout.toml is missing, unreadable or holds a bad value."""


class GitError(UsageError):
    """A repository, branch or commit that cannot be read."""


class SandboxUnavailable(BbError):
    """The requested sandbox cannot start on this machine."""


class EnvironmentFailed(BbError):
    """The project's test environment could not be built."""


class StageFailed(BbError):
    """A stage could not finish its work."""
