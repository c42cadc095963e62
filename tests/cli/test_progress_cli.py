"""Progress on the long commands (issue 19): drawn on a terminal, never into a file or a pipe.

`bellica map build` drew its tqdm bars into a redirected stderr, and `bellica simulate` showed
nothing for runs of a minute.  One helper decides (bellica/geo/progress.py); these tests run the
real command with stderr on a pseudo-terminal and on a pipe.
"""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios

import pytest

from tests.cli.test_round_cli import bellica

BELLICA = [sys.executable, "-m", "bellica.cli"]
TINY = "12.2,41.6,12.7,42.0"


def run_on_a_terminal(args, cwd) -> tuple[int, str, str]:
    """(exit code, stdout, what was drawn on the terminal) of ``bellica ARGS`` whose stderr is a pty."""
    main, child = pty.openpty()
    # a new pty is 0 columns wide, and tqdm fits its bar to that: nothing; a terminal window has a width
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    try:
        proc = subprocess.Popen([*BELLICA, *args], stdout=subprocess.PIPE, stderr=child, stdin=subprocess.DEVNULL,
                                cwd=cwd)
    finally:
        os.close(child)  # the child holds its own copy: the read below ends when the command exits
    drawn = b""
    while True:
        try:
            chunk = os.read(main, 4096)
        except OSError:  # EIO: the terminal's last writer is gone
            break
        if not chunk:
            break
        drawn += chunk
    os.close(main)
    out = proc.stdout.read().decode()
    proc.stdout.close()
    return proc.wait(timeout=300), out, drawn.decode(errors="replace")


COMMANDS = {
    "map build": (["map", "build", "--bbox", TINY, "--res", "5", "--out", "m.duckdb"], "map build:", "step"),
    "simulate": (["simulate", "rise-of-rome", "--runs", "3", "--workers", "1", "--policy", "builder"],
                 "campaigns:", "run"),
}


@pytest.mark.parametrize("command", COMMANDS)
def test_progress_is_drawn_on_a_terminal(command, tmp_path):
    args, label, unit = COMMANDS[command]
    code, out, drawn = run_on_a_terminal(args, tmp_path)
    assert code == 0, drawn
    assert label in drawn and f"{unit}/s" in drawn and "\r" in drawn, drawn
    assert label not in out  # the report on stdout stays clean
    code, _, drawn = run_on_a_terminal([*args, "--quiet", *(["--force"] if command == "map build" else [])], tmp_path)
    assert code == 0 and label not in drawn, drawn


def test_no_progress_into_a_pipe(tmp_path):
    args, label, _ = COMMANDS["map build"]
    r = subprocess.run([*BELLICA, *args], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""  # was "map build:  17%|..." redrawn with \r, into whatever stderr was


def test_simulate_draws_no_progress_into_captured_stderr(capsys):
    code, out, err = bellica(capsys, "simulate", "rise-of-rome", "--runs", 4, "--workers", 2, "--policy", "builder")
    assert code == 0, err
    assert err == "" and "Rise of Rome: 4 campaigns" in out


def test_simulate_reports_the_runs_done_as_they_finish():
    from bellica.engine.core.simulate import simulate
    from bellica.engine.rise_of_rome.policies import CampaignRunner

    for kwargs in ({"scheduler": "sync"}, {"workers": 2}):
        seen = []
        simulate(CampaignRunner("builder"), range(5), progress=lambda done, total: seen.append((done, total)), **kwargs)
        assert seen[-1] == (5, 5) and all(t == 5 for _, t in seen), kwargs
        assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert len(seen) > 1  # by batches on the pool: several reports, not one at the end
