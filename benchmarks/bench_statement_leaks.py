"""How often a statement still carries the fix: the share of mined statements holding a
sequence of three or more code tokens from the reference patch's added lines.

    python benchmarks/bench_statement_leaks.py                       # the demo
    python benchmarks/bench_statement_leaks.py REPO --source PKG [--tests T] [--commits]

``--commits`` mines with an empty issues export, so every statement comes from a commit
message or title, as for a team without GitHub access. Two figures per run:

- **strict**: a statement holds any three consecutive tokens of an added line (names,
  numbers, string literals, each operator or punctuation mark; comments left out);
- **code**: one of those three tokens is one prose would not write (a name with an
  underscore, digit or inner capital, a string literal, an operator): plain words and
  punctuation a docstring shares with a sentence ("the number of") are not counted;
- **answer**: as *code*, and that token is not a name the fix's tests use: an issue that
  asks for the interface its tests call (``split_words(text)``) states the requirement.

It also prints each leaking statement's sequence, and the tasks and ``no-statement``
skips, so a run before and after a change to redaction shows which fixes were emptied.
Target: 0 on both figures, with no fix that had a symptom emptied.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples" / "demo"))

from bb_mine.mine import MineSettings, mine

# The measure's own tokens, kept apart from redaction's so that it judges redaction rather
# than agreeing with it: a name, a number, a string literal (a quote after a letter is an
# apostrophe), or one character of punctuation or an operator.
_TOKEN = re.compile(
    r"[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?"
    r"|(?<![A-Za-z0-9])\"[^\"\n]*\"|(?<![A-Za-z0-9])'[^'\n]*'|[^\sA-Za-z0-9_`]"
)
_PROSE = frozenset(".,;:()!?-'\"")


def code_tokens(text: str) -> list[str]:
    found = []
    for token in _TOKEN.findall(text):
        if len(token) >= 2 and token[0] in "'\"" and token[-1] == token[0]:
            token = '"' + token[1:-1] + '"'
        found.append(token)
    return found


def code_like(token: str) -> bool:
    if token[0] in "\"'":
        return len(token) > 2
    if token[0].isalpha() or token[0] == "_":
        return "_" in token or any(c.isdigit() for c in token) or token[1:] != token[1:].lower()
    return not token[0].isdigit() and token not in _PROSE


def _without_comment(line: str) -> str:
    quote = ""
    for index, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#":
            return line[:index]
    return line


def added_grams(patch: str) -> set[tuple[str, ...]]:
    grams: set[tuple[str, ...]] = set()
    for line in patch.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            tokens = code_tokens(_without_comment(line[1:]))
            grams.update(tuple(tokens[i : i + 3]) for i in range(len(tokens) - 2))
    return grams


def tested(test_patch: str) -> set[str]:
    names: set[str] = set()
    for line in test_patch.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            names.update(code_tokens(_without_comment(line[1:])))
    return names


def leak(
    statement: str, grams: set[tuple[str, ...]], *, code: bool, interface: set[str] | None = None
) -> str | None:
    tokens = code_tokens(statement)
    for i in range(len(tokens) - 2):
        gram = tuple(tokens[i : i + 3])
        if gram in grams and (
            not code or any(code_like(t) and t not in (interface or ()) for t in gram)
        ):
            return " ".join(gram)
    return None


def measure(location: str, options: MineSettings) -> None:
    tasks, empty = [], []
    for record in mine(location, options):
        if record["kind"] == "task":
            tasks.append(record)
        elif record["kind"] == "skip" and record["reason"] == "no-statement":
            empty.append(record)
    strict = code = answer = 0
    for task in tasks:
        grams = added_grams(task["reference_patch"])
        found = leak(task["statement"], grams, code=False)
        strict += found is not None
        code += leak(task["statement"], grams, code=True) is not None
        interface = tested(task["test_patch"])
        answer += leak(task["statement"], grams, code=True, interface=interface) is not None
        if found is not None:
            print(f"  leak {task['fix_commit'][:10]} [{task['statement_kind']}]: {found!r}")
    share = (lambda n: f"{n}/{len(tasks)} ({100 * n / len(tasks):.1f}%)") if tasks else str
    print(f"{location}: {len(tasks)} tasks, {len(empty)} no-statement")
    print(f"  strict (any 3 tokens of an added line): {share(strict)}")
    print(f"  code   (3 tokens, one of them code):    {share(code)}")
    print(f"  answer (code, not a name tests call):   {share(answer)}")
    for record in empty:
        print(f"  no-statement {record['commit'][:10]}: {record['title']}")
    for task in tasks:
        print(f"  task {task['fix_commit'][:10]} [{task['statement_kind']}]: {task['title']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", nargs="?")
    parser.add_argument("--source")
    parser.add_argument("--tests", default="tests")
    parser.add_argument("--commits", action="store_true", help="statements from commits only")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        issues = None
        if args.commits:
            issues = Path(tmp) / "none.jsonl"
            issues.write_text("")
        if args.repo is None:
            from build_demo import build_demo

            demo = build_demo(Path(tmp) / "demo")
            config = demo.config
            from bb_core.config import load_config

            options = MineSettings.from_config(
                load_config(config), limit=0, use_cache=False, issues=issues
            )
            measure(str(demo.repo), options)
            return
        options = MineSettings(
            source=args.source, tests=args.tests, limit=0, use_cache=False, issues=issues
        )
        measure(args.repo, options)


if __name__ == "__main__":
    main()
