"""`bellica warm ...` and the console entry point bellica/launch.py: a command through the warm server
gives what the plain process gives (stdout, stderr, exit status, the campaign file), and the client
runs the command itself whenever the server cannot serve it.

Every command here runs in a fresh interpreter through the console entry
(``python -c "from bellica.launch import main; main()" ...``); each server lives in its own
temporary BELLICA_WARM_DIR and is stopped by its fixture (and killed if it will not stop).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.engine.boards import sketch
from tests.engine.test_rounds import FIELD, WATER
from tests.engine.test_state import make_campaign

pytestmark = [pytest.mark.skipif(not (hasattr(os, "fork") and hasattr(socket, "SO_PEERCRED")),
                                reason="the warm server needs Linux (fork, SO_PEERCRED)"),
              pytest.mark.serial]  # processes, signals and timeouts: run apart from the rest (Makefile)

LAUNCH = "from bellica.launch import main; main()"
PLACEMENTS = ((1, "carthago", "Capua"), (9, "roma", "Roma"), (10, "roma", "Ostia"))


def run(env: dict, *args, cwd=None, input=None, timeout=180) -> tuple[int, str, str]:
    """``bellica ARGS`` in a fresh process through the console entry: (exit status, stdout, stderr)."""
    proc = subprocess.run([sys.executable, "-c", LAUNCH, *map(str, args)], env=env, cwd=cwd, input=input,
                          capture_output=True, text=True, timeout=timeout)
    return proc.returncode, proc.stdout, proc.stderr


def environment(warm_dir: Path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("BELLICA_WARM", "BELLICA_WARM_WATCH")}
    env["BELLICA_WARM_DIR"] = str(warm_dir)
    env.update(extra)
    return env


def served(env: dict) -> int:
    """How many commands the running server has forked a worker for."""
    code, out, err = run(env, "warm", "status")
    if out.startswith("not running"):
        for log in Path(env["BELLICA_WARM_DIR"]).glob("*.log"):
            changed = [line for line in log.read_text().splitlines() if " changed: " in line]
            if changed:  # someone edited the tree while the test ran: the server rightly went stale
                pytest.skip(f"a watched file changed during the test: {changed[0]}")
    assert code == 0 and out.startswith("running: pid"), (out, err)
    return int(re.search(r"commands served: (\d+)", out).group(1))


def server_pid(env: dict) -> int:
    out = run(env, "warm", "status")[1]
    return int(re.search(r"pid (\d+)", out).group(1))


def start(env: dict) -> None:
    code, out, err = run(env, "warm", "start", "--idle-minutes", "10")
    assert code == 0 and out.startswith("warm server started (pid"), (out, err)


def stop(env: dict) -> None:
    """Stop the server of ``env``'s folder; kill it (its pid from its log) if it will not stop."""
    run(env, "warm", "stop", timeout=60)
    folder = Path(env["BELLICA_WARM_DIR"])
    if list(folder.glob("*.sock")):
        for log in folder.glob("*.log"):
            found = re.search(r"\[(\d+)\]", log.read_text())
            if found:
                try:
                    os.kill(int(found.group(1)), signal.SIGKILL)
                except OSError:
                    pass


@pytest.fixture
def warm_dir():
    """A private folder straight under /tmp (short socket paths; another uid may be let in to test the uid check)."""
    folder = Path(tempfile.mkdtemp(prefix="bellica-warm-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def server(warm_dir):
    env = environment(warm_dir)
    start(env)
    try:
        yield env
    finally:
        stop(env)


def field_campaign(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "c.duckdb"
    con, _m = make_campaign(path, placements=PLACEMENTS, m=sketch(radius=4, structures=FIELD, water=WATER))
    con.close()
    return path


def contents(path: Path) -> dict:
    """Every table of a campaign file, rows sorted; the events without their wall-clock time and the hash over it."""
    import duckdb

    con = duckdb.connect(str(path), read_only=True)
    try:
        tables = [t for (t,) in con.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' "
                                            "AND table_type = 'BASE TABLE' ORDER BY 1").fetchall()]
        skip = {"events": ' EXCLUDE ("at", "hash")'}
        return {t: con.execute(f'SELECT *{skip.get(t, "")} FROM "{t}" ORDER BY ALL').fetchall() for t in tables}
    finally:
        con.close()


ROMA_ORDERS = 'faction = "roma"\nround = 1\n\n[armies.9]\nmoves = "3 3"\n\n[armies.10]\nmoves = ""\n'
#: (arguments, stdin) of a round with a refused step (3), bad input (1), a usage error (2), orders
#: and a query read from stdin, a battle and its result, administration and victory.
ROUND = [
    (("round", "start", "c.duckdb", "--seed", "5"), None),
    (("round", "initiative", "c.duckdb", "--faction", "roma", "9=strength"), None),
    (("round", "move", "c.duckdb"), None),  # refused: initiative not published (3)
    (("round", "publish", "c.duckdb"), None),
    (("round", "orders", "c.duckdb", "--file", "/dev/stdin"), ROMA_ORDERS),
    (("round", "orders", "c.duckdb", "--faction", "carthago", "--army", "1", "--moves", "9 x"), None),  # bad input (1)
    (("round", "orders", "c.duckdb", "--faction", "carthago", "--army", "1", "--moves", "9 9"), None),
    (("round", "move", "c.duckdb", "--no-such-option"), None),  # usage (2)
    (("round", "move", "c.duckdb"), None),
    (("round", "result", "c.duckdb", "1", "--winner", "9", "--casualties", "9=25", "--casualties", "1=48"), None),
    (("round", "administer", "c.duckdb"), None),
    (("round", "victory", "c.duckdb"), None),
    (("round", "status", "c.duckdb"), None),
    (("sql", "c.duckdb", "--file", "/dev/stdin"), "SELECT faction, vp FROM victory_points ORDER BY faction;\n"),
    (("log", "c.duckdb", "--round", "1", "--changes"), None),
]


def test_a_round_through_the_warm_server_is_the_plain_round(server, tmp_path):
    warm, plain = field_campaign(tmp_path / "warm"), field_campaign(tmp_path / "plain")
    before = served(server)
    codes = []
    for args, stdin in ROUND:
        through = run(server, *args, cwd=warm.parent, input=stdin)
        alone = run({**server, "BELLICA_WARM": "0"}, *args, cwd=plain.parent, input=stdin)
        assert through == alone, args
        codes.append(through[0])
    assert served(server) == before + len(ROUND)  # every command went through the server
    assert codes == [0, 0, 3, 0, 0, 1, 0, 2, 0, 0, 0, 0, 0, 0, 0]  # a refused step, a bad input, a usage error
    assert contents(warm) == contents(plain)
    assert not list(warm.parent.glob("*.wal"))  # the worker closed the campaign as the plain process does


def test_exit_codes_and_one_line_errors_through_the_server(server, tmp_path):
    c = field_campaign(tmp_path)
    code, _out, err = run(server, "round", "status", c)
    assert code == 3 and err.strip() == f"error: {c} has not been started yet: run `bellica round start {c}` first"
    run(server, "round", "start", c)
    code, _out, err = run(server, "round", "move", c)
    assert code == 3 and len(err.strip().splitlines()) == 1 and "not published yet" in err
    run(server, "round", "publish", c)
    code, _out, err = run(server, "round", "orders", c, "--faction", "carthago", "--army", "1", "--moves", "9 x")
    assert code == 1 and len(err.strip().splitlines()) == 1 and err.startswith("error: ") and "'x'" in err
    code, out, _err = run(server, "--version")
    assert code == 0 and out.startswith("bellica ")


def test_status_and_stop(warm_dir):
    env = environment(warm_dir)
    code, out, _ = run(env, "warm", "status")
    assert code == 0 and out.startswith("not running")
    start(env)
    try:
        assert run(env, "warm", "status")[1].startswith("running: pid")
        code, out, _ = run(env, "warm", "start")
        assert code == 0 and out.startswith("a warm server is already running")
        assert (warm_dir.stat().st_mode & 0o777) == 0o700
        assert all((s.stat().st_mode & 0o777) == 0o600 for s in warm_dir.glob("*.sock"))
    finally:
        code, out, _ = run(env, "warm", "stop")
        stop(env)
    assert code == 0 and out.startswith("stopped the warm server")
    assert run(env, "warm", "status")[1].startswith("not running") and not list(warm_dir.glob("*.sock"))
    assert run(env, "warm", "stop")[1].strip() == "no warm server is running"


def test_an_idle_server_exits(warm_dir):
    env = environment(warm_dir)
    code, out, err = run(env, "warm", "start", "--idle-minutes", "0.02")  # 1.2 s
    try:
        assert code == 0, err
        deadline = time.monotonic() + 60
        while list(warm_dir.glob("*.sock")) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert run(env, "warm", "status")[1].startswith("not running")
        assert "idle for 0.02 min: exiting" in next(warm_dir.glob("*.log")).read_text()
    finally:
        stop(env)


def test_the_client_runs_the_command_itself_without_a_server_or_with_warm_0(server, warm_dir, tmp_path):
    c = field_campaign(tmp_path)
    nobody_home = environment(tmp_path / "no-server")
    code, out, err = run(nobody_home, "round", "start", c, "--seed", "5")
    assert code == 0 and "campaign started" in out and err == ""
    before = served(server)
    code, out, err = run({**server, "BELLICA_WARM": "0"}, "round", "status", c)
    assert code == 0 and out.startswith("round 1, phase orders") and err == ""
    assert served(server) == before
    # A socket file left by a server that died: refused, so the command runs here.
    dead = tmp_path / "dead"
    dead.mkdir(mode=0o700)
    from bellica import launch

    name = Path(launch.socket_path()).name  # the same installation: the same name in any folder
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(dead / name))
    s.close()
    code, out, err = run(environment(dead), "round", "status", c)
    assert code == 0 and out.startswith("round 1, phase orders") and err == ""


def test_a_stale_server_exits_and_the_command_runs_as_usual(warm_dir, tmp_path):
    c = field_campaign(tmp_path)
    watched = tmp_path / "module.py"
    watched.write_text("x = 1\n")
    env = environment(warm_dir, BELLICA_WARM_WATCH=str(watched))
    assert run({**env, "BELLICA_WARM": "0"}, "round", "start", c)[0] == 0
    start(env)
    try:
        expected = run({**env, "BELLICA_WARM": "0"}, "round", "status", c)
        assert run(env, "round", "status", c) == expected  # served warm
        watched.write_text("x = 2  # edited\n")  # the size changes, whatever the clock's resolution
        assert run(env, "round", "status", c) == expected  # stale: the client ran it, silently
        assert run(env, "warm", "status")[1].startswith("not running")
        # With --verbose the fallback says so, once.  One command served first: the server has
        # recorded what it watches (under load, an edit made before that would be its baseline).
        start(env)
        assert run(env, "round", "status", c) == expected
        watched.write_text("x = 3  # edited again\n")
        code, _out, err = run(env, "--verbose", "round", "status", c)
        assert code == 0 and err.count("note: the warm server was older than the installed code") == 1
    finally:
        stop(env)


def test_a_closed_stdin_runs_the_command_itself(server, tmp_path):
    c = field_campaign(tmp_path)
    before = served(server)
    proc = subprocess.run([sys.executable, "-c", LAUNCH, "round", "status", str(c)], env=server, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, preexec_fn=lambda: os.close(0))
    assert proc.returncode == 3 and "has not been started" in proc.stderr
    assert served(server) == before


SLOW = "SELECT count(*) FROM range(4000000000) t(x) WHERE x % 7 = 3"


def _has_open(pid: int, path: Path) -> bool:
    """Whether process ``pid`` holds ``path`` open (its /proc fd links)."""
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return False
    target = str(path.resolve())
    for fd in fds:
        try:
            if os.readlink(fd) == target:
                return True
        except OSError:
            continue
    return False


def _cpu_seconds(pid: int) -> float:
    """The CPU time process ``pid`` has used (user and system), 0 when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _running(worker: int, campaign: Path) -> bool:
    return _has_open(worker, campaign) or _cpu_seconds(worker) >= 1.0


def slow_command(env: dict, campaign: Path, kill) -> tuple[int, str, str]:
    """A slow query through the server; ``kill(client_pid, worker_pid)`` once its worker runs."""
    pid = server_pid(env)
    proc = subprocess.Popen([sys.executable, "-c", LAUNCH, "sql", str(campaign), SLOW], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        children = []
        deadline = time.monotonic() + 60
        while not children and time.monotonic() < deadline:
            time.sleep(0.05)
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        assert children, "no worker appeared"
        worker = int(children[0])
        # Only once the worker runs the command is a kill the command's failure; a worker killed
        # before it starts the command makes the client run it itself.  It runs it once it has the
        # campaign open, or once it has spent a second of CPU on it (the console copies what it may
        # read and lets the file go at once, on a tmpfs in less time than one poll: then the query
        # is what burns the CPU).
        while not _running(worker, campaign) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _running(worker, campaign), "the worker never ran the command"
        kill(proc.pid, worker)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, out, err


def test_a_worker_that_dies_is_an_error_never_a_silent_success(server, tmp_path):
    code, out, err = slow_command(server, field_campaign(tmp_path), lambda _client, worker: os.kill(worker, signal.SIGKILL))
    assert code == 1 and out == ""
    assert err.strip().startswith("error: the warm command server's worker") and len(err.strip().splitlines()) == 1


def test_a_terminated_client_terminates_its_worker(server, tmp_path):
    workers = []

    def terminate(client, worker):
        workers.append(worker)
        os.kill(client, signal.SIGTERM)

    code, out, err = slow_command(server, field_campaign(tmp_path), terminate)
    assert code == -signal.SIGTERM and out == "" and err == ""  # as the plain process dies of SIGTERM
    deadline = time.monotonic() + 30
    while Path(f"/proc/{workers[0]}").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not Path(f"/proc/{workers[0]}").exists()


def test_a_second_uid_cannot_use_the_server(server, tmp_path):
    if os.getuid() != 0:
        pytest.skip("acting as a second uid needs root")
    from bellica import launch
    from bellica.commands.warm import ask

    folder = Path(server["BELLICA_WARM_DIR"])
    path = str(next(folder.glob("*.sock")))

    def as_nobody(probe) -> int:
        """Exit status of ``probe()`` run in a child as uid 65534: 0 when it returned True."""
        pid = os.fork()
        if pid == 0:
            try:
                os.setgid(65534)
                os.setuid(65534)
                os._exit(0 if probe() else 1)
            except BaseException:
                os._exit(2)
        return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])

    # The folder is private (0700): another user cannot reach the socket at all.
    assert as_nobody(lambda: launch.connect(path) is None) == 0
    # Let them in: the server still refuses them (SO_PEERCRED), answering nothing.
    mode = folder.stat().st_mode & 0o777
    folder.chmod(0o711)
    os.chmod(path, 0o777)
    try:
        assert as_nobody(lambda: launch.connect(path) is not None and ask(b"?", path) is None) == 0
    finally:
        os.chmod(path, 0o600)
        folder.chmod(mode)
    assert served(server) >= 0  # and it still serves its own user


def test_a_server_refuses_to_start_in_a_folder_others_may_enter(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o755)
    code, out, err = run(environment(shared), "warm", "start")
    assert code == 1 and out == "" and "no one else may enter" in err and not list(shared.glob("*.sock"))
