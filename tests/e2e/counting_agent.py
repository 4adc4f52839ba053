"""A demo agent that counts its starts: ``counting_agent.py COUNTER NAME SCRIPT [PAUSE]``.

Appends ``NAME ATTEMPT_ID`` to COUNTER (in a folder the agent may write: a state dir),
then replaces itself (``exec``) with ``counting_agent.py --counted COUNTER NAME SCRIPT
[PAUSE]``, so a process whose command line says ``--counted`` has its start on record
(a test that kills an agent mid-attempt waits for that word), waits PAUSE seconds, and
runs the demo agent SCRIPT on the same prompt. The attempt id is the opaque name of the
attempt's folder (``.../<attempt id>/work``, the working directory);
``.bugbout/attempts/<task>/<agent>.id`` says which task it stands for. While a file
``crash-NAME`` lies beside COUNTER, it exits 1 instead (a crashed attempt).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

COUNTED = "--counted"

if __name__ == "__main__":
    if sys.argv[1] != COUNTED:
        counter, name = sys.argv[1:3]
        with open(counter, "a", encoding="utf-8") as handle:
            handle.write(f"{name} {Path.cwd().parent.name}\n")
        os.execv(sys.executable, [sys.executable, __file__, COUNTED, *sys.argv[1:]])
    counter, name, script = sys.argv[2:5]
    pause = float(sys.argv[5]) if len(sys.argv) > 5 else 0.0
    prompt = sys.stdin.read()
    time.sleep(pause)
    if (Path(counter).parent / f"crash-{name}").exists():
        print(f"{name}: crashing as told", file=sys.stderr)
        sys.exit(1)
    done = subprocess.run([sys.executable, script], input=prompt, text=True, check=False)
    sys.exit(done.returncode)
