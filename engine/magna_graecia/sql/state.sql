-- Magna Graecia campaign state (engine/magna_graecia/storage.py): the pure GameState as rows.
-- JSON columns hold lists and element tables; ord keeps each list's order.

-- The rest of the game state: scenario, year, turn, order (JSON), current, phase, next_id,
-- capital_rule, alliances (JSON).
CREATE TABLE mg_game (key VARCHAR PRIMARY KEY, value VARCHAR);
-- Each side: its capital and garrison, why it left (NULL: playing), the victory-point tallies.
CREATE TABLE mg_sides (name VARCHAR PRIMARY KEY, ord INTEGER, capital VARCHAR, capital_strength INTEGER,
                       left_game VARCHAR, commanders_destroyed INTEGER, np_destroyed INTEGER,
                       capitals_captured VARCHAR);
-- Every command counter (side '' with city set: a city's own command); elements JSON {DBM key: n};
-- ally/ally_from: a city's command that surrendered, allied to that side from that turn.
CREATE TABLE mg_commands (id INTEGER PRIMARY KEY, ord INTEGER, side VARCHAR, node VARCHAR, elements VARCHAR,
                          general VARCHAR, city VARCHAR, inherent BOOLEAN, mp_left INTEGER, moved BOOLEAN,
                          entered_from VARCHAR, aboard BOOLEAN, in_city BOOLEAN, ally VARCHAR, ally_from INTEGER);
-- Each side's one fleet: naval points, the commands aboard (JSON ids).
CREATE TABLE mg_fleets (side VARCHAR PRIMARY KEY, ord INTEGER, node VARCHAR, np INTEGER, carrying VARCHAR,
                        sheltered BOOLEAN, mp_left INTEGER, moved BOOLEAN);
-- Cities with forces of their own: whose ally (NULL: neutral), at the start, hostile to, held by.
CREATE TABLE mg_cities (name VARCHAR PRIMARY KEY, ord INTEGER, ally VARCHAR, start_ally VARCHAR, hostile_to VARCHAR,
                        holder VARCHAR);
-- Sieges in progress.
CREATE TABLE mg_sieges (node VARCHAR PRIMARY KEY, ord INTEGER, besieger VARCHAR, defender VARCHAR, started INTEGER,
                        rolls INTEGER, disease INTEGER, disease_index INTEGER);
-- Battles due (land or naval), defenders JSON.
CREATE TABLE mg_battles (ord INTEGER PRIMARY KEY, node VARCHAR, attacker VARCHAR, defenders VARCHAR, base_edge VARCHAR,
                         defence VARCHAR, day INTEGER, undecided BOOLEAN, kind VARCHAR, sally BOOLEAN);
-- Retreats owed (command 0: the fleet of fleet_side), open_paths JSON.
CREATE TABLE mg_retreats (ord INTEGER PRIMARY KEY, command INTEGER, fleet_side VARCHAR, open_paths VARCHAR,
                          lift_siege BOOLEAN, by_side VARCHAR);
-- Naval points salvaged, waiting for their side's fleet.
CREATE TABLE mg_salvage (ord INTEGER PRIMARY KEY, side VARCHAR, node VARCHAR, np INTEGER);
-- Dice rolled at the table and entered by the umpire under their label (alliance/3/Gela/Syracuse).
CREATE TABLE mg_rolls (label VARCHAR PRIMARY KEY, value INTEGER);
-- Second-day stay/retire orders written and sealed, until every side of the battle has written one.
CREATE TABLE mg_orders (turn INTEGER, node VARCHAR, day INTEGER, side VARCHAR, choice VARCHAR,
                        PRIMARY KEY (turn, node, day, side));
