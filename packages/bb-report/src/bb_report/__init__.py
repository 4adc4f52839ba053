"""Render a bout's records as a terminal, Markdown, JSON or HTML report."""

__version__ = "0.1.0"
