"""Shared kernel of bugbout: records and schemas, config, git, sandbox, test runs, environments, store."""

__version__ = "0.1.0"
