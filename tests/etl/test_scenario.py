"""The scenario loader: the shipped scenarios load, and broken files are rejected with messages
that name the file, the line or feature, and what is wrong."""

from __future__ import annotations

import json

import pytest

from bellica.etl.scenario import MapCells, list_scenarios, load_scenario, resolve_on_map
from bellica.geo.errors import InputError, MissingInputError
from bellica.geo.spatialdb import connect
from tests.etl.test_campaign import (
    FACTIONS_TOML,
    PLACEMENTS_CSV,
    ROADS_TOML,
    STRUCTURES_CSV,
    build_synthetic_map,
    sea_zones,
    write_synthetic_scenario,
)


@pytest.fixture(scope="module")
def synthetic_cells(tmp_path_factory) -> MapCells:
    path = build_synthetic_map(tmp_path_factory.mktemp("m") / "map.duckdb")
    con = connect(path, read_only=True)
    try:
        return MapCells.from_db(con)
    finally:
        con.close()


def test_shipped_first_punic_war_loads_with_the_seed_numbers():
    s = load_scenario("first-punic-war")
    assert s.start_fp == 1600 and s.armies_per_faction == 8 and s.resolution == 5
    assert len(s.structures) >= 60
    f = {x.name: x for x in s.factions}
    assert (f["Carthago"].first_army, f["Carthago"].last_army) == (1, 8)
    assert (f["Roma"].first_army, f["Roma"].last_army) == (9, 16)
    assert f["Carthago"].influence_multiplier == 2 and f["Roma"].influence_multiplier == 1
    assert not f["Syracusae"].player and f["Syracusae"].army_list == "Greek (Western) 280-49 BC"
    assert s.structure("Roma").capital and s.structure("Carthago").capital
    assert s.structure("Ravenna").kind == "city" and s.structure("Hipponium").kind == "town"
    assert s.structure("Gela").controller == "Syracusae"  # the seed's "Syracusan city of Gela"
    assert len(s.placements) == 16
    assert {z.name for z in s.sea_zones} == {
        "Mare Sardoum", "Mare Tuscum", "Mare Tyrrhenum", "Mare Africum", "Mare Ionium", "Mare Adriaticum"
    }
    names = {r.name for r in s.roads}
    for road in ("Via Appia", "Via Latina", "Via Aurelia", "Via Flaminia", "Via Salaria", "Via Valeria",
                 "Via Cassia", "Via Aemilia", "Via Valeria Siciliae", "Via Africana"):
        assert road in names
    assert {"Tiberis", "Padus", "Arnus", "Volturnus", "Liris", "Aufidus"} <= {r.name for r in s.rivers}
    assert "first-punic-war" in list_scenarios() and "dionysian-sicily" in list_scenarios()


def test_second_scenario_differs_in_everything_hard_wiring_would_fix():
    s = load_scenario("dionysian-sicily")
    assert s.resolution == 6 and s.armies_per_faction == 1 and len(s.factions) == 3
    assert s.merged_rules["sieges"]["resilience"]["city"] == 3
    assert any(z.ocean for z in s.sea_zones)


def _rejects(tmp_path, files: dict, match: str, **kw):
    d = write_synthetic_scenario(tmp_path / "s", files)
    with pytest.raises(InputError, match=match):
        load_scenario(d, **kw)


def test_unknown_structure_in_a_road(tmp_path):
    roads = ROADS_TOML.replace('"Btown", "Bcapitol"', '"Btown", "Bcapitoll"')
    _rejects(tmp_path, {"roads.toml": roads}, r"roads.toml line 3: road 'Via Prima' waypoint 4 'Bcapitoll' is not a structure")


def test_bad_waypoint_shape(tmp_path):
    roads = ROADS_TOML.replace("[40.25, 10.95]", "[40.25]")
    _rejects(tmp_path, {"roads.toml": roads}, r"roads.toml line \d+: road 'Via Secunda' waypoint 2 \[40.25\]")


def test_two_structures_with_one_name(tmp_path):
    csv = STRUCTURES_CSV + "Atown,Again,town,40.45,10.50,Alpha\n"
    _rejects(tmp_path, {"structures.csv": csv}, r"structures.csv line 10: two structures named 'Atown' \(also line 4\)")


def test_two_capitals_with_one_name(tmp_path):
    factions = FACTIONS_TOML.replace('capitals = ["Bcapitol"]', 'capitals = ["Acapitol"]')
    _rejects(tmp_path, {"factions.toml": factions}, r"factions.toml line 16: two capitals named 'Acapitol' \(factions 'Alpha' and 'Beta'\)")


def test_bad_controller(tmp_path):
    csv = STRUCTURES_CSV.replace("Btown,Beta Two,town,40.55,10.70,Beta", "Btown,Beta Two,town,40.55,10.70,Betta")
    _rejects(tmp_path, {"structures.csv": csv}, r"structures.csv line 6: structure 'Btown' controller 'Betta' is not a faction")


def test_capital_held_by_another_faction(tmp_path):
    csv = STRUCTURES_CSV.replace("Bcapitol,Betaville,city,40.60,10.30,Beta", "Bcapitol,Betaville,city,40.60,10.30,Alpha")
    _rejects(tmp_path, {"structures.csv": csv}, r"structures.csv line 5: capital 'Bcapitol' of 'Beta' is controlled by 'Alpha'")


def test_bad_kind_and_coordinates(tmp_path):
    _rejects(tmp_path, {"structures.csv": STRUCTURES_CSV.replace("Atown,Alpha Two,town", "Atown,Alpha Two,village")},
             r"structures.csv line 4: structure 'Atown' kind 'village': write town or city")
    _rejects(tmp_path, {"structures.csv": STRUCTURES_CSV.replace("40.40,10.60", "140.40,10.60")},
             r"structures.csv line 4: lat 140.4 is outside -90..90")
    _rejects(tmp_path, {"structures.csv": STRUCTURES_CSV.replace("40.40,10.60", "45.40,10.60")},
             r"structures.csv line 4: structure 'Atown' .* outside the scenario bbox")


def test_army_numbers_must_match_armies_per_faction(tmp_path):
    factions = FACTIONS_TOML.replace("last_army = 4", "last_army = 5")
    _rejects(tmp_path, {"factions.toml": factions}, r"factions.toml line 11: faction 'Beta' has armies 3-5 \(3\)")
    factions = FACTIONS_TOML.replace("first_army = 3\nlast_army = 4", "first_army = 2\nlast_army = 3")
    _rejects(tmp_path, {"factions.toml": factions}, r"overlap 'Alpha'")


@pytest.mark.parametrize(
    "placements, match",
    [
        ("army,faction,structure\n1,Alpha,Acapitol\n2,Alpha,Bcapitol\n3,Beta,Btown\n4,Beta,Hilltown\n",
         r"placements.csv line 3: army 2 of Alpha starts in Bcapitol, controlled by Beta"),
        ("army,faction,structure\n1,Alpha,Acapitol\n2,Alpha,Acapitol\n3,Beta,Btown\n4,Beta,Hilltown\n",
         r"placements.csv line 3: armies 1 and 2 of Alpha both start in Acapitol"),
        ("army,faction,structure\n1,Alpha,Acapitol\n3,Alpha,Atown\n3,Beta,Btown\n4,Beta,Hilltown\n",
         r"placements.csv line 3: army 3 is not an army of Alpha \(its armies: 1-2\)"),
        ("army,faction,structure\n1,Alpha,Acapitol\n2,Alpha,Atown\n3,Beta,Btown\n",
         r"placements.csv: army\(ies\) \[4\] of Beta have no starting structure"),
        ("army,faction,structure\n1,Alpha,Acapitol\n2,Alpha,Atown\n3,Beta,Btown\n4,Beta,Shoretown\n",
         r"placements.csv line 5: army 4 of Beta starts in Shoretown, controlled by nobody"),
        ("army,faction,structure\n1,Alpha,Acapitol\n2,Alpha,Atown\n3,Beta,Btown\n4,Beta,Nowhere\n",
         r"placements.csv line 5: army 4 starts in 'Nowhere', which is not a structure"),
    ],
)
def test_bad_placements(tmp_path, placements, match):
    assert PLACEMENTS_CSV  # the good file is the template these break
    _rejects(tmp_path, {"placements.csv": placements}, match)


def test_placements_file_option_replaces_the_scenarios(tmp_path):
    d = write_synthetic_scenario(tmp_path / "s")
    p = tmp_path / "mine.csv"
    p.write_text("army,faction,structure\n1,Alpha,Atown\n2,Alpha,Acapitol\n3,Beta,Btown\n4,Beta,Bcapitol\n")
    s = load_scenario(d, placements=p)
    assert [x.structure for x in s.placements] == ["Atown", "Acapitol", "Btown", "Bcapitol"]


def test_toml_syntax_and_missing_files(tmp_path):
    _rejects(tmp_path, {"roads.toml": "[[road]\nname = 1\n"}, r"roads.toml is not valid TOML: .*line 1")
    with pytest.raises(MissingInputError, match="no scenario.toml"):
        load_scenario(tmp_path / "nothing-here")
    d = write_synthetic_scenario(tmp_path / "t", {"structures.csv": None})
    with pytest.raises(MissingInputError, match="structures.csv: missing"):
        load_scenario(d)


def test_bad_sea_zone_geometry(tmp_path):
    zones = sea_zones()
    zones["features"][1]["geometry"] = {"type": "Point", "coordinates": [11.0, 40.0]}
    _rejects(tmp_path, {"sea_zones.geojson": json.dumps(zones)}, r"sea_zones.geojson feature 2 \('Mare Boreale'\): geometry is Point")
    zones = sea_zones()
    zones["features"][1]["properties"]["name"] = "Mare Australe"
    _rejects(tmp_path, {"sea_zones.geojson": json.dumps(zones)}, r"two sea zones named 'Mare Australe'")


def test_override_needs_a_reason_and_a_known_terrain(tmp_path):
    _rejects(tmp_path, {"overrides.toml": '[[override]]\nterrain = "farmlands"\nstructures = ["Atown"]\n'},
             r"overrides.toml line 1: override without a reason")
    _rejects(tmp_path, {"overrides.toml": '[[override]]\nterrain = "jungle"\ncells = []\nreason = "x"\n'},
             r"overrides.toml line 1: terrain 'jungle'")


# ----------------------------------------------------------------- checks on the map


def test_structure_in_the_sea_is_rejected(tmp_path, synthetic_cells):
    csv = STRUCTURES_CSV + "Atlantis,Nowhere,town,40.50,11.40,\n"
    s = load_scenario(write_synthetic_scenario(tmp_path / "s", {"structures.csv": csv}))
    with pytest.raises(InputError, match=r"structures.csv line 10: structure 'Atlantis' at \(40.5, 11.4\) lies in a sea hex"):
        resolve_on_map(s, synthetic_cells)


def test_structure_in_a_lake_is_rejected(tmp_path, synthetic_cells):
    csv = STRUCTURES_CSV + "Lacus,Lake,town,40.30,10.20,\n"
    s = load_scenario(write_synthetic_scenario(tmp_path / "s", {"structures.csv": csv}))
    with pytest.raises(InputError, match=r"structures.csv line 10: .* lies in a lake hex"):
        resolve_on_map(s, synthetic_cells)


def test_zone_gap_is_rejected_unless_marked_ocean(tmp_path, synthetic_cells):
    gap = sea_zones(gap=True)
    s = load_scenario(write_synthetic_scenario(tmp_path / "s", {"sea_zones.geojson": json.dumps(gap)}))
    with pytest.raises(InputError, match=r"sea_zones.geojson: \d+ sea/coast hex\(es\) of the scenario area lie in no sea zone"):
        resolve_on_map(s, synthetic_cells)
    gap["features"].append({
        "type": "Feature", "properties": {"name": "Deep", "ocean": True},
        "geometry": {"type": "Polygon", "coordinates": [[[10.9, 40.5], [11.6, 40.5], [11.6, 40.85], [10.9, 40.85], [10.9, 40.5]]]},
    })
    s = load_scenario(write_synthetic_scenario(tmp_path / "t", {"sea_zones.geojson": json.dumps(gap)}))
    resolved = resolve_on_map(s, synthetic_cells)
    assert resolved.ocean_cells and not set(resolved.ocean_cells) & {c for cs in resolved.zone_cells.values() for c in cs}
    assert any(n.topic == "ocean" and "Deep" in n.subject for n in resolved.notes)


def test_override_on_water_is_rejected(tmp_path, synthetic_cells):
    o = '[[override]]\nterrain = "hills"\npoints = [[40.5, 11.3]]\nreason = "why not"\n'
    s = load_scenario(write_synthetic_scenario(tmp_path / "s", {"overrides.toml": o}))
    with pytest.raises(InputError, match=r"overrides.toml line 1: override hex \w+ is a sea hex: terrain applies to land hexes only"):
        resolve_on_map(s, synthetic_cells)


def test_shore_structures_snap_and_shared_hexes_are_separated(tmp_path, synthetic_cells):
    csv = STRUCTURES_CSV + "Twin,Same place,town,40.401,10.601,Alpha\n"
    s = load_scenario(write_synthetic_scenario(tmp_path / "s", {"structures.csv": csv}))
    r = resolve_on_map(s, synthetic_cells)
    assert len(set(r.structure_cells.values())) == len(r.structure_cells)
    assert r.structure_cells["Atown"] != r.structure_cells["Twin"]
    twin = next(n for n in r.notes if n.subject == "Twin")
    assert "already holds Atown" in twin.message
    assert synthetic_cells.kind[r.structure_cells["Shoretown"]] == "land"
    assert any(n.topic == "override" for n in r.notes)


def test_misspelt_keys_are_refused(tmp_path):
    factions = FACTIONS_TOML.replace('capitals = ["Bcapitol"]', 'capital = ["Bcapitol"]')
    _rejects(tmp_path, {"factions.toml": factions}, r"factions.toml line 11: faction 'Beta' has unknown key\(s\) \['capital'\]")
    roads = ROADS_TOML.replace('note = "test road"', 'notes = "test road"')
    _rejects(tmp_path, {"roads.toml": roads}, r"roads.toml line 1: road 'Via Prima' has unknown key\(s\) \['notes'\]")


# --- issue 8: every scenario and placements file read safely ------------------------------------


@pytest.mark.parametrize("name", ["scenario.toml", "factions.toml", "roads.toml", "structures.csv", "placements.csv",
                                  "sea_zones.geojson"])
def test_non_utf8_scenario_files_are_one_line(tmp_path, name):
    # Bug: UnicodeDecodeError traceback (a file saved as Latin-1).
    d = write_synthetic_scenario(tmp_path / "s")
    (d / name).write_bytes((d / name).read_bytes() + b"# caf\xe9\n")
    with pytest.raises(InputError) as e:
        load_scenario(d)
    what = "placements file" if name == "placements.csv" else "scenario file"
    assert str(e.value).startswith(f"{what} {d / name} is not UTF-8 text: byte ")
    assert str(e.value).endswith("(0xe9) cannot be decoded; save the file as UTF-8")


def test_non_utf8_placements_file_is_one_line(tmp_path):
    d = write_synthetic_scenario(tmp_path / "s")
    p = tmp_path / "mine.csv"
    p.write_bytes(b"army,faction,structure\n1,Alpha,Acapit\xf4l\n")
    with pytest.raises(InputError, match=rf"^placements file {p} is not UTF-8 text: byte 37 \(0xf4\)"):
        load_scenario(d, placements=p)
    with pytest.raises(InputError, match=r"^placements file .* is a directory: give the path of a file$"):
        load_scenario(d, placements=tmp_path)


def test_deeply_nested_scenario_toml_is_one_line(tmp_path):
    # Bug: RecursionError traceback from tomllib.
    _rejects(tmp_path, {"roads.toml": "x = " + "[" * 100_000 + "\n"}, r"^roads.toml is nested too deeply to be read")


def test_non_ascii_digits_are_not_army_numbers_in_placements(tmp_path):
    # Bug: int() read "٣" as army 3.
    d = write_synthetic_scenario(tmp_path / "s")
    p = tmp_path / "mine.csv"
    p.write_text("army,faction,structure\n1,Alpha,Acapitol\n2,Alpha,Atown\n٣,Beta,Bcapitol\n4,Beta,Btown\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"mine.csv line 4: army '٣' is not a whole number: write an integer in digits 0-9"):
        load_scenario(d, placements=p)


def test_an_oversized_csv_field_is_one_line(tmp_path):
    # csv's field size limit (128 KiB) raised _csv.Error, a traceback.
    d = write_synthetic_scenario(tmp_path / "s")
    p = tmp_path / "mine.csv"
    p.write_text('army,faction,structure\n1,Alpha,"' + "A" * 200_000 + '"\n')
    with pytest.raises(InputError, match=r"^mine.csv line 2: not a CSV line \(field larger than field limit"):
        load_scenario(d, placements=p)


@pytest.mark.parametrize("scenario, ruleset", [("first-punic-war", "vae-victis-ii"), ("rise-of-rome", "rise-of-rome"),
                                               ("magna-graecia/dionysian", "magna-graecia")])
def test_a_scenarios_ruleset_and_title_are_read_whatever_its_kind(scenario, ruleset):
    """A hex scenario's folder, a province scenario's folder, a node scenario's file."""
    from bellica.etl.scenario import scenario_ruleset, scenario_title

    assert scenario_ruleset(scenario) == ruleset
    title = scenario_title(scenario)
    assert title and title != scenario and "\n" not in title
