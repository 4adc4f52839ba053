"""Race coding agents on each task in sandboxed, history-free checkouts."""

__version__ = "0.1.0"
