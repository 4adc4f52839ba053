"""Writes docs/pipeline.md from the schemas and their valid examples.

The schemas are the single source of truth, so the field reference is generated from them
(each field's description, type and whether it is required) and the example lines are the
ones the test suite validates. Run with ``--check`` to fail when the page is out of date.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "schemas"
PAGE = ROOT / "docs" / "pipeline.md"
ORDER = ["task", "skip", "summary", "oracle", "attempt", "matrix", "verdict", "score", "report"]

INTRO = """\
# The JSON-lines contract

bugbout's six tools talk to each other in JSON lines, so any stage can be piped, run on a
shard of the tasks, or replaced by a script of your own:

    bb-mine | bb-oracle | bb-race | bb-xexam | bb-judge | bb-report

## The rules every tool keeps

- **One JSON object per line**, UTF-8. Every object has `kind` (what it is) and `v` (the
  schema version, `1` in this release). Nested sections (`oracle`, each attempt, `matrix`,
  `verdict`, each score) carry their own `kind` and `v` too, so a section can be cut out
  of a task line and still be read on its own.
- **stdout carries data only.** Progress bars, warnings and logs go to stderr, so
  `bb-mine > tasks.jsonl` stays clean even with a progress bar on the terminal.
- **Progress shows off a terminal too.** On a terminal each stage draws a progress bar
  (the race its live view). Off one (CI, `2> log`) nothing is redrawn: every stage
  writes one line per finished task - what finished, its own time (since it was read, or
  since the task before it finished) and what remains - and one closing line that splits
  the work reused from earlier runs from the work that ran (the race counts attempts):

      bb-oracle: repo-6d9178f66c done in 0:42 (3/10; 7 left, about 4:54)
      bb-oracle: repo-3593795a17 reused from an earlier run (4/10; 6 left)
      bb-oracle: repo-59a45472ab needed no run (5/10; 5 left)
      ...
      bb-oracle: finished 10 tasks in 5:20: 4 tasks reused from earlier runs, 5 run; 1 task needed no run
      bb-race: finished 5 tasks in 12:04: 8 attempts reused from earlier runs, 2 run

  "needed no run" is a task whose answer was clear without running anything (a commit
  that does not exist, a task without the section the stage works on). With the input
  on stdin the total is unknown, so a line says how many tasks read are still in
  progress instead (`(3 done; 2 in progress)`). bb-mine writes a line each time it finds
  a task (`bb-mine: mining: 250 commits, 12 tasks (0:42)`).
- **Every line read and every line written is validated** against the schemas in
  [`schemas/`](../schemas). A bad line stops the tool with one line on stderr and exit
  status 2:

      bb-oracle: tasks.jsonl:2: oracle.fail_to_pass: expected an array, got string "tests/t.py::x"

  The location is `<file>:<line>` (`<stdin>` for standard input), then a path into the
  object (`attempts[1].status`, `$` for the line as a whole), then the problem. Lines
  before the bad one are finished and written first: nothing already done is lost.
- **Unknown kinds pass through unchanged**, byte for byte and in order. A stage touches
  only the kinds it handles; everything else flows on to the next. A kind this release
  does not know (a typo, a newer release's record) gets one warning on stderr, at the
  first line of that kind, naming the line and the kind:

      bb-judge: warning: tasks.jsonl:7: unknown record kind 'verdicts', passed on unchanged (this release knows task, skip, summary, oracle, attempt, matrix, verdict, score, report; --strict stops on it)

  With `--strict` (every command that reads records: `bb-oracle`, `bb-race`, `bb-xexam`,
  `bb-judge`, `bb-report`) such a line is bad input instead: one line naming it, after the
  lines before it are finished and written, and exit status 2.
- **Blank lines are skipped; empty input is valid** and gives empty output.
- **Exit status:** 0 done, 1 a failure while working, 2 bad usage or bad input.
- A stage whose reader goes away (`bb-mine | head -3`) stops quietly.

## How a task line grows

A task line is written by `bb-mine` and each later stage adds its section:

| stage | adds | or writes instead |
|---|---|---|
| `bb-mine` | the `task` itself | `skip` lines for commits left out, one closing `summary` |
| `bb-oracle` | `oracle` | a `skip` line (stage `oracle`) when the task cannot be scored |
| `bb-race` | `attempts` | |
| `bb-xexam` | `matrix` | |
| `bb-judge` | `verdict`, `scores` | |
| `bb-report` | reads any of these and writes the report | |

Because every section is optional in the task schema, a stage accepts tasks at any point
of their growth: `bb-race` runs on tasks with or without `oracle`, and `bb-report` renders
whatever sections are present.

## Versions

`v` is the version of the record's schema. A tool reads only the versions it knows and
refuses any other with `v: unsupported schema version ...`, rather than guessing at
fields whose meaning may have changed. Schema files carry versioned `$id`s
(`https://schemas.bugbout.dev/v1/task.json`); they are resolved locally and never fetched.

## Record kinds

The tables below are generated from the schemas (`python scripts/pipeline_doc.py`); a
test keeps them in step. Examples are the lines the test suite validates, from
`schemas/examples/<kind>/valid/`.
"""


def _load(name: str) -> dict[str, Any]:
    return orjson.loads((SCHEMAS / f"{name}.json").read_bytes())


DEFS = _load("defs")["$defs"]


def _target(
    node: dict[str, Any], local: dict[str, Any]
) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """What a ``$ref`` points at, and the definitions its own refs resolve in.

    The target is None for a reference to a whole record kind (``oracle.json``).
    """
    document, _, fragment = node["$ref"].partition("#/$defs/")
    if not fragment:
        return None, local
    if document == "defs.json":
        return DEFS[fragment], DEFS
    return local[fragment], local


def _type(node: dict[str, Any], local: dict[str, Any]) -> str:
    if "$ref" in node:
        target, scope = _target(node, local)
        if target is None:
            return f"`{node['$ref'].removesuffix('.json')}` record"
        return "object" if "properties" in target else _type(target, scope)
    if "const" in node:
        return f"`{orjson.dumps(node['const']).decode()}`"
    if "enum" in node:
        return " \\| ".join(f"`{orjson.dumps(o).decode()}`" for o in node["enum"])
    if "anyOf" in node:
        return " \\| ".join(_type(sub, local) for sub in node["anyOf"])
    kind = node.get("type", "any")
    if isinstance(kind, list):
        return " or ".join(kind)
    if kind == "array":
        return f"array of {_type(node.get('items', {}), local)}"
    extra = node.get("additionalProperties")
    if kind == "object" and isinstance(extra, dict) and "properties" not in node:
        return f"object of {_type(extra, local)}"
    if kind == "string" and "pattern" in node:
        return f"string `{node['pattern']}`"
    return str(kind)


def _description(node: dict[str, Any], local: dict[str, Any]) -> str:
    text = node.get("description")
    if not text and "$ref" in node:
        target, _scope = _target(node, local)
        text = target.get("description") if target else None
    return (text or "").replace("|", "\\|").replace("\n", " ")


def _expand(node: dict[str, Any], local: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The object schema whose fields belong under *node* (through arrays and refs)."""
    inner = node.get("items", node) if node.get("type") == "array" else node
    if "$ref" in inner:
        target, scope = _target(inner, local)
        return target or {}, scope
    return inner, local


def _fields(
    node: dict[str, Any], local: dict[str, Any], prefix: str = ""
) -> list[tuple[str, str, bool, str]]:
    rows = []
    required = set(node.get("required", []))
    for name, sub in node.get("properties", {}).items():
        if name in ("kind", "v"):
            continue
        path = f"{prefix}{name}"
        rows.append((path, _type(sub, local), name in required, _description(sub, local)))
        inner, scope = _expand(sub, local)
        if "properties" in inner:
            suffix = "[]." if sub.get("type") == "array" else "."
            rows.extend(_fields(inner, scope, f"{path}{suffix}"))
    return rows


def _example(kind: str) -> str:
    folder = SCHEMAS / "examples" / kind / "valid"
    lines = []
    for path in sorted(folder.glob("*.jsonl")):
        lines.extend(path.read_text().splitlines())
    return min(lines, key=len) if lines else ""


def render() -> str:
    parts = [INTRO]
    for kind in ORDER:
        document = _load(kind)
        parts.append(f"\n### `{kind}`\n\n{document.get('description', '')}\n")
        parts.append("| field | type | required | meaning |\n|---|---|---|---|")
        parts.append(
            f'| `kind`, `v` | `"{kind}"`, `1` | yes | what the line is, and its schema version |'
        )
        for path, kind_text, needed, text in _fields(document, document.get("$defs", {})):
            parts.append(f"| `{path}` | {kind_text} | {'yes' if needed else ''} | {text} |")
        parts.append(f"\nExample:\n\n```json\n{_example(kind)}\n```\n")
    return "\n".join(parts).rstrip() + "\n"


def main() -> int:
    text = render()
    if "--check" in sys.argv[1:]:
        if not PAGE.exists() or PAGE.read_text() != text:
            print(
                "docs/pipeline.md is out of date: run python scripts/pipeline_doc.py",
                file=sys.stderr,
            )
            return 1
        return 0
    PAGE.parent.mkdir(exist_ok=True)
    PAGE.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
