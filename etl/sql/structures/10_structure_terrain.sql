-- The terrain and kind of the hex each structure stands in.
-- Map kind is kept too: a structure is always on a land hex, so a non-land kind
-- here means the campaign tables were edited by hand and deserves a look.
CREATE OR REPLACE VIEW structure_terrain AS
SELECT s.name AS structure, s.cell, lower(s.kind) AS kind, h.kind AS hex_kind, h.terrain
FROM structures AS s
JOIN hexes AS h ON h.cell = s.cell;
