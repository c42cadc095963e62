-- The node-map tables `bellica map nodes` writes into a map (docs/nodes.md).
-- Geometries are lon/lat WGS84 with (longitude, latitude) axis order: OGC:CRS84.

-- One place of a node map at its real site (lon, lat), in its map hex (cell: the hex the point
-- falls in, or the neighbouring land hex when the point falls in a coast or lake hex).
-- terrain: the battle map's terrain (the designer's, else the terrain class of the hex);
-- coastal: a fleet may enter it (the designer's, else the hex or a neighbour is coast or sea);
-- commands: the neutral commands the place raises (0-3, 0 where it is no city);
-- from_year/until_year: the years it exists, both included, signed (negative BC), NULL = always.
CREATE TABLE nodes (
    name VARCHAR PRIMARY KEY,
    lon DOUBLE,
    lat DOUBLE,
    cell VARCHAR,
    terrain VARCHAR,
    coastal BOOLEAN,
    fortified BOOLEAN,
    commands INTEGER,
    from_year INTEGER,
    until_year INTEGER,
    note VARCHAR,
    geom GEOMETRY('OGC:CRS84')
);

-- One movement path between two places, stored once with a < b (names in byte order) per kind
-- ('land': routed over land hexes the way roads are; 'sea': over coast and sea hexes between two
-- coastal places). length_km: along the line, from a's site through the hex centres to b's site;
-- hexes: the hexes of the route, both ends included; bearing_a/bearing_b: the compass bearing
-- (degrees) from the place towards where the path leaves it (the side of its table the path
-- enters by); from_year/until_year: the designer's own limits of the path (a path exists in a
-- year when it and both its places do).
CREATE TABLE node_paths (
    a VARCHAR,
    b VARCHAR,
    kind VARCHAR,
    length_km DOUBLE,
    hexes INTEGER,
    bearing_a DOUBLE,
    bearing_b DOUBLE,
    from_year INTEGER,
    until_year INTEGER,
    note VARCHAR,
    geom GEOMETRY('OGC:CRS84'),
    PRIMARY KEY (a, b, kind)
);

-- The hexes a path crosses, counted per terrain class (the hex's terrain on land, its kind on water:
-- coast, sea).
CREATE TABLE node_path_terrain (a VARCHAR, b VARCHAR, kind VARCHAR, terrain VARCHAR, hexes INTEGER);

-- The route of every path hex by hex, seq 0 at a.
CREATE TABLE node_path_cells (a VARCHAR, b VARCHAR, kind VARCHAR, seq INTEGER, cell VARCHAR);
