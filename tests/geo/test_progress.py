"""geo/progress.py: the one place that decides whether a long command draws a progress bar (issue 19)."""

from __future__ import annotations

import io
import sys

from bellica.geo.progress import counter, drawing, progress_bar


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_drawn_on_a_terminal_only(monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # a file or a pipe
    assert not drawing()
    with progress_bar(3, "work", "step") as bar:
        bar.update(3)
    assert sys.stderr.getvalue() == ""
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert drawing() and not drawing(enabled=False)  # -q on a terminal
    with progress_bar(3, "work", "step") as bar:
        bar.update(3)
    assert "work:" in terminal.getvalue() and "/3 " in terminal.getvalue()  # wiped at the end (leave=False)


def test_a_closed_or_missing_stderr_draws_nothing(monkeypatch):
    closed = io.StringIO()
    closed.close()
    for stream in (None, closed, object()):
        monkeypatch.setattr(sys, "stderr", stream)
        assert not drawing()


def test_counter_moves_the_bar_to_the_runs_done(monkeypatch):
    monkeypatch.setattr(sys, "stderr", Terminal())
    with progress_bar(10, "runs", "run") as bar:
        report = counter(bar)
        report(4, 10)  # batches finish: the callback gets the running total, not the increment
        report(9, 10)
        assert bar.n == 9
        report(12, 12)
        assert (bar.n, bar.total) == (12, 12)
