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

-- moves: clock positions as players write them (NULL until given); transfers: JSON [{to_army, fp}];
-- sea_links: JSON [[zone, structure], ...], the sea-zone logistics targets the orders name ("[]": none).
CREATE TABLE IF NOT EXISTS orders (
    round INTEGER, army INTEGER, moves VARCHAR, initiative VARCHAR, lift_siege BOOLEAN, assault VARCHAR, transfers VARCHAR,
    sea_links VARCHAR,
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

-- Naval superiority in force per sea zone and faction (seed, "Naval superiority"): published in
-- step 1.2; at the start every zone of hex_sea_zones x every faction holds the rules' base level
-- (naval.superiority_base).  A missing row reads as the base level.
CREATE TABLE IF NOT EXISTS naval_superiority (zone VARCHAR, faction VARCHAR, level INTEGER, PRIMARY KEY (zone, faction));

-- The sea-zone logistics links in force (seed, "Lines of logistics" 4): the target structures a
-- faction links across a zone, rank 1.. in the order chosen; only rank <= the faction's level in
-- the zone count (the view logistics_sea_links).
CREATE TABLE IF NOT EXISTS sea_links (
    faction VARCHAR, zone VARCHAR, structure VARCHAR, rank INTEGER,
    PRIMARY KEY (faction, zone, structure)
);

-- Armies beaten at sea (seed, "Outcome of naval battle"): until_round = the last round in which
-- the army may not act as a navy.
CREATE TABLE IF NOT EXISTS navy_rest (army INTEGER PRIMARY KEY, until_round INTEGER);
