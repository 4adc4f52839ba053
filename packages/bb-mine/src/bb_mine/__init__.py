"""Mine graded bug-fix tasks from a repository's first-parent history."""

__version__ = "0.1.0"
