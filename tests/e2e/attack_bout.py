"""One ``bugbout run`` with hostile contestants, shared by the attack tests that can share it.

On a copy of the demo narrowed to its camel_case task, next to the careful fixer (vendor
acme) and the examiner (hooli, ``assignment = "reproduce"``):

- the twin attacks (tests/e2e/hostile_agent.py, ``test_twin_attacks.py``): three
  contestants that leave the bug in place and fool the tests - ``alwaysequal``,
  ``codeswap``, ``newplugin``;
- the byte-keyed tests (tests/e2e/byte_keyed_agent.py, ``test_byte_keyed_tests.py``): two
  contestants whose wrong fix comes with tests keyed to its own bytes - ``hasher``
  (initech) and ``tallier`` (umbrella).

They leave each other's outcome alone: the twin attackers write no tests, so they add no
support for or against any fix, and their tampered columns are never candidates; the
byte-keyed tests fail on every rival's column, the fooling ones included. The suspicious
fixes (``test_suspicious_bout.py``) keep a bout of their own: they resolve the task and
write tests that pass on the careful fix, which would lift its support in the byte-keyed
tests' counterfactual (what the judge picks without neutral twins) and so change what that
test checks.

Built once per test run (``support.shared.shared_dir``) and read by every worker: read-only.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import expected
from build_demo import DemoPaths
from e2e_runs import Ran, bugbout, copy_demo, only_tasks

HERE = Path(__file__).resolve().parent
TASK = expected.BY_KEY["camel-first-word"]
#: The twin attacks, by contestant name: the attack hostile_agent.py makes.
TWIN_ATTACKS = {"alwaysequal": "always-equal", "codeswap": "code-swap", "newplugin": "new-plugin"}
#: The two forms of the byte-keyed attack, by contestant name, with vendors of their own.
BYTE_KEYED = {"hasher": ("plain", "initech"), "tallier": ("disguised", "umbrella")}
#: What the run said, beside the project folder.
SAID = "said.json"


def config_text(root: Path) -> str:
    """The bout's bugbout.toml, with the agents' scripts beside the demo's in *root*
    (the sandbox lets a script read its own folder)."""
    agents = root / "agents"
    hostile = shutil.copyfile(HERE / "hostile_agent.py", agents / "hostile_agent.py")
    keyed = shutil.copyfile(HERE / "byte_keyed_agent.py", agents / "byte_keyed_agent.py")
    people: list[tuple[str, str, str | None, list[str], str]] = [
        ("contestants", "careful", "acme", [str(agents / "careful.py")], "")
    ]
    for name, attack in TWIN_ATTACKS.items():
        people.append(("contestants", name, None, [str(hostile), str(agents), attack], ""))
    for name, (form, vendor) in BYTE_KEYED.items():
        people.append(("contestants", name, vendor, [str(keyed), form], ""))
    examiner = [str(agents / "examiner.py")]
    people.append(("examiners", "examiner", "hooli", examiner, 'assignment = "reproduce"\n'))
    blocks = [
        "[project]\n"
        'source = "src/textkit"\ntests = "tests"\nrepository = "repo"\npython = "3.11"\n'
        '[tasks]\nissues = "issues.jsonl"\n'
        '[run]\ntimeout = 120\n[judge]\npolicy = "majority"\n'
    ]
    for table, name, vendor, argv, extra in people:
        blocks.append(
            f'\n[[{table}]]\nagent = "command"\nname = "{name}"\n'
            + (f'vendor = "{vendor}"\n' if vendor else "")
            + f"command = {json.dumps([sys.executable, *argv])}\n{extra}"
        )
    return only_tasks("".join(blocks), root / "repo", TASK.title)


def run_attack_bout(demo_root: Path, dest: Path) -> None:
    """The bout in ``dest/demo``; its exit status, stdout and stderr in ``dest/said.json``."""
    root = copy_demo(DemoPaths(demo_root), dest / "demo")
    (root / "bugbout.toml").write_text(config_text(root), encoding="utf-8")
    ran = bugbout(
        "run", "--config", root / "bugbout.toml", "--color", "never", cwd=root, timeout=1500
    )
    said = {
        "returncode": ran.returncode,
        "stdout": ran.stdout,
        "stderr": ran.stderr,
        "seconds": ran.seconds,
    }
    (dest / SAID).write_text(json.dumps(said), encoding="utf-8")


def read_attack_bout(dest: Path) -> Ran:
    said = json.loads((dest / SAID).read_text(encoding="utf-8"))
    return Ran(dest / "demo", said["returncode"], said["stdout"], said["stderr"], said["seconds"])
