"""Compute FAIL_TO_PASS and PASS_TO_PASS ground truth from the maintainers' tests."""

__version__ = "0.1.0"
