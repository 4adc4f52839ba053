"""Turn a repository's first-parent history into task, skip and summary records.

Each landed change is judged by the rules in order, cheapest first, and the first rule it
fails is its skip reason:

0. ``excluded``: ``[tasks] exclude`` names it (``[tasks] include`` passes rules 1, 2, 4b,
   6 and 7 instead);
1. ``not-a-fix``: nothing says it is a fix: not its title, no closing keyword in its
   message, not the name of the branch it merged, no bug label on an issue it names (with
   an export or GitHub; unless ``require_fix_signal`` is off);
2. ``no-issue-reference``: it names no issue or pull request;
3. ``no-parent``: it is the first commit, with nothing before it to start from;
4. ``no-source-change`` / ``too-many-source-files``: it changes no Python module under the
   package (as the package's folder was at that commit), or more than ``max_source_files``
   of them (stubs, docs and data do not count; they are listed in the task);
5. ``unreadable``: a changed test module is not valid Python on either side;
6. ``no-test-added``: it adds no test id to a test module (and, with ``new_tests =
   "changed"``, changes no existing test either);
7. ``category``: its category (bug, feature, unknown) is not among ``categories``;
8. ``no-statement``: no text - issue, pull request, commit message or title - keeps
   enough once what reveals the fix is redacted (see :func:`bb_mine.statements.choose`);
9. ``duplicate-issue``: a newer task already names the same issue.

Rules 1-2 read only the commit message; only what passes them has its source and test
subtrees compared (on every core when there are many, see :mod:`bb_mine.fanout`), and only
a task has its source modules parsed for the names its statement must not mention.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any, cast

from bb_core.cli.progress import Progress
from bb_core.errors import GitError, UsageError
from bb_core.git import Repo, open_repo
from bb_core.records.kinds import MineSkipReason, Skip, Summary, Task, as_summary
from bb_core.records.schemas import VERSION
from bb_core.store import cache_key

from bb_mine.areas import Areas
from bb_mine.cache import Entry, History, MiningCache
from bb_mine.facts import FactFinder, Layout, needs_trees
from bb_mine.fanout import Examined, TreeReader, default_jobs, fewer_collections
from bb_mine.github import GitHub
from bb_mine.node_facts import is_node
from bb_mine.options import NEW_TESTS, REASONS, MineSettings
from bb_mine.repository import github_repo, guess_source, identity, normal_folder
from bb_mine.statements import IssueExport, StatementFinder
from bb_mine.task_record import TaskMaker, commit_only_warning, key_text
from bb_mine.verdicts import Rules, Verdict

#: What a mining run writes: its task and skip records, then one summary.
MinedRecord = Task | Skip | Summary

#: Bumped whenever what a statement keeps changes, so a replayed run is not stale.
STATEMENT_RULES = 5

__all__ = ["REASONS", "MineSettings", "Miner", "guess_source", "mine"]


def mine(
    location: str | Path,
    options: MineSettings,
    *,
    warn: Callable[[str], None] = lambda message: None,
    progress: Progress | None = None,
) -> Generator[MinedRecord, None, None]:
    """Task and skip records, newest first, then one summary record.

    Bad input (not a repository, unknown branch, missing package folder, unreadable
    issues file) raises before any record is produced. Closing the generator before the
    end releases the repository and any worker processes at once.
    """
    export = IssueExport.load(options.issues) if options.issues is not None else None
    with open_repo(location, refresh=True) as repo, fewer_collections():
        miner = Miner(repo, options, export, warn, progress)
        found = 0
        for record in miner.run():
            found += record.get("kind") == "task"
            yield record
        # A tests folder named on purpose that is not there is a mistake even when test
        # modules elsewhere made tasks; the default one missing matters when nothing came.
        if not found or options.tests.strip("/") != "tests":
            miner.check_tests_folder()


class Miner:
    def __init__(
        self,
        repo: Repo,
        options: MineSettings,
        export: IssueExport | None,
        warn: Callable[[str], None],
        progress: Progress | None,
    ) -> None:
        self.repo = repo
        self.options = options
        self.warn = warn
        shown = progress is not None and (progress.enabled or progress.lines)
        self.progress = progress if shown else None
        if repo.is_empty():
            raise GitError(f"{repo.location}: empty repository (no commits yet)")
        self.branch = options.branch or repo.default_branch()
        self.head = repo.branch_head(self.branch)
        given = (options.source,) if isinstance(options.source, str) else options.source
        self.sources = (
            tuple(normal_folder(s) for s in given)
            if given
            else (guess_source(repo, self.head, node=is_node(options.language)),)
        )
        self.source = ", ".join(s or "." for s in self.sources)  # for summaries and messages
        self.tests = normal_folder(options.tests)
        for folder in self.sources:
            if folder and not repo.exists(self.head, folder):
                raise UsageError(
                    f"{options.setting('source')}: {folder!r} is not in the tree at the tip of "
                    f"{self.branch} "
                    f"({self.head[:10]}); give the package directory, e.g. src/mypkg, "
                    "or . for the whole tree"
                )
        if options.tests_rule not in NEW_TESTS:
            raise UsageError(
                f"tasks.new-tests: expected one of {', '.join(NEW_TESTS)}, "
                f"got {options.tests_rule!r}"
            )
        self.github_repo = options.github or github_repo(repo)
        github = GitHub.connect(self.github_repo) if export is None and self.github_repo else None
        self.finder = StatementFinder(export=export, github=github, warn=warn)
        self.layout = Layout(
            self.sources,
            self.tests,
            self.github_repo,
            options.test_files,
            options.require_fix_signal,
            # A bug label alone may make a fix: only where labels can be read, and with an
            # export only when one of its items has one (then the walk reads the references
            # of every change that names an issue).
            labels=github is not None or (export is not None and export.has_bug_labels),
            names_up_to=options.max_source_files,
            language=options.language,
            runner=options.runner,
        )
        self.cache = MiningCache(
            identity(repo), self.branch, *self.layout.key(), (self.github_repo or "").lower()
        )
        self.repository = identity(repo)
        self.fact_finder = FactFinder(repo, self.layout)
        self.rules = Rules(options, self.source, repo.name)
        # With an export or GitHub, the linked issue's labels decide the category.
        self.rules.labels = export is not None or github is not None
        self.maker = TaskMaker(
            repo,
            options,
            self.finder,
            self.rules,
            self.cache,
            repository=self.repository,
            source=self.source,
            tests=self.tests,
        )

        self._reached_since = False  # the walk met a change older than --since

    def check_tests_folder(self) -> None:
        """A test folder that is not there at the tip is most likely misnamed, which turns
        fixes into no-test-added (or leaves test modules to be found by name alone); say so.
        A node project's tests sit beside its code: only a folder it names is checked."""
        if self.repo.is_dir(self.head, self.tests) or (
            is_node(self.options.language) and self.tests == "tests"
        ):
            return
        here = [
            name
            for name in self.repo.subfolders(self.head)
            if name.lower().startswith("test") or name.lower() == "spec"
        ]
        found = (
            f"folders at the tip that look like tests: {', '.join(here)}"
            if here
            else ("no folder at the tip looks like tests")
        )
        raise UsageError(
            f"{self.options.setting('tests')}: {self.tests!r} is not a folder at the tip of "
            f"{self.branch} ({self.head[:10]}) and no fix added a test under it, so no task "
            f"was mined; {found}"
        )

    # -- the walk -------------------------------------------------------------------------

    def run(self) -> Iterator[MinedRecord]:
        """Replay the last identical run from the cache, else mine (and remember the result)."""
        started = time.monotonic()
        if not self.options.use_cache:
            for record in self._mine(started):
                if record["kind"] == "summary":
                    self._warn_commit_only(record)
                yield record
            return
        key = self._replay_key()
        replay = self.cache.replay(key)
        if replay is not None:
            *records, last = replay
            summary = as_summary(last)
            yield from cast("list[MinedRecord]", records)
            self._warn_commit_only(summary)
            yield summary | {"elapsed": round(time.monotonic() - started, 3)}
            return
        produced: list[MinedRecord] = []
        for record in self._mine(started):
            produced.append(record)
            if record["kind"] == "summary":
                self._warn_commit_only(record)
            yield record
        if not self.finder.degraded:  # a run that lost GitHub half-way is not worth replaying
            self.cache.remember_replay(key, produced)

    def _warn_commit_only(self, summary: Summary) -> None:
        """Say once when no statement came from an issue: agents then read only what was
        written with the fix in hand."""
        sources = summary.get("statement_sources") or {}
        if sources and set(sources) == {"commit"} and not self.finder.degraded:
            self.warn(commit_only_warning(self.finder.export is not None, self.github_repo))

    def _replay_key(self) -> str:
        opts = self.options
        export = self.finder.export
        return cache_key(
            self.head,
            opts.since.isoformat() if opts.since else None,
            opts.limit,
            opts.max_source_files,
            opts.statement_min_sentences,
            STATEMENT_RULES,
            opts.tests_rule,
            opts.categories,
            opts.include,
            opts.exclude,
            opts.explain,
            export.fingerprint if export is not None else None,
            self.finder.github.repo if self.finder.github is not None else None,
        )

    def _mine(self, started: float) -> Iterator[MinedRecord]:
        opts = self.options
        since = opts.since.timestamp() if opts.since else None
        counts: dict[str, int] = dict.fromkeys(REASONS, 0)
        examined = candidates = tasks = 0
        stopped = "end"
        sources: dict[str, int] = {}
        areas = Areas(self.sources, node=is_node(opts.language))
        claimed: dict[tuple[str, int], str] = {}
        history = History(self.repo, self.head, self.cache) if opts.use_cache else None
        walk = iter(history) if history is not None else self._plain_walk()
        reader = TreeReader(self.fact_finder, self.repo.path, opts.jobs or default_jobs())
        examining = reader.complete(self._examine(walk, since))
        try:
            for item in examining:
                entry, facts = item.entry, item.facts
                examined += 1
                if opts.use_cache and not item.cached:
                    self.cache.remember(entry.sha, facts)
                judged = facts | {"fix": True} if item.by_label else facts
                if facts["fix"] or item.by_label == "export":
                    candidates += 1
                if judged.get("fix") and judged.get("source_files"):
                    areas.saw_fix(judged["source_files"])
                reason: Verdict = self._judge(entry.sha, judged)
                if reason is not None and item.by_label == "github":
                    reason = _unlabelled(reason)  # its labels were never read: not a fix
                if reason is None:
                    made, keys = self.maker.task(entry.sha, judged, by_label=item.by_label)
                    not_a_fix = isinstance(made, tuple) and made[0] == "not-a-fix"
                    if item.by_label == "github" and not not_a_fix:
                        candidates += 1
                    taken = [k for k in keys if k in claimed]
                    if isinstance(made, tuple):
                        reason = made
                    elif taken:
                        reason = (
                            "duplicate-issue",
                            f"names the same issue as the newer task {claimed[taken[0]]}",
                            {"duplicate_of": claimed[taken[0]], "issue": key_text(taken[0])},
                        )
                    else:
                        claimed.update(dict.fromkeys(keys, made["id"]))
                        tasks += 1
                        sources[made["statement_source"]] = (
                            sources.get(made["statement_source"], 0) + 1
                        )
                        yield made.copy()
                if reason is not None:
                    code, message, detail = reason
                    counts[code] += 1
                    if code not in ("not-a-fix",) or opts.explain:
                        yield self.maker.skip(entry.sha, facts, code, message, detail).copy()
                if self.progress is not None and (examined % 25 == 0 or reason is None):
                    self.progress.update(
                        advance=examined - self.progress.done, current=f"commits, {tasks} tasks"
                    )
                if opts.limit and tasks >= opts.limit:
                    stopped = "limit"
                    break
            else:
                stopped = "since" if self._reached_since else "end"
        finally:
            examining.close()  # stops the walk's workers, if it had any
            if history is not None:
                history.store()
                self.cache.save()
            if self.progress is not None:
                self.progress.close()
        yield _summary_clean(
            {
                "kind": "summary",
                "v": VERSION,
                "repository": self.repository,
                "branch": self.branch,
                "head": self.head,
                "source": self.source,
                "tests": self.tests,
                "examined": examined,
                "candidates": candidates,
                "tasks": tasks,
                "skipped": {code: n for code, n in counts.items() if n},
                "statement_sources": sources,
                "areas": areas.summary(self.repo, self.head) or None,
                "stopped": stopped,
                "since": opts.since.isoformat() if opts.since else None,
                "limit": opts.limit,
                "elapsed": round(time.monotonic() - started, 3),
            }
        )

    def _plain_walk(self) -> Iterator[Entry]:
        for commit in self.repo.first_parent(self.head):
            yield Entry(
                commit.sha,
                commit.parents[0] if commit.parents else None,
                commit.timestamp,
                commit,
            )

    # -- what a commit says about itself (cached) -----------------------------------------

    def _examine(self, walk: Iterator[Entry], since: float | None) -> Iterator[Examined]:
        """The walk down to *since*, each commit with its cached facts, else its message's
        (the candidates' tree facts are then read by the :class:`TreeReader`)."""
        for entry in walk:
            if since is not None and entry.timestamp < since:
                self._reached_since = True
                return
            cached = self.cache.facts.get(entry.sha) if self.options.use_cache else None
            force = self.picked(entry.sha, self.options.include)
            if cached is not None and not (force and _unread(cached)):
                facts = cached
            else:
                commit = entry.commit or self.repo.commit(entry.sha)
                facts = self.fact_finder.message_facts(commit, force=force)
                cached = None
            by_label = "" if facts["fix"] or force else self.by_label(facts)
            pending = needs_trees(facts) and (facts["fix"] or force or bool(by_label))
            # Cached facts whose trees are read now are remembered again, complete.
            yield Examined(entry, facts, cached=cached is not None and not pending,
                           pending=pending, by_label=by_label)  # fmt: skip

    def by_label(self, facts: dict[str, Any]) -> str:
        """Whether a change with no other fix signal may be a fix by its linked issues'
        labels: ``"export"`` (the export shows a bug label), ``"github"`` (GitHub is asked
        once the change passes every other rule) or ``""``."""
        if not self.layout.labels or "parent" not in facts or not facts.get("refs"):
            return ""
        found = self.finder.bug_labelled(facts["refs"])
        return "export" if found else "github" if found is None else ""

    def picked(self, sha: str, picks: tuple[str, ...]) -> bool:
        return self.rules.picked(sha, picks)

    def verdicts(self, sha: str, facts: dict[str, Any]) -> Iterator[tuple[str, Verdict]]:
        return self.rules.verdicts(sha, facts)

    def _judge(self, sha: str, facts: dict[str, Any]) -> Verdict:
        """The first rule *facts* fail: (code, sentence, detail), or None for a task."""
        return self.rules.first_failure(sha, facts)


def _unread(facts: dict[str, Any]) -> bool:
    """Cached facts that stopped at the message rules (an included commit needs its trees)."""
    return "parent" not in facts and not facts.get("root")


def _unlabelled(reason: tuple[MineSkipReason, str, dict[str, Any]]) -> Verdict:
    """The verdict on a change whose only possible fix signal, its linked issues' labels on
    GitHub, was not looked up because another rule leaves it out anyway."""
    return (
        "not-a-fix",
        f"nothing says the change is a fix (its labels on GitHub were not read: {reason[1]})",
        {},
    )


def _summary_clean(record: dict[str, Any]) -> Summary:
    return cast(Summary, {k: v for k, v in record.items() if v is not None})
