"""Which coding agent fixes bugs in your codebase? The umbrella CLI and Python API."""

__version__ = "0.1.0"
