CREATE TABLE IF NOT EXISTS tr_provinces (name VARCHAR PRIMARY KEY, ord INTEGER, seat VARCHAR, lon DOUBLE, lat DOUBLE,
                                         home VARCHAR, holder VARCHAR, kind VARCHAR, coast VARCHAR, note VARCHAR);
CREATE TABLE IF NOT EXISTS tr_towns (name VARCHAR PRIMARY KEY, ord INTEGER, province VARCHAR, lon DOUBLE, lat DOUBLE,
                                     port BOOLEAN, lane VARCHAR);
CREATE TABLE IF NOT EXISTS tr_lanes (name VARCHAR PRIMARY KEY, ord INTEGER, freezes BOOLEAN, note VARCHAR);
CREATE TABLE IF NOT EXISTS tr_nations (name VARCHAR PRIMARY KEY, ord INTEGER, capital VARCHAR, colour VARCHAR, note VARCHAR);
CREATE TABLE IF NOT EXISTS tr_borders (a VARCHAR, b VARCHAR, road BOOLEAN, PRIMARY KEY (a, b));
CREATE TABLE IF NOT EXISTS tr_lane_links (a VARCHAR, b VARCHAR, PRIMARY KEY (a, b));
-- name, title, year, meta, forces (the starting census) and cards (the deck), as JSON.
CREATE TABLE IF NOT EXISTS tr_scenario (key VARCHAR PRIMARY KEY, value VARCHAR);
