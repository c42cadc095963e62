"""The checks the province builder and the node builder share (etl/design_files.py)."""

import pytest

from bellica.etl.design_files import joined_ends, write_to_map
from bellica.geo.errors import InputError

SEEN = {n.lower(): n for n in ("Agrigentum", "Akragas", "Catana", "Gela", "Himera", "Messana", "Naxos", "Syracusae")}


def test_joined_ends_gives_the_names_as_the_file_spells_them():
    assert joined_ends({"from": "gela", "to": "NAXOS"}, 0, "f.toml", "path", {"from", "to"}, SEEN, "place") == (
        "Gela", "Naxos", "f.toml [[path]] #1")


@pytest.mark.parametrize(("entry", "nearest", "message"), [
    ({"to": "Gela"}, 6, 'f.toml [[path]] #3: no from: give from = "place" and to = "place"'),
    ({"from": "Gela", "to": "Athenae"}, 6, "f.toml [[path]] #3: to = 'Athenae' is no place of the file: add a [[place]] "
     "of that name or use one of Agrigentum, Akragas, Catana, Gela, Himera, Messana..."),
    ({"from": "Gela", "to": "Hybla"}, 6, "f.toml [[path]] #3: to = 'Hybla' is no place of the file: add a [[place]] "
     "of that name or use one of Himera, Agrigentum, Akragas, Catana, Gela, Messana..."),
    ({"from": "Gela", "to": "gela"}, 6, "f.toml [[path]] #3: from and to are both 'Gela': a path joins two places"),
])
def test_a_path_refused_names_six_places_near_the_name(entry, nearest, message):
    with pytest.raises(InputError) as err:
        joined_ends(entry, 2, "f.toml", "path", {"from", "to"}, SEEN, "place", nearest=nearest)
    assert str(err.value) == message


@pytest.mark.parametrize(("entry", "message"), [
    ({"from": "Gela"}, 'p.toml [[exception]] #1: no to: give from = "province" and to = "province"'),
    ({"from": "Gela", "to": "Athenae"}, "p.toml [[exception]] #1: to = 'Athenae' is no province of the file: use one of "
     "Agrigentum, Akragas, Catana, Gela, Himera, Messana, Naxos, Syracusae"),
    ({"from": "Gela", "to": "Gela"}, "p.toml [[exception]] #1: from and to are both 'Gela': an exception joins two provinces"),
    ({"from": "Gela", "to": "Naxos", "one": 1}, "p.toml [[exception]] #1: unknown key(s) one: use only from, to"),
])
def test_an_exception_refused_names_every_province(entry, message):
    with pytest.raises(InputError) as err:
        joined_ends(entry, 0, "p.toml", "exception", {"from", "to"}, SEEN, "province")
    assert str(err.value) == message


def test_a_map_another_command_holds_is_refused_in_one_line_and_left_as_it_was(tmp_path):
    """A builder writes its tables once it has computed them; another process holding the map
    (a `bellica` command still running) makes that one line naming the map and what to do."""
    import subprocess
    import sys

    from bellica.geo.spatialdb import offline_connect

    path = tmp_path / "map.duckdb"
    con = offline_connect(path)
    con.execute("CREATE TABLE hexes (h3 VARCHAR)")
    con.close()
    holder = subprocess.Popen([sys.executable, "-c", "import duckdb, sys; c = duckdb.connect(sys.argv[1]); "
                               "print('held', flush=True); sys.stdin.read()", str(path)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        written = []
        with pytest.raises(InputError) as refused:
            write_to_map(path, written.append)
    finally:
        holder.communicate("")
    message = str(refused.value)
    assert "\n" not in message and str(path) in message and "cannot be opened for writing" in message
    assert "try again once the command using it has finished" in message
    assert written == []
    write_to_map(path, lambda c: c.execute("CREATE TABLE provinces (name VARCHAR)"))  # free again: written
    con = offline_connect(path, read_only=True)
    assert {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()} == {"hexes", "provinces"}
    con.close()

