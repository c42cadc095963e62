"""The scenario-file shapes the rulesets share (engine/core/files.py): named entries, each name
once, and ``[[border]]`` pairs; and the Mare Nostrum, Rise of Rome and Trossian loaders that
read their files through them, each mistake one line naming the file, the entry and the fix."""

from __future__ import annotations

import shutil
from dataclasses import dataclass

import pytest

from bellica.engine.core.files import border_entries, named_entries
from bellica.geo.errors import InputError


@dataclass(frozen=True)
class _Sea:
    name: str
    lon: float


def _sea(entry) -> _Sea:
    return _Sea(str(entry["name"]), float(entry["lon"]))


def test_named_entries_keep_the_files_order():
    found = named_entries([{"name": "B", "lon": 2}, {"name": "A", "lon": "1.5"}], _sea, where="seas.toml",
                          what="sea", fix="give name and lon")
    assert list(found) == ["B", "A"]
    assert found["A"] == _Sea("A", 1.5)


@pytest.mark.parametrize("entries, message", [
    ([{"name": "A"}], "seas.toml sea #1: lacks 'lon': give name and lon"),
    ([{"name": "A", "lon": 1}, {"name": "B", "lon": "east"}], "seas.toml sea #2: could not convert"),
    ([{"name": "A", "lon": 1}, {"name": "A", "lon": 2}], "seas.toml sea 'A' is given twice: keep one"),
])
def test_named_entries_refuse_in_one_line(entries, message):
    with pytest.raises(InputError) as err:
        named_entries(entries, _sea, where="seas.toml", what="sea", fix="give name and lon")
    assert "\n" not in str(err.value) and str(err.value).startswith(message)


def test_named_entries_pass_the_builders_own_refusal():
    def strict(entry):
        raise InputError(f"sea {entry['name']!r}: too far east: give a sea of the map")

    with pytest.raises(InputError, match=r"^sea 'A': too far east: give a sea of the map$"):
        named_entries([{"name": "A"}], strict, where="seas.toml", what="sea", fix="give name")


def test_border_entries_give_the_pairs_in_order():
    rows = [{"between": ["A", "B"]}, {"between": ["C", "A"]}]
    assert border_entries(rows, ["A", "B", "C"], where="p.toml") == [("A", "B"), ("C", "A")]


@pytest.mark.parametrize("between", [["A", "A"], ["A", "Z"], ["A"], ["A", "B", "C"], "AB", None])
def test_border_entries_refuse_what_is_not_two_provinces(between):
    rows = [{"between": ["A", "B"]}, {"between": between} if between is not None else {}]
    with pytest.raises(InputError) as err:
        border_entries(rows, ["A", "B", "C"], where="p.toml")
    assert str(err.value) == f"p.toml border #2 between = {between!r}: give two different provinces of this file"


def _edited(tmp_path, source, file, old, new):
    folder = tmp_path / source.name
    shutil.copytree(source, folder)
    text = (folder / file).read_text(encoding="utf-8")
    assert old in text
    (folder / file).write_text(text.replace(old, new, 1), encoding="utf-8")
    return folder


@pytest.mark.parametrize("file, old, new, message", [
    ("nations.toml", 'name = "Gauls"', 'name = "Carthaginians"', "nation 'Carthaginians' is given twice: keep one"),
    ("seas.toml", "lon = 0.5\n", "", "sea #1: lacks 'lon': give name, lon and lat"),
    ("provinces.toml", 'between = ["Numidia", "Africa"]', 'between = ["Numidia", "Numidia"]',
     "border #2 between = ['Numidia', 'Numidia']: give two different provinces of this file"),
])
def test_mare_nostrum_folder_mistakes(tmp_path, file, old, new, message):
    from bellica.engine.mare_nostrum.scenario import DEFAULT_SCENARIO, load_scenario

    with pytest.raises(InputError) as err:
        load_scenario(_edited(tmp_path, DEFAULT_SCENARIO, file, old, new))
    assert "\n" not in str(err.value) and message in str(err.value) and file in str(err.value)


def test_rise_of_rome_border_to_an_unknown_province(tmp_path):
    from bellica.datasets import SCENARIOS_DIR
    from bellica.engine.rise_of_rome.scenario import load_scenario

    folder = _edited(tmp_path, SCENARIOS_DIR / "rise-of-rome", "provinces.toml",
                     'between = ["Latium", "Volsci"]', 'between = ["Latium", "Volscii"]')
    with pytest.raises(InputError, match=r"provinces\.toml border #2 between = \['Latium', 'Volscii'\]: give two"):
        load_scenario(folder)


def test_trossian_nation_without_a_capital(tmp_path):
    from bellica.engine.trossian.scenario import DEFAULT_SCENARIO, load_scenario

    folder = _edited(tmp_path, DEFAULT_SCENARIO, "world.toml", 'capital = "Yedisan"\n', "")
    with pytest.raises(InputError, match=r"world\.toml nation #1: lacks 'capital': give name and capital$"):
        load_scenario(folder)


def test_shipped_folders_give_symmetric_borders():
    """The adjacency the loaders build from the shipped ``[[border]]`` entries: every border both ways."""
    from bellica.engine.mare_nostrum.scenario import default_scenario
    from bellica.engine.rise_of_rome.scenario import load_scenario

    for s in (default_scenario(), load_scenario()):
        assert set(s.adjacency) == set(s.provinces)
        assert all(a in s.adjacency[b] for a, ns in s.adjacency.items() for b in ns)
        assert sum(len(ns) for ns in s.adjacency.values()) > 0
