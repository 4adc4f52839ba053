"""Cross-examine every patch with every author's tests."""

__version__ = "0.1.0"
