"""The checks the province builder and the node builder share (etl/design_files.py)."""

import pytest

from bellica.etl.design_files import joined_ends
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
