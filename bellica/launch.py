"""The ``bellica`` console entry point: run a command through the warm command server when one is
running for this user and this installation, else in this process.

A fresh Python process pays for its imports (click, bellica's modules, duckdb) on every command.
``bellica warm start`` (:mod:`bellica.commands.warm`) keeps a server that has done those imports
once; for each command it forks a worker that takes this process's arguments, working directory,
environment, umask and standard streams (passed as file descriptors), runs
:func:`bellica.cli.main` exactly as this process would, and sends back the exit status.  This
module is the client: it imports only the interpreter's built-in modules (``_socket``,
``_signal``, ``marshal``, ``struct``), so a command served warm never loads click or bellica.

The server is optional and never changes a result.  Whenever it cannot serve a command (no
server, a socket left by one that died, a server for other code or other interpreter settings,
one whose code changed on disk since it started: "stale", any protocol error before the command
starts) this module runs :func:`bellica.cli.main` here, as if there were no server.  With
``--verbose``, falling back from a stale server prints one note on stderr; otherwise the fallback
is silent.  Once the worker has started the command, its exit status is this process's; the
signals an interrupt or a hang-up sends (SIGINT, SIGTERM, SIGHUP) are passed on to the worker; a
worker that vanishes without a status makes this process print one line naming the warm server
and exit 1 (or, when a SIGTERM/SIGHUP was passed on and killed it, die of the same signal, as the
plain command would).

``BELLICA_WARM=0`` in the environment turns the client off.  ``bellica warm ...`` and ``bellica
serve ...`` always run here (one manages the server, the other is a long-running server itself).

The wire protocol (a Unix stream socket, both ends the same Python, so :mod:`marshal`):
client -> server: ``b"C"``; a 4-byte big-endian length sent with fds 0, 1, 2 (SCM_RIGHTS); the
request (:func:`request`) marshalled.  Server -> client: 5-byte frames, a kind byte and a signed
32-bit big-endian value: ``P pid`` (the worker has applied the request and starts the command),
``X status`` (the command's exit status), ``S 0`` (stale: the server is exiting), ``F 0`` (cannot
serve this request: run it here).  ``b"?"`` asks for the server's status, ``b"Q"`` stops it (answers
``I``/``Q`` with a marshalled dict after the length frame): :mod:`bellica.commands.warm`.
"""

from __future__ import annotations

import os
import sys

#: Environment variables the interpreter reads only when it starts (or that change what it
#: imports): a server started under other values does not serve the request.
STARTUP_ENV = ("PYTHONPATH", "PYTHONHOME", "PYTHONHASHSEED", "PYTHONWARNINGS", "PYTHONSAFEPATH", "PYTHONMALLOC",
               "LANG", "LC_ALL", "LC_CTYPE")
#: Commands that always run in this process (module doc).
LOCAL_COMMANDS = ("warm", "serve")
SOCKET_NAME = "warm-{key}.sock"
FRAME = "!ci"  # a server frame: kind byte, signed 32-bit value
FRAME_SIZE = 5

_BELLICA_DIR = os.path.dirname(os.path.abspath(__file__))


def runtime_dir() -> str:
    """The per-user folder of the server's socket and log: ``$BELLICA_WARM_DIR``, else
    ``$XDG_RUNTIME_DIR/bellica``, else ``~/.cache/bellica``."""
    d = os.environ.get("BELLICA_WARM_DIR")
    if d:
        return d
    x = os.environ.get("XDG_RUNTIME_DIR")
    if x:
        return os.path.join(x, "bellica")
    return os.path.join(os.path.expanduser("~"), ".cache", "bellica")


def installation_key() -> str:
    """Names this installation (interpreter prefix, Python version, where bellica is): one server each."""
    h = 0x811C9DC5  # 32-bit FNV-1a: no module to load for it
    for byte in repr((sys.prefix, sys.version, _BELLICA_DIR)).encode():
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return f"{h:08x}"


def socket_path() -> str:
    return os.path.join(runtime_dir(), SOCKET_NAME.format(key=installation_key()))


def settings() -> str:
    """What the interpreter fixed at start-up and a worker cannot change: the server serves only
    requests with its own settings."""
    env = tuple(os.environ.get(k) for k in STARTUP_ENV)
    return repr((tuple(sys.flags), tuple(sys.warnoptions), sorted(sys._xoptions.items()), env,
                 sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()))


def _streams() -> list:
    return [(s.encoding, s.errors, s.line_buffering, s.write_through) if s is not None else None
            for s in (sys.stdin, sys.stdout, sys.stderr)]


def request(args: list[str]) -> dict:
    """What the worker needs to run ``bellica ARGS`` as this process would."""
    mask = os.umask(0o022)
    os.umask(mask)
    return {"argv0": sys.argv[0] if sys.argv else "bellica", "args": list(args), "cwd": os.getcwd(),
            "env": dict(os.environ), "umask": mask, "settings": settings(), "streams": _streams()}


def _wanted(args: list[str]) -> bool:
    if os.environ.get("BELLICA_WARM", "") == "0":
        return False
    # Output captured by replacing sys.stdout (a test harness) would miss what the worker writes to fd 1;
    # a standard stream closed at start-up (None) has no descriptor to pass.
    if sys.stdin is not sys.__stdin__ or sys.stdout is not sys.__stdout__ or sys.stderr is not sys.__stderr__:
        return False
    if sys.stdin is None or sys.stdout is None or sys.stderr is None:
        return False
    command = next((a for a in args if not a.startswith("-")), None)
    return command not in LOCAL_COMMANDS


def _recv_exact(sock, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            break
        data += chunk
    return data


def connect(path: str | None = None):
    """A connected socket to this installation's server, or None when none answers."""
    import _socket

    try:
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    except OSError:
        return None
    try:
        sock.connect(path or socket_path())
    except OSError:  # no socket file, a stale one (refused), a folder we may not enter, a path too long
        sock.close()
        return None
    return sock


def send_request(sock, args: list[str]) -> None:
    """Send ``b"C"``, the length with fds 0-2, and the request (module doc)."""
    import _socket
    import marshal
    import struct

    payload = marshal.dumps(request(args))
    sock.sendall(b"C")
    sock.sendmsg([struct.pack("!I", len(payload))], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, struct.pack("3i", 0, 1, 2))])
    sock.sendall(payload)


#: Seconds the client waits for the worker to take the request before running the command itself.
START_TIMEOUT_S = 30.0


def run_warm(args: list[str]) -> int | None:
    """Run ``bellica ARGS`` through the warm server: its exit status, or None when it did not start
    the command (this process then runs it)."""
    import _signal
    import struct

    sock = connect()
    if sock is None:
        return None
    worker: list[int] = []  # the worker's pid once it has started the command
    caught: list[int] = []  # the signals received, in order

    def forward(signum, _frame):
        caught.append(signum)
        if worker:
            try:
                os.kill(worker[0], signum)
            except OSError:
                pass

    signals = (_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP)
    previous = {signum: _signal.getsignal(signum) for signum in signals}
    for signum in signals:
        _signal.signal(signum, forward)
    try:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        sock.settimeout(START_TIMEOUT_S)
        try:
            send_request(sock, args)
        except OSError:  # a stale server answers after one byte and closes: its answer is still to read
            pass
        try:
            frame = _recv_exact(sock, FRAME_SIZE)
        except OSError:  # a timeout included: the worker cannot start once this end is closed
            frame = b""
        kind, pid = struct.unpack(FRAME, frame) if len(frame) == FRAME_SIZE else (b"", 0)
        if kind != b"P":
            sock.close()
            for signum, handler in previous.items():
                _signal.signal(signum, handler)
            if caught:  # interrupted while starting: as the plain process would be
                os.kill(os.getpid(), caught[0])
            if kind == b"S" and ("-v" in args or "--verbose" in args):
                sys.stderr.write("note: the warm server was older than the installed code and has stopped; "
                                 "running without it (`bellica warm start` starts a fresh one)\n")
            return None
        worker.append(pid)
        for signum in list(caught):  # received before the worker started: passed on now
            try:
                os.kill(pid, signum)
            except OSError:
                pass
        sock.settimeout(None)
        try:
            frame = _recv_exact(sock, FRAME_SIZE)
        except OSError:
            frame = b""
        if len(frame) == FRAME_SIZE:
            kind, status = struct.unpack(FRAME, frame)
            if kind == b"X":
                return status
        fatal = [s for s in caught if s != _signal.SIGINT]
        if fatal:  # the worker died of the signal passed on: so does this process, as the plain command would
            _signal.signal(fatal[-1], _signal.SIG_DFL)
            os.kill(os.getpid(), fatal[-1])
        sys.stderr.write(f"error: the warm command server's worker (pid {pid}) ended without an exit status; "
                         "run the command again with BELLICA_WARM=0, or stop the server with `bellica warm stop`\n")
        return 1
    finally:
        sock.close()


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else list(argv)
    if _wanted(args):
        status = run_warm(args)
        if status is not None:
            sys.exit(status)
    from bellica.cli import main as cli_main

    cli_main(args)


if __name__ == "__main__":
    main()
