"""Replace bb-judge's decisions: pick the patch that passes every other author's
reproduction (a test that fails on the unfixed tree) and breaks the fewest tests.
The verdict schema names policies; this simplified unanimous rule writes "unanimous".

    bb-judge examined.jsonl | python judge.py | bb-report   (bb-judge's scores are kept)
    bb-xexam raced.jsonl | python judge.py | bb-report      (verdicts alone, unscored)
"""

import json
import sys

FAILS = ("failed", "error")


def judge(task: dict) -> dict:
    m = task["matrix"]
    out = {(c["author"], c["test"], c["column"]): c["outcome"] for c in m["cells"]}
    own = {c["patch_of"]: c["name"] for c in m["columns"] if c["patch_of"]}
    tests = [(a["name"], t) for a in m["authors"] for t in a["tests"]]
    # A reproduction fails on the unfixed tree and passes on its author's own patch.
    repro = [(a, t) for a, t in tests if a != "suite" and out.get((a, t, "base")) in FAILS]
    repro = [(a, t) for a, t in repro if a not in own or out.get((a, t, own[a])) == "passed"]
    ranked = []
    for who, col in own.items():
        theirs = [(a, t) for a, t in repro if a != who]
        if theirs and all(out.get((a, t, col)) == "passed" for a, t in theirs):
            kept = [(a, t) for a, t in tests if a != who and out.get((a, t, "base")) == "passed"]
            ranked.append((sum(out.get((a, t, col)) in FAILS for a, t in kept), who, col, theirs))
    broke, pick, col, theirs = min(ranked) if ranked else (0, None, "base", [])
    why = f"passes {len(theirs)} reproductions by others and breaks {broke} tests"
    if pick is None:
        why = "no patch passes every other author's reproduction"
    cited = [
        dict(author=a, test=t, column=c, outcome=out.get((a, t, c), "missing"))
        for a, t in theirs
        for c in ("base", col)
    ]
    verdict = dict(kind="verdict", v=1, task_id=task["id"], policy="unanimous", pick=pick)
    task["verdict"] = dict(verdict, abstained=pick is None, reason=why, cited=cited)
    scores = [s for s in task.get("scores", []) if s["patch"] != "pick"]  # keep bb-judge's
    task["scores"] = scores + [
        dict(s, patch="pick", picked=pick) for s in scores if s["patch"] == pick
    ]
    return task


for line in open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin:  # noqa: SIM115
    if line.strip():
        record = json.loads(line)
        if record["kind"] == "task" and "matrix" in record:
            record = judge(record)
        print(json.dumps(record), flush=True)
