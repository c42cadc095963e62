-- The static Magna Graecia scenario in a campaign file (written once by `bellica campaign new`):
-- the scenario file as given (its TOML text) and what it was made from. Places, years, coasts,
-- walls, neutral commands and paths are the node tables' (schema/nodes.sql), never repeated here.
CREATE TABLE IF NOT EXISTS mg_scenario (key VARCHAR PRIMARY KEY, value VARCHAR);
