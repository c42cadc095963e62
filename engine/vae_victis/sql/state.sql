-- Vae Victis II's state tables (engine/vae_victis/README.md), changed only by the event
-- log's reducers (engine/vae_victis/state.py).  A table's PRIMARY KEY names the columns
-- that key its rows.

CREATE TABLE IF NOT EXISTS armies (id INTEGER PRIMARY KEY, faction VARCHAR, cell VARCHAR, strength INTEGER, eliminated BOOLEAN);

-- controller NULL = nobody.
CREATE TABLE IF NOT EXISTS control (structure VARCHAR PRIMARY KEY, controller VARCHAR);

CREATE TABLE IF NOT EXISTS sieges (
    structure VARCHAR PRIMARY KEY, faction VARCHAR, resilience INTEGER, start_resilience INTEGER, started_round INTEGER
);

CREATE TABLE IF NOT EXISTS siege_armies (structure VARCHAR, army INTEGER, PRIMARY KEY (structure, army));

CREATE TABLE IF NOT EXISTS victory_points (faction VARCHAR PRIMARY KEY, vp INTEGER);

-- moves: clock positions as players write them (NULL until given); transfers: JSON [{to_army, fp}].
CREATE TABLE IF NOT EXISTS orders (
    round INTEGER, army INTEGER, moves VARCHAR, initiative VARCHAR, lift_siege BOOLEAN, assault VARCHAR, transfers VARCHAR,
    PRIMARY KEY (round, army)
);

-- army_b NULL: an assault on the structure named in assault.
CREATE TABLE IF NOT EXISTS engagements (
    round INTEGER, battle INTEGER, engagement INTEGER, army_a INTEGER, army_b INTEGER, assault VARCHAR,
    PRIMARY KEY (round, engagement)
);

-- outcome: win / draw / loss; casualties: % as Field of Glory II shows them.
CREATE TABLE IF NOT EXISTS engagement_results (
    round INTEGER, engagement INTEGER, army INTEGER, outcome VARCHAR, casualties INTEGER,
    PRIMARY KEY (round, engagement, army)
);
