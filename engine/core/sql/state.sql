-- The core's state tables, in every campaign whatever its ruleset (engine/core/README.md).
-- A state table's PRIMARY KEY names the columns that key its rows: the core reads the
-- rows into a snapshot by that key and rewrites the table from the event log's reducer.

-- Campaign keys: round, phase, stage (within a phase), seed, winner.
CREATE TABLE IF NOT EXISTS campaign (key VARCHAR PRIMARY KEY, value VARCHAR);

-- Per-round facts later steps of the round need (JSON values): start-of-round state,
-- MP spent and paths, naval superiority, engagement set-ups, retreats, choices.
CREATE TABLE IF NOT EXISTS round_notes (round INTEGER, key VARCHAR, value VARCHAR, PRIMARY KEY (round, key));

-- The append-only event log, the truth the state tables are a view of
-- (not a state table: never rewritten, only appended to).  "at" is a reserved word.
-- hash: sha256 of the previous event's hash and this event's canonical JSON (seq, round,
-- phase, kind, data, text, at, state_hash), so an edit anywhere breaks the chain from there;
-- state_hash: on the last event a step appends, the digest of every state table after the
-- step, so a step can check the tables against the log without replaying it
-- (engine/core/state.py, docs/campaign-file.md).
CREATE TABLE IF NOT EXISTS events (seq INTEGER, round INTEGER, phase VARCHAR, kind VARCHAR, data JSON, text VARCHAR, "at" TIMESTAMP,
                                   hash VARCHAR, state_hash VARCHAR);
