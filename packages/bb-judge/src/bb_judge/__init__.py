"""Pick one patch per bug from executed evidence and score every patch with the hidden tests."""

__version__ = "0.1.0"
