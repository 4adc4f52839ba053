"""The configuration a node runner reads from a checkout, which a patch never changes.

:func:`protected` names, as repository paths or ``fnmatch`` patterns: the runner's config
files (``vitest.config.*``, ``vite.config.*``, ``vitest.workspace.*``,
``vitest.projects.*``, ``jest.config.*``), the setup files they name (``setupFiles``,
``setupFilesAfterEnv``, ``globalSetup``, ``globalTeardown``), ``package.json`` (it holds
the ``jest`` key and the scripts), ``tsconfig*.json``, babel's configuration and
``.nvmrc``.

The setup files are read from the config files' text, not by running them: a key followed
by a string or an array of strings (``setupFiles: ['./tests/setup.ts']``), and
``package.json``'s ``jest`` key as JSON. ``<rootDir>`` is the checkout. What cannot be
read that way - a value computed in code, a file named that is not in the checkout - is
said in :attr:`Setup.unread`, never guessed.
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path

#: Config files the node runners read, as patterns of repository paths.
CONFIG_PATTERNS = (
    "vitest.config.*", "vite.config.*", "vitest.workspace.*", "vitest.projects.*",
    "jest.config.*", "package.json", "tsconfig*.json", ".babelrc", ".babelrc.*",
    "babel.config.*", ".nvmrc", ".node-version",
)  # fmt: skip
#: The keys of a config that name setup files.
SETUP_KEYS = ("setupFiles", "setupFilesAfterEnv", "globalSetup", "globalTeardown")
_KEYED = re.compile(
    r"""["']?\b(?P<key>setupFilesAfterEnv|setupFiles|globalSetup|globalTeardown)\b["']?\s*:\s*"""
    r"""(?P<value>\[[^\]]*\]|'[^'\n]*'|"[^"\n]*"|`[^`\n]*`|[^,}\n]+)"""
)
#: What a setup file named without its extension may end with.
EXTENSIONS = (".ts", ".js", ".mjs", ".cjs", ".mts", ".cts")
_STRING = re.compile(r"""'([^'\n]*)'|"([^"\n]*)"|`([^`$\n]*)`""")
_CONFIGS = re.compile(r"^(vitest|vite|jest)\.(config|workspace|projects)\.[cm]?[jt]s(on)?$")


@dataclass
class Setup:
    """The setup files the configuration names (checkout paths), and what was not read."""

    files: list[str] = field(default_factory=list)
    unread: list[str] = field(default_factory=list)


def _named(value: str, config: str, key: str, setup: Setup, checkout: Path) -> None:
    strings = [next(g for g in m.groups() if g is not None) for m in _STRING.finditer(value)]
    if not strings:
        setup.unread.append(f"{config}: {key} is not a string or a list of strings")
        return
    for named in strings:
        if named.startswith("<rootDir>"):
            path = named.removeprefix("<rootDir>").lstrip("/")
        else:
            path = posixpath.join(posixpath.dirname(config), named)
        path = posixpath.normpath(path)
        if path.startswith("../") or named.startswith("/"):
            setup.unread.append(f"{config}: {key} names {named}, outside the checkout")
            continue
        found = [p for p in (path, *(path + e for e in EXTENSIONS)) if (checkout / p).is_file()]
        if found:
            setup.files.append(found[0])
        else:
            setup.unread.append(f"{config}: {key} names {named}, which is not in the checkout")


def setup_files(checkout: Path) -> Setup:
    """The setup files the configuration at the top of *checkout* names."""
    setup = Setup()
    for path in sorted(checkout.iterdir()) if checkout.is_dir() else []:
        if not (path.is_file() and _CONFIGS.match(path.name)):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in _KEYED.finditer(text):
            _named(match["value"], path.name, match["key"], setup, checkout)
    manifest = checkout / "package.json"
    if manifest.is_file():
        try:
            jest = json.loads(manifest.read_text(encoding="utf-8")).get("jest")
        except (ValueError, AttributeError):
            setup.unread.append("package.json: not a JSON object")
            jest = None
        if isinstance(jest, dict):
            for key in SETUP_KEYS:
                if key in jest:
                    _named(json.dumps(jest[key]), "package.json", f"jest.{key}", setup, checkout)
    setup.files = list(dict.fromkeys(setup.files))
    return setup


def protected(checkout: Path) -> tuple[str, ...]:
    """The config patterns and the setup files of *checkout* a patch never changes."""
    return (*CONFIG_PATTERNS, *setup_files(checkout).files)
