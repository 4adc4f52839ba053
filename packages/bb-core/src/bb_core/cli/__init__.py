"""What every bugbout command line shares: options spelled once, and one error policy.

Library code raises :class:`~bb_core.errors.BbError`; :class:`BbCommand` and
:class:`BbGroup` turn it into ``<prog>: <message>`` on stderr and the error's exit
status (2 for usage and bad input, 1 for a failure while working). ``--debug`` shows the
traceback. A consumer closing the pipe early ends the command quietly.
"""

from __future__ import annotations

import errno
import os
import signal
import sys
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from types import FrameType
from typing import TYPE_CHECKING, Any, TypeVar

import click

from bb_core.cli.progress import Progress
from bb_core.errors import BbError
from bb_core.records.kinds import SANDBOX_KINDS

if TYPE_CHECKING:
    from bb_core.config import Config
    from bb_core.executors.units import Executor, ExecutorSettings

F = TypeVar("F", bound=Callable[..., Any])


def _run_guarded(ctx: click.Context, call: Callable[[], Any]) -> Any:
    try:
        return call()
    except BbError as exc:
        if _debug_requested(ctx):
            traceback.print_exc()
        click.echo(f"{_prog(ctx)}: {exc}", err=True)
        ctx.exit(exc.exit_code)
    except BrokenPipeError:
        _silence_stdout()
        ctx.exit(0)
    except OSError as exc:
        if exc.errno not in FILE_ERRORS:
            raise
        if _debug_requested(ctx):
            traceback.print_exc()
        click.echo(f"{_prog(ctx)}: {file_error(exc)}", err=True)
        ctx.exit(1)
    except KeyboardInterrupt:
        click.echo(f"{_prog(ctx)}: interrupted; finished work is kept", err=True)
        ctx.exit(130)


#: Errors of the file system that are the machine's state, not a bug: one line, exit 1.
WRITE_ERRORS = frozenset({errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
FILE_ERRORS = WRITE_ERRORS | {errno.EACCES, errno.EPERM}


def file_error(exc: OSError) -> str:
    """``cannot write /p/.bugbout/run.json: Read-only file system; finished work is kept``."""
    path = exc.filename if exc.filename is not None else "a file"
    cause = exc.strerror or str(exc)
    verb = "cannot write" if exc.errno in WRITE_ERRORS else "cannot use"
    where = f"{path} (and {exc.filename2})" if exc.filename2 else str(path)
    return f"{verb} {where}: {cause}; finished work is kept, run again once it is fixed"


def _prog(ctx: click.Context) -> str:
    return ctx.find_root().info_name or "bugbout"


def _debug_requested(ctx: click.Context) -> bool:
    node: click.Context | None = ctx
    while node is not None:
        if node.params.get("debug"):
            return True
        node = node.parent
    return bool(os.environ.get("BUGBOUT_DEBUG"))


def _silence_stdout() -> None:
    # Python flushes stdout at exit; with the reader gone that would raise again.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


#: ``-h`` as well as ``--help``, for every command and group.
HELP_OPTIONS: dict[str, Any] = {"help_option_names": ["-h", "--help"]}


def _with_help(kwargs: dict[str, Any]) -> dict[str, Any]:
    return {
        **kwargs,
        "context_settings": {**HELP_OPTIONS, **(kwargs.get("context_settings") or {})},
    }


class BbCommand(click.Command):
    """A click command that reports :class:`BbError` as one line with its exit status."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **_with_help(kwargs))

    def invoke(self, ctx: click.Context) -> Any:
        return _run_guarded(ctx, lambda: super(BbCommand, self).invoke(ctx))


class BbGroup(click.Group):
    """A click group whose subcommands report errors the same way."""

    command_class = BbCommand

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **_with_help(kwargs))

    def invoke(self, ctx: click.Context) -> Any:
        return _run_guarded(ctx, lambda: super(BbGroup, self).invoke(ctx))


@contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Treat SIGTERM like Ctrl-C, so running work is stopped and finished work is kept."""

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class DocumentedArgument(click.Argument):
    """A click argument with a help text, for the option tables of the docs."""

    def __init__(self, *args: Any, help: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help = help


def argument(*decls: str, help: str, **kwargs: Any) -> Callable[[F], F]:
    """A positional argument with *help* (shown in the docs' option tables)."""
    return click.argument(*decls, cls=DocumentedArgument, help=help, **kwargs)


def inputs_argument(what: str) -> Callable[[F], F]:
    """``[FILE|-]...``: JSON-lines inputs (*what* they hold), stdin when none is given."""
    return argument(
        "inputs",
        nargs=-1,
        metavar="[FILE|-]...",
        help=f"{what} to read (- for stdin); stdin when none is given.",
    )


def config_option(func: F) -> F:
    return click.option(
        "--config",
        "config_path",
        type=click.Path(dir_okay=False),
        default=None,
        metavar="FILE",
        help="The bugbout.toml to read (default: ./bugbout.toml when present, else the "
        "defaults). Flags override it.",
    )(func)


def strict_option(func: F) -> F:
    """``--strict``: a line of a record kind this release does not know is bad input (exit
    status 2) instead of a warning; either way nothing of it is changed."""

    def strict(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
        from bb_core.records import set_strict

        set_strict(value)
        return value

    return click.option(
        "--strict",
        is_flag=True,
        expose_value=False,
        callback=strict,
        help="Stop with exit status 2 at a line of a record kind this release does not know "
        "(by default it is passed on unchanged, with one warning a kind).",
    )(func)


def debug_option(func: F) -> F:
    return click.option(
        "--debug", is_flag=True, help="Show tracebacks on errors, and extra detail on stderr."
    )(func)


def jobs_option(
    units: str, default: int | None = 1, default_text: str | None = None, note: str = ""
) -> Callable[[F], F]:
    """``--jobs N`` / ``-j N``: at most N of this command's *units* of work at once."""
    shown = default_text or (str(default) if default is not None else "")
    return click.option(
        "--jobs",
        "-j",
        type=click.IntRange(min=1),
        default=default,
        metavar="N",
        help=f"At most N {units} at once (default: {shown}).{' ' + note if note else ''}",
    )


def agent_option(help_text: str) -> Callable[[F], F]:
    """``--agent NAME``, repeatable: only these agents of bugbout.toml."""
    return click.option("--agent", "agents", multiple=True, metavar="NAME", help=help_text)


def issues_option(help_text: str) -> Callable[[F], F]:
    """``--issues FILE``: an offline issue export to read instead of GitHub."""
    return click.option(
        "--issues", type=click.Path(dir_okay=False), default=None, metavar="FILE", help=help_text
    )


#: ``--retry-failed``: run again the attempts the agent never had a fair go at.
retry_failed_option = click.option(
    "--retry-failed",
    is_flag=True,
    help="Run again the attempts that ended on a usage limit (quota) or crashed.",
)

#: What refreshing attempts does, for ``bb-race --refresh`` and ``bugbout run --refresh-attempts``.
REFRESH_ATTEMPTS_HELP = (
    "Run every attempt again, even one given exactly what it would be given now; the "
    "earlier attempts are kept under .bugbout/attempts/<task>/history/."
)


def test_run_options(what: str) -> Callable[[F], F]:
    """``--test-timeout``, ``--run-timeout`` and ``--sandbox``, for stages that run tests.

    *what* names one whole run in the help text ("one whole pytest run", "one column's
    whole pytest run").
    """

    def decorate(func: F) -> F:
        func = click.option(
            "--sandbox",
            type=click.Choice(SANDBOX_KINDS),
            default=None,
            metavar="KIND",
            help="Which sandbox confines the runs; overrides [run] sandbox.",
        )(func)
        func = click.option(
            "--run-timeout",
            type=click.IntRange(min=1),
            default=None,
            metavar="S",
            help=f"Seconds {what} may take (default: 10 x test-timeout, at least 300).",
        )(func)
        return click.option(
            "--test-timeout",
            type=click.IntRange(min=1),
            default=None,
            metavar="S",
            help="Seconds one test may take before it is failed (default: [run] test-timeout, "
            "else 60).",
        )(func)

    return decorate


def refresh_option(help_text: str, *, deprecated: str | None = None) -> Callable[[F], F]:
    """``--refresh``: ignore this stage's kept results and do the work again.

    *deprecated* is an older spelling still taken (hidden from the help), with a warning.
    """

    def warn(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
        if value:
            click.echo(f"{_prog(ctx)}: {deprecated} is deprecated; use --refresh", err=True)
        return value

    def decorate(func: F) -> F:
        func = click.option("--refresh", is_flag=True, help=help_text)(func)
        if deprecated is None:
            return func
        name = "deprecated_refresh"
        return click.option(deprecated, name, is_flag=True, hidden=True, callback=warn)(func)

    return decorate


def version_option(package: str) -> Callable[[F], F]:
    return click.version_option(package_name=package, message="%(prog)s %(version)s")


def executor_options(func: F) -> F:
    """``--executor [local|ray]`` and ``--ray-address ADDRESS``: where the units run."""
    from bb_core.executors.units import EXECUTORS

    func = click.option(
        "--ray-address",
        default=None,
        metavar="ADDRESS",
        help="The Ray cluster --executor ray connects to: auto, ray://host:port or host:port; "
        "overrides [run] ray-address (default: a Ray of this machine alone).",
    )(func)
    return click.option(
        "--executor",
        type=click.Choice(EXECUTORS),
        default=None,
        help="Run the units of work on this machine's threads (local) or on a Ray cluster's "
        "nodes (ray, with pip install 'bugbout[ray]'); overrides [run] executor, local.",
    )(func)


def stage_setup(
    config_path: str | None,
    *,
    executor: str | None,
    ray_address: str | None,
    jobs: int,
    overrides: Mapping[str, Any] | None = None,
    sandbox: bool = True,
) -> tuple[Config, ExecutorSettings]:
    """What a stage's command does first: the configuration; the executor that
    ``--executor``, ``--ray-address`` and the configuration choose; and the machine checked
    for the run (its sandbox too, unless *sandbox* is False), with *overrides* (``--sandbox``
    as ``run.sandbox``) applied to the check."""
    from bb_core.cli.preflight import preflight
    from bb_core.config import load_config
    from bb_core.executors.units import executor_settings

    config = load_config(config_path)
    chosen = executor_settings(config, kind=executor, address=ray_address, jobs=jobs)
    preflight(config if overrides is None else config.with_overrides(overrides), sandbox=sandbox)
    return config, chosen


@contextmanager
def stage_executor(chosen: ExecutorSettings, width: int | None = None) -> Iterator[Executor | None]:
    """The executor a stage's command hands its stage: the cluster's when *chosen* names
    one (*width* units at once, by default ``chosen.jobs``), closed on exit; None for
    ``local``, so that the stage runs its units on its own threads."""
    if chosen.kind == "local":
        yield None
        return
    from bb_core.executors.units import make_executor

    units = make_executor(chosen if width is None else replace(chosen, jobs=width))
    try:
        yield units
    finally:
        units.close()


def stage_progress(prog: str, inputs: Sequence[str]) -> Progress:
    """The progress of a stage's command (a bar on a terminal, a line per finished task off
    one): its total counted from the input files (unknown for stdin)."""
    from bb_core.records import count_task_lines

    return Progress(prog, count_task_lines(inputs))
