-- The province tables `bellica map provinces` writes into a map (docs/provinces.md).
-- Geometries are lon/lat WGS84 with (longitude, latitude) axis order: OGC:CRS84.

-- One province: its capital hex (the seed of the allocation) and that hex's centre, how many
-- land hexes it holds, their true area, how many hex-connected pieces they form (1: contiguous;
-- more: islands or a region drawn apart) and the dissolved outline of its hexes.
CREATE TABLE provinces (
    name VARCHAR PRIMARY KEY,
    capital_cell VARCHAR,
    capital_lon DOUBLE,
    capital_lat DOUBLE,
    hex_count INTEGER,
    area_km2 DOUBLE,
    parts INTEGER,
    geom GEOMETRY('OGC:CRS84')
);

-- Every land hex of a province. source: how it got there, the strongest first: 'moved' (the
-- designer's cells_add), 'region' (inside the province's region polygon), 'capital',
-- 'allocated' (least-cost allocation). barrier: its terrain is entered but never crossed (peaks),
-- so land adjacency ignores it.
CREATE TABLE province_cells (province VARCHAR, cell VARCHAR PRIMARY KEY, source VARCHAR, barrier BOOLEAN);

-- The designer's declared adjacencies the hexes lack (a diagonal, a strait): an army of
-- from_province may reach to_province, and back unless one_way.
CREATE TABLE province_exceptions (from_province VARCHAR, to_province VARCHAR, one_way BOOLEAN, note VARCHAR);

-- Named sea areas (quadrants) and their water hexes (coast, sea or ocean hexes whose centre lies in the polygon).
CREATE TABLE sea_areas (name VARCHAR PRIMARY KEY, hex_count INTEGER, geom GEOMETRY('OGC:CRS84'));
CREATE TABLE sea_area_cells (sea VARCHAR, cell VARCHAR PRIMARY KEY);
