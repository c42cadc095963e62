"""No network, ever (issue 23, item 5): a file of another format named as a campaign or map is one
error line, and DuckDB fetches no extension for it.

DuckDB opens a SQLite file through its ``sqlite_scanner`` extension, which it would download from
extensions.duckdb.org (DNS lookups, ``~/.duckdb/extensions`` created) unless autoinstall and
autoload are off on the connection (:func:`bellica.geo.spatialdb.offline_connect`).  DuckDB's
downloads are made by its C++ code, which a Python socket guard does not see, so the test points
``http_proxy`` at a canary listening on 127.0.0.1: every request DuckDB makes reaches it and is
counted (a control run on a bare ``duckdb.connect`` shows that it does), and nothing leaves the
machine.  The Python socket functions raise besides, for any Python code that would connect.
"""

from __future__ import annotations

import socket
import sqlite3
import threading

import duckdb
import pytest

from tests.cli.test_round_cli import bellica


class Canary:
    """A local HTTP proxy that answers nothing and counts the connections made to it."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.05)
        self.hits: list[bytes] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.getsockname()[1]}"

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                peer, _ = self.server.accept()
            except OSError:
                continue
            with peer:
                peer.settimeout(1)
                try:
                    self.hits.append(peer.recv(200))
                except OSError:
                    self.hits.append(b"")

    def close(self) -> None:
        self.stop.set()
        self.thread.join()
        self.server.close()


@pytest.fixture
def offline(tmp_path, monkeypatch):
    """HOME in a temporary folder, every HTTP(S) proxy variable at the canary, Python sockets refused."""
    home = tmp_path / "home"
    home.mkdir()
    canary = Canary()
    monkeypatch.setenv("HOME", str(home))
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy"):
        monkeypatch.setenv(name, canary.url)
    for name in ("no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    attempts: list[tuple] = []

    def refuse(*args, **kwargs):
        attempts.append(args)
        raise OSError("the network is off in this test")

    yield home, canary, attempts, (lambda: (monkeypatch.setattr(socket, "getaddrinfo", refuse),
                                            monkeypatch.setattr(socket.socket, "connect", refuse)))
    canary.close()


def _files(tmp_path) -> dict[str, object]:
    """A file of each format DuckDB would open, or refuse, named like a bellica database."""
    lite = tmp_path / "sqlite.duckdb"
    con = sqlite3.connect(lite)
    con.execute("CREATE TABLE events (seq INTEGER)")
    con.commit()
    con.close()
    scratch = duckdb.connect()
    scratch.execute(f"COPY (SELECT 1 AS seq) TO '{tmp_path / 'parquet.duckdb'}' (FORMAT parquet)")
    scratch.execute(f"COPY (SELECT 1 AS seq) TO '{tmp_path / 'csv.duckdb'}' (FORMAT csv)")
    scratch.close()
    return {"sqlite": lite, "parquet": tmp_path / "parquet.duckdb", "csv": tmp_path / "csv.duckdb"}


#: Commands that open a campaign or a map file the user names.
COMMANDS = [
    ("round", "status", "{f}"),
    ("round", "verify", "{f}"),
    ("log", "{f}"),
    ("turn", "status", "{f}"),
    ("sql", "{f}", "SELECT 1"),
    ("map", "info", "{f}"),
    ("map", "export", "{f}", "--out", "{out}.gpkg"),
    ("render", "map", "{f}", "--out", "{out}.html"),
    ("campaign", "structures", "{f}"),
    ("campaign", "new", "--scenario", "first-punic-war", "--map", "{f}", "--out", "{out}.duckdb"),
    ("export", "{f}", "--out", "{out}"),
]


def test_the_canary_sees_duckdbs_download(tmp_path, offline):
    """The control: a bare connection (autoload on, DuckDB's default) reaches the canary."""
    home, canary, _attempts, _guard = offline
    lite = _files(tmp_path)["sqlite"]
    with pytest.raises(duckdb.Error, match="sqlite_scanner"):
        duckdb.connect(str(lite))
    assert canary.hits and b"sqlite_scanner" in canary.hits[0]
    assert (home / ".duckdb").exists()


@pytest.mark.parametrize("kind", ["sqlite", "parquet", "csv"])
def test_a_foreign_file_is_one_line_and_no_download(tmp_path, offline, capsys, kind):
    home, canary, attempts, guard = offline
    path = _files(tmp_path)[kind]
    before = path.read_bytes()
    guard()
    for n, command in enumerate(COMMANDS):
        argv = [a.format(f=path, out=tmp_path / f"out{n}") for a in command]
        code, out, err = bellica(capsys, *argv)
        assert code == 1 and len(err.splitlines()) == 1 and err.startswith("error: "), (argv, err)
        assert str(path) in err and "Traceback" not in err, (argv, err)
        if kind == "sqlite":
            assert "a SQLite database" in err, (argv, err)
        assert not list(tmp_path.glob(f"out{n}*")), argv  # nothing written
    assert path.read_bytes() == before
    assert not (home / ".duckdb").exists()
    assert canary.hits == [] and attempts == []
