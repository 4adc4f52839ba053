"""Progress off a terminal: a line per finished task and one closing line; on a terminal
the bar alone, redrawn in place."""

from __future__ import annotations

import io

from bb_core.cli.progress import NO_RUN, REUSED, Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_off_a_terminal_each_finished_task_is_one_line_and_the_close_one_more() -> None:
    out = io.StringIO()
    progress = Progress("bb-judge", 3, stream=out)
    progress.update(current="t1")  # a task started: nothing to say yet
    progress.finished("t1", 65, waiting=2)
    progress.finished("t2", 0, how=REUSED)
    progress.finished("t3", 0, how=NO_RUN)
    progress.close()
    progress.close()  # closed twice (the stage, then its `with`): said once
    said = out.getvalue().splitlines()
    assert said[0].startswith("bb-judge: t1 done in 1:05 (1/3; 2 left, about ")
    assert said[1:3] == [
        "bb-judge: t2 reused from an earlier run (2/3; 1 left)",
        "bb-judge: t3 needed no run (3/3; 0 left)",
    ]
    assert said[3].startswith("bb-judge: finished 3 tasks in ")
    assert said[3].endswith(": 1 task reused from earlier runs, 1 run; 1 task needed no run")
    assert len(said) == 4


def test_with_no_total_what_is_still_in_progress_is_said() -> None:
    out = io.StringIO()
    progress = Progress("bb-oracle", stream=out)
    progress.finished("t1", 3, waiting=4)
    progress.close(("attempt", 5, 2))
    said = out.getvalue().splitlines()
    assert said[0] == "bb-oracle: t1 done in 0:03 (1 done; 4 in progress)"
    assert said[1].endswith(": 5 attempts reused from earlier runs, 2 run")


def test_a_count_advanced_is_a_line_when_what_it_counts_changes() -> None:
    out = io.StringIO()
    progress = Progress("bb-mine: mining", stream=out)
    progress.update(advance=25, current="commits, 0 tasks")
    progress.update(advance=25, current="commits, 0 tasks")
    progress.update(advance=3, current="commits, 1 tasks")
    progress.close()
    said = out.getvalue().splitlines()
    assert [line.rsplit(" (", 1)[0] for line in said[:2]] == [
        "bb-mine: mining: 25 commits, 0 tasks",
        "bb-mine: mining: 53 commits, 1 tasks",
    ]
    assert said[2].startswith("bb-mine: mining: finished 53 commits, 1 tasks in ")
    assert len(said) == 3


def test_nothing_finished_says_nothing() -> None:
    out = io.StringIO()
    Progress("bb-race", 0, stream=out).close(("attempt", 0, 0))
    assert out.getvalue() == ""


def test_on_a_terminal_the_bar_is_drawn_and_no_line_is_written() -> None:
    screen = Terminal()
    progress = Progress("bb-judge", 2, stream=screen)
    progress.finished("t1", 1)
    progress.close()
    drawn = screen.getvalue()
    assert "bb-judge 1/2" in drawn and "\n" not in drawn
    hidden = Terminal()
    quiet = Progress("bb-race", 2, stream=hidden, bar=False)  # the race draws its own view
    quiet.finished("t1", 1)
    quiet.close()
    assert hidden.getvalue() == ""
