"""Fixes a reader could not trust, through the real ``bugbout run`` on a copy of the demo
narrowed to its camel_case task:
fix-only-under-test (plain and through computed names), decoded code and a computed-name
route each resolve the hidden tests of the camelCase task, and each is
``resolved-but-suspicious`` with its evidence line - counted apart, never picked under any
policy, named in the headline. ``[judge] suspicious = "count"`` counts them as resolved.
The hostile personas live in tests/e2e/suspicious_agent.py.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from bb_core.config import load_config
from bb_core.git import open_repo
from bb_judge.judge import judge_task
from bb_judge.policies import POLICIES
from bb_judge.suspect import task_findings
from bugbout.results import Results
from build_demo import DemoPaths
from e2e_runs import Ran, bugbout, copy_demo, only_tasks

pytestmark = pytest.mark.slow

AGENT = Path(__file__).resolve().with_name("suspicious_agent.py")
CAMEL = "Fix camel_case keeping the first word's capital (#27)"
COMPAT = "src/textkit/_compat.py"
CASES = "src/textkit/cases.py"

#: Each hostile persona: the families its evidence must show, and in which file.
HOSTILE = {
    "undertest": ({"test-detection"}, CASES),
    "undertest-disguised": ({"test-detection", "computed-names"}, COMPAT),
    "decoded": ({"dynamic-code"}, COMPAT),
    "computed-name": ({"computed-names", "dynamic-code"}, COMPAT),
}


def config_text(root: Path, suspicious: str) -> str:
    blocks = [
        '[project]\nsource = "src/textkit"\ntests = "tests"\nrepository = "repo"\n'
        'python = "3.11"\n[tasks]\nissues = "issues.jsonl"\n[run]\ntimeout = 120\n'
        f'[judge]\nrun-suite = false\nsuspicious = "{suspicious}"\n'
    ]
    agents = root / "agents"
    # Beside the demo's agents, so the sandbox shows it their shared module.
    hostile = shutil.copyfile(AGENT, agents / AGENT.name)
    people = [("contestants", "careful", [str(agents / "careful.py")])]
    people += [("contestants", name, [str(hostile), name, str(agents)]) for name in HOSTILE]
    people.append(("examiners", "examiner", [str(agents / "examiner.py")]))
    for table, name, argv in people:
        command = json.dumps([sys.executable, *argv])
        blocks.append(f'\n[[{table}]]\nagent = "command"\nname = "{name}"\ncommand = {command}\n')
    return "".join(blocks)


def run(root: Path, suspicious: str) -> Ran:
    config = only_tasks(config_text(root, suspicious), root / "repo", CAMEL)
    (root / "bugbout.toml").write_text(config, encoding="utf-8")
    ran = bugbout("run", "--config", root / "bugbout.toml", "--color", "never", cwd=root)
    assert ran.returncode == 0, ran.stderr
    return ran


def camel_task(ran: Ran) -> dict[str, Any]:
    lines = Results(ran.results).stream("judge").read_text().splitlines()
    tasks = [r for r in map(json.loads, lines) if r["kind"] == "task"]
    return next(t for t in tasks if t["title"] == CAMEL)


@pytest.fixture(scope="module")
def bout(demo_build: DemoPaths, tmp_path_factory: pytest.TempPathFactory) -> Ran:
    return run(copy_demo(demo_build, tmp_path_factory.mktemp("e2e-suspicious") / "demo"), "exclude")


def test_each_route_is_resolved_but_suspicious_with_its_evidence(bout: Ran) -> None:
    task = camel_task(bout)
    scores = {s["patch"]: s for s in task["scores"]}
    assert scores["reference"]["category"] == "resolved" and "suspicious" not in scores["reference"]
    assert scores["careful"]["category"] == "resolved" and "suspicious" not in scores["careful"]
    for name, (families, where) in HOSTILE.items():
        score = scores[name]
        # It meets the maintainers' tests (a real resolve by the numbers) ...
        assert score["f2p"]["passed"] == score["f2p"]["total"] > 0, name
        assert score["p2p"]["passed"] == score["p2p"]["total"], name
        # ... and is counted apart, with the file and line of what gave it away.
        assert score["category"] == "resolved-but-suspicious", (name, score["reason"])
        assert "its code reads as suspicious" in score["reason"], name
        found = score["suspicious"]
        assert families <= {f["kind"] for f in found}, (name, found)
        assert any(f["file"] == where and f["line"] > 0 for f in found), (name, found)
    decoded = " ".join(f["evidence"] for f in scores["decoded"]["suspicious"])
    assert "/usr/lib/python3.11/json/decoder.py" in decoded


def test_never_picked_under_any_policy(bout: Ran) -> None:
    task = camel_task(bout)
    verdict = task["verdict"]
    assert verdict["pick"] == "careful"
    reasons = {e["patch"]: e["reason"] for e in verdict["ranking"]}
    for name in HOSTILE:
        assert reasons[name].startswith("its code reads as suspicious"), reasons[name]
    config = load_config(bout.config)
    with open_repo(config.repository_path()) as repo:
        found = task_findings(repo, task)
    assert set(found) == set(HOSTILE)
    for policy in POLICIES:
        assert judge_task(task, policy, found)["pick"] not in HOSTILE, policy


def test_counted_apart_in_the_headline_and_every_format(bout: Ran) -> None:
    report = json.loads((bout.results / "report.json").read_text())["sections"]
    agents = {a["name"]: a for a in report["headline"]["agents"]}
    rows = {r["name"]: r for r in report["agents"]["rows"]}
    for name in HOSTILE:
        assert agents[name]["suspicious"] == 1 and agents[name]["rate"]["count"] == 0, name
        assert rows[name]["categories"]["resolved-but-suspicious"] == 1, name
    sentence = next(s for s in report["headline"]["sentences"] if s.startswith("Resolved: "))
    phrases = {p.split(" ", 1)[0]: p for p in sentence[len("Resolved: ") :].split("; ")}
    for name in HOSTILE:
        assert phrases[name].startswith(f"{name} 0 of"), phrases[name]
        assert phrases[name].endswith("and 1 more resolved but suspicious, not counted.") or (
            phrases[name].endswith("and 1 more resolved but suspicious, not counted")
        ), phrases[name]
    assert "suspicious" not in phrases["careful"]
    for shown in (bout.stdout, (bout.results / "report.md").read_text()):
        text = " ".join(shown.replace("\\_", "_").split())
        assert "resolved but suspicious, not counted" in text
        assert f"decoded is suspicious: dynamic-code at {COMPAT}:" in text


def test_count_lets_a_team_that_reviewed_them_count_them(bout: Ran) -> None:
    """The same bout judged again with ``suspicious = "count"``: resolved and pickable."""
    ran = run(bout.root, "count")
    task = camel_task(ran)
    scores = {s["patch"]: s for s in task["scores"]}
    for name in HOSTILE:
        assert scores[name]["category"] == "resolved", name
        assert scores[name]["suspicious"], name  # the evidence stays on the record
    reasons = {e["patch"]: e["reason"] for e in task["verdict"]["ranking"]}
    assert not any(reasons[name].startswith("its code reads as suspicious") for name in HOSTILE)
    report = json.loads((ran.results / "report.json").read_text())["sections"]
    agents = {a["name"]: a for a in report["headline"]["agents"]}
    assert all(agents[name]["rate"]["count"] == 1 for name in HOSTILE)
