-- The Trossian campaign state (engine/trossian/storage.py writes every row from the pure
-- GameState; the core adds `campaign`, `round_notes` and the `events` log).
-- The rest of the game state: year, phase (0-8, -1 winter quarters), scheduled (the year whose
-- card schedule is rolled), next_id, alliances, contested, entries, offers, sailed (JSON; offers and
-- sailed only while not empty).
CREATE TABLE tr_game (key VARCHAR PRIMARY KEY, value VARCHAR);
-- Who holds each province (NULL: neutral).
CREATE TABLE tr_control (province VARCHAR PRIMARY KEY, nation VARCHAR);
-- Each nation's secrets (sealed from the others in the log): AP banked per city (JSON), their
-- sum, its chance-card phases this year, card effects in force, messages captured from enemies.
CREATE TABLE tr_treasury (nation VARCHAR PRIMARY KEY, bank VARCHAR, treasury INTEGER, schedule VARCHAR,
                          effects VARCHAR, intelligence VARCHAR);
-- Armies: where (aboard a navy: its id), rest phases left, moved/fought this phase, the order
-- of an army without an HQ, its units (JSON [{id, kind, quality}]) and their number.
CREATE TABLE tr_armies (army INTEGER PRIMARY KEY, nation VARCHAR, province VARCHAR, aboard INTEGER, rest INTEGER,
                        moved BOOLEAN, fought BOOLEAN, standing VARCHAR, name VARCHAR, units VARCHAR,
                        strength INTEGER, has_hq BOOLEAN, speed INTEGER);
-- Navies: the lane, the berth ("" at sea, "port:TOWN", "coast:PROVINCE"), actions used this phase.
CREATE TABLE tr_navies (navy INTEGER PRIMARY KEY, nation VARCHAR, lane VARCHAR, berth VARCHAR, actions INTEGER);
-- Couriers (sealed from the others): where (a province or a lane), horse or ship, the message and
-- its addressee, moved this phase.
CREATE TABLE tr_couriers (courier INTEGER PRIMARY KEY, nation VARCHAR, place VARCHAR, mode VARCHAR,
                          message VARCHAR, addressee VARCHAR, moved BOOLEAN);
-- Pacifications and sieges under way.
CREATE TABLE tr_sieges (province VARCHAR PRIMARY KEY, nation VARCHAR, done INTEGER, needed INTEGER, wintered BOOLEAN);
-- Battles open, to be fought on the table (sides: army ids; nations: each side's nations; JSON).
CREATE TABLE tr_battles (battle INTEGER PRIMARY KEY, province VARCHAR, sides VARCHAR, nations VARCHAR);
-- The kings' orders of a round (sealed until every nation has given its orders; a courier's
-- message never opens to another nation): kind march / sail / courier, input JSON.
CREATE TABLE tr_orders (round INTEGER, nation VARCHAR, seq INTEGER, kind VARCHAR, input VARCHAR,
                        PRIMARY KEY (round, nation, seq));
-- Nations that have given all their orders for a round (public: who, never what).
CREATE TABLE tr_ready (round INTEGER, nation VARCHAR, PRIMARY KEY (round, nation));
