"""The suite's own housekeeping: a killed run's files on the tmpfs are removed by the next run
(tests/conftest.py), and nothing of a run still going."""

import os
import subprocess
import sys

import pytest

from tests.conftest import RUN_PID_FILE, TMPFS_PREFIX, remove_abandoned_runs


def _run_folder(tmpfs, name, pid_text=None):
    folder = tmpfs / f"{TMPFS_PREFIX}{name}"
    (folder / "pytest").mkdir(parents=True)
    (folder / "pytest" / "campaign.duckdb").write_bytes(b"x" * 1024)
    if pid_text is not None:
        (folder / RUN_PID_FILE).write_text(pid_text)
    return folder


def test_a_killed_runs_folder_goes_and_a_live_runs_stays(tmp_path):
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    killed = _run_folder(tmp_path, "killed", gone.stdout)
    live = _run_folder(tmp_path, "live", f"{os.getpid()}\n")
    unmarked = _run_folder(tmp_path, "older")  # an older suite's folder: no pid file, so unknown
    garbled = _run_folder(tmp_path, "garbled", "not a pid")
    other = tmp_path / "someone-elses"
    other.mkdir()

    remove_abandoned_runs(tmp_path)

    assert not killed.exists()
    assert live.exists() and (live / "pytest" / "campaign.duckdb").exists()
    assert unmarked.exists() and garbled.exists() and other.exists()


def test_another_users_folder_is_left_even_when_its_pid_is_not_seen_here(tmp_path):
    """Their pid may be in another PID namespace (a container sharing the tmpfs): not ours to judge."""
    if os.getuid() != 0:
        pytest.skip("only root can give a folder to another user")
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    theirs = _run_folder(tmp_path, "theirs", gone.stdout)
    os.chown(theirs, 65534, 65534)
    remove_abandoned_runs(tmp_path)
    assert theirs.exists()
