-- The map tables `bellica map build` writes and `bellica campaign new` copies (docs/architecture.md).
-- Geometries are lon/lat WGS84 with (longitude, latitude) axis order: OGC:CRS84.

-- One H3 cell (cell: the H3 string). kind: land, coast (water next to land: the rules' Coast hex),
-- sea, ocean (impassable to ships), lake. terrain: land only (farmlands, desert, hills, marshes,
-- forests, mountains, peaks), NULL elsewhere. Elevations in metres (NULL where no land sample),
-- the shares of land and lake, the River flag, the centre (lat, lng) and the hexagon.
CREATE TABLE hexes (
    cell VARCHAR PRIMARY KEY,
    res INTEGER,
    kind VARCHAR,
    terrain VARCHAR,
    elev_mean DOUBLE,
    elev_min DOUBLE,
    elev_max DOUBLE,
    elev_std DOUBLE,
    elev_samples INTEGER,
    land_fraction DOUBLE,
    lake_fraction DOUBLE,
    river BOOLEAN,
    lat DOUBLE,
    lng DOUBLE,
    geom GEOMETRY('OGC:CRS84')
);

-- Every ordered adjacent pair: clock (1-12) is the side of `cell` that `neighbor` lies across,
-- bearing the true bearing centre to centre in degrees.
CREATE TABLE hex_neighbors (cell VARCHAR, neighbor VARCHAR, clock INTEGER, bearing DOUBLE);

-- The major rivers the River flag came from (length in km).
CREATE TABLE map_rivers (river_id INTEGER, length_km DOUBLE, geom GEOMETRY('OGC:CRS84'));

-- How the map was built (region, resolution, input files), values as text or JSON.
CREATE TABLE map_meta (key VARCHAR PRIMARY KEY, value VARCHAR);
