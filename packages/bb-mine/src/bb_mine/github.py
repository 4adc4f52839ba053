"""A small GitHub REST client for issue and pull request texts, cached in BUGBOUT_HOME.

The API base is ``https://api.github.com``, or ``BUGBOUT_GITHUB_API`` for GitHub
Enterprise (``https://ghe.example.com/api/v3``) and for tests against a local stand-in.
The token comes from ``GITHUB_TOKEN``, else ``gh auth token``, else none (anonymous access:
60 requests an hour). Every request has a time limit. After a rate limit or a network
failure the client stops asking for the rest of the run, so mining never waits on it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import orjson
from bb_core.records.kinds import JSONObject
from bb_core.store import cache_key, home_dir, read_json, write_json

if TYPE_CHECKING:
    import urllib.error

DEFAULT_API = "https://api.github.com"
#: Seconds one request may take, unless BUGBOUT_GITHUB_TIMEOUT says otherwise.
TIMEOUT = 10.0
#: How long a "not found" answer is trusted before asking again.
NOT_FOUND_TTL = 24 * 3600

_GITHUB_REMOTE = re.compile(
    r"^(?:https?://(?:[^@/]+@)?(?P<h1>[^/:]+)(?::\d+)?/|ssh://(?:[^@/]+@)?(?P<h2>[^/:]+)(?::\d+)?/|[^@/]+@(?P<h3>[^:/]+):)"
    r"(?P<repo>[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9_.-]+?)(?:\.git)?/?$"
)


@dataclass(frozen=True, slots=True)
class Item:
    """An issue or a pull request as GitHub returns it."""

    number: int
    title: str
    body: str
    is_pull_request: bool
    url: str
    labels: tuple[str, ...] = ()


class GitHubUnavailable(Exception):
    """GitHub cannot answer for the rest of this run (rate limit, network, refusal)."""

    def __init__(self, message: str, short: str = "unavailable") -> None:
        super().__init__(message)
        self.short = short


class NotFound(Exception):
    """The issue or pull request does not exist, or is not visible with this token."""


def timeout() -> float:
    try:
        return float(os.environ.get("BUGBOUT_GITHUB_TIMEOUT", TIMEOUT))
    except ValueError:
        return TIMEOUT


def api_base() -> str:
    return os.environ.get("BUGBOUT_GITHUB_API", DEFAULT_API).rstrip("/")


def api_host() -> str:
    base = urlsplit(api_base()).hostname or "api.github.com"
    return "github.com" if base == "api.github.com" else base


def repo_from_remote(url: str | None) -> str | None:
    """``owner/name`` when *url* is a remote on github.com (or the configured API's host)."""
    if not url:
        return None
    match = _GITHUB_REMOTE.match(url.strip())
    if not match:
        return None
    host = (match.group("h1") or match.group("h2") or match.group("h3") or "").lower()
    if host not in ("github.com", "www.github.com", api_host().lower()):
        return None
    return match.group("repo")


def find_token() -> tuple[str | None, str]:
    """A token and where it came from: GITHUB_TOKEN, the GitHub CLI's login, or none."""
    token = os.environ.get("GITHUB_TOKEN", "").strip()
    if token:
        return token, "GITHUB_TOKEN"
    gh = shutil.which("gh")
    if gh:
        try:
            done = subprocess.run(
                [gh, "auth", "token"], capture_output=True, text=True, timeout=5, check=False
            )
        except (OSError, subprocess.TimeoutExpired):
            return None, "anonymous"
        if done.returncode == 0 and done.stdout.strip():
            return done.stdout.strip(), "gh auth token"
    return None, "anonymous"


def rate_limit_message(reset: float | None, token_source: str) -> str:
    """The one warning a rate limit gets: when it resets, and how to get more requests."""
    when = ""
    if reset:
        local = datetime.fromtimestamp(reset).astimezone()
        minutes = max(0, round((reset - time.time()) / 60))
        when = f"; it resets at {local:%H:%M %Z} (in {minutes} min)"
    if token_source == "anonymous":
        advice = (
            "set GITHUB_TOKEN or log in with `gh auth login` for 5,000 requests an hour, "
            "or give an offline export with --issues"
        )
    else:
        advice = (
            f"the token from {token_source} is spent; wait, or give an offline export with --issues"
        )
    return (
        f"GitHub API rate limit reached{when}; statements fall back to commit messages ({advice})"
    )


class GitHub:
    """Reads issues and pull requests of one repository, caching answers on disk."""

    def __init__(
        self, repo: str, *, token: str | None = None, token_source: str = "anonymous"
    ) -> None:
        self.repo = repo
        self.base = api_base()
        self.token = token
        self.token_source = token_source
        self.unavailable: str | None = None
        self._short = "unavailable"
        self.requests = 0
        self._cache = home_dir("github", cache_key(self.base, repo))

    @classmethod
    def connect(cls, repo: str) -> GitHub:
        token, source = find_token()
        return cls(repo, token=token, token_source=source)

    def item(self, number: int, repo: str | None = None) -> Item:
        """Issue or pull request *number* of *repo* (default: this client's repository).

        Raises :class:`NotFound`, or :class:`GitHubUnavailable` once GitHub cannot answer.
        """
        repo = repo or self.repo
        path = self._cache / f"{cache_key(repo, number)}.json"
        cached = read_json(path)
        if isinstance(cached, dict):
            if cached.get("found"):
                return _item(cached["data"])
            fresh = time.time() - float(cached.get("at", 0)) < NOT_FOUND_TTL
            if fresh and cached.get("auth") == bool(self.token):
                raise NotFound(f"{repo}#{number}")
        if self.unavailable:
            raise GitHubUnavailable(self.unavailable, self._short)
        try:
            data = self._get(f"/repos/{repo}/issues/{number}")
        except NotFound:
            write_json(path, {"found": False, "at": time.time(), "auth": bool(self.token)})
            raise
        write_json(path, {"found": True, "at": time.time(), "data": _slim(data)})
        return _item(data)

    def _get(self, path: str) -> JSONObject:
        import urllib.error  # imported here: a run with an export never needs HTTP
        import urllib.request

        request = urllib.request.Request(self.base + path)
        request.add_header("Accept", "application/vnd.github+json")
        request.add_header("X-GitHub-Api-Version", "2022-11-28")
        request.add_header("User-Agent", "bugbout")
        if self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        self.requests += 1
        try:
            with urllib.request.urlopen(request, timeout=timeout()) as response:
                payload = response.read()
        except urllib.error.HTTPError as exc:
            self._refused(exc)
            raise AssertionError("unreachable") from exc
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            self._short = "no answer"
            self.unavailable = f"GitHub API at {self.base} did not answer ({reason}); statements fall back to commit messages"
            raise GitHubUnavailable(self.unavailable, self._short) from exc
        try:
            data = orjson.loads(payload)
        except orjson.JSONDecodeError as exc:
            self._short = "bad answer"
            self.unavailable = f"GitHub API at {self.base} sent something that is not JSON"
            raise GitHubUnavailable(self.unavailable, self._short) from exc
        if not isinstance(data, dict):
            raise NotFound(path)
        return data

    def _refused(self, exc: urllib.error.HTTPError) -> None:
        headers = exc.headers
        if exc.code in (404, 410):
            raise NotFound(exc.url) from exc
        remaining = headers.get("X-RateLimit-Remaining") if headers else None
        retry_after = headers.get("Retry-After") if headers else None
        if exc.code == 429 or (exc.code == 403 and (remaining == "0" or retry_after)):
            reset: float | None = None
            if headers and headers.get("X-RateLimit-Reset"):
                try:
                    reset = float(headers["X-RateLimit-Reset"])
                except ValueError:
                    reset = None
            if reset is None and retry_after:
                try:
                    reset = time.time() + float(retry_after)
                except ValueError:
                    reset = None
            self._short = "rate limited"
            self.unavailable = rate_limit_message(reset, self.token_source)
            raise GitHubUnavailable(self.unavailable, self._short) from exc
        self._short = f"HTTP {exc.code}"
        if exc.code == 401:
            self.unavailable = (
                f"GitHub refused the token from {self.token_source} (401 Unauthorized); "
                "statements fall back to commit messages"
            )
        else:
            self.unavailable = f"GitHub API answered {exc.code} {exc.reason}; statements fall back to commit messages"
        raise GitHubUnavailable(self.unavailable, self._short) from exc


def _slim(data: JSONObject) -> JSONObject:
    return {
        "number": data.get("number"),
        "title": data.get("title") or "",
        "body": data.get("body") or "",
        "pull_request": bool(data.get("pull_request")),
        "html_url": data.get("html_url") or "",
    }


def _item(data: JSONObject) -> Item:
    return Item(
        number=int(data.get("number") or 0),
        title=str(data.get("title") or ""),
        body=str(data.get("body") or ""),
        is_pull_request=bool(data.get("pull_request")),
        url=str(data.get("html_url") or ""),
        labels=label_names(data.get("labels")),
    )


def label_names(value: Any) -> tuple[str, ...]:
    """The names of GitHub's ``labels`` (objects with a ``name``, or plain strings)."""
    if not isinstance(value, list):
        return ()
    names = [item.get("name") if isinstance(item, dict) else item for item in value]
    return tuple(str(n) for n in names if isinstance(n, str) and n)
