"""The same land gets the same terrain at every resolution (issue 25).

Small maps of the embedded data at res 4, 5, 6 and 7 around a point well inside a uniform region:
the point's hex has the same terrain on all four.  Before the ground rules the Nile delta was marshes
at res 4 and 5 and desert at 6 and 7 (a river two hexes away does not water a hex), and Cyprus'
Mesaoria was hills, farmlands, desert, desert (relief over a 1,770 km2 hex; "three hexes from the
coast", the steppe rule, was 135 km at res 4 and 7 km at res 7).
"""

import duckdb
import h3
import pytest

from bellica.etl.build import build_map

RESOLUTIONS = (4, 5, 6, 7)
HALF_DEG = {4: 0.5, 5: 0.5, 6: 0.35, 7: 0.35}
"""Half the side of each map's bbox: the point's hex (its centre within 26 km at res 4) is on the map,
and so is every hex within the 20-km neighbourhood disc at res 6 and 7, at ~2,000 hexes at most."""

REGIONS = {
    "Nile delta (Tanta)": (30.8, 31.0, "marshes"),
    "Nile valley (Minya)": (28.1, 30.75, "farmlands"),
    "Mesaoria, Cyprus' wheat plain": (35.15, 33.5, "farmlands"),
    "Po plain (Cremona)": (45.1, 10.0, "farmlands"),
    "Sahara's edge (Sirte)": (30.5, 17.5, "desert"),
    # the 5-arc-minute DEM cannot see the valley floor (2-4 km wide): what it sees is Alpine massif
    "Alpine valley (the Inn at Innsbruck)": (47.27, 11.39, "mountains"),
}


def terrain_at(path, lat, lng, res):
    cell = h3.latlng_to_cell(lat, lng, res)
    with duckdb.connect(str(path), read_only=True) as con:
        row = con.execute("SELECT kind, terrain FROM hexes WHERE cell = ?", [cell]).fetchone()
    assert row is not None and row[0] == "land", f"{cell} is not a land hex of the map: {row}"
    return row[1]


@pytest.mark.parametrize("region", sorted(REGIONS))
def test_a_point_inside_a_uniform_region_keeps_its_terrain_at_res_4_to_7(region, tmp_path):
    lat, lng, expected = REGIONS[region]
    got = {}
    for res in RESOLUTIONS:
        half = HALF_DEG[res]
        path = build_map(tmp_path / f"r{res}.duckdb", bbox=(lng - half, lat - half, lng + half, lat + half), res=res,
                         progress=False).path
        got[res] = terrain_at(path, lat, lng, res)
    assert got == dict.fromkeys(RESOLUTIONS, expected), f"{region}: {got}"
