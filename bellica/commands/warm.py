"""`bellica warm start|stop|status`: an optional warm command server, so that each command skips
the interpreter's imports (click, bellica's modules, duckdb), as Mercurial's chg or Gradle's daemon do.

``bellica warm start`` forks a detached server (double fork, ``setsid``, stdio to a log file in the
runtime folder) that imports what the commands need (:data:`PRELOAD`, :data:`PRELOAD_PACKAGES`),
closes the connection duckdb opens at import (it runs a thread), checks it is left with one thread,
and listens on a Unix socket in a private per-user folder (mode 0700: ``$BELLICA_WARM_DIR``, else
``$XDG_RUNTIME_DIR/bellica``, else ``~/.cache/bellica``; the socket's name carries the installation's
key, :func:`bellica.launch.installation_key`, so each installation has its own server).  It never
opens a campaign: each command runs in a worker forked for it, which takes the client's arguments,
working directory, environment, umask and standard streams (:mod:`bellica.launch` is the client and
describes the protocol), runs :func:`bellica.cli.main` and sends back the exit status.

Safety: the folder is the user's and private (the server refuses to start in one that is not);
each connection's peer must have the server's uid (``SO_PEERCRED``).  Freshness: at start the
server records the modification time and size of every module file it loaded outside the
standard library (bellica's, click's, duckdb's and its extension's) and of every file read while
loading them; before each request (and every half minute when idle) it checks them again, and
when one changed (an upgrade, an edit in a checkout) it answers "stale" and exits: the client
runs the command itself.  A server for other interpreter settings (:func:`bellica.launch.settings`:
flags, ``PYTHONPATH``, locale...) declines the request the same way.  The server exits after
``--idle-minutes`` without a request (default 30) or on ``bellica warm stop``.

Test hook: ``BELLICA_WARM_WATCH`` (paths joined by ``os.pathsep``) adds files to the watched list.
"""

from __future__ import annotations

import os
import sys
import time

import click

from bellica import launch

#: Modules a server imports before it listens: what the round, turn, sql, log and campaign
#: commands import (their own imports pull in the rest).  One that fails to import is skipped
#: (the worker then imports it, and fails, as the plain command would).
PRELOAD = ("duckdb", "bellica.cli", "bellica.geo.errors", "bellica.commands.options", "bellica.commands.checks",
           "bellica.commands.shared_group", "bellica.commands.play", "bellica.commands.sql", "bellica.commands.log",
           "bellica.commands.campaign",
           "bellica.services.jsonout", "bellica.engine.core.campaign", "bellica.engine.core.machine",
           "bellica.engine.core.state", "bellica.engine.core.sealed")
#: Packages whose every module is imported too; every found ruleset's package (an installed third
#: party's as well) and its sub-packages follow (:func:`preload_modules`), so no ruleset is named here.
PRELOAD_PACKAGES = ("bellica.engine.core",)
#: Never imported by the server: they start threads (numpy's BLAS) or are off the round path.
NEVER = ("numpy", "pandas", "pyarrow", "scipy", "shapely", "geopandas")
#: Libraries that import one of :data:`NEVER` at their own import: a module importing them is left out too.
PULLS_NEVER = ("folium", "branca", "matplotlib", "rasterio", "h3ronpy", "dask", "distributed", "xarray")
DEFAULT_IDLE_MINUTES = 30
CHECK_EVERY_S = 30  # the idle server's staleness check

_recording = [False]  # the audit hook records files opened while this is [True]
_opened: list[str] = []


# --- the folder, the client side of status/stop -----------------------------------------------


def private_dir(path: str) -> str:
    """``path`` created (mode 0700) and checked: a folder owned by this user that no one else may enter."""
    import stat

    from bellica.geo.errors import InputError

    os.makedirs(path, mode=0o700, exist_ok=True)
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
        raise InputError(f"{path}: the warm server's folder must be a folder of yours that no one else may enter "
                         f"(it is mode {stat.S_IMODE(st.st_mode):o}, owner uid {st.st_uid}): `chmod 700` it, "
                         "or set BELLICA_WARM_DIR to another folder")
    return path


def ask(op: bytes, path: str | None = None, timeout: float = 5.0) -> dict | str | None:
    """Send ``op`` (``b"?"`` status, ``b"Q"`` stop) to the server: its info dict, ``"stale"`` when it
    found its code changed (and is exiting), or None when no server answers."""
    import marshal
    import struct

    sock = launch.connect(path)
    if sock is None:
        return None
    try:
        sock.settimeout(timeout)
        sock.sendall(op)
        frame = launch._recv_exact(sock, launch.FRAME_SIZE)
        if len(frame) != launch.FRAME_SIZE:
            return None
        kind, size = struct.unpack(launch.FRAME, frame)
        if kind == b"S":
            return "stale"
        if kind not in (b"I", b"Q"):
            return None
        return marshal.loads(launch._recv_exact(sock, size))
    except (OSError, ValueError, EOFError):
        return None
    finally:
        sock.close()


def _wait_gone(path: str, seconds: float = 10.0) -> bool:
    """Wait until the server's socket file is gone (the server removes it as it exits)."""
    end = time.monotonic() + seconds
    while os.path.exists(path):
        if time.monotonic() > end:
            return False
        time.sleep(0.02)
    return True


# --- the server -------------------------------------------------------------------------------


def _frame(kind: bytes, value: int) -> bytes:
    import struct

    return struct.pack(launch.FRAME, kind, value)


def _audit(event: str, args) -> None:
    if _recording[0] and event == "open" and isinstance(args[0], str):
        _opened.append(args[0])


def _threads() -> int | None:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return None


def _ruleset_packages() -> list[str]:
    """The package of every ruleset the registry finds (in the tree or by the entry point)."""
    from bellica.engine.core.ruleset import get_ruleset, ruleset_names

    return sorted({type(get_ruleset(name)).__module__.rpartition(".")[0] for name in ruleset_names()})


def _top_level_imports(source: str) -> list[str]:
    """The modules a module's source imports when it is imported (its top level, ``try`` blocks
    included; ``if TYPE_CHECKING:`` and function bodies left out: they do not run at import)."""
    import ast

    names: list[str] = []

    def walk(body) -> None:
        for node in body:
            if isinstance(node, ast.Import):
                names.extend(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.append(node.module)
            elif isinstance(node, ast.Try):
                walk(node.body)
            elif isinstance(node, ast.If) and "TYPE_CHECKING" not in ast.unparse(node.test):
                walk(node.body)
                walk(node.orelse)

    walk(ast.parse(source).body)
    return names


def pulls_in_threads(module: str, seen: dict[str, bool] | None = None, follow: frozenset[str] = frozenset({"bellica"})) -> bool:
    """Whether importing ``module`` would import one of :data:`NEVER`: read from the sources, following
    the imports of the packages ``follow`` names (bellica's and the rulesets' own; a library's are
    known by name, :data:`PULLS_NEVER`).  A module is never imported to find out: by then the
    threads would run."""
    import importlib.util

    seen = {} if seen is None else seen
    if module in seen:
        return seen[module]
    seen[module] = False  # an import cycle adds nothing
    root = module.partition(".")[0]
    if root in NEVER or root in PULLS_NEVER:
        seen[module] = True
    elif root in follow:
        try:
            spec = importlib.util.find_spec(module)
        except (ImportError, ValueError):
            spec = None
        origin = getattr(spec, "origin", None)
        if origin and origin.endswith(".py"):
            with open(origin, encoding="utf-8") as f:
                source = f.read()
            seen[module] = any(pulls_in_threads(name, seen, follow) for name in _top_level_imports(source))
    return seen[module]


def preload_modules(skipped: list[str]) -> list[str]:
    """Every module of :data:`PRELOAD_PACKAGES` and of every found ruleset's package, sub-packages
    included, but those whose import would start threads (:func:`pulls_in_threads`: a ruleset's
    geometry or plotting helpers); what is left out or fails to import is added to ``skipped``."""
    import importlib
    import pkgutil

    out: list[str] = []
    seen: dict[str, bool] = {}
    packages = PRELOAD_PACKAGES + tuple(_ruleset_packages())
    follow = frozenset(p.partition(".")[0] for p in packages)
    for package in packages:
        try:
            module = importlib.import_module(package)
        except Exception as e:  # noqa: BLE001 - a module mid-edit: the worker meets it as the plain command would
            skipped.append(f"{package} ({type(e).__name__}: {e})")
            continue
        for info in pkgutil.walk_packages(module.__path__, f"{package}.", onerror=lambda name: skipped.append(name)):
            if pulls_in_threads(info.name, seen, follow):
                skipped.append(f"{info.name} (it imports a library that starts threads)")
            else:
                out.append(info.name)
    return out


class Server:
    """The warm server: :meth:`prepare` (imports, socket), then :meth:`loop`."""

    def __init__(self, path: str, idle_s: float, log_fd: int = 2):
        self.path, self.idle_s = path, idle_s
        # its own descriptor: a worker's fd 2 becomes its client's stderr
        self.log_file = os.fdopen(os.dup(log_fd), "w", buffering=1, encoding="utf-8", errors="backslashreplace")
        self.listener = None
        self.ino = None
        self.watched: dict[str, tuple[int, int] | None] = {}
        self.skipped: list[str] = []
        self.served = 0
        self.started = time.time()
        self.last = time.monotonic()
        self.stopping = False
        self.settings = launch.settings()

    def log(self, message: str) -> None:
        try:
            self.log_file.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} bellica warm [{os.getpid()}] {message}\n")
            self.log_file.flush()
        except (OSError, ValueError):
            pass

    # preparing

    def preload(self) -> None:
        import importlib

        sys.addaudithook(_audit)
        _recording[0] = True
        try:
            for name in list(PRELOAD) + preload_modules(self.skipped):
                try:
                    importlib.import_module(name)
                except Exception as e:  # noqa: BLE001 - as above
                    self.skipped.append(f"{name} ({type(e).__name__}: {e})")
        finally:
            _recording[0] = False
        heavy = [m for m in NEVER if m in sys.modules]
        if heavy:
            raise RuntimeError(f"preloading imported {', '.join(heavy)} (they start threads): leave them off PRELOAD")
        if "duckdb" in sys.modules:  # duckdb opens an in-memory connection at import, which runs a thread
            import gc

            sys.modules["duckdb"].default_connection().close()
            gc.collect()
        threads = _threads()
        if threads is not None and threads > 1:
            raise RuntimeError(f"the server runs {threads} threads after its imports; forking workers would be unsafe")
        self.watched = {path: self._stamp(path) for path in self._watch_list()}
        for name in self.skipped:
            self.log(f"not preloaded: {name}")

    def _watch_list(self) -> list[str]:
        """Every loaded module file outside the standard library, and every file read while loading them."""
        stdlib = {os.path.realpath(p) for p in (sys.base_prefix, sys.base_exec_prefix)}
        out = set()
        for module in list(sys.modules.values()):
            f = getattr(module, "__file__", None)
            if not f:
                continue
            real = os.path.realpath(f)
            if "site-packages" not in real and any(real.startswith(p + os.sep) for p in stdlib):
                continue
            out.add(f)
        for f in _opened:
            if not f.endswith(".pyc") and not f.startswith(("/proc/", "/dev/", "/sys/")) and os.path.isfile(f):
                out.add(f)
        extra = os.environ.get("BELLICA_WARM_WATCH", "")
        out.update(p for p in extra.split(os.pathsep) if p)
        return sorted(out)

    @staticmethod
    def _stamp(path: str) -> tuple[int, int] | None:
        try:
            st = os.stat(path)
        except OSError:
            return None
        return st.st_mtime_ns, st.st_size

    def changed(self) -> str | None:
        """The first watched file that changed since the server started, or None."""
        for path, stamp in self.watched.items():
            if self._stamp(path) != stamp:
                return path
        return None

    def bind(self) -> None:
        import socket

        if os.path.exists(self.path):  # left by a server that died (a live one answered `ask` first)
            os.unlink(self.path)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        mask = os.umask(0o177)
        try:
            listener.bind(self.path)
        finally:
            os.umask(mask)
        listener.listen(64)
        self.listener, self.ino = listener, os.stat(self.path).st_ino

    def prepare(self) -> None:
        if sys.path and sys.path[0] == "":
            del sys.path[0]  # a worker's imports must not depend on its client's working directory
        self.preload()
        self.bind()
        self.log(f"listening on {self.path}: {len(self.watched)} files watched, idle exit after "
                 f"{self.idle_s / 60:g} min, python {sys.version.split()[0]} at {sys.prefix}")

    # serving

    def loop(self) -> None:
        import select
        import signal

        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_w, False)

        def stop(signum, _frame):
            self.stopping = True
            try:
                os.write(wake_w, b"x")
            except OSError:
                pass

        def reap(_signum, _frame):
            while True:
                try:
                    pid, _status = os.waitpid(-1, os.WNOHANG)
                except ChildProcessError:
                    return
                if pid == 0:
                    return

        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(signum, stop)
        signal.signal(signal.SIGCHLD, reap)
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)
        self._wake = (wake_r, wake_w)
        try:
            while not self.stopping:
                left = self.idle_s - (time.monotonic() - self.last)
                if left <= 0:
                    self.log(f"idle for {self.idle_s / 60:g} min: exiting")
                    break
                ready, _, _ = select.select([self.listener, wake_r], [], [], min(left, CHECK_EVERY_S))
                if self.stopping or wake_r in ready:
                    break
                if self.listener not in ready:
                    changed = self.changed()
                    if changed:
                        self.log(f"{changed} changed: exiting (stale)")
                        break
                    if self._stamp(self.path) is None or os.stat(self.path).st_ino != self.ino:
                        self.log(f"{self.path} was removed or replaced: exiting")
                        break
                    continue
                try:
                    conn, _ = self.listener.accept()
                except OSError:
                    continue
                try:
                    self.handle(conn)
                finally:
                    conn.close()
        finally:
            self.close()
            self.log(f"stopped; commands served: {self.served}")

    def close(self) -> None:
        try:
            if self.ino is not None and os.stat(self.path).st_ino == self.ino:
                os.unlink(self.path)
        except OSError:
            pass
        if self.listener is not None:
            self.listener.close()

    def info(self) -> dict:
        return {"pid": os.getpid(), "socket": self.path, "started": self.started, "served": self.served,
                "idle_s": self.idle_s, "idle_left_s": max(0.0, self.idle_s - (time.monotonic() - self.last)),
                "watched": len(self.watched), "python": sys.version.split()[0], "prefix": sys.prefix,
                "bellica": os.path.dirname(os.path.abspath(launch.__file__))}

    def handle(self, conn) -> None:
        import marshal
        import socket
        import struct

        conn.setblocking(True)
        size = struct.calcsize("3i")
        _pid, uid, _gid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, size))
        if uid != os.getuid():
            self.log(f"refused a connection from uid {uid}")
            return
        self.last = time.monotonic()
        conn.settimeout(2.0)
        try:
            op = conn.recv(1)
        except OSError:
            return
        changed = self.changed()
        if changed:
            self.log(f"{changed} changed: answering stale and exiting")
            self._send(conn, _frame(b"S", 0))
            self.stopping = True
            return
        if op in (b"?", b"Q"):
            payload = marshal.dumps(self.info())
            self._send(conn, _frame(op.replace(b"?", b"I"), len(payload)) + payload)
            if op == b"Q":
                self.log("stop requested")
                self.stopping = True
            return
        if op != b"C":
            return
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            pid = os.fork()
        except OSError as e:  # out of processes or memory: the client runs the command itself
            self.log(f"cannot fork a worker ({e})")
            return
        if pid == 0:
            _worker(conn, self)  # never returns
        self.served += 1

    @staticmethod
    def _send(conn, data: bytes) -> None:
        try:
            conn.sendall(data)
        except OSError:
            pass


# --- the worker (a forked child, one per command) ----------------------------------------------


def _receive(conn) -> tuple[dict, list[int]]:
    import marshal
    import socket
    import struct

    header, fds, _flags, _addr = socket.recv_fds(conn, 4, 3)
    while len(header) < 4:
        more = conn.recv(4 - len(header))
        if not more:
            raise EOFError("the client left")
        header += more
    if len(fds) != 3:
        for fd in fds:
            os.close(fd)
        raise EOFError("the client sent no standard streams")
    (size,) = struct.unpack("!I", header)
    return marshal.loads(launch._recv_exact(conn, size)), fds


def _stdio(streams) -> list:
    """New sys.stdin/stdout/stderr on fds 0-2, as the interpreter makes them, with the client's
    encodings and buffering (which the client's interpreter chose for these very descriptors)."""
    import io

    out = []
    for fd, spec in enumerate(streams):
        if spec is None:
            out.append(None)
            continue
        encoding, errors, line_buffering, write_through = spec
        reading = fd == 0
        buffer = io.open(fd, "rb" if reading else "wb", buffering=-1, closefd=False)
        buffer.raw.name = ("<stdin>", "<stdout>", "<stderr>")[fd]
        text = io.TextIOWrapper(buffer, encoding=encoding, errors=errors, newline="\n",
                                line_buffering=line_buffering, write_through=write_through)
        text.mode = "r" if reading else "w"
        out.append(text)
    return out


def _exit_status(code) -> int:
    """The exit status the interpreter gives ``SystemExit(code)``."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    try:
        sys.stderr.write(f"{code}\n")
    except Exception:  # noqa: BLE001
        pass
    return 1


def _worker(conn, server: Server) -> None:
    """Run one command in this forked child; exits, never returns."""
    status = 1
    try:
        import signal

        server.listener.close()
        for fd in server._wake:
            os.close(fd)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD):
            signal.signal(signum, signal.SIG_DFL)
        conn.settimeout(10.0)
        request, fds = _receive(conn)
        if request.get("settings") != server.settings:
            conn.sendall(_frame(b"F", 0))
            os._exit(0)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        time.tzset()
        os.umask(request["umask"])
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        streams = _stdio(request["streams"])
        sys.stdin, sys.stdout, sys.stderr = streams
        sys.__stdin__, sys.__stdout__, sys.__stderr__ = streams
        sys.argv = [request["argv0"], *request["args"]]
        try:  # the start command's own click context, when the server runs inside `bellica warm start`
            from click import globals as click_globals

            click_globals._local.__dict__.pop("stack", None)
        except Exception:  # noqa: BLE001
            pass
        conn.settimeout(None)
        conn.sendall(_frame(b"P", os.getpid()))
    except BaseException as e:  # noqa: BLE001 - nothing started: the client runs the command itself
        server.log(f"worker {os.getpid()} could not take the request ({type(e).__name__}: {e}): the client runs it")
        os._exit(0)
    try:
        status = _run(request["args"])
        conn.sendall(_frame(b"X", status))
    except BaseException:  # noqa: BLE001 - the client says the worker ended without a status
        pass
    os._exit(status & 0xFF if isinstance(status, int) else 1)


def _run(args: list[str]) -> int:
    """``bellica ARGS`` as the interpreter runs it: main, exit status, exit handlers, flushed streams."""
    import atexit
    import traceback

    try:
        from bellica.cli import main

        main(args)
        status = 0
    except SystemExit as e:
        status = _exit_status(e.code)
    except KeyboardInterrupt:
        traceback.print_exc()
        status = 130
    except BaseException:  # noqa: BLE001 - a bug: its traceback, as the interpreter prints it
        traceback.print_exc()
        status = 1
    try:
        atexit._run_exitfuncs()
    except Exception:  # noqa: BLE001
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            if status == 0:
                status = 120  # the interpreter's status when flushing stdout fails at exit
    return status


# --- the commands -----------------------------------------------------------------------------


def _log_path(path: str) -> str:
    return path[: -len(".sock")] + ".log"


def _supported() -> None:
    import socket

    from bellica.geo.errors import InputError

    if not (hasattr(os, "fork") and hasattr(socket, "SO_PEERCRED") and hasattr(socket, "recv_fds")):
        raise InputError("bellica warm needs Linux (fork, SO_PEERCRED, fd passing): run commands without it")


@click.group(name="warm")
def group() -> None:
    """Optional warm command server: faster starts, same results.

    `bellica warm start` keeps a server that has loaded bellica; every `bellica` command then runs
    in a worker forked from it.  Without a server (or with BELLICA_WARM=0) commands run as usual.
    """


@group.command()
@click.option("--idle-minutes", type=click.FloatRange(min=0, min_open=True), default=DEFAULT_IDLE_MINUTES,
              show_default=True, help="Exit after this long without a command.")
@click.option("--foreground", is_flag=True, help="Serve in this process (stop with Ctrl-C) instead of in the background.")
def start(idle_minutes: float, foreground: bool) -> None:
    """Start the warm server for this user and this installation.

    Example: bellica warm start --idle-minutes 120
    """
    _supported()
    path = launch.socket_path()
    private_dir(os.path.dirname(path))
    info = ask(b"?", path)
    if isinstance(info, dict):
        click.echo(f"a warm server is already running (pid {info['pid']}, socket {path})")
        return
    if info == "stale":
        _wait_gone(path)
    idle_s = idle_minutes * 60
    if foreground:
        server = Server(path, idle_s)
        server.prepare()
        click.echo(f"warm server serving on {path} (pid {os.getpid()}); Ctrl-C stops it", err=True)
        server.loop()
        return
    _daemon(path, idle_s)


def _daemon(path: str, idle_s: float) -> None:
    from bellica.geo.errors import InputError

    sys.stdout.flush()
    sys.stderr.flush()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the first child: a new session, then the server's own process, then gone
        try:
            os.close(read_end)
            os.setsid()
            if os.fork() != 0:
                os._exit(0)
            _daemon_main(path, idle_s, write_end)
        finally:
            os._exit(1)
    os.close(write_end)
    os.waitpid(pid, 0)
    with os.fdopen(read_end, "rb") as r:
        answer = r.read().decode("utf-8", "replace").strip()
    if not answer.startswith("ok "):
        raise InputError(f"the warm server did not start: {answer or 'it exited'} (see {_log_path(path)})")
    click.echo(f"warm server started (pid {answer.split()[1]}, socket {path}); it exits after "
               f"{idle_s / 60:g} idle minutes, or on `bellica warm stop`")


def _daemon_main(path: str, idle_s: float, ready_fd: int) -> None:
    """The server's process: stdio to the log and /dev/null, prepare, say ready (or why not), serve."""
    os.chdir("/")
    log_fd = os.open(_log_path(path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    null_fd = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null_fd, 0)
    os.dup2(log_fd, 1)
    os.dup2(log_fd, 2)
    os.close(null_fd)
    _close_fds_but(ready_fd, log_fd)  # a terminal's or a test harness's pipes must not stay open in the server
    server = Server(path, idle_s, log_fd)
    os.close(log_fd)
    try:
        server.prepare()
    except BaseException as e:  # noqa: BLE001 - reported to `bellica warm start`
        import traceback

        traceback.print_exc()
        os.write(ready_fd, f"{type(e).__name__}: {e}".encode())
        os._exit(1)
    os.write(ready_fd, f"ok {os.getpid()}\n".encode())
    os.close(ready_fd)
    try:
        server.loop()
    finally:
        os._exit(0)


def _close_fds_but(*keep: int) -> None:
    try:
        fds = [int(n) for n in os.listdir("/proc/self/fd")]
    except OSError:
        fds = list(range(3, 256))
    for fd in fds:
        if fd > 2 and fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass


@group.command()
def stop() -> None:
    """Stop this installation's warm server (commands then run without it).

    Example: bellica warm stop
    """
    path = launch.socket_path()
    info = ask(b"Q", path)
    if info is None:
        click.echo("no warm server is running")
        return
    _wait_gone(path)
    if info == "stale":
        click.echo("the warm server was older than the installed code and has stopped")
    else:
        click.echo(f"stopped the warm server (pid {info['pid']}, commands served: {info['served']})")


@group.command()
def status() -> None:
    """Say whether this installation's warm server is running.

    Example: bellica warm status
    """
    path = launch.socket_path()
    info = ask(b"?", path)
    if os.environ.get("BELLICA_WARM", "") == "0":
        click.echo("note: BELLICA_WARM=0 is set: commands in this environment run without the server", err=True)
    if info is None:
        click.echo(f"not running (socket {path})")
    elif info == "stale":
        _wait_gone(path)
        click.echo("not running: the server was older than the installed code and has stopped")
    else:
        up = time.time() - info["started"]
        click.echo(f"running: pid {info['pid']}, socket {path}, up {up:.0f} s, commands served: {info['served']}, "
                   f"exits after {info['idle_left_s'] / 60:.1f} more idle minutes")
