"""What the scripted demo agents share: recognising the task, and editing a checkout.

The agents run as bugbout ``command`` agents: the prompt arrives on stdin and the working
directory is the checkout (no ``.git``). They use the standard library only, never the
network, and behave the same on every run.

A task is recognised by the reproducing input its issue reports (a sentence that survives
redaction) or, failing that, by its issue number. An agent that does not recognise the
task, or does not find the code it expects, changes nothing and exits 0.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Task:
    issue: int
    name: str  # a short label for logs
    keys: tuple[str, ...]  # literal text that only this issue's statement holds
    module: str  # the source file at fault
    function: str  # the function at fault


TASKS = (
    Task(
        11, "accents in slugs", ("Crème Brûlée", "cr-me-br-l-e"), "src/textkit/slugs.py", "slugify"
    ),
    Task(
        17, "truncation width", ("abcdefghij", "abcdefgh..."), "src/textkit/wrapping.py", "truncate"
    ),
    Task(21, "lone punctuation", ("wait - what?",), "src/textkit/counting.py", "word_count"),
    Task(
        27, "camelCase first word", ("User Name", "UserName"), "src/textkit/cases.py", "camel_case"
    ),
    Task(29, "hyphenated words", ("a well-known fact",), "src/textkit/counting.py", "word_count"),
    # The TypeScript demo's (tskit, built with --lang ts); their answers are in _tskit.py.
    Task(35, "truncation width", ("hello wo...",), "src/strings.ts", "truncate"),
    Task(37, "accents in slugs", ("Déjà Vu", "d-j-vu"), "src/strings.ts", "slugify"),
    Task(39, "lone punctuation", ("ready, set - go!",), "src/words.ts", "wordCount"),
    Task(45, "camelCase first word", ("Order Total", "OrderTotal"), "src/cases.ts", "camelCase"),
    Task(47, "hyphenated words", ("a state-of-the-art tool",), "src/words.ts", "wordCount"),
)


def identify(prompt: str) -> Task | None:
    """The task whose keys the prompt holds; else the one whose issue number it names."""
    by_keys = [task for task in TASKS if any(key in prompt for key in task.keys)]
    if len(by_keys) == 1:
        return by_keys[0]
    if by_keys:
        return None  # ambiguous: better to do nothing than the wrong thing
    by_number = [task for task in TASKS if re.search(rf"#{task.issue}\b", prompt)]
    return by_number[0] if len(by_number) == 1 else None


class Checkout:
    """Edits to the working directory, staged in memory and written only by :meth:`save`,
    so an agent that finds something unexpected leaves the checkout untouched."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.files: dict[str, str] = {}

    def read(self, path: str) -> str:
        if path not in self.files:
            self.files[path] = (self.root / path).read_text(encoding="utf-8")
        return self.files[path]

    def exists(self, path: str) -> bool:
        return path in self.files or (self.root / path).is_file()

    def write(self, path: str, content: str) -> None:
        self.files[path] = content

    def append(self, path: str, addition: str) -> None:
        current = self.read(path) if self.exists(path) else ""
        if current and not current.endswith("\n"):
            current += "\n"
        self.files[path] = current + ("\n\n" if current else "") + addition

    def replace(self, path: str, old: str, new: str) -> None:
        current = self.read(path)
        if current.count(old) != 1:
            raise Unexpected(f"{path}: expected one occurrence of {old!r}")
        self.files[path] = current.replace(old, new)

    def replace_function(self, path: str, name: str, new: str) -> None:
        """Swap the top-level function *name* (to the next top-level line) for *new*."""
        lines = self.read(path).splitlines(keepends=True)
        starts = [i for i, line in enumerate(lines) if line.startswith(f"def {name}(")]
        if len(starts) != 1:
            raise Unexpected(f"{path}: expected one function {name}()")
        start = end = starts[0]
        end += 1
        while end < len(lines) and (not lines[end].strip() or lines[end][0] in " \t"):
            end += 1
        while end > start + 1 and not lines[end - 1].strip():
            end -= 1
        self.files[path] = "".join([*lines[:start], new.rstrip("\n") + "\n", *lines[end:]])

    def replace_ts_function(self, path: str, name: str, new: str) -> None:
        """Swap the top-level TypeScript function *name* (its one-line ``/** doc */``, then
        ``export function name(`` to its closing ``}`` at the start of a line) for *new*."""
        lines = self.read(path).splitlines(keepends=True)
        heads = (f"export function {name}(", f"export function {name}<", f"function {name}(")
        starts = [i for i, line in enumerate(lines) if line.startswith(heads)]
        if len(starts) != 1:
            raise Unexpected(f"{path}: expected one function {name}()")
        start = starts[0]
        if start and lines[start - 1].startswith("/**"):  # its one-line doc comment goes too
            start -= 1
        end = next((i for i in range(start, len(lines)) if lines[i].rstrip() == "}"), None)
        if end is None:
            raise Unexpected(f"{path}: function {name}() has no closing brace")
        self.files[path] = "".join([*lines[:start], new.rstrip("\n") + "\n", *lines[end + 1 :]])

    def insert_after(self, path: str, line_start: str, addition: str) -> None:
        """Insert *addition* after the one line of *path* that starts with *line_start*."""
        lines = self.read(path).splitlines(keepends=True)
        found = [i for i, line in enumerate(lines) if line.startswith(line_start)]
        if len(found) != 1:
            raise Unexpected(f"{path}: expected one line starting {line_start!r}")
        lines.insert(found[0] + 1, addition)
        self.files[path] = "".join(lines)

    def ensure_import(self, path: str, statement: str) -> None:
        """Add ``import x`` after the module's last top-level import, unless it is there."""
        lines = self.read(path).splitlines(keepends=True)
        if f"{statement}\n" in lines:
            return
        imports = [i for i, line in enumerate(lines) if line.startswith(("import ", "from "))]
        if imports:
            at = imports[-1] + 1
            lines.insert(at, f"{statement}\n")
        else:  # after the module docstring
            at = next((i + 1 for i, line in enumerate(lines) if line.rstrip().endswith('"""')), 0)
            lines[at:at] = ["\n", f"{statement}\n"]
        self.files[path] = "".join(lines)

    def save(self) -> list[str]:
        for path, content in self.files.items():
            target = self.root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content, encoding="utf-8")
        return sorted(self.files)


class Unexpected(Exception):
    """The checkout does not hold the code this agent knows how to change."""


Plan = Callable[[Task, Checkout], None]


def run(persona: str, plans: dict[int, Plan]) -> int:
    """Read the prompt, pick the plan for its task, apply it to the checkout, log briefly."""
    prompt = sys.stdin.read()
    task = identify(prompt)
    if task is None:
        print(f"{persona}: no scripted answer for this task; leaving the checkout as it is")
        return 0
    if task.issue not in plans:
        print(f"{persona}: issue #{task.issue} ({task.name}): no scripted answer; changing nothing")
        return 0
    print(f"{persona}: issue #{task.issue} ({task.name}), {task.function}() in {task.module}")
    checkout = Checkout(Path.cwd())
    try:
        plans[task.issue](task, checkout)
    except (OSError, Unexpected) as problem:
        print(f"{persona}: the checkout is not what I expected ({problem}); changing nothing")
        return 0
    changed = checkout.save()
    print(f"{persona}: changed {', '.join(changed) if changed else 'nothing'}")
    return 0
