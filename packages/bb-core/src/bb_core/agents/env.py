"""What an agent's environment may carry: a minimal base, the user's CA certificate and
proxy settings, the agent's own credentials, and nothing else of the user's secrets;
and keeping those secrets out of what bugbout stores.

Everything here is re-exported by :mod:`bb_core.agents`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bb_core.agents.adapter import CodingAgent, Invocation, Session

# -- environment and secrets -----------------------------------------------------------

#: Variables every agent gets from the user's environment (when set).
BASE_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TZ")

#: Where a company network keeps its CA certificates: OpenSSL and Python (SSL_CERT_*),
#: Node (NODE_EXTRA_CA_CERTS), requests and LiteLLM (REQUESTS_CA_BUNDLE), curl.
CA_ENV = (
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "NODE_EXTRA_CA_CERTS",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
)
#: The user's own proxy settings. An agent bugbout holds to its egress proxy gets that
#: proxy instead (which goes on through the user's); others get these as they are.
PROXY_ENV = (
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "ALL_PROXY",
    "all_proxy",
    "NO_PROXY",
    "no_proxy",
)

#: Names that look like credentials; their values are scrubbed from what bugbout keeps.
SECRET_NAME = re.compile(
    r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|SESSION|COOKIE|PRIVATE)",
    re.IGNORECASE,
)

#: Secrets shorter than this are not scrubbed: they would match ordinary text.
MIN_SECRET_LEN = 8


def agent_environment(
    agent: CodingAgent,
    session: Session,
    invocation: Invocation,
    environ: Mapping[str, str] | None = None,
    *,
    tmpdir: Path | None = None,
) -> dict[str, str]:
    """The whole environment an agent runs with, and nothing more.

    A minimal base (PATH, locale, TERM, HOME = ``session.home``, TMPDIR), the user's CA
    certificate and proxy settings (:data:`CA_ENV`, :data:`PROXY_ENV`), the agent's own
    ``credential_env`` names taken from *environ*, then ``invocation.env`` on top (it may
    set HOME itself). Nothing else of the user's environment passes: no GITHUB_TOKEN, no
    cloud keys, no other vendor's API key.
    """
    source = os.environ if environ is None else environ
    env = {name: source[name] for name in (*BASE_ENV, *CA_ENV, *PROXY_ENV) if source.get(name)}
    env.setdefault("PATH", os.defpath)
    env.setdefault("LANG", "C.UTF-8")
    env["HOME"] = str(session.home)
    env["TMPDIR"] = str(tmpdir) if tmpdir is not None else source.get("TMPDIR", "/tmp")
    env.update(credentials(agent, source))
    env.update(invocation.env)
    return env


def ca_files(environ: Mapping[str, str] | None = None) -> list[Path]:
    """The CA certificate files and folders the user's environment names (that exist)."""
    source = os.environ if environ is None else environ
    found = []
    for name in CA_ENV:
        value = source.get(name)
        if value and os.path.exists(value) and Path(value) not in found:
            found.append(Path(value))
    return found


def credentials(agent: CodingAgent, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The agent's own credential variables that are set in *environ*."""
    source = os.environ if environ is None else environ
    return {name: source[name] for name in agent.credential_env if source.get(name)}


def secret_values(environ: Mapping[str, str] | None = None) -> list[str]:
    """Values of credential-looking variables in *environ*, longest first."""
    source = os.environ if environ is None else environ
    values = {
        value
        for name, value in source.items()
        if SECRET_NAME.search(name) and len(value) >= MIN_SECRET_LEN
    }
    return sorted(values, key=len, reverse=True)


def scrub(text: str, secrets: Iterable[str]) -> str:
    """*text* with every occurrence of the given secret values replaced by ``[redacted]``."""
    for value in secrets:
        if value and value in text:
            text = text.replace(value, "[redacted]")
    return text
