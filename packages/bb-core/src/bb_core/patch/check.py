"""What a patch's text alone gives away: links out of the tree, binary files and
credentials.

None of these checks runs anything. :func:`outside_links` and :func:`binary_files` decide
what scoring applies and lists; :func:`find_credentials` and :func:`redact` keep
credential-shaped text out of stored records. What the patched code itself does is read
from its syntax tree by :mod:`bb_judge.suspicion`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from bb_core.patch import MODE_LINK, FilePatch, PatchError, link_leaves_tree, parse_patch
from bb_core.patch.links import disk_links, resolves_outside
from bb_core.patch.names import shown_name

#: Names of files that carry code or data no diff shows: archives, compiled modules.
BINARY_SUFFIXES = (
    ".zip", ".whl", ".egg", ".tar", ".tgz", ".gz", ".bz2", ".xz", ".7z", ".rar", ".jar",
    ".so", ".pyd", ".dll", ".dylib", ".pyc", ".pyo", ".pyz", ".pickle", ".pkl",
)  # fmt: skip

#: Credential formats, after the published rules of gitleaks and detect-secrets.
CREDENTIALS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (what, re.compile(pattern))
    for what, pattern in (
        (
            "private key",
            r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----"
            r"[\s\S]{0,10000}?-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----"
            r"|-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----",
        ),
        ("AWS access key id", r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b"),
        ("GitHub token", r"\bgh[pousr]_[A-Za-z0-9]{36,255}\b|\bgithub_pat_[A-Za-z0-9_]{60,255}"),
        ("GitLab token", r"\bglpat-[A-Za-z0-9_-]{20,}"),
        ("Slack token", r"\bxox[abposr]-[A-Za-z0-9-]{10,250}"),
        ("Anthropic API key", r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
        (
            "OpenAI API key",
            r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}",
        ),
        ("API key", r"\bsk-[A-Za-z0-9]{32,}\b"),
        ("Google API key", r"\bAIza[0-9A-Za-z_-]{35}\b"),
        ("Stripe key", r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{24,}\b"),
        ("npm token", r"\bnpm_[A-Za-z0-9]{36}\b"),
        ("PyPI token", r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}"),
        ("Hugging Face token", r"\bhf_[A-Za-z0-9]{34,}\b"),
        ("JSON web token", r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"),
    )
)

REDACTED = "[redacted]"


def _items(patch: str) -> list[FilePatch]:
    try:
        return parse_patch(patch)
    except PatchError:
        return []


def _added(item: FilePatch) -> str:
    return "".join(text for hunk in item.hunks for op, text in hunk.lines if op == "+")


def outside_links(patch: str, root: Path | None = None) -> dict[str, str]:
    """Symlinks the patch creates (or points anew) that resolve outside the tree: by their
    text, or through the other links of the patch (and, given *root*, of the tree the
    patch goes onto), every component followed (:mod:`bb_core.patch.links`). Paths and
    targets are shown as :func:`~bb_core.patch.names.shown_name` spells them."""
    made: dict[str, str] = {}
    for item in _items(patch):
        if item.new_path is None or item.new_mode != MODE_LINK:
            continue
        data = item.binary or _added(item).rstrip("\n").encode("utf-8", "surrogateescape")
        made[item.new_path] = os.fsdecode(data)
    on_disk = disk_links(root) if root is not None else (lambda path: None)

    def read_link(path: str) -> str | None:
        return made[path] if path in made else on_disk(path)

    return {
        shown_name(path): shown_name(target)
        for path, target in made.items()
        if link_leaves_tree(path, target) or resolves_outside(path, target, read_link)
    }


def binary_files(patch: str, inside: Callable[[str], bool] = lambda path: True) -> list[str]:
    """Binary or archive files the patch adds or changes at paths *inside* accepts."""
    found = []
    for item in _items(patch):
        path = item.new_path
        if path is None or item.new_mode == MODE_LINK or not inside(path):
            continue
        if item.binary is not None or path.lower().endswith(BINARY_SUFFIXES):
            found.append(path)
    return found


def find_credentials(text: str) -> list[str]:
    """The kinds of credential-shaped text found in *text* (empty: none)."""
    return [what for what, pattern in CREDENTIALS if pattern.search(text)]


def redact(text: str, values: Iterable[str] = ()) -> str:
    """*text* with given secret *values* and every credential-shaped match replaced."""
    for value in values:
        if value and value in text:
            text = text.replace(value, REDACTED)
    for _, pattern in CREDENTIALS:
        text = pattern.sub(REDACTED, text)
    return text


def _added_lines(patch: str) -> list[str]:
    return [
        line[1:]
        for line in patch.splitlines()
        if line.startswith("+") and not line.startswith("+++ ")
    ]


def patch_credentials(patch: str, values: Iterable[str] = ()) -> list[str]:
    """What credential-shaped text the lines a patch adds hold: the given secret *values*
    (``secret``) and the kinds :data:`CREDENTIALS` knows. Context and removed lines are
    the base tree's, not the patch's doing, and are not looked at."""
    added = "\n".join(_added_lines(patch))
    found = ["secret"] if any(v and v in added for v in values) else []
    return found + find_credentials(added)


def redact_patch(patch: str, values: Iterable[str] = ()) -> str:
    """*patch* with credentials redacted from the lines it adds (so it still applies);
    a private key's every line, from its BEGIN line to its END line."""
    values = list(values)
    lines = patch.splitlines(keepends=True)
    in_key = False
    for number, line in enumerate(lines):
        if not line.startswith("+") or line.startswith("+++ "):
            in_key = False
            continue
        body = line[1:]
        # What leads the line (indentation, a comment marker) stays, so the code around
        # a redacted key still reads as it did.
        keep = re.match(r"[ \t#/*;]*", body).group()  # type: ignore[union-attr]
        end = "\n" if body.endswith("\n") else ""
        if "PRIVATE KEY" in body and "-----BEGIN" in body:
            in_key = "-----END" not in body
            lines[number] = "+" + keep + REDACTED + end
        elif in_key:
            in_key = not ("PRIVATE KEY" in body and "-----END" in body)
            lines[number] = "+" + keep + REDACTED + end
        else:
            lines[number] = "+" + redact(body, values)
    return "".join(lines)
