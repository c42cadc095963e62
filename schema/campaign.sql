-- The campaign tables `bellica campaign new` adds to the map tables (docs/architecture.md).
-- Geometries are lon/lat WGS84 with (longitude, latitude) axis order: OGC:CRS84.

-- A side of the war: its colour on maps, army list, whether a player runs it, its capitals,
-- the influence multiplier and the range of army numbers it fields.
CREATE TABLE factions (
    name VARCHAR PRIMARY KEY,
    colour VARCHAR,
    army_list VARCHAR,
    player BOOLEAN,
    capitals VARCHAR[],
    influence_multiplier INTEGER,
    first_army INTEGER,
    last_army INTEGER
);

-- A town or city: geom is the real place, cell the hex the rules use (for a place on the shore,
-- the nearest land hex), controller the faction holding it at the start.
CREATE TABLE structures (
    name VARCHAR PRIMARY KEY,
    modern VARCHAR,
    kind VARCHAR,
    cell VARCHAR UNIQUE,
    controller VARCHAR,
    capital BOOLEAN,
    geom GEOMETRY('OGC:CRS84')
);

-- Roads and rivers as routed through hex centres, and their hexes (a road's in order).
CREATE TABLE roads (name VARCHAR PRIMARY KEY, geom GEOMETRY('OGC:CRS84'));
CREATE TABLE road_cells (road VARCHAR, seq INTEGER, cell VARCHAR);
CREATE TABLE rivers (name VARCHAR PRIMARY KEY, geom GEOMETRY('OGC:CRS84'));
CREATE TABLE river_cells (river VARCHAR, cell VARCHAR);

-- The scenario's sea zones and the hexes of each (a hex may lie in two zones).
CREATE TABLE sea_zones (name VARCHAR PRIMARY KEY, geom GEOMETRY('OGC:CRS84'));
CREATE TABLE hex_sea_zones (cell VARCHAR, zone VARCHAR);

-- The scenario's starting position of each army.
CREATE TABLE placements (army INTEGER PRIMARY KEY, faction VARCHAR, structure VARCHAR, cell VARCHAR);

-- Hexes the scenario changed (terrain overrides, ocean marks), with the values before and why.
CREATE TABLE terrain_overrides (
    cell VARCHAR,
    kind_before VARCHAR,
    terrain_before VARCHAR,
    kind VARCHAR,
    terrain VARCHAR,
    reason VARCHAR,
    source VARCHAR
);

-- What campaign creation adjusted (a structure snapped to land, a waypoint moved), for the umpire.
CREATE TABLE scenario_notes (topic VARCHAR, subject VARCHAR, message VARCHAR);

-- The scenario's name, title, bbox, resolution, start values and how the campaign was created.
CREATE TABLE scenario_meta (key VARCHAR PRIMARY KEY, value VARCHAR);

-- The campaign's rules, frozen at creation: the ruleset file (datasets/rules/<ruleset>.toml)
-- with the scenario's [rules] over it, one row per dotted key (movement.points_per_round,
-- sieges.resilience.city, ...), the value as JSON.  The engine and the rules views read only this.
CREATE TABLE rules (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL);
