"""The linear classification (integer codes for the neighbour table's ends) gives exactly the
kinds of the former string-set implementation, kept here as the reference; the terrain (which asks
no adjacency question since issue 25: its discs are km on the ground) equals a brute-force reference
that measures every pair of centres."""

import warnings

import h3
import numpy as np
import pandas as pd
import pytest
import shapely

from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from bellica.etl.terrain import WATER, classify_kinds, classify_terrain, hex_distance_to, load_ocean, load_terrain_rules
from bellica.geo import hexgrid

RULES = load_terrain_rules()


def reference_hex_distance_to(sources, neighbors, *, limit):
    """The former hex_distance_to: names numbered by pandas' factorisation of both columns and the sources."""
    if not sources:
        return {}
    codes, cells = pd.factorize(pd.concat([neighbors["cell"], neighbors["neighbor"], pd.Series(sorted(sources))],
                                          ignore_index=True))
    n = len(neighbors)
    graph = csr_matrix((np.ones(n), (codes[:n], codes[n:2 * n])), shape=(len(cells), len(cells)))
    dist = dijkstra(graph, directed=True, indices=np.unique(codes[2 * n:]), unweighted=True, min_only=True, limit=limit)
    found = np.flatnonzero(np.isfinite(dist))
    return dict(zip(cells[found].tolist(), dist[found].astype(int).tolist()))


def reference_adjacency(cells, neighbors, kind, land):
    """The former name-based answers: coast, hexes to water, watered, near a lake, neighbourhood relief."""
    cell_ids = cells["cell"].to_numpy()
    land_cells = set(cell_ids[land])
    touches_land = set(neighbors.loc[neighbors["neighbor"].isin(land_cells), "cell"])
    touches = pd.Series(cell_ids).isin(touches_land).to_numpy()

    def near(mask):
        hit = set(neighbors.loc[neighbors["neighbor"].isin(set(cell_ids[mask])), "cell"])
        return mask | pd.Series(cell_ids).isin(hit).to_numpy()

    return cell_ids, touches, near


def reference_kinds(cells, neighbors, *, rules, ocean=None):
    r = rules["kind"]
    keeps_island = cells["keeps_island"].fillna(False).astype(bool)
    land = (cells["land_fraction"] >= r["land_fraction"]) | keeps_island
    strait = (cells["landmasses"] >= 2) & (cells["land_fraction"] < r["strait_max_land_fraction"])
    land &= ~(strait & ~keeps_island)
    sea_fraction = (1.0 - cells["land_fraction"] - cells["lake_fraction"]).clip(lower=0.0)
    lake = ((cells["lake_fraction"] >= r["lake_fraction"]) | (cells["lake_fraction"] > sea_fraction)) & ~land
    lake |= cells["keeps_lake"].fillna(False).astype(bool) & (cells["lake_fraction"] >= r.get("kept_lake_min_fraction", 0.0))
    land &= ~lake
    kind = pd.Series(np.where(land, "land", np.where(lake, "lake", "sea")), index=cells.index, dtype=object)
    _, touches, _ = reference_adjacency(cells, neighbors, kind, land.to_numpy())
    kind[touches & (kind == "sea")] = "coast"
    if ocean is not None and len(ocean):
        pts = shapely.points(cells["lng"].to_numpy(), cells["lat"].to_numpy())
        kind[kind.isin(["sea", "coast"]) & shapely.intersects(shapely.union_all(ocean.geometry.to_numpy()), pts)] = "ocean"
    return kind


def reference_terrain(cells, neighbors, *, rules):
    """The ground rules by brute force: every pair of centres measured (haversine on h3's sphere,
    checked against h3.great_circle_distance), discs as boolean matrices."""
    kind = cells["kind"].to_numpy()
    is_land = kind == "land"
    g = rules["ground"]
    phi, lam = np.radians(cells["lat"].to_numpy(dtype=float)), np.radians(cells["lng"].to_numpy(dtype=float))
    hav = (np.sin((phi[:, None] - phi[None, :]) / 2) ** 2
           + np.cos(phi[:, None]) * np.cos(phi[None, :]) * np.sin((lam[:, None] - lam[None, :]) / 2) ** 2)
    km = 2 * 6371.007180918475 * np.arcsin(np.sqrt(hav))
    if len(cells) > 1:
        a, b = cells[["lat", "lng"]].to_numpy()[[0, -1]]
        assert km[0, -1] == pytest.approx(h3.great_circle_distance(a, b), rel=1e-9)

    def over(radius, values, how):
        inside = np.where(km <= radius, np.where(is_land, values, np.nan)[None, :], np.nan)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return {"max": np.nanmax, "min": np.nanmin, "mean": np.nanmean}[how](inside, axis=1)

    mean = cells["elev_mean"].to_numpy(dtype=float)
    top = over(g["relief_radius_km"], cells["elev_max"].fillna(cells["elev_mean"]).to_numpy(dtype=float), "max")
    bottom = over(g["relief_radius_km"], cells["elev_min"].fillna(cells["elev_mean"]).to_numpy(dtype=float), "min")
    footprint = over(g["relief_radius_km"], mean, "mean")
    span = over(g["neighbourhood_radius_km"], footprint, "max") - over(g["neighbourhood_radius_km"], footprint, "min")
    nbr_relief = np.where(np.isnan(span), 0.0, span)
    e_mean = np.nan_to_num(mean)
    e_max = np.nan_to_num(top)
    relief = e_max - np.nan_to_num(bottom)
    coastal = cells["coast_km"].to_numpy() <= g["coastal_km"]
    watered = cells["river_km"].to_numpy() <= g["watered_km"]
    near_lake = cells["lake_km"].to_numpy() <= g["lake_shore_km"]
    p, m, ma, d, f, h = (rules[k] for k in ("peaks", "mountains", "marshes", "desert", "forests", "hills"))
    lat = cells["lat"].to_numpy(dtype=float)
    conditions = [
        ~is_land,
        is_land & np.isnan(mean),
        (e_max >= p["min_elev_max"]) & (e_mean >= p["min_elev_mean"]),
        (e_mean >= m["min_elev_mean"]) | ((e_mean >= m["rugged_min_elev_mean"]) & (relief >= m["rugged_min_relief"])),
        (e_mean <= ma["max_elev_mean"]) & (e_max <= ma["max_elev_max"]) & (coastal | watered | near_lake),
        ~watered & ((lat <= d["max_lat"]) | ((lat <= d["steppe_max_lat"]) & (cells["coast_km"].to_numpy() > d["steppe_min_coast_km"]))),
        (lat >= f["min_lat"]) & (e_mean >= f["min_elev_mean"]) & (e_mean < f["max_elev_mean"])
        & ~coastal & (nbr_relief <= f["max_neighbourhood_relief"]),
        (e_mean >= h["min_elev_mean"]) | (relief >= h["min_relief"]) | (nbr_relief >= h["min_neighbourhood_relief"]),
    ]
    choices = [None, rules["islands"]["unmeasured_terrain"], "peaks", "mountains", "marshes", "desert", "forests", "hills"]
    return pd.Series(np.select(conditions, np.array(choices, dtype=object), default="farmlands"), index=cells.index,
                     dtype=object)


def synthetic_map(bbox, res, seed):
    """Plausible attributes over the cells of ``bbox``: smooth land masses and heights (so that hexes
    lie far from the coast, in low or rugged country) with noise on top: straits, kept islands and
    lakes, rivers, mixed shores, a few hexes with no elevation."""
    rng = np.random.default_rng(seed)
    cells = hexgrid.cells_in_bbox(bbox, res)
    n = len(cells)
    latlng = np.array([hexgrid.cell_center(c) for c in cells])
    lat, lng = latlng[:, 0], latlng[:, 1]
    shore = np.sin(lat * 5.0 + lng * 4.0) + 0.3 * rng.standard_normal(n)
    land = np.clip((shore + 0.4) / 0.5, 0.0, 1.0).round(1)
    lake = np.where(rng.random(n) < 0.06, rng.uniform(0, 1 - land), 0.0)
    height = 1400.0 * np.clip(np.sin(lat * 3.0) * np.cos(lng * 2.5) + 0.4, 0.0, None) * land
    elev = np.where(rng.random(n) < 0.15, rng.choice([3.0, 8.0, 2400.0], n), height + rng.normal(0, 40, n))
    frame = pd.DataFrame({
        "cell": cells, "lat": lat, "lng": lng, "land_fraction": land, "lake_fraction": lake,
        "landmasses": np.where(rng.random(n) < 0.1, 2, (land > 0).astype(int)),
        "keeps_island": rng.random(n) < 0.03, "keeps_lake": rng.random(n) < 0.02,
        "elev_mean": np.where(rng.random(n) < 0.03, np.nan, elev),
        "elev_min": elev - rng.uniform(0, 150, n), "elev_max": elev + rng.uniform(0, 300, n),
        "river": rng.random(n) < 0.08,
        # km to the sea, a river and a lake: smooth with the land, so coastal and inland land both occur
        "coast_km": np.clip((shore + 0.4) * 40.0, 0.0, None) + rng.uniform(0, 5, n),
        "river_km": rng.exponential(30.0, n), "lake_km": rng.exponential(60.0, n),
    })
    return frame, hexgrid.neighbor_frame(cells)


MAPS = {
    "gibraltar res 6 with ocean": ((-7.2, 35.6, -4.8, 36.6), 6, 1),
    "central italy res 6": ((11.5, 40.8, 14.5, 42.6), 6, 2),
    "egypt res 6 (desert latitudes)": ((29.5, 30.4, 31.5, 31.6), 6, 3),
}


def classified_like_before(name):
    """Kinds and terrains of one synthetic map, after checking them against the reference."""
    bbox, res, seed = MAPS[name]
    cells, nb = synthetic_map(bbox, res, seed)
    ocean = load_ocean()
    kinds = classify_kinds(cells, nb, rules=RULES, ocean=ocean)
    pd.testing.assert_series_equal(kinds, reference_kinds(cells, nb, rules=RULES, ocean=ocean))
    assert len(set(kinds)) >= 4  # the map exercises land, sea, coast and lake (and ocean west of Gibraltar)
    cells["kind"] = kinds
    terrain = classify_terrain(cells, nb, rules=RULES)
    pd.testing.assert_series_equal(terrain, reference_terrain(cells, nb, rules=RULES))
    return set(kinds), set(terrain.dropna())


@pytest.mark.parametrize("name", sorted(MAPS))
def test_kinds_and_terrain_equal_the_former_classification(name):
    classified_like_before(name)


def test_the_synthetic_maps_hold_every_kind_and_terrain():
    kinds, terrains = set(), set()
    for name in MAPS:
        k, t = classified_like_before(name)
        kinds |= k
        terrains |= t
    assert kinds == {"land", "sea", "coast", "lake", "ocean"}
    assert terrains == {"farmlands", "desert", "hills", "marshes", "forests", "mountains", "peaks"}


def test_neighbour_ends_outside_the_cells_count_as_before():
    # the neighbour table of a wider region: steps to and between cells the frame lacks
    cells, _ = synthetic_map((12.0, 37.0, 13.0, 38.0), 6, 4)
    wide = hexgrid.neighbor_frame(hexgrid.cells_in_bbox((11.8, 36.8, 13.2, 38.2), 6))
    part = cells.iloc[::3].reset_index(drop=True)
    kinds = classify_kinds(part, wide, rules=RULES)
    pd.testing.assert_series_equal(kinds, reference_kinds(part, wide, rules=RULES))
    part["kind"] = kinds
    pd.testing.assert_series_equal(classify_terrain(part, wide, rules=RULES), reference_terrain(part, wide, rules=RULES))
    # and no neighbour table at all
    empty = pd.DataFrame(columns=["cell", "neighbor"])
    pd.testing.assert_series_equal(classify_terrain(part, empty, rules=RULES), reference_terrain(part, empty, rules=RULES))


def test_hex_distance_to_equals_the_former_one():
    cells, nb = synthetic_map((12.0, 37.0, 13.0, 38.0), 6, 5)
    sources = set(cells.loc[cells["land_fraction"] < 0.2, "cell"]) | {"not-on-the-map"}
    part = nb.iloc[::2]
    for limit in (1, 3, 8):
        assert hex_distance_to(sources, part, limit=limit) == reference_hex_distance_to(sources, part, limit=limit)
