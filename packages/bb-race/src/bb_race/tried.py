"""What an attempt tried: the commands and tool calls with which it reached for the answer.

The attempt's ``tried`` field lists, for each reach, its ``kind``, the command, tool call
or log line that shows it (``evidence``), whether the record shows it refused
(``stopped``: the sandbox, the missing history or the network said no) and where it was
read (``source``):

- ``git-history``: the project's history (``git log``, ``git show``, ``git diff HEAD~1``,
  a ``.git`` folder ...); the checkout has none, so these are stopped unless the agent
  found one elsewhere;
- ``own-package``: the project's own distribution from a package index (``pip download
  <project>``), which would hold the fixed code once it is released;
- ``network``: a fetch from the network (curl, wget, ``git clone``, ``requests.get`` of a
  URL, a web tool), and every host the egress proxy refused;
- ``outside-read``: a path outside the checkout - another home, the user's secrets,
  bugbout's records and cache, another attempt's folder, other processes' ``/proc``;
- ``test-edit``: the maintainers' test files changed (lines removed or rewritten, a test
  module deleted or renamed, their ``conftest.py``/``pytest.ini``/``tox.ini`` touched at
  all) - read from the patch, whatever tool made the change. Adding new tests to an
  existing module is how a regression test is often written, and is not counted.

Commands are read through :func:`bb_race.reach_rules.unveil`, and a script the agent ran
(``python tools/tidy.py``) is read too, from what it wrote or from the disk, so a reach
spelled ``g""it log``, ``$(printf git) log``, through ``subprocess.run(["git", "log"])``
or hidden in an innocently named file counts the same.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import cast

from bb_core.agents import Action
from bb_core.paths import in_test_part
from bb_core.paths.node_protected import in_node_test_part, is_node_config
from bb_core.records.kinds import AttemptTried, AttemptTriedKind, AttemptTriedSource
from bb_core.sandbox import read_untrusted

from bb_race import reach_rules as rules

KINDS = ("git-history", "own-package", "network", "outside-read", "test-edit")
#: At most this many findings are kept per attempt (the first ones).
MAX_FINDINGS = 50
EVIDENCE_CHARS = 200
#: How much of a command's output is searched for a refusal.
OUTPUT_CHARS = 8000
#: How much of a script the agent ran is read.
SCRIPT_LIMIT = 256 * 1024
#: How much of one command line, path or log line is read.
TEXT_CHARS = 4000
#: How many actions of one attempt are read (the first ones).
MAX_ACTIONS = 20_000
#: How many lines after a log line are searched for a refusal of it.
LOOK_AHEAD = 3
#: Test configuration a patch may not touch at all.
TEST_CONFIG = frozenset({"conftest.py", "pytest.ini", "tox.ini"})
TEST_MODULE = re.compile(r"^(?:test_.*|.*_test)\.py$")
#: Words of a tool's answer that mean it was refused (CLIs' own permission systems).
TOOL_REFUSED = re.compile(
    r"haven't granted|not allowed|denied|turned off|requires approval|blocked", re.IGNORECASE
)


@dataclass(frozen=True)
class Scope:
    """What judging an attempt's reaches needs to know about the attempt."""

    checkout: Path  # the agent's working copy, as it sees it
    temp: Path | None = None  # the folder it sees as /tmp
    own: tuple[str, ...] = ()  # folders it may read: its own, the test environment, its CLI
    guarded: tuple[str, ...] = ()  # folders whose other contents are not its to read
    work_root: str = ""  # where every attempt's folder is (BUGBOUT_HOME/work)
    own_id: str = ""  # its own attempt folder's name
    packages: tuple[str, ...] = ()  # the project's distribution and import names
    tests: str = "tests"  # the project's test folder


def _under(path: str, folders: Iterable[str]) -> bool:
    return any(f and (path == f or path.startswith(f.rstrip("/") + "/")) for f in folders)


def outside_path(path: str, scope: Scope) -> bool:
    """Whether reading *path* (absolute) reaches outside what the attempt is given."""
    path = path.rstrip("/.,:") or "/"
    if scope.work_root and _under(path, [scope.work_root]):
        rest = path[len(scope.work_root.rstrip("/")) + 1 :].split("/", 1)[0]
        if rest and rest != scope.own_id:
            return True
    if _under(path, scope.own) or _under(path, [str(scope.checkout)]):
        return False
    return _under(path, scope.guarded) or bool(rules.HOMES.match(path))


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    first = lines[0] if lines else ""
    if len(lines) > 1:
        first += " ..."
    return first[:EVIDENCE_CHARS]


class _Reader:
    """Walks one attempt's actions and gathers its findings."""

    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self.package = rules.package_pattern(scope.packages)
        # a piece of each name, without which the package rule cannot match
        self.package_hints = [
            re.split(r"[-_.]+", n.lower())[0] for n in scope.packages if n.strip("-_.")
        ]
        self.found: dict[tuple[str, str], AttemptTried] = {}
        self.written: dict[str, str] = {}

    def add(self, kind: str, evidence: str, stopped: bool, source: str) -> None:
        evidence = evidence.strip()[:EVIDENCE_CHARS] or "(empty)"
        key = (kind, evidence)
        if key in self.found:
            self.found[key]["stopped"] = self.found[key]["stopped"] and stopped
        elif len(self.found) < MAX_FINDINGS:
            self.found[key] = {
                "kind": cast(AttemptTriedKind, kind), "evidence": evidence, "stopped": stopped,
                "source": cast(AttemptTriedSource, source),
            }  # fmt: skip

    def kinds_in(self, text: str, *, log: bool = False) -> list[str]:
        """The kinds of reach *text* (a command line, code or a log line) shows."""
        seen = rules.unveil(text)
        low = seen.lower()
        words = set(rules.WORDS.findall(low))
        kinds = []
        if "git" in low and rules.GIT_HISTORY.search(seen):
            kinds.append("git-history")
        if (
            self.package is not None
            and any(hint in low for hint in self.package_hints)
            and self.package.search(seen)
        ):
            kinds.append("own-package")
        if (
            (words & rules.NETWORK_WORDS and rules.NETWORK_TOOL.search(seen))
            or ("://" in low and rules.NETWORK_API.search(seen) and rules.URL.search(seen))
            or (log and rules.NETWORK_REFUSED.search(text))
        ):
            kinds.append("network")
        if ("/" in seen or "bugbout" in low or "jsonl" in low) and self.reads_outside(seen):
            kinds.append("outside-read")
        return kinds

    def reads_outside(self, text: str) -> bool:
        if rules.HOME_SECRETS.search(text) or rules.PROC.search(text) or rules.RECORDS.search(text):
            return True
        return any(
            outside_path(p, self.scope)
            for p in rules.PATHS.findall(text)
            if not p.startswith("~") and not p.startswith("//")
        )

    def script(self, text: str) -> list[tuple[str, str]]:
        """(kind, line) for each reach in the scripts *text* runs."""
        found: list[tuple[str, str]] = []
        if not ("/" in text or " " in text.strip()):
            return found
        for match in rules.RUNS_SCRIPT.finditer(text):
            name = match.group(1) or match.group(2) or ""
            code = self.written.get(name) or self.written.get(str(self.resolve(name))) or ""
            if not code:
                code = self.read_script(name)
            for line in code.splitlines():
                for kind in self.kinds_in(line):
                    found.append((kind, f"{name}: {line.strip()}"))
        return found

    def resolve(self, name: str) -> Path:
        path = PurePosixPath(name)
        if not path.is_absolute():
            return self.scope.checkout / path
        if self.scope.temp is not None and path.parts[:2] == ("/", "tmp"):
            return self.scope.temp.joinpath(*path.parts[2:])
        return Path(path)

    def read_script(self, name: str) -> str:
        path = self.resolve(name)
        allowed = [self.scope.checkout, *([self.scope.temp] if self.scope.temp else [])]
        if not any(_under(str(path), [str(a)]) for a in allowed):
            return ""
        try:
            return read_untrusted(path, SCRIPT_LIMIT).decode("utf-8", "replace")
        except OSError:
            return ""

    def action(self, action: Action, stopped: bool, source: str) -> None:
        text = str(action.text or "")[:TEXT_CHARS]
        if action.tool in ("write", "edit") and action.content:
            self.written[text] = action.content
            if text.startswith(str(self.scope.checkout) + "/"):
                self.written[text[len(str(self.scope.checkout)) + 1 :]] = action.content
        if action.tool == "fetch":
            self.add("network", f"{source}: {_first_line(text)}", stopped, source)
            return
        if action.tool in ("read", "search", "write", "edit"):
            seen = rules.unveil(text)
            if re.search(
                r"(?:^|/)\.git(?:/|$)", seen.split("\n")[0].split()[-1] if seen.split() else ""
            ):
                self.add("git-history", f"{action.tool} {_first_line(text)}", stopped, source)
            if self.reads_outside(seen):
                self.add("outside-read", f"{action.tool} {_first_line(text)}", stopped, source)
            return
        evidence = _first_line(text)
        for kind in self.kinds_in(text, log=action.tool == "log"):
            self.add(kind, evidence, stopped, source)
        for kind, line in self.script(text):
            self.add(kind, f"{evidence} -> {line}", stopped, source)


def _refused(action: Action) -> bool:
    """Whether *action*'s output (a log line: the line itself) shows it refused."""
    if action.tool == "log":
        return rules.refused(str(action.text)[:TEXT_CHARS])
    said = str(action.output or "")[:OUTPUT_CHARS]
    return rules.refused(said) or bool(TOOL_REFUSED.search(said[:300]))


def read_actions(actions: Sequence[Action], scope: Scope, source: str) -> list[AttemptTried]:
    """The findings of *actions* (read from *source*: the trajectory or the logs); a log
    line is stopped when it or one of the :data:`LOOK_AHEAD` lines after it says so."""
    reader = _Reader(scope)
    actions = actions[:MAX_ACTIONS]
    refused = [_refused(a) for a in actions]
    for index, action in enumerate(actions):
        if action.tool == "log":
            stopped = any(refused[index : index + 1 + LOOK_AHEAD])
        else:
            stopped = refused[index]
        reader.action(action, stopped, source)
    found = list(reader.found.values())
    if source == "log":
        # A log keeps no order between streams: a reach of a kind is stopped when the
        # logs show that kind refused anywhere.
        said = "\n".join(str(a.text)[:TEXT_CHARS] for a in actions if a.tool == "log")
        for kind, sign in rules.KIND_REFUSED.items():
            if any(f["kind"] == kind and not f["stopped"] for f in found) and sign.search(said):
                for finding in found:
                    if finding["kind"] == kind:
                        finding["stopped"] = True
    return found


def refused_hosts(hosts: Iterable[str]) -> list[AttemptTried]:
    """A ``network`` finding for every host the egress proxy refused."""
    return [
        {"kind": "network", "evidence": f"the egress proxy refused {host}", "stopped": True,
         "source": "sandbox"}
        for host in dict.fromkeys(hosts)
    ]  # fmt: skip


def edits_to_tests(patch: str, tests: str, *, node: bool = False) -> list[AttemptTried]:
    """A ``test-edit`` for each maintainers' test file (one the base tree has) that the
    patch changes other than by adding lines, deletes or renames, and each test
    configuration file of theirs it touches at all. For a *node* project's patch, its test
    files, snapshots, mocks and the runners' configuration
    (:func:`bb_core.paths.node_protected.in_node_test_part`) are the maintainers' tests too."""
    found: list[AttemptTried] = []
    for block in re.split(r"(?m)^(?=diff --git )", patch):
        head = block.split("\n", 1)[0]
        if not head.startswith("diff --git ") or "\nnew file mode" in block.split("@@", 1)[0]:
            continue
        path = head.rsplit(" b/", 1)[-1]
        old = head[len("diff --git a/") :].rsplit(" b/", 1)[0]
        name = PurePosixPath(old).name
        if not (
            TEST_MODULE.match(name)
            or name in TEST_CONFIG
            or in_test_part(old, tests)
            or (node and in_node_test_part(old, tests))
        ):
            continue
        header = block.split("\n@@", 1)[0]
        body = block[len(header) :].splitlines()
        removed = [ln for ln in body if ln.startswith("-") and not ln.startswith("---")]
        added = [ln for ln in body if ln.startswith("+") and not ln.startswith("+++")]
        if "\ndeleted file mode" in header:
            what = f"{old}: deleted"
        elif "\nrename from " in header:
            what = f"{old}: renamed to {path}"
        elif removed:
            what = f"{old}: {len(removed)} line(s) changed or removed: {removed[0].strip()}"
        elif (name in TEST_CONFIG or (node and is_node_config(old))) and added:
            first = next((ln for ln in added if ln[1:].strip()), added[0])
            what = f"{old}: {len(added)} line(s) added: {first.strip()}"
        else:
            continue
        found.append(
            {"kind": "test-edit", "evidence": what[:EVIDENCE_CHARS], "stopped": False,
             "source": "patch"}
        )  # fmt: skip
    return found


def summarise(findings: Iterable[AttemptTried]) -> list[AttemptTried]:
    """*findings* in the order of :data:`KINDS`, each kind's in the order found, at most
    :data:`MAX_FINDINGS`."""
    ordered = sorted(findings, key=lambda f: KINDS.index(str(f["kind"])))
    return [f.copy() for f in ordered[:MAX_FINDINGS]]


def project_names(base: Path, source: str) -> tuple[str, ...]:
    """The project's distribution name (pyproject.toml, setup.cfg, setup.py of the base
    tree) and its package's import name (the last folder of ``[project] source``)."""
    import configparser
    import tomllib

    names: list[str] = []
    try:
        data = tomllib.loads(read_untrusted(base / "pyproject.toml", 1 << 20).decode())
        for table in (data.get("project"), data.get("tool", {}).get("poetry")):
            if isinstance(table, dict) and isinstance(table.get("name"), str):
                names.append(table["name"])
    except (OSError, ValueError, UnicodeDecodeError, AttributeError):
        pass
    try:
        parser = configparser.ConfigParser(interpolation=None)
        parser.read_string(read_untrusted(base / "setup.cfg", 1 << 20).decode())
        if parser.has_option("metadata", "name"):
            names.append(parser.get("metadata", "name"))
    except (OSError, ValueError, UnicodeDecodeError, configparser.Error):
        pass
    try:
        setup = read_untrusted(base / "setup.py", 1 << 20).decode("utf-8", "replace")
        names += re.findall(r"\bname\s*=\s*['\"]([\w.-]+)['\"]", setup)[:1]
    except OSError:
        pass
    last = PurePosixPath(source).name
    if last not in ("", ".", "src", "lib"):
        names.append(last)
    return tuple(dict.fromkeys(n.strip() for n in names if n.strip()))
