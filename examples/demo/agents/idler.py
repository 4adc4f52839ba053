"""The idler: reads the task, changes nothing."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _demo_agent import identify

if __name__ == "__main__":
    task = identify(sys.stdin.read())
    about = f"issue #{task.issue} ({task.name})" if task else "this task"
    print(f"idler: read {about}; changing nothing")
    sys.exit(0)
