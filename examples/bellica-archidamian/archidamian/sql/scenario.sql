-- The Archidamian War's scenario tables: what a campaign file holds of its scenario (never changes).
CREATE TABLE ar_sides (name VARCHAR PRIMARY KEY, ord INTEGER, capital VARCHAR, army VARCHAR, strength INTEGER, colour VARCHAR);
CREATE TABLE ar_provinces (name VARCHAR PRIMARY KEY, ord INTEGER, holder VARCHAR, lon DOUBLE, lat DOUBLE, note VARCHAR);
CREATE TABLE ar_borders (a VARCHAR, b VARCHAR, PRIMARY KEY (a, b));
CREATE TABLE ar_places (name VARCHAR PRIMARY KEY, province VARCHAR, kind VARCHAR, lon DOUBLE, lat DOUBLE, note VARCHAR);
CREATE TABLE ar_scenario (key VARCHAR PRIMARY KEY, value VARCHAR)
