"""The rules that tell a command reaching for the answer, whatever its spelling.

A command line is read as written and *unveiled*: shell quotes that split a word
(``g""it``), ``$(printf git)`` and backquoted ``echo``, ``$'\\x67it'``, variables set
earlier in the same line (``G=git; $G log``), Python string sums and joins (``'g' +
'it'``, ``"".join(["g", "it"])``, ``chr(103)``) and base64 or hex blobs that decode to
text are all put back together before the rules look. Then:

- ``git-history``: ``git log``/``show``/``blame``/``reflog``/``rev-list``/``cat-file``
  and their kin, ``git diff``/``checkout``/``restore``/``reset`` of a revision, a ``.git``
  folder read, and git libraries (``pygit2``, ``dulwich``, GitPython);
- ``own-package``: an installer (pip, uv, pipx, poetry, pdm, conda ...) downloading or
  installing the project's own distribution by name, the package index's page for it,
  or an installer's answer naming it;
- ``network``: a network tool (curl, wget, nc, ssh, ...), ``git clone``/``fetch``/
  ``pull``, a network API of Python or Node given a URL, or a resolver's or the egress
  proxy's refusal naming a host;
- ``outside-read``: a path in another home, the user's secrets (``~/.ssh``, ``~/.aws``
  ...), bugbout's records, another attempt's folder, the cache, or another process's
  ``/proc`` entries (the judging of paths is :mod:`bb_race.tried`'s).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable

#: Words of a line, to skip the rules that cannot match it.
WORDS = re.compile(r"[a-z0-9_.+-]+")
#: Words without which no network rule matches.
NETWORK_WORDS = frozenset(
    [
        "curl",
        "wget",
        "aria2c",
        "lynx",
        "w3m",
        "nc",
        "ncat",
        "netcat",
        "telnet",
        "ssh",
        "scp",
        "sftp",
        "rsync",
        "ftp",
        "socat",
        "git",
    ]
)
#: Word separators once quotes are gone: spaces, list and call punctuation.
SEP = r"[\s,\[\](){};|&=]+"

_ANSI_C = re.compile(r"\$'((?:[^'\\]|\\.)*)'")
_SUBST = re.compile(
    r"\$\(\s*(?:printf|echo)(?:\s+-[neE]+)*\s+([^()]*)\)|`\s*(?:printf|echo)(?:\s+-[neE]+)*\s+([^`]*)`"
)
_ASSIGN = re.compile(r"(?:^|[;&|\s])([A-Za-z_]\w*)=(\"[^\"]*\"|'[^']*'|[^\s;&|]*)")
_VAR = re.compile(r"\$\{?([A-Za-z_]\w*)\}?")
_PLUS = re.compile(r"(['\"])\s*\+\s*(['\"])")
_JOIN = re.compile(r"(['\"])\1\s*\.\s*join\s*\(\s*[\[(]([^\])]*)[\])]\s*\)")
_CHR = re.compile(r"chr\s*\(\s*(\d{2,3})\s*\)")
_BLOB = re.compile(r"[A-Za-z0-9+/]{8,}={0,2}")
_HEX = re.compile(r"(?:fromhex|unhexlify)\s*\(\s*['\"]?([0-9a-fA-F]{6,})")
#: What turns a blob back into text: without one of these, blobs are left alone.
_DECODERS = re.compile(r"base64|b64|base32|b32|hex|decode|openssl|xxd", re.IGNORECASE)
_ESCAPES = re.compile(r"\\x([0-9a-fA-F]{2})|\\([0-7]{3})")


def _escapes(text: str) -> str:
    return _ESCAPES.sub(
        lambda m: chr(int(m.group(1), 16)) if m.group(1) else chr(int(m.group(2), 8)), text
    )


def _printf(args: str) -> str:
    """What ``printf ARGS`` or ``echo ARGS`` prints, for literal arguments."""
    words = [w.strip("'\"") for w in args.split()]
    if words and "%" in words[0]:
        words = words[1:]
    return _escapes(" ".join(words))


def _decoded(text: str) -> list[str]:
    """Text that base64 or hex blobs in *text* decode to (printable only)."""
    found = []
    for blob in _BLOB.findall(text)[:50]:
        try:
            raw = base64.b64decode(blob + "=" * (-len(blob) % 4), validate=True)
        except (binascii.Error, ValueError):
            continue
        if raw and all(32 <= b < 127 or b in (9, 10, 13) for b in raw):
            found.append(raw.decode("ascii"))
    for blob in _HEX.findall(text)[:50]:
        try:
            raw = bytes.fromhex(blob[: len(blob) // 2 * 2])
        except ValueError:
            continue
        if all(32 <= b < 127 or b in (9, 10, 13) for b in raw):
            found.append(raw.decode("ascii"))
    return found


def unveil(text: str) -> str:
    """*text* with its disguises taken off (see the module's docstring), quotes dropped;
    decoded blobs are appended, one a line."""
    out = _ANSI_C.sub(lambda m: _escapes(m.group(1)), text)
    out = _SUBST.sub(lambda m: _printf(m.group(1) or m.group(2) or ""), out)
    names = {m.group(1): m.group(2).strip("'\"") for m in _ASSIGN.finditer(out)}
    if names:
        out = _VAR.sub(lambda m: names.get(m.group(1), m.group(0)), out)
    out = _JOIN.sub(
        lambda m: "'" + "".join(re.findall(r"['\"]([^'\"]*)['\"]", m.group(2))) + "'", out
    )
    out = _CHR.sub(
        lambda m: "'" + chr(int(m.group(1))) + "'" if int(m.group(1)) < 128 else m.group(0), out
    )
    for _ in range(8):
        joined = _PLUS.sub("", out)
        if joined == out:
            break
        out = joined
    out = out.replace("''", "").replace('""', "")
    out = re.sub(r"['\"`\\]", "", out)
    if not _DECODERS.search(text):
        return out
    return "\n".join([out, *_decoded(text)])


# -- git history ---------------------------------------------------------------------------

_GIT = r"(?<![\w./-])git(?:\.exe)?"
_GIT_OPTS = rf"(?:{SEP}(?:-C{SEP}\S+|-c{SEP}\S+|--git-dir\S*|--work-tree\S*|--no-pager|-P|--bare))*"
_ALWAYS = (
    r"log|show|blame|annotate|reflog|rev-list|cat-file|ls-tree|whatchanged|shortlog|bisect|"
    r"fsck|for-each-ref|describe|name-rev|show-ref|show-branch|format-patch|archive|notes|"
    r"branch|tag|unpack-objects|verify-pack|count-objects|log-tree"
)
_REV = r"(?:HEAD|ORIG_HEAD|FETCH_HEAD|@\{|[0-9a-f]{7,40}\b|\S+\.\.\.?|origin/|upstream/|--all\b|--source)"
_WITH_REV = (
    r"diff|checkout|restore|reset|switch|difftool|grep|rev-parse|stash|merge-base|range-diff"
)
GIT_HISTORY = re.compile(
    rf"{_GIT}{_GIT_OPTS}{SEP}(?:(?:{_ALWAYS})(?![\w-])|(?:{_WITH_REV})(?![\w-])[^;&|\n]*?{_REV})"
    r"|(?<!directories\): )(?<![\w.-])\.git(?=/|[\s'\",;)\]]|$)"
    r"|\b(?:pygit2|dulwich|GitPython)\b|\bfrom\s+git\s+import\b|\bimport\s+git\b(?!\w)|\bgit\.Repo\b",
    re.IGNORECASE,
)

# -- network -------------------------------------------------------------------------------

_TOOLS = r"curl|wget|aria2c|lynx|w3m|nc|ncat|netcat|telnet|ssh|scp|sftp|rsync|ftp|socat"
NETWORK_TOOL = re.compile(
    rf"(?:^|(?<=[\s;&|(`$]))(?:{_TOOLS})(?=\s+[-\w'\"$/:.@])"
    rf"|{_GIT}{_GIT_OPTS}{SEP}(?:clone|fetch|pull|ls-remote|remote{SEP}add|submodule{SEP}update)(?![\w-])",
    re.MULTILINE,
)
_URL = r"(?:https?|ftp|wss?)://[^\s'\"<>]+"
NETWORK_API = re.compile(
    r"\b(?:requests|httpx|urllib3?|aiohttp|http\.client|urllib\.request|urlopen|socket|"
    r"fetch|XMLHttpRequest|https?\.get|net\.connect|WebClient|Invoke-WebRequest)\b"
)
URL = re.compile(_URL)
#: What a resolver, a client or the egress proxy says when a host is out of reach.
NETWORK_REFUSED = re.compile(
    r"Could not resolve host:?\s*(?P<a>[\w.-]+)|Failed to resolve '(?P<b>[^']+)'"
    r"|getaddrinfo (?:ENOTFOUND|EAI_AGAIN) (?P<c>[\w.-]+)"
    r"|bugbout: (?P<d>\S+) is out of reach from this sandbox"
    r"|Temporary failure in name resolution|Network is unreachable|Name or service not known"
)

# -- the project's own package --------------------------------------------------------------

_INSTALLERS = (
    r"pip3?|uv|pipx|poetry|pdm|conda|mamba|micromamba|easy_install|hatch|rye|pipenv|pip\.main"
)
_INSTALL_VERBS = r"download|install|add|wheel|fetch|sync|inject"


def package_pattern(names: Iterable[str]) -> re.Pattern[str] | None:
    """The rule for reaching for one of *names* (the project's distribution and import
    names; ``-``, ``_`` and ``.`` alike, any case); None without names."""
    words = []
    for name in dict.fromkeys(n for n in names if n and len(n) > 1):
        parts = [re.escape(p) for p in re.split(r"[-_.]+", name) if p]
        if parts:
            words.append("[-_.]".join(parts))
    if not words:
        return None
    either = f"(?:{'|'.join(words)})"
    bare = rf"{either}(?![\w-])"
    name = rf"(?<![\w./-]){either}(?![\w/-])"
    return re.compile(
        rf"\b(?:{_INSTALLERS})\b[^;&|\n]*?\b(?:{_INSTALL_VERBS})\b[^;&|\n]*?{name}"
        rf"|--with{SEP}{name}"
        rf"|pypi\.org/(?:simple|pypi|project)/{bare}"
        rf"|pythonhosted\.org/\S*?/{either}[-_]"
        rf"|/simple/{bare}"
        rf"|(?:requirement|distribution found for|Collecting|Downloading)\s+{name}"
        rf"|Because\s+{name}\s+was\s+not\s+found"
        rf"|{name}\s+was\s+not\s+found\s+in\s+the\s+package\s+registry",
        re.IGNORECASE,
    )


# -- reads outside the checkout --------------------------------------------------------------

#: Secrets and state in a home folder, named through ``~`` or ``$HOME``.
HOME_SECRETS = re.compile(
    r"(?:~[\w-]*|\$\{?HOME\}?)/+\.(?:ssh|aws|azure|netrc|pypirc|git-credentials|gitconfig|"
    r"config|docker|kube|gnupg|cache|bugbout|codex|claude|gemini|npmrc|\w*_history)\b"
)
#: Kernel views of other processes and of the host's mounts.
PROC = re.compile(r"/proc/(?:1|\d{2,}|self)/(?:mountinfo|mounts|cmdline|environ|root|cwd|fd)\b")
#: bugbout's own records and configuration.
RECORDS = re.compile(
    r"(?<![\w-])\.bugbout(?:/|\b)|(?<![\w-])bugbout\.toml\b|\btasks\.jsonl\b|\boracles?\.jsonl\b"
    r"|\bBUGBOUT_HOME\b"
)
#: Absolute paths (and ``~`` paths) in a command line.
PATHS = re.compile(r"(?<![\w.:/~-])(?:~[\w-]*)?/[^\s'\"`;|&<>(){},=]+")
#: Folders that are somebody's home.
HOMES = re.compile(r"^(?:/root|/home/[^/]+|/Users/[^/]+|/var/root)(?:/|$)")

#: What a refused or failed attempt prints: it got nothing.
REFUSED = re.compile(
    r"not a git repository|No such file or directory|Permission denied|Operation not permitted"
    r"|Read-only file system|Could not resolve host|Failed to resolve|name resolution"
    r"|Name or service not known|Network is unreachable|Connection refused|out of reach from this"
    r"|403 Forbidden|response 403|Couldn't connect|Failed to connect|No module named"
    r"|command not found|not found in the package registry"
    r"|No matching distribution|Could not find a version|cannot access|does not exist"
    r"|ENOENT|EACCES|EAI_AGAIN|ENOTFOUND|ECONNREFUSED|\[Errno -?(?:1|2|3|13|101|111)\]"
    r"|unknown revision|bad revision|fatal: ",
    re.IGNORECASE,
)

#: Each kind's refusals, as a log shows them wherever its output went (a command agent's
#: commands on stdout, their errors on stderr).
KIND_REFUSED = {
    "git-history": re.compile(r"not a git repository|unknown revision|bad revision"),
    "own-package": re.compile(
        r"No matching distribution|Could not find a version|not found in the package registry"
        r"|No module named pip|name resolution|Could not resolve|Network is unreachable"
        r"|Failed to establish a new connection|out of reach from this"
    ),
    "network": re.compile(
        r"Could not resolve host|Failed to resolve|name resolution|Name or service not known"
        r"|Network is unreachable|Connection refused|out of reach from this|response 403"
        r"|403 Forbidden|Couldn't connect|Failed to connect|ENOTFOUND|EAI_AGAIN|ECONNREFUSED"
    ),
    "outside-read": re.compile(
        r"No such file or directory|Permission denied|Operation not permitted|cannot access"
        r"|cannot open"
    ),
}

#: Pieces of text without which :data:`REFUSED` cannot match (lower case).
REFUSAL_HINTS = (
    "not ", "no ", "denied", "refused", "read-only", "resol", "unreachable", "403", "out of reach",
    "connect", "errno", "eno", "eac", "eai_", "fatal", "cannot", "does not", "unknown",
    "bad revision", "module named", "permitted",
)  # fmt: skip


def refused(text: str) -> bool:
    """Whether *text* (a command's output, a log line) says it was refused."""
    low = text.lower()
    return any(hint in low for hint in REFUSAL_HINTS) and bool(REFUSED.search(text))


#: Commands that run a script file: the interpreter (or ``./``) and the path.
RUNS_SCRIPT = re.compile(
    r"(?:^|[\s;&|(])(?:\S*/)?(?:python[\d.]*|bash|sh|zsh|dash|node|perl|ruby|source|\.)"
    r"(?:\s+-[\w-]+)*\s+([^\s;&|<>'\"-][^\s;&|<>'\"]*)"
    r"|(?:^|[\s;&|(])(\./[^\s;&|<>'\"]+)"
)
