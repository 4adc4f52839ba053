"""bugbout: the umbrella command line - init, doctor, tasks, run, report, compare."""

from __future__ import annotations

from pathlib import Path

import click
from bb_core.cli import (
    REFRESH_ATTEMPTS_HELP,
    BbGroup,
    agent_option,
    config_option,
    debug_option,
    executor_options,
    issues_option,
    jobs_option,
    retry_failed_option,
    terminate_as_interrupt,
    version_option,
)
from bb_core.cli.preflight import preflight
from bb_core.cli.tables import terminal_width
from bb_core.config import build, load_config
from bb_core.errors import BbError
from bb_report import render
from bb_report.baseline import layout_section
from bb_report.blocks import Document
from bb_report.jsonout import render_json
from bb_report.markdown import render_document as markdown_document
from bb_report.options import (
    chosen_format,
    color_option,
    emit,
    emit_report,
    format_option,
    output_option,
    paint,
    width_option,
)
from bb_report.terminal import render_document as terminal_document

from bugbout.bout import Bout, Project
from bugbout.doctor import Doctor
from bugbout.init import describe, init
from bugbout.listing import explain_table, redactions_text, tasks_json, tasks_table
from bugbout.runs import compare as compare_runs
from bugbout.stages import mine_stage, tally


def _err(message: str) -> None:
    click.echo(f"bugbout: {message}", err=True)


def _json_line(record: object) -> str:
    import json

    return json.dumps(record, ensure_ascii=False)


@click.group(cls=BbGroup)
@debug_option
@version_option("bugbout")
def main(debug: bool) -> None:
    """Which coding agent fixes bugs in your codebase?

    Start with `bugbout init` in your repository, check the set-up with `bugbout
    doctor`, then `bugbout run`. Results are kept in .bugbout/ beside bugbout.toml.
    """


@main.command("init")
@click.argument("path", required=False, default=".", metavar="[PATH]")
@click.option("--force", is_flag=True, help="Replace an existing bugbout.toml.")
@debug_option
def init_command(path: str, force: bool, debug: bool) -> None:
    """Write a commented bugbout.toml for the repository at PATH (default: here).

    Finds the package (src/<pkg> or a top-level package), the test folder, the Python
    version from requires-python and the agent CLIs on PATH (codex, claude, gemini,
    mini, aider). An existing bugbout.toml is kept unless --force is given.
    """
    target, layout = init(path, force=force)
    for line in describe(layout):
        _err(line)
    _err(f"wrote {target}; check it with `bugbout doctor`")


@main.command()
@config_option
@click.option(
    "--show-confinement",
    is_flag=True,
    help="Print what an attempt of each agent and a test run can see, write and reach, "
    "instead of the checks.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="One JSON object per check on stdout (check, status, detail, fix, blocking) "
    "instead of the text lines.",
)
@debug_option
def doctor(config_path: str | None, show_confinement: bool, as_json: bool, debug: bool) -> None:
    """Check that a bout can run here: git, uv, Python, the sandbox, each agent, the
    test environment and the suite at HEAD.

    One line per check: ok, warning, skipped (it needs something that failed) or
    problem with its fix. Each agent's program is started inside the race's sandbox with
    a harmless invocation (an interpreter runs an empty program, any other program is
    asked --version; 30 s at most). Exits 1 when any problem blocks a bout. Spends no
    agent quota.
    """
    if show_confinement:
        from bugbout.confinement import show_confinement as show

        for line in show(load_config(config_path)):
            click.echo(line)
        return
    try:
        config = load_config(config_path)
        doc = Doctor(config)
    except BbError as exc:
        doc = Doctor(build({}, path=None, root=Path.cwd().resolve()), config_problem=exc)
    blocking = 0
    for check in doc.checks():
        click.echo(_json_line(check.record()) if as_json else check.line())
        blocking += check.blocking
    if as_json:
        click.get_current_context().exit(1 if blocking else 0)
    if blocking:
        noun = "problem" if blocking == 1 else "problems"
        them = "it" if blocking == 1 else "them"
        click.echo(f"{blocking} blocking {noun}; fix {them} and run `bugbout doctor` again")
        click.get_current_context().exit(1)
    click.echo("ready for a bout: `bugbout run`")


@main.command()
@click.option(
    "--explain",
    "explain_ref",
    metavar="SHA",
    help="Print every mining rule's verdict for this one commit instead (nothing is mined).",
)
@config_option
@click.option(
    "--show-redactions",
    is_flag=True,
    help="After the table, every task's statement as the agents read it, and each piece "
    "redaction removed from it with the rule that removed it.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="One JSON object per task (kind task: the table's columns) and per skip line "
    "(kind skip: commit, title, reason, message) on stdout instead of the tables.",
)
@debug_option
def tasks(
    explain_ref: str | None,
    config_path: str | None,
    show_redactions: bool,
    as_json: bool,
    debug: bool,
) -> None:
    """Mine the tasks (or reuse the mining) and show them with the funnel that found them.

    The tasks are kept in .bugbout/tasks.jsonl. Each task shows its kind (bug, feature,
    unknown), where its statement came from (issue, pull request, commit message or title)
    and its length. When the ground truth of the same tasks is known from a run, each task
    shows its test counts or why it was set aside. With --explain SHA, say for one commit
    why it is a task or which rule leaves it out.
    """
    project = Project.load(config_path)
    project.require_file()
    preflight(project.config)
    if explain_ref is not None:
        from bb_mine.explain import explain
        from bb_mine.mine import MineSettings

        config = project.config
        options = MineSettings.from_config(config)
        rows = explain(str(config.repository_path()), options, explain_ref)
        click.echo(explain_table(rows), nl=False)
        return
    results = project.results
    results.ensure()
    said, mined = mine_stage(project.config, results)
    results.record("mine", mined.digest)
    _err(f"mine: {said}")
    oracles = tally(results.stream("oracle")) if "oracle" in results.finished() else None
    if as_json:
        for row in tasks_json(mined, oracles):
            click.echo(_json_line(row))
        return
    click.echo(tasks_table(mined, oracles), nl=False)
    if show_redactions:
        click.echo("\n" + redactions_text(mined), nl=False)


@main.command()
@config_option
@issues_option("An offline issue export (JSON lines) to read instead of [tasks] issues or GitHub.")
@retry_failed_option
@click.option("--refresh-attempts", is_flag=True, help=REFRESH_ATTEMPTS_HELP)
@agent_option("Race only this agent (repeat for more); the others' stored attempts still count.")
@jobs_option(
    "tasks in the test stages, and as many agent runs,",
    default=None,
    default_text="1 task at a time; each quota's own limit of runs",
)
@click.option(
    "--report/--no-report",
    "show_report",
    default=True,
    show_default=True,
    help="Print the terminal report at the end.",
)
@executor_options
@click.option(
    "--dry-run",
    is_flag=True,
    help="Check the configuration, mine, and print the tasks x agents, what is kept from "
    "earlier runs and the worst-case agent-hours; race nothing.",
)
@color_option
@width_option
@debug_option
def run(
    config_path: str | None,
    issues: str | None,
    retry_failed: bool,
    refresh_attempts: bool,
    agents: tuple[str, ...],
    jobs: int | None,
    show_report: bool,
    executor: str | None,
    ray_address: str | None,
    dry_run: bool,
    color: str,
    width: int | None,
    debug: bool,
) -> None:
    """Run the whole bout: mine, ground truth, race, cross-examine, judge, report.

    Every stage's output is kept in .bugbout/ beside bugbout.toml; every stage answers
    from its own store what it did before, so a run that was stopped carries on where it
    stopped, and an agent added to bugbout.toml is the only one that races. Progress goes
    to stderr; the terminal report to stdout.

    Exits 0 when at least one task was scored, 1 (after writing the report) when nothing
    could be: no task was mined, every task's environment failed, or no attempt ran to an
    end; the last line on stderr says which.
    """
    bout = Bout.load(
        config_path,
        issues=issues,
        retry_failed=retry_failed,
        refresh_attempts=refresh_attempts,
        only=agents,
        jobs=jobs,
        executor=executor,
        ray_address=ray_address,
    )
    if dry_run:
        for line in bout.dry_run().lines():
            click.echo(line)
        return
    with terminate_as_interrupt():
        report = bout.run()
    if show_report:
        click.echo(render(report, "terminal", color=paint(color), width=width), nl=False)
    if not report.headline.scored:
        _err(report.headline.unscored_reason or "nothing could be scored")
        click.get_current_context().exit(1)


@main.command()
@config_option
@format_option
@output_option
@color_option
@width_option
@debug_option
def report(
    config_path: str | None,
    fmt: str | None,
    output: Path | None,
    color: str,
    width: int | None,
    debug: bool,
) -> None:
    """Render the report of what .bugbout/ holds, without running anything.

    Reads the furthest stage whose output is current (verdicts.jsonl after a whole
    run), so a run stopped half-way reports as far as it got.
    """
    project = Project.load(config_path)
    made = Bout(project, echo=None).report()
    emit_report(made, fmt, output, color, width)


@main.command()
@click.argument("run_a", required=False, metavar="[RUN_A]")
@click.argument("run_b", required=False, metavar="[RUN_B]")
@config_option
@format_option
@output_option
@color_option
@width_option
@click.option(
    "--fail-on-regression",
    is_flag=True,
    help="Exit 1 (after writing the comparison) when an agent got significantly worse.",
)
@debug_option
def compare(
    run_a: str | None,
    run_b: str | None,
    config_path: str | None,
    fmt: str | None,
    output: Path | None,
    color: str,
    width: int | None,
    fail_on_regression: bool,
    debug: bool,
) -> None:
    """Compare a bout with an earlier one: per agent, the tasks that flipped.

    Every whole `bugbout run` is kept under .bugbout/runs/<time>/. RUN_B (default: the
    last run) is compared with RUN_A (default: the run before it); each is a kept run's
    name, a run's folder or a verdicts.jsonl. Per agent: the tasks that went from resolved
    to not and back, with their logs, the exact paired test on them, and what changed in
    how it ran (version, model, invocation, prompt); agents and tasks present in only one.
    The JSON and HTML formats are the later bout's whole report, its baseline section
    included.
    """
    project = Project.load(config_path)
    report, earlier, later = compare_runs(project.results, run_a, run_b)
    section = report.baseline
    assert section is not None
    chosen = chosen_format(fmt, output)
    doc = Document(
        "bugbout compare",
        f"{later} compared with {earlier}.",
        [],
        layout_section(section),
    )
    if chosen == "json":
        text = render_json(report)
    elif chosen == "markdown":
        text = markdown_document(doc)
    elif chosen == "terminal":
        text = terminal_document(doc, paint(color, output), width or terminal_width())
    else:
        text = render(report, chosen)
    emit(text, output)
    if fail_on_regression and section.regressed:
        _err(f"significantly worse than {earlier}: {', '.join(section.regressed)}")
        click.get_current_context().exit(1)
