"""A demo agent that counts its starts: ``counting_agent.py COUNTER NAME SCRIPT [PAUSE]``.

Appends ``NAME ATTEMPT_ID`` to COUNTER (in a folder the agent may write: a state dir),
waits PAUSE seconds, then runs the demo agent SCRIPT on the same prompt. The attempt id
is the opaque name of the attempt's folder (``.../<attempt id>/work``, the working
directory); ``.bugbout/attempts/<task>/<agent>.id`` says which task it stands for.
While a file ``crash-NAME`` lies beside COUNTER, it exits 1 instead (a crashed attempt).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

if __name__ == "__main__":
    counter, name, script = sys.argv[1:4]
    pause = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0
    prompt = sys.stdin.read()
    attempt_id = Path.cwd().parent.name
    with open(counter, "a", encoding="utf-8") as handle:
        handle.write(f"{name} {attempt_id}\n")
    time.sleep(pause)
    if (Path(counter).parent / f"crash-{name}").exists():
        print(f"{name}: crashing as told", file=sys.stderr)
        sys.exit(1)
    done = subprocess.run([sys.executable, script], input=prompt, text=True, check=False)
    sys.exit(done.returncode)
