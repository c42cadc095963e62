-- The Archidamian War's state tables: what changes during a campaign.  Every change is an event of
-- the log (put_row/drop_row), and replaying the log gives these tables back exactly.

-- Each side's army: where it stands and its strength.
CREATE TABLE ar_armies (
    side VARCHAR NOT NULL,
    province VARCHAR NOT NULL,
    strength INTEGER NOT NULL,
    PRIMARY KEY (side)
);

-- Who holds each province.
CREATE TABLE ar_control (
    province VARCHAR NOT NULL,
    side VARCHAR,
    PRIMARY KEY (province)
);

-- A side's sealed march of this year: where its army goes and the general's dispatch.  Only that
-- side reads it (archidamian/secrets.py); resolving the year moves it to ar_marches.
CREATE TABLE ar_orders (
    round INTEGER NOT NULL,
    side VARCHAR NOT NULL,
    target VARCHAR NOT NULL,
    dispatch VARCHAR NOT NULL,
    PRIMARY KEY (round, side)
);

-- The marches of the years resolved, for everyone to read.
CREATE TABLE ar_marches (
    round INTEGER NOT NULL,
    side VARCHAR NOT NULL,
    target VARCHAR NOT NULL,
    dispatch VARCHAR NOT NULL,
    PRIMARY KEY (round, side)
);

-- The battles fought: the year, the province, each side's die and total, the winner.
CREATE TABLE ar_battles (
    round INTEGER NOT NULL,
    province VARCHAR NOT NULL,
    rolls VARCHAR NOT NULL,
    winner VARCHAR NOT NULL,
    PRIMARY KEY (round)
);
