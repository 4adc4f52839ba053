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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any, TypeVar

import click

from bb_core.errors import BbError
from bb_core.kinds import SANDBOX_KINDS

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


class BbCommand(click.Command):
    """A click command that reports :class:`BbError` as one line with its exit status."""

    def invoke(self, ctx: click.Context) -> Any:
        return _run_guarded(ctx, lambda: super(BbCommand, self).invoke(ctx))


class BbGroup(click.Group):
    """A click group whose subcommands report errors the same way."""

    command_class = BbCommand

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


def inputs_argument(func: F) -> F:
    """``[FILE|-]...``: JSON-lines inputs, stdin when none is given."""
    return click.argument("inputs", nargs=-1, metavar="[FILE|-]...")(func)


def config_option(func: F) -> F:
    return click.option(
        "--config",
        "config_path",
        type=click.Path(dir_okay=False),
        default=None,
        help="bugbout.toml to read (default: ./bugbout.toml when present).",
    )(func)


def debug_option(func: F) -> F:
    return click.option(
        "--debug", is_flag=True, help="Show tracebacks and extra detail on stderr."
    )(func)


def jobs_option(func: F) -> F:
    return click.option(
        "--jobs",
        "-j",
        type=click.IntRange(min=1),
        default=1,
        show_default=True,
        help="How many tasks to work on at once.",
    )(func)


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
            help="Override [run] sandbox.",
        )(func)
        func = click.option(
            "--run-timeout",
            type=click.IntRange(min=1),
            default=None,
            help=f"Seconds {what} may take (default: 10 x test-timeout, at least 300).",
        )(func)
        return click.option(
            "--test-timeout",
            type=click.IntRange(min=1),
            default=None,
            help="Seconds one test may take (default: [run] test-timeout, else 60).",
        )(func)

    return decorate


def refresh_option(help_text: str) -> Callable[[F], F]:
    """``--refresh``: ignore this stage's kept results and do the work again."""
    return click.option("--refresh", is_flag=True, help=help_text)


def version_option(package: str) -> Callable[[F], F]:
    return click.version_option(package_name=package, message="%(prog)s %(version)s")
